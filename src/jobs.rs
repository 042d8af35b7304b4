//! Background jobs. Each has a step function that does one run (tests and the CLI call it) and a
//! loop that runs it on a tokio interval until the shutdown token is cancelled.

use std::sync::Arc;

use anyhow::Context;
use tokio::sync::watch;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::{StorageConfig, duration_ms};
use crate::storage::{PurgeCounts, Store};

/// One purge: deletes everything older than the configured retention, in batches.
pub async fn purge_once(
    store: &Store,
    clock: &dyn Clock,
    config: &StorageConfig,
) -> anyhow::Result<PurgeCounts> {
    let cutoff_ms = clock.now_ms() - duration_ms(config.purge_after());
    store
        .purge_older_than(cutoff_ms, i64::from(config.purge_batch_size))
        .await
        .context("purge of old rows failed")
}

/// Runs [`purge_once`] after `PURGE_FIRST_RUN_SECS`, then every `PURGE_INTERVAL_SECS`, until
/// `shutdown` is cancelled. A failed run is logged and retried at the next tick. Each run's
/// outcome is published on `reports` (for health checks and tests).
pub async fn run_purge_job(
    store: Store,
    clock: Arc<dyn Clock>,
    config: StorageConfig,
    reports: watch::Sender<Option<PurgeCounts>>,
    shutdown: CancellationToken,
) {
    let first_run = Instant::now() + config.purge_first_run();
    let mut ticks = tokio::time::interval_at(first_run, config.purge_interval());
    // After a long pause (a suspended laptop), run once, not once per missed interval.
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => break,
            _ = ticks.tick() => {}
        }
        // A purge in progress is not interrupted mid-batch: each batch commits on its own, so
        // finishing the current run is short and leaves nothing half-done.
        match purge_once(&store, clock.as_ref(), &config).await {
            Ok(counts) => {
                tracing::info!(
                    messages = counts.messages,
                    sessions = counts.sessions,
                    summaries = counts.summaries,
                    processed_updates = counts.processed_updates,
                    "purged old rows"
                );
                reports.send_replace(Some(counts));
            }
            Err(error) => tracing::error!(error = ?error, "purge job run failed"),
        }
    }
    tracing::debug!("purge job stopped");
}
