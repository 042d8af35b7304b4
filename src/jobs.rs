//! Background jobs. Each has a step function that does one run (tests and the CLI call it) and a
//! loop that runs it on a tokio interval until the shutdown token is cancelled.

use std::sync::Arc;

use anyhow::Context;
use tokio::sync::watch;
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::{HistoryConfig, MemoryConfig, StorageConfig, duration_ms};
use crate::llm::LlmClient;
use crate::memory::summary::{extractive_summary, parse_summary_answer, summary_request};
use crate::storage::{ConversationKey, PurgeCounts, SessionRecord, Store};

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

/// Sessions summarized per look, so one look stays short and a backlog drains over a few.
const SUMMARIES_PER_LOOK: i64 = 8;

/// What one look of the summarizer did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SummarizerReport {
    /// Open sessions found idle past the timeout and closed.
    pub closed_idle: u64,
    /// Sessions summarized by the model.
    pub summarized: u32,
    /// Sessions given the extractive summary after repeated failures.
    pub extracted: u32,
    /// Failed attempts that will be retried later.
    pub failed: u32,
    /// Sessions without messages, marked done.
    pub empty: u32,
}

/// Everything the summarizer needs; cheap to clone.
#[derive(Clone)]
pub struct Summarizer {
    pub store: Store,
    pub llm: LlmClient,
    pub clock: Arc<dyn Clock>,
    pub redactor: crate::memory::redact::Redactor,
    pub session_idle_ms: i64,
    pub max_attempts: i64,
    pub retry_ms: i64,
}

impl Summarizer {
    pub fn new(
        store: Store,
        llm: LlmClient,
        clock: Arc<dyn Clock>,
        redactor: crate::memory::redact::Redactor,
        history: &HistoryConfig,
        memory: &MemoryConfig,
    ) -> Self {
        Self {
            store,
            llm,
            clock,
            redactor,
            session_idle_ms: duration_ms(history.session_idle()),
            max_attempts: i64::from(memory.summary_max_attempts),
            retry_ms: i64::try_from(memory.summary_retry_secs.saturating_mul(1_000))
                .unwrap_or(i64::MAX),
        }
    }

    /// One look: closes sessions idle past the timeout (also those left open when the process
    /// stopped), then summarizes closed sessions that have no summary yet and are due.
    pub async fn summarize_pending_once(&self) -> anyhow::Result<SummarizerReport> {
        let now_ms = self.clock.now_ms();
        let mut report = SummarizerReport {
            closed_idle: self
                .store
                .close_idle_sessions(now_ms - self.session_idle_ms)
                .await
                .context("cannot close idle sessions")?,
            ..SummarizerReport::default()
        };
        let due = self
            .store
            .sessions_awaiting_summary(now_ms, SUMMARIES_PER_LOOK)
            .await
            .context("cannot list sessions awaiting a summary")?;
        for session in due {
            self.summarize_session(&session, &mut report).await?;
        }
        Ok(report)
    }

    async fn summarize_session(
        &self,
        session: &SessionRecord,
        report: &mut SummarizerReport,
    ) -> anyhow::Result<()> {
        let key = ConversationKey::new(session.chat_id, session.user_id);
        let mut messages = self
            .store
            .session_messages(session.id)
            .await
            .context("cannot read a session")?;
        if messages.is_empty() {
            self.store.mark_session_summarized(session.id).await?;
            report.empty += 1;
            return Ok(());
        }
        // Secrets never reach the model, not even the summarizer's.
        for message in &mut messages {
            message.content = self.redactor.redact(&message.content).into_owned();
        }
        let notes: Vec<String> = self
            .store
            .notes(key)
            .await?
            .into_iter()
            .map(|note| note.note)
            .collect();
        let request = summary_request(&messages, &notes);
        let now_ms = self.clock.now_ms();
        match self.llm.complete(&request).await {
            Ok(answer) if !answer.text.trim().is_empty() => {
                let parsed = parse_summary_answer(&answer.text);
                self.store
                    .add_summary(session.id, key, &parsed.summary, now_ms)
                    .await?;
                if let Some(new_notes) = parsed.notes {
                    self.store
                        .replace_notes(key, &new_notes, session.id, now_ms)
                        .await?;
                }
                report.summarized += 1;
            }
            outcome => {
                let attempts = session.summary_attempts + 1;
                match outcome {
                    Err(error) => {
                        tracing::warn!(error = ?error, session_id = session.id, attempts, "summarizing a session failed")
                    }
                    Ok(_) => tracing::warn!(
                        session_id = session.id,
                        attempts,
                        "the model returned an empty summary"
                    ),
                }
                if attempts >= self.max_attempts {
                    self.store
                        .add_summary(session.id, key, &extractive_summary(&messages), now_ms)
                        .await?;
                    report.extracted += 1;
                } else {
                    // Back off: retry_ms, then twice that, four times, ...
                    let wait_ms = self
                        .retry_ms
                        .saturating_mul(1_i64 << (attempts - 1).min(20));
                    self.store
                        .record_summary_failure(session.id, now_ms.saturating_add(wait_ms))
                        .await?;
                    report.failed += 1;
                }
            }
        }
        Ok(())
    }
}

/// Runs [`Summarizer::summarize_pending_once`] right away (sessions closed while the process was
/// down are picked up first) and then every `interval`, until `shutdown` is cancelled. It runs
/// beside the chat turns and never delays a reply.
pub async fn run_summarizer_job(
    summarizer: Summarizer,
    interval: std::time::Duration,
    shutdown: CancellationToken,
) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = shutdown.cancelled() => break,
            _ = ticks.tick() => {}
        }
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
