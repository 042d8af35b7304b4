//! Per-user limits on what reaches the model: how many of a person's messages may wait for an
//! answer at once (`USER_MAX_PENDING`) and how many may arrive in a minute
//! (`USER_MESSAGES_PER_MINUTE`). A message past a limit is not answered by the model; the person
//! hears about it once per burst, not once per message. Administrators are exempt.
//!
//! The counts live in memory: after a restart everybody starts with a clean slate, and the
//! messages a person had waiting are handled again without being counted (they were let in once).
//! With replicas (PostgreSQL), what the other replicas hold of the person's messages
//! ([`LoadElsewhere`], read in the statement that stored the message) counts too, so the limits
//! hold per person across replicas.

use std::collections::{HashSet, VecDeque};

use crate::per_person::{ActivePeople, Load, forget_older_than_a_minute, quiet_for_a_minute};
use crate::storage::{LoadElsewhere, UserId};

/// The limits as configured; `None` turns one off.
#[derive(Clone, Debug, Default)]
pub struct LimitSettings {
    pub max_pending: Option<u32>,
    pub per_minute: Option<u32>,
    pub exempt: HashSet<UserId>,
}

/// Why a message was turned away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// Too many of the person's messages are still waiting for an answer.
    Pending(u32),
    /// Too many messages in the last minute.
    PerMinute(u32),
}

/// What to do with one message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    Accepted,
    /// Turned away; `notify` is true for the first message of a burst past the limit.
    Refused {
        limit: Limit,
        notify: bool,
    },
}

#[derive(Debug, Default)]
struct UserLoad {
    /// Messages let in and not answered yet (the one being answered included).
    pending: u32,
    /// When the messages of the last minute were let in, oldest first.
    recent_ms: VecDeque<i64>,
    /// The person has been told about the current burst past a limit.
    notified: bool,
}

impl Load for UserLoad {
    fn is_idle(&self, now_ms: i64) -> bool {
        self.pending == 0 && quiet_for_a_minute(&self.recent_ms, now_ms)
    }
}

/// The counts of every person with messages in the last minute or waiting.
#[derive(Debug)]
pub struct UserLimits {
    settings: LimitSettings,
    users: ActivePeople<UserLoad>,
}

impl UserLimits {
    pub fn new(settings: LimitSettings) -> Self {
        Self {
            settings,
            users: ActivePeople::default(),
        }
    }

    /// Decides on a new message of `user_id` at `now_ms`, with what other replicas hold of theirs
    /// (`elsewhere`), and counts it when accepted.
    pub fn admit(&mut self, user_id: UserId, now_ms: i64, elsewhere: LoadElsewhere) -> Admission {
        if self.settings.exempt.contains(&user_id) {
            return Admission::Accepted;
        }
        let settings = &self.settings;
        let load = self.users.load_at(user_id, now_ms);
        forget_older_than_a_minute(&mut load.recent_ms, now_ms);
        let pending = load.pending.saturating_add(elsewhere.unfinished);
        let recent = load
            .recent_ms
            .len()
            .saturating_add(elsewhere.last_minute as usize);
        let over = match (settings.max_pending, settings.per_minute) {
            (Some(max), _) if pending >= max => Some(Limit::Pending(max)),
            (_, Some(max)) if recent >= max as usize => Some(Limit::PerMinute(max)),
            _ => None,
        };
        if let Some(limit) = over {
            let notify = !load.notified;
            load.notified = true;
            return Admission::Refused { limit, notify };
        }
        load.notified = false;
        load.pending += 1;
        if settings.per_minute.is_some() {
            load.recent_ms.push_back(now_ms);
        }
        Admission::Accepted
    }

    /// Counts a message let in without a decision (one the last run had already let in).
    pub fn admit_unconditionally(&mut self, user_id: UserId) {
        if !self.settings.exempt.contains(&user_id) {
            self.users.load(user_id).pending += 1;
        }
    }

    /// One of the person's messages let in has been answered (or otherwise finished).
    pub fn finished(&mut self, user_id: UserId) {
        if let Some(load) = self.users.get_mut(user_id) {
            load.pending = load.pending.saturating_sub(1);
        }
    }

