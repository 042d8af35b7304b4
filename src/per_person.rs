//! Counts kept in memory per person for the per-minute limits of both front ends (Telegram
//! messages, Mini App calls): the times of a person's last minute, and the map of people that
//! forgets, once a minute, those with nothing running and nothing in the last minute, so that it
//! holds only the people active in the last two minutes.

use std::collections::{HashMap, VecDeque};

use crate::ids::UserId;

/// The window of the per-minute limits.
pub const MINUTE_MS: i64 = 60_000;

/// Drops the times (oldest first) a minute or more before `now_ms`.
pub fn forget_older_than_a_minute(times: &mut VecDeque<i64>, now_ms: i64) {
    while times.front().is_some_and(|&at| now_ms - at >= MINUTE_MS) {
        times.pop_front();
    }
}

/// Whether the last of `times` (oldest first) is a minute or more before `now_ms`, or there is
/// none.
pub fn quiet_for_a_minute(times: &VecDeque<i64>, now_ms: i64) -> bool {
    times.back().is_none_or(|&last| now_ms - last >= MINUTE_MS)
}

/// What one person's counts say about whether they may be forgotten.
pub trait Load: Default {
    /// Nothing running and nothing in the last minute: forgetting the counts changes no decision.
    fn is_idle(&self, now_ms: i64) -> bool;
}

/// The counts of every person active in the last two minutes.
#[derive(Debug, Default)]
pub struct ActivePeople<L> {
    loads: HashMap<UserId, L>,
    /// When idle people were last forgotten.
    last_sweep_ms: i64,
}

impl<L: Load> ActivePeople<L> {
    /// The counts of `user_id` at `now_ms` (new ones if they had none), after forgetting the
    /// idle people when a minute has passed since that was last done.
    pub fn load_at(&mut self, user_id: UserId, now_ms: i64) -> &mut L {
        if now_ms - self.last_sweep_ms >= MINUTE_MS {
            self.last_sweep_ms = now_ms;
            self.loads.retain(|_, load| !load.is_idle(now_ms));
        }
        self.loads.entry(user_id).or_default()
    }

    /// The counts of `user_id` (new ones if they had none), forgetting no one.
    pub fn load(&mut self, user_id: UserId) -> &mut L {
        self.loads.entry(user_id).or_default()
    }

    /// The counts of `user_id`, if they have any.
    pub fn get_mut(&mut self, user_id: UserId) -> Option<&mut L> {
        self.loads.get_mut(&user_id)
    }

    /// How many people are being counted (for tests of the memory bound).
    pub fn tracked(&self) -> usize {
        self.loads.len()
    }
}
