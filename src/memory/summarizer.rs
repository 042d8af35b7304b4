//! The summarizer: closes sessions left idle, asks the model for each closed session's summary
//! and the conversation's notes (its own: notes added by hand stay as the person wrote them),
//! and stores them; after repeated failures it stores the extractive summary instead, so that
//! no session stays without one. Each session is isolated: an error or a panic while
//! summarizing one is a failed attempt of that session alone, never the end of a look. When to
//! look is [`crate::jobs`]' business; what to ask and how to read the answer is
//! [`crate::memory::summary`]'s.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use anyhow::Context;
use futures_util::FutureExt;

use crate::clock::Clock;
use crate::config::{HistoryConfig, MemoryConfig, duration_ms};
use crate::ids::ConversationKey;
use crate::llm::LlmClient;
use crate::memory::embedder::EmbedderWake;
use crate::memory::notes::note_updates;
use crate::memory::redact::Redactor;
use crate::memory::summary::{extractive_summary, parse_summary_answer, summary_request};
use crate::storage::{SessionRecord, Store, StoredMessage};

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
    pub redactor: Redactor,
    pub session_idle_ms: i64,
    pub max_attempts: i64,
    pub retry_ms: i64,
    /// Told when summaries or notes were stored, so that they get their vectors soon.
    pub embedder_wake: EmbedderWake,
}

impl Summarizer {
    pub fn new(
        store: Store,
        llm: LlmClient,
        clock: Arc<dyn Clock>,
        redactor: Redactor,
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
            embedder_wake: EmbedderWake::default(),
        }
    }

    /// The same summarizer, signalling `wake` when it stored summaries or notes.
    pub fn with_embedder_wake(mut self, wake: EmbedderWake) -> Self {
        self.embedder_wake = wake;
        self
    }

    /// One look: closes sessions idle past the timeout (also those left open when the process
    /// stopped), then summarizes closed sessions that have no summary yet and are due. A session
    /// that fails, by an error or a panic, fails alone: the look goes on with the others.
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
            let outcome = self.summarize_session(&session).await;
            if matches!(
                outcome,
                SessionOutcome::Summarized | SessionOutcome::Extracted
            ) {
                // A summary (and perhaps notes) to embed.
                self.embedder_wake.signal();
            }
            report.count(outcome);
        }
        Ok(report)
    }

    /// One attempt at one session. Whatever goes wrong, an error or a panic, is a failed attempt:
    /// retried after the backoff, and once the attempts are used up the extract is stored.
    async fn summarize_session(&self, session: &SessionRecord) -> SessionOutcome {
        let started_ms = self.clock.now_ms();
        let retry_at_ms = started_ms.saturating_add(self.backoff_ms(session.summary_attempts + 1));
        // Counted before the model is asked, so that an attempt that takes the whole process down
        // (an abort, the out-of-memory killer) counts too: such a session is not picked first
        // after every restart, and ends with the extract like any other failing one.
        let attempt = match self
            .store
            .begin_summary_attempt(session.id, retry_at_ms)
            .await
        {
            Ok(attempt) => attempt,
            Err(error) => {
                tracing::warn!(error = ?error, session_id = session.id, "cannot count a summary attempt");
                return SessionOutcome::Failed;
            }
        };
        let error = match isolated(self.attempt_summary(session, attempt, started_ms)).await {
            Ok(outcome) => return outcome,
            Err(error) => error,
        };
        tracing::warn!(error = ?error, session_id = session.id, attempt, "summarizing a session failed");
        if attempt >= self.max_attempts {
            return match isolated(self.store_extract(session)).await {
                Ok(outcome) => outcome,
                Err(error) => {
                    tracing::error!(error = ?error, session_id = session.id, "cannot store the extractive summary");
                    SessionOutcome::Failed
                }
            };
        }
        // The wait counts from the failure, not the start: a model call can take its whole timeout.
        let retry_at_ms = self.clock.now_ms().saturating_add(self.backoff_ms(attempt));
        if let Err(error) = self
            .store
            .schedule_summary_retry(session.id, retry_at_ms)
            .await
        {
            tracing::warn!(error = ?error, session_id = session.id, "cannot postpone a summary retry");
        }
        SessionOutcome::Failed
    }

    /// Asks the model for the session's summary and notes and stores them. Once the attempts are
    /// used up (by earlier ones that failed or never finished), stores the extract instead.
    async fn attempt_summary(
        &self,
        session: &SessionRecord,
        attempt: i64,
        now_ms: i64,
    ) -> anyhow::Result<SessionOutcome> {
        if attempt > self.max_attempts {
            return self.store_extract(session).await;
        }
        let messages = self.redacted_messages(session).await?;
        if messages.is_empty() {
            self.store.mark_session_summarized(session.id).await?;
            return Ok(SessionOutcome::Empty);
        }
        let key = ConversationKey::new(session.chat_id, session.user_id);
        // The summarizer keeps its own notes up to date; those the person added by hand are
        // theirs, so it neither sees them as its own to rewrite nor drops them.
        let notes: Vec<String> = self
            .store
            .notes(key)
            .await?
            .into_iter()
            .filter(|note| !note.added_by_hand)
            .map(|note| note.note)
            .collect();
        let answer = self
            .llm
            .complete(&summary_request(&messages, &notes))
            .await
            .context("the model call failed")?;
        let parsed = parse_summary_answer(&answer.text);
        if parsed.summary.is_empty() {
            anyhow::bail!("the model returned an empty summary");
        }
        if let Some(new_notes) = parsed.notes {
            // What the notes say holds since the session that said it, not since this run.
            let updates = note_updates(&notes, new_notes);
            self.store
                .replace_notes(
                    key,
                    &updates,
                    session.id,
                    session.last_activity_at_ms,
                    now_ms,
                )
                .await?;
        }
        // Storing the summary marks the session done, so it comes last: a failure before it
        // leaves the whole session to the next attempt.
        self.store
            .add_summary(session.id, key, &parsed.summary, now_ms)
            .await?;
        Ok(SessionOutcome::Summarized)
    }

    /// Stores the extractive summary: the session's most informative lines, without the model.
    async fn store_extract(&self, session: &SessionRecord) -> anyhow::Result<SessionOutcome> {
        let messages = self.redacted_messages(session).await?;
        if messages.is_empty() {
            self.store.mark_session_summarized(session.id).await?;
            return Ok(SessionOutcome::Empty);
        }
        let key = ConversationKey::new(session.chat_id, session.user_id);
        self.store
            .add_summary(
                session.id,
                key,
                &extractive_summary(&messages),
                self.clock.now_ms(),
            )
            .await?;
        Ok(SessionOutcome::Extracted)
    }

    /// The session's messages with secrets masked: they never reach the model, not even the
    /// summarizer's, nor a summary.
    async fn redacted_messages(
        &self,
        session: &SessionRecord,
    ) -> anyhow::Result<Vec<StoredMessage>> {
        let mut messages = self
            .store
            .session_messages(session.id)
            .await
            .context("cannot read a session")?;
        for message in &mut messages {
            message.content = self.redactor.redact(&message.content).into_owned();
        }
        Ok(messages)
    }

    /// The wait before retrying after failed attempt number `attempt`: `retry_ms`, then twice
    /// that, four times, ...
    fn backoff_ms(&self, attempt: i64) -> i64 {
        let first = std::time::Duration::from_millis(u64::try_from(self.retry_ms).unwrap_or(0));
        let backoff = crate::backoff::Backoff::new(first, std::time::Duration::MAX);
        let wait = backoff.delay_after(u32::try_from(attempt).unwrap_or(u32::MAX));
        i64::try_from(wait.as_millis()).unwrap_or(i64::MAX)
    }
}

