//! Waking a background loop at a fixed period until shutdown: the interval every periodic job
//! shares (purge, summarizer, the admins' decisions, the database size gauge, metric upkeep), so
//! that they all treat a long pause and a shutdown alike.

use std::time::Duration;

use tokio::time::{Instant, Interval, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

/// Ticks at once, then every `period`.
pub fn every(period: Duration) -> Interval {
    starting_at(Instant::now(), period)
}

/// Ticks at `first`, then every `period`. After a long pause (a suspended laptop) it ticks once,
/// not once per missed period.
pub fn starting_at(first: Instant, period: Duration) -> Interval {
    let mut ticks = tokio::time::interval_at(first, period);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    ticks
}

/// Waits for the next tick: `true` when it came, `false` once `shutdown` is cancelled.
pub async fn next(ticks: &mut Interval, shutdown: &CancellationToken) -> bool {
    tokio::select! {
        () = shutdown.cancelled() => false,
        _ = ticks.tick() => true,
    }
}
