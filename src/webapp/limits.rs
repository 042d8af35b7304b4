//! What one person may ask of the Mini App's API, so that an allowed person looping on it costs
//! the operator nothing much and cannot slow search by meaning down for everyone: API calls a
//! minute (`WEBAPP_REQUESTS_PER_MINUTE`), searches a minute (`WEBAPP_SEARCHES_PER_MINUTE`, each
//! may ask the embedding server for a vector) and one export at a time (each builds the whole
//! history in memory). A call past a limit is answered 429 with `Retry-After`.
//!
//! The counts are per replica and in memory: behind a balancer that spreads one person's calls
//! over `n` replicas, they may make up to `n` times as many.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use crate::config::webapp::WebAppConfig;
use crate::per_person::{
    ActivePeople, Load, MINUTE_MS, forget_older_than_a_minute, quiet_for_a_minute,
};
use crate::storage::UserId;

/// Exports one person may have running at once.
const EXPORTS_AT_ONCE: u32 = 1;

/// How long a person whose export is still being built is asked to wait.
const EXPORT_RETRY_SECS: u64 = 5;

/// The limits as configured.
#[derive(Clone, Copy, Debug)]
pub struct ApiLimitSettings {
    pub requests_per_minute: u32,
    pub searches_per_minute: u32,
}

impl ApiLimitSettings {
    pub fn from_config(config: &WebAppConfig) -> Self {
        Self {
            requests_per_minute: config.webapp_requests_per_minute,
            searches_per_minute: config.webapp_searches_per_minute,
        }
    }
}

/// Which limit turned a call away, and when to try again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limited {
    /// `requests`, `searches` or `exports`, for the metrics.
    pub limit: &'static str,
    pub retry_after_secs: u64,
}

#[derive(Debug, Default)]
struct PersonLoad {
    /// When the calls of the last minute came, oldest first.
    requests_ms: VecDeque<i64>,
    searches_ms: VecDeque<i64>,
    exports_running: u32,
}

impl Load for PersonLoad {
    fn is_idle(&self, now_ms: i64) -> bool {
        self.exports_running == 0
            && quiet_for_a_minute(&self.requests_ms, now_ms)
            && quiet_for_a_minute(&self.searches_ms, now_ms)
    }
}

/// Every person's counts; cheap to clone.
#[derive(Clone, Debug)]
pub struct ApiLimits {
    settings: ApiLimitSettings,
    people: Arc<Mutex<ActivePeople<PersonLoad>>>,
}

/// One export running; the person may start another once it is dropped.
#[derive(Debug)]
pub struct ExportTurn {
    limits: ApiLimits,
    user_id: UserId,
}

impl Drop for ExportTurn {
    fn drop(&mut self) {
        let mut people = self.limits.lock();
        if let Some(load) = people.get_mut(self.user_id) {
            load.exports_running = load.exports_running.saturating_sub(1);
        }
    }
}

impl ApiLimits {
    pub fn new(settings: ApiLimitSettings) -> Self {
        Self {
            settings,
            people: Arc::default(),
        }
    }

    /// Counts one API call of `user_id` at `now_ms`, or says when they may call again.
    pub fn admit_request(&self, user_id: UserId, now_ms: i64) -> Result<(), Limited> {
        let max = self.settings.requests_per_minute;
        self.admit(user_id, now_ms, max, "requests", |load| {
            &mut load.requests_ms
        })
    }

    /// Counts one search of `user_id` at `now_ms`, or says when they may search again.
    pub fn admit_search(&self, user_id: UserId, now_ms: i64) -> Result<(), Limited> {
        let max = self.settings.searches_per_minute;
        self.admit(user_id, now_ms, max, "searches", |load| {
            &mut load.searches_ms
        })
    }

    /// Starts an export of `user_id`, unless one is still being built.
    pub fn start_export(&self, user_id: UserId) -> Result<ExportTurn, Limited> {
        let mut people = self.lock();
        let load = people.load(user_id);
        if load.exports_running >= EXPORTS_AT_ONCE {
            return Err(Limited {
                limit: "exports",
                retry_after_secs: EXPORT_RETRY_SECS,
            });
        }
        load.exports_running += 1;
        Ok(ExportTurn {
            limits: self.clone(),
            user_id,
        })
    }

    /// How many people are being counted (for tests of the memory bound).
    pub fn tracked_people(&self) -> usize {
        self.lock().tracked()
    }

    fn admit(
        &self,
        user_id: UserId,
        now_ms: i64,
        max: u32,
        limit: &'static str,
        times: impl FnOnce(&mut PersonLoad) -> &mut VecDeque<i64>,
    ) -> Result<(), Limited> {
        let mut people = self.lock();
        let times = times(people.load_at(user_id, now_ms));
        forget_older_than_a_minute(times, now_ms);
        if times.len() >= max as usize {
            let oldest = times.front().copied().unwrap_or(now_ms);
            let wait_ms = u64::try_from(oldest + MINUTE_MS - now_ms).unwrap_or(0);
            return Err(Limited {
                limit,
                retry_after_secs: wait_ms.div_ceil(1_000).max(1),
            });
        }
        times.push_back(now_ms);
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ActivePeople<PersonLoad>> {
        self.people.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALICE: UserId = UserId(1);
    const BOB: UserId = UserId(2);

    fn limits(requests: u32, searches: u32) -> ApiLimits {
        ApiLimits::new(ApiLimitSettings {
            requests_per_minute: requests,
            searches_per_minute: searches,
        })
    }

    #[test]
    fn calls_past_the_minutes_limit_wait_until_the_oldest_leaves_the_window() {
        let limits = limits(3, 10);
        for at in [0, 10_000, 20_000] {
            assert_eq!(limits.admit_request(ALICE, at), Ok(()));
        }

        let refused = limits.admit_request(ALICE, 30_500);
        let others = limits.admit_request(BOB, 30_500);
        let after_window = limits.admit_request(ALICE, 60_000);

        assert_eq!(
            refused,
            Err(Limited {
                limit: "requests",
                retry_after_secs: 30,
            })
        );
        assert_eq!(others, Ok(()), "one person's calls never limit another");
        assert_eq!(after_window, Ok(()));
    }

    #[test]
    fn searches_have_their_own_smaller_count() {
        let limits = limits(100, 2);
        assert_eq!(limits.admit_search(ALICE, 0), Ok(()));
        assert_eq!(limits.admit_search(ALICE, 1), Ok(()));

        let third = limits.admit_search(ALICE, 2).unwrap_err();

        assert_eq!(third.limit, "searches");
        assert_eq!(third.retry_after_secs, 60);
        assert_eq!(limits.admit_request(ALICE, 2), Ok(()));
    }

    #[test]
    fn one_export_at_a_time_per_person() {
        let limits = limits(100, 10);
        let running = limits.start_export(ALICE).unwrap();

        let second = limits.start_export(ALICE).unwrap_err();
        let bobs = limits.start_export(BOB);
        drop(running);
        let after = limits.start_export(ALICE);

        assert_eq!(second.limit, "exports");
        assert!(bobs.is_ok());
        assert!(after.is_ok());
    }

    #[test]
    fn idle_people_are_forgotten() {
        let limits = limits(100, 10);
        for person in 0..1_000 {
            limits.admit_request(UserId(person), 0).unwrap();
        }

        limits.admit_request(ALICE, 2 * MINUTE_MS).unwrap();

        assert_eq!(limits.tracked_people(), 1);
    }
}