/// What became of one session in one look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SessionOutcome {
    Summarized,
    Extracted,
    Failed,
    Empty,
}

impl SummarizerReport {
    fn count(&mut self, outcome: SessionOutcome) {
        match outcome {
            SessionOutcome::Summarized => self.summarized += 1,
            SessionOutcome::Extracted => self.extracted += 1,
            SessionOutcome::Failed => self.failed += 1,
            SessionOutcome::Empty => self.empty += 1,
        }
    }
}

/// Runs `step`, turning a panic inside it into an error, so that one bad input (a session, a
/// model's answer) fails its own step and nothing else. The panic hook has already reported
/// where it happened; the error leaves out the panic's message, which can quote the text the
/// step was working on (a summary, a conversation).
async fn isolated<T>(step: impl Future<Output = anyhow::Result<T>>) -> anyhow::Result<T> {
    // Unwind safety: what a step changes is rows in the database, each write a statement or a
    // transaction of its own, so a panic half-way leaves no broken state in memory to be reused.
    match AssertUnwindSafe(step).catch_unwind().await {
        Ok(result) => result,
        Err(_panic) => Err(anyhow::anyhow!("panicked (see the panic's log line)")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panic_in_an_isolated_step_becomes_an_error_without_its_message() {
        let answer = String::from("Ρώτησε για την πρωτεΐνη");
        let outcome = isolated(async { Ok(answer[..3].to_owned()) }).await;

        let error = outcome.expect_err("the panic is an error").to_string();
        assert!(error.starts_with("panicked"), "{error}");
        assert!(
            !error.contains("πρωτ") && !error.contains("boundary"),
            "{error}"
        );
    }

    #[tokio::test]
    async fn an_isolated_step_that_succeeds_or_fails_keeps_its_result() {
        assert_eq!(isolated(async { Ok(7) }).await.unwrap(), 7);
        let failed: anyhow::Result<()> = isolated(async { anyhow::bail!("model down") }).await;
        assert_eq!(failed.unwrap_err().to_string(), "model down");
    }
}
