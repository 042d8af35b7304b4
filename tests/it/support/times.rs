//! Moments and spans in integer UTC milliseconds, as the store and the clock count time: the
//! midnight the tests place their messages around, and the units to move from it.

/// 2026-11-30 00:00:00 UTC: tests place their messages around a midnight on purpose.
pub const MIDNIGHT_MS: i64 = 1_795_996_800_000;

pub const SECOND_MS: i64 = 1_000;
pub const MINUTE_MS: i64 = 60 * SECOND_MS;
pub const HOUR_MS: i64 = 60 * MINUTE_MS;
pub const DAY_MS: i64 = 24 * HOUR_MS;
