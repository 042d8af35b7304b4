//! Where "now" comes from. Everything that needs the time asks a [`Clock`] for integer UTC
//! milliseconds, so tests can move time forward instead of sleeping.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

/// A source of the current time in UTC milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + 'static {
    fn now_ms(&self) -> i64;
}

/// The real wall clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        chrono::Utc::now().timestamp_millis()
    }
}

/// A clock that only moves when told to; shared by clones.
#[derive(Clone, Debug, Default)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    pub fn starting_at(now_ms: i64) -> Self {
        Self(Arc::new(AtomicI64::new(now_ms)))
    }

    pub fn advance_ms(&self, by_ms: i64) {
        self.0.fetch_add(by_ms, Ordering::SeqCst);
    }

    pub fn set_ms(&self, now_ms: i64) {
        self.0.store(now_ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// The start (00:00 UTC) of the day that contains `now_ms`.
pub fn start_of_utc_day_ms(now_ms: i64) -> i64 {
    const DAY_MS: i64 = 24 * 60 * 60 * 1000;
    now_ms.div_euclid(DAY_MS) * DAY_MS
}

/// Formats a time for people and for prompts, e.g. `2026-11-30 14:05 UTC`.
pub fn format_utc_ms(time_ms: i64) -> String {
    format_utc(time_ms, "%Y-%m-%d %H:%M UTC")
}

/// A time where the text around it says the zone, e.g. `2026-11-30 14:05`.
pub fn format_utc_minute(time_ms: i64) -> String {
    format_utc(time_ms, "%Y-%m-%d %H:%M")
}

/// A day for a heading, with its weekday (what "last Saturday" is counted from), e.g.
/// `2026-11-30 (Monday)`.
pub fn format_utc_day(time_ms: i64) -> String {
    format_utc(time_ms, "%Y-%m-%d (%A)")
}

/// The time of day under such a heading, e.g. `14:05`.
pub fn format_utc_time_of_day(time_ms: i64) -> String {
    format_utc(time_ms, "%H:%M")
}

/// `time_ms` in UTC by chrono's `pattern`; a time chrono cannot represent, as its milliseconds.
fn format_utc(time_ms: i64, pattern: &str) -> String {
    match chrono::DateTime::from_timestamp_millis(time_ms) {
        Some(time) => time.format(pattern).to_string(),
        None => format!("{time_ms} ms"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_of_day_is_midnight_utc() {
        // 2026-11-30 14:05:06.789 UTC
        let afternoon = 1_796_047_506_789;
        assert_eq!(format_utc_ms(afternoon), "2026-11-30 14:05 UTC");
        assert_eq!(
            format_utc_ms(start_of_utc_day_ms(afternoon)),
            "2026-11-30 00:00 UTC"
        );
        assert_eq!(format_utc_day(afternoon), "2026-11-30 (Monday)");
        assert_eq!(format_utc_time_of_day(afternoon), "14:05");
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let clock = ManualClock::starting_at(1_000);
        let shared = clock.clone();
        shared.advance_ms(500);
        assert_eq!(clock.now_ms(), 1_500);
    }
}