    /// How many people are being counted (for tests of the memory bound).
    pub fn tracked_users(&self) -> usize {
        self.users.tracked()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn admit(limits: &mut UserLimits, user_id: UserId, now_ms: i64) -> Admission {
        limits.admit(user_id, now_ms, LoadElsewhere::default())
    }

    fn limits(max_pending: Option<u32>, per_minute: Option<u32>) -> UserLimits {
        UserLimits::new(LimitSettings {
            max_pending,
            per_minute,
            exempt: HashSet::from([UserId(99)]),
        })
    }

    #[test]
    fn past_the_pending_limit_messages_are_refused_and_the_person_is_told_once() {
        let mut limits = limits(Some(2), None);
        assert_eq!(admit(&mut limits, UserId(1), 0), Admission::Accepted);
        assert_eq!(admit(&mut limits, UserId(1), 0), Admission::Accepted);
        let refusals: Vec<Admission> = (0..5).map(|_| admit(&mut limits, UserId(1), 0)).collect();
        assert_eq!(
            refusals[0],
            Admission::Refused {
                limit: Limit::Pending(2),
                notify: true
            }
        );
        assert!(refusals[1..].iter().all(|admission| *admission
            == Admission::Refused {
                limit: Limit::Pending(2),
                notify: false
            }));
    }

    #[test]
    fn an_answered_message_makes_room_and_a_later_burst_is_told_again() {
        let mut limits = limits(Some(1), None);
        assert_eq!(admit(&mut limits, UserId(1), 0), Admission::Accepted);
        assert!(matches!(
            admit(&mut limits, UserId(1), 0),
            Admission::Refused { notify: true, .. }
        ));
        limits.finished(UserId(1));
        assert_eq!(admit(&mut limits, UserId(1), 0), Admission::Accepted);
        assert!(matches!(
            admit(&mut limits, UserId(1), 0),
            Admission::Refused { notify: true, .. }
        ));
    }

    #[test]
    fn the_per_minute_limit_counts_the_last_sixty_seconds() {
        let mut limits = limits(None, Some(3));
        for at in [0, 10_000, 20_000] {
            assert_eq!(admit(&mut limits, UserId(1), at), Admission::Accepted);
            limits.finished(UserId(1));
        }
        assert_eq!(
            admit(&mut limits, UserId(1), 59_999),
            Admission::Refused {
                limit: Limit::PerMinute(3),
                notify: true
            }
        );
        assert_eq!(admit(&mut limits, UserId(1), 60_000), Admission::Accepted);
    }

    #[test]
    fn one_persons_load_never_limits_another() {
        let mut limits = limits(Some(1), Some(1));
        assert_eq!(admit(&mut limits, UserId(1), 0), Admission::Accepted);
        assert!(matches!(
            admit(&mut limits, UserId(1), 0),
            Admission::Refused { .. }
        ));
        assert_eq!(admit(&mut limits, UserId(2), 0), Admission::Accepted);
    }

    #[test]
    fn administrators_are_exempt() {
        let mut limits = limits(Some(1), Some(1));
        for _ in 0..100 {
            assert_eq!(admit(&mut limits, UserId(99), 0), Admission::Accepted);
        }
    }

    #[test]
    fn people_idle_for_a_minute_are_forgotten() {
        let mut limits = limits(Some(5), Some(20));
        for user in 0..2_000 {
            admit(&mut limits, UserId(user), 0);
            limits.finished(UserId(user));
        }
        admit(&mut limits, UserId(5_000), 0);
        admit(&mut limits, UserId(5_000), 61_000);
        assert_eq!(limits.tracked_users(), 1, "only the one waiting is kept");
    }

    #[test]
    fn what_other_replicas_hold_of_the_person_counts_against_both_limits() {
        let mut limits = limits(Some(3), Some(5));
        let busy_elsewhere = LoadElsewhere {
            unfinished: 2,
            last_minute: 2,
        };
        let chatty_elsewhere = LoadElsewhere {
            unfinished: 0,
            last_minute: 4,
        };

        let first = limits.admit(UserId(1), 0, busy_elsewhere);
        let second = limits.admit(UserId(1), 0, busy_elsewhere);
        limits.finished(UserId(1));
        let third = limits.admit(UserId(1), 0, chatty_elsewhere);

        assert_eq!(first, Admission::Accepted);
        assert_eq!(
            second,
            Admission::Refused {
                limit: Limit::Pending(3),
                notify: true
            }
        );
        assert_eq!(
            third,
            Admission::Refused {
                limit: Limit::PerMinute(5),
                notify: false
            }
        );
    }
}
