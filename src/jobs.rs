//! Scheduling of the background jobs: when the purge and the summarizer run, and how they stop.
//! Each job has a step function that does one run (tests and the CLI call it): the purge's is
//! [`purge_once`], the summarizer's is [`Summarizer::summarize_pending_once`] in
//! [`crate::memory::summarizer`]. The loops here run a step on a tokio interval until the
//! shutdown token is cancelled, and [`spawn_watched`] starts a loop so that `/healthz` and
//! `/metrics` see it stop, whether it ends or panics. What a run does is not decided here.
//!
//! Replicas sharing one database run the jobs on one of them at a time ([`lead_background_jobs`]
//! elects it; [`while_leading`] runs a job only while its replica leads), so that no job works on
//! the same rows twice. A standby replica takes over when the leader stops.

use std::sync::Arc;

use anyhow::Context;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::{StorageConfig, duration_ms};
use crate::memory::summarizer::{Summarizer, SummarizerReport};
use crate::metrics::BackgroundJobs;
use crate::storage::{PurgeCounts, SoleTask, Store};
use crate::ticks;

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
    let mut ticks = ticks::starting_at(first_run, config.purge_interval());
    while ticks::next(&mut ticks, &shutdown).await {
        // A purge in progress is not interrupted mid-batch: each batch commits on its own, so
        // finishing the current run is short and leaves nothing half-done.
        match purge_once(&store, clock.as_ref(), &config).await {
            Ok(counts) => {
                tracing::info!(
                    messages = counts.messages,
                    sessions = counts.sessions,
                    summaries = counts.summaries,
                    processed_updates = counts.processed_updates,
                    settings = counts.settings,
                    usage_days = counts.usage_days,
                    "purged old rows"
                );
                reports.send_replace(Some(counts));
            }
            Err(error) => tracing::error!(error = ?error, "purge job run failed"),
        }
    }
    tracing::debug!("purge job stopped");
}

/// Runs [`Summarizer::summarize_pending_once`] right away (sessions closed while the process was
/// down are picked up first) and then every `interval`, until `shutdown` is cancelled. It runs
/// beside the chat turns and never delays a reply.
pub async fn run_summarizer_job(
    summarizer: Summarizer,
    interval: std::time::Duration,
    shutdown: CancellationToken,
) {
    let mut ticks = ticks::every(interval);
    while ticks::next(&mut ticks, &shutdown).await {
        match summarizer.summarize_pending_once().await {
            Ok(report) if report != SummarizerReport::default() => tracing::info!(
                closed_idle = report.closed_idle,
                summarized = report.summarized,
                extracted = report.extracted,
                failed = report.failed,
                "summarizer look"
            ),
            Ok(_) => {}
            Err(error) => tracing::error!(error = ?error, "summarizer look failed"),
        }
    }
    tracing::debug!("summarizer job stopped");
}

/// Spawns the background job `name` as a task that `jobs` reports as running until the task
/// ends, normally or by a panic.
pub fn spawn_watched(
    jobs: &BackgroundJobs,
    name: &'static str,
    job: impl Future<Output = ()> + Send + 'static,
) -> JoinHandle<()> {
    let running = jobs.start(name);
    tokio::spawn(async move {
        // Dropped when the task ends: after the job returns, or while a panic unwinds it.
        let _running = running;
        job.await;
    })
}

/// How often a replica checks that it still leads the background jobs, or, standing by, whether
/// the leader has stopped.
const LEADERSHIP_CHECK_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);

/// Elects this replica to run the background jobs when no other does, until `shutdown`: the
/// returned channel says whether it leads now. On SQLite it always does.
pub fn lead_background_jobs(store: Store, shutdown: CancellationToken) -> watch::Receiver<bool> {
    let (leading, receiver) = watch::channel(false);
    tokio::spawn(async move {
        let mut told = false;
        while !shutdown.is_cancelled() {
            match store.try_lead(SoleTask::BackgroundJobs).await {
                Ok(Some(mut leadership)) => {
                    leading.send_replace(true);
                    while leadership.is_held().await {
                        tokio::select! {
                            () = shutdown.cancelled() => return,
                            () = tokio::time::sleep(LEADERSHIP_CHECK_INTERVAL) => {}
                        }
                    }
                    tracing::warn!("lost the database connection that holds the background jobs");
                    leading.send_replace(false);
                }
                Ok(None) if !told => {
                    tracing::info!("another replica runs the background jobs; this one stands by");
                    told = true;
                }
                Ok(None) => {}
                Err(error) => {
                    tracing::warn!(error = %error, "could not ask whether another replica runs the background jobs");
                }
            }
            tokio::select! {
                () = shutdown.cancelled() => return,
                () = tokio::time::sleep(LEADERSHIP_CHECK_INTERVAL) => {}
            }
        }
    });
    receiver
}

/// Runs the job `start` makes whenever `leading` says this replica leads, stopping it (through
/// the token it was given) when the replica no longer does, until `shutdown`.
pub async fn while_leading<Job>(
    mut leading: watch::Receiver<bool>,
    shutdown: CancellationToken,
    mut start: impl FnMut(CancellationToken) -> Job,
) where
    Job: Future<Output = ()>,
{
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            led = async { leading.wait_for(|leads| *leads).await.is_ok() } => if !led { return },
        }
        let stop = shutdown.child_token();
        let job = start(stop.clone());
        tokio::pin!(job);
        tokio::select! {
            () = &mut job => return,
            _ = async { leading.wait_for(|leads| !*leads).await.is_ok() } => {
                stop.cancel();
                job.await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_watched_job_is_reported_stopped_once_it_panics() {
        let jobs = BackgroundJobs::default();
        let (release, released) = tokio::sync::oneshot::channel::<()>();
        let job = spawn_watched(&jobs, "summarizer", async move {
            let _ = released.await;
            panic!("a bug in the job");
        });
        assert_eq!(jobs.states(), [("summarizer", true)]);

        let _ = release.send(());
        let ended = job.await;

        assert!(ended.is_err_and(|error| error.is_panic()));
        assert_eq!(jobs.states(), [("summarizer", false)]);
        assert_eq!(jobs.stopped(), ["summarizer"]);
    }
}
