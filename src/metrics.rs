//! Process metrics in the Prometheus text format, and what `/healthz` judges besides the
//! database: the time of the last contact with Telegram and which background jobs still run. This module owns the metric names and the one global recorder; the rest
//! of the code records through the small functions below and never names a metric itself. It
//! serves nothing: [`crate::http`] renders the [`PrometheusHandle`] on `/metrics`.
//!
//! Until [`install`] has run, every recording function is a no-op (the `metrics` facade drops
//! what no recorder takes), so commands without an HTTP server pay nothing.
//!
//! # Metrics
//! | name | type | labels | meaning |
//! |---|---|---|---|
//! | `telemem_updates_received_total` | counter | | Telegram updates taken in |
//! | `telemem_updates_limited_total` | counter | `limit` (`pending`, `per_minute`) | messages turned away by a per-user limit |
//! | `telemem_replies_sent_total` | counter | | replies delivered to Telegram |
//! | `telemem_llm_latency_seconds` | histogram | `outcome` | duration of one LLM call, retries included |
//! | `telemem_tokens_total` | counter | `direction` (`in`, `out`) | tokens sent to and received from the LLM |
//! | `telemem_errors_total` | counter | `kind` | errors, by a fixed kind such as `llm_timeout` |
//! | `telemem_active_sessions` | gauge | | open conversation sessions |
//! | `telemem_database_bytes` | gauge | | size of the SQLite file (refreshed on every scrape) |
//! | `telemem_last_telegram_contact_seconds` | gauge | | Unix time of the last successful poll or webhook call |
//! | `telemem_embedding_failures_total` | counter | `path` (`turn`, `background`), `kind` | failed calls to the embedding server |
//! | `telemem_recall_by_meaning_total` | counter | `outcome` (`used`, `failed`, `paused`) | turns that asked for the new message's vector, and what came of it |
//! | `telemem_messages_waiting_for_vectors` | gauge | | messages not embedded yet |
//! | `telemem_speech_calls_total` | counter | `outcome` (`ok`, `timeout`, `failed`, `refused`, `bad_audio`, `too_long`, ...) | voice notes made by the speech server, and failures by kind |
//! | `telemem_speech_seconds_total` | counter | | seconds of speech made |
//! | `telemem_image_calls_total` | counter | `outcome` (`ok`, `unsafe`, `timeout`, `failed`, ...) | pictures drawn by the image server, and failures by kind |
//! | `telemem_media_refused_total` | counter | `kind` (`images`, `speech`) | requests refused by a daily picture or speech limit, before any call |
//! | `telemem_job_running` | gauge | `job` (`purge`, `summarizer`, `embedder`) | 1 while the background job runs, 0 once it stopped (refreshed on every scrape) |
//!
//! Label values must come from small fixed sets (never user ids or message text): each distinct
//! value is a new time series that lives as long as the process.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio_util::sync::CancellationToken;

use crate::clock::{Clock, SystemClock};
use crate::ticks;

const UPDATES_RECEIVED: &str = "telemem_updates_received_total";
const UPDATES_LIMITED: &str = "telemem_updates_limited_total";
const REPLIES_SENT: &str = "telemem_replies_sent_total";
const LLM_LATENCY: &str = "telemem_llm_latency_seconds";
const TOKENS: &str = "telemem_tokens_total";
const ERRORS: &str = "telemem_errors_total";
const ACTIVE_SESSIONS: &str = "telemem_active_sessions";
const DATABASE_BYTES: &str = "telemem_database_bytes";
const LAST_TELEGRAM_CONTACT: &str = "telemem_last_telegram_contact_seconds";
const JOB_RUNNING: &str = "telemem_job_running";
const EMBEDDING_FAILURES: &str = "telemem_embedding_failures_total";
const EMBEDDING_QUERIES: &str = "telemem_embedding_queries_total";
const WEBAPP_LIMITED: &str = "telemem_webapp_limited_total";
const RECALL_BY_MEANING: &str = "telemem_recall_by_meaning_total";
const MESSAGES_WAITING_FOR_VECTORS: &str = "telemem_messages_waiting_for_vectors";
const TOOL_CALLS: &str = "telemem_tool_calls_total";
const TOOL_LATENCY: &str = "telemem_tool_call_seconds";
const REMINDERS_SENT: &str = "telemem_reminders_sent_total";
const SPEECH_CALLS: &str = "telemem_speech_calls_total";
const SPEECH_SECONDS: &str = "telemem_speech_seconds_total";
const IMAGE_CALLS: &str = "telemem_image_calls_total";
const MEDIA_REFUSED: &str = "telemem_media_refused_total";

/// Upper bounds of the LLM latency buckets, in seconds: from a fast local model's first reply up
/// to the largest `LLM_TIMEOUT_SECS` people set for slow ones.
const LLM_LATENCY_BUCKETS: &[f64] = &[
    0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0, 120.0, 300.0,
];

/// How often [`run_upkeep`] folds recorded histogram samples into their buckets.
const UPKEEP_INTERVAL: Duration = Duration::from_secs(5);

/// The recorder can be installed once per process; every later [`install`] returns this handle
/// (or the same error), so tests and the app may all call it.
static RECORDER: OnceLock<Result<PrometheusHandle, String>> = OnceLock::new();

/// Installs the Prometheus recorder as the process-wide `metrics` recorder (once; later calls
/// return the same handle) and describes every metric.
pub fn install() -> anyhow::Result<PrometheusHandle> {
    RECORDER
        .get_or_init(build_and_install)
        .clone()
        .map_err(anyhow::Error::msg)
}

fn build_and_install() -> Result<PrometheusHandle, String> {
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(LLM_LATENCY.to_owned()), LLM_LATENCY_BUCKETS)
        .map_err(|error| format!("invalid LLM latency buckets: {error}"))?
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder)
        .map_err(|error| format!("cannot install the metrics recorder: {error}"))?;
    describe();
    Ok(handle)
}

fn describe() {
    for (name, help) in [
        (UPDATES_RECEIVED, "Telegram updates taken in"),
        (
            UPDATES_LIMITED,
            "Messages turned away by a per-user limit, by limit",
        ),
        (REPLIES_SENT, "Replies delivered to Telegram"),
        (
            TOKENS,
            "Tokens sent to (in) and received from (out) the LLM",
        ),
        (ERRORS, "Errors, by kind"),
        (
            EMBEDDING_FAILURES,
            "Failed calls to the embedding server, by path (turn, background) and kind",
        ),
        (
            EMBEDDING_QUERIES,
            "Calls to the embedding server for one query's vector, by path (turn, search)",
        ),
        (
            WEBAPP_LIMITED,
            "Mini App API calls answered 429, by limit (requests, searches, exports)",
        ),
        (
            RECALL_BY_MEANING,
            "Turns that asked for the new message's vector, by outcome (used, failed, paused)",
        ),
        (
            TOOL_CALLS,
            "Tool calls the model made, by tool (built-in name, MCP server, or unknown) and outcome",
        ),
        (
            REMINDERS_SENT,
            "Reminders delivered, by timeliness (on_time, late) or failed",
        ),
        (
            SPEECH_CALLS,
            "Voice notes made, or speech calls failed, by outcome",
        ),
        (SPEECH_SECONDS, "Seconds of voice notes made"),
        (IMAGE_CALLS, "Calls to the image server, by outcome"),
        (
            MEDIA_REFUSED,
            "Pictures and voice answers refused by a daily limit, by kind",
        ),
    ] {
        metrics::describe_counter!(name, help);
    }
    for (name, help) in [
        (ACTIVE_SESSIONS, "Open conversation sessions"),
        (MESSAGES_WAITING_FOR_VECTORS, "Messages not embedded yet"),
        (
            JOB_RUNNING,
            "1 while the background job runs, 0 once it stopped",
        ),
    ] {
        metrics::describe_gauge!(name, help);
    }
    use metrics::Unit::{Bytes, Seconds};
    for (name, unit, help) in [
        (DATABASE_BYTES, Bytes, "Size of the SQLite database file"),
        (
            LAST_TELEGRAM_CONTACT,
            Seconds,
            "Unix time of the last successful poll or webhook call from Telegram",
        ),
    ] {
        metrics::describe_gauge!(name, unit, help);
    }
    let llm = "Duration of one LLM call, retries included, by outcome";
    metrics::describe_histogram!(LLM_LATENCY, Seconds, llm);
    metrics::describe_histogram!(TOOL_LATENCY, Seconds, "Duration of one tool call, by tool");
}

/// Folds recorded histogram samples into their buckets every few seconds until `shutdown`.
/// Rendering `/metrics` does the same, but without a scraper the raw samples would pile up.
pub async fn run_upkeep(handle: PrometheusHandle, shutdown: CancellationToken) {
    let mut ticks = ticks::every(UPKEEP_INTERVAL);
    while ticks::next(&mut ticks, &shutdown).await {
        handle.run_upkeep();
    }
}

/// One Telegram update was taken in.
pub fn update_received() {
    metrics::counter!(UPDATES_RECEIVED).increment(1);
}

/// One message was turned away by the per-user `limit` (`pending` or `per_minute`).
pub fn update_limited(limit: &'static str) {
    metrics::counter!(UPDATES_LIMITED, "limit" => limit).increment(1);
}

/// One reply reached Telegram.
pub fn reply_sent() {
    metrics::counter!(REPLIES_SENT).increment(1);
}

/// One LLM call ended after `duration`. `outcome` is one of a few fixed words (`ok`, `timeout`,
/// `rate_limited`, `error`, ...), never an error message.
pub fn llm_call_finished(duration: Duration, outcome: &str) {
    metrics::histogram!(LLM_LATENCY, "outcome" => outcome.to_owned()).record(duration);
}

/// One tool call ended after `duration`. `tool` is a built-in tool's name, an MCP server's
/// name or `unknown`; `outcome` is `ok`, `error` or `timeout`.
pub fn tool_call_finished(tool: &str, duration: Duration, outcome: &'static str) {
    metrics::counter!(TOOL_CALLS, "tool" => tool.to_owned(), "outcome" => outcome).increment(1);
    metrics::histogram!(TOOL_LATENCY, "tool" => tool.to_owned()).record(duration);
}

/// One reminder was delivered (`on_time` or `late`) or given up on (`failed`).
pub fn reminder_sent(outcome: &'static str) {
    metrics::counter!(REMINDERS_SENT, "outcome" => outcome).increment(1);
}

/// Speech ended with `outcome` other than `ok` (a failure's fixed kind, never a message).
pub fn speech_call(outcome: &'static str) {
    metrics::counter!(SPEECH_CALLS, "outcome" => outcome).increment(1);
}

/// `voice_notes` voice notes of `seconds` seconds together were made.
pub fn speech_made(voice_notes: usize, seconds: u64) {
    metrics::counter!(SPEECH_CALLS, "outcome" => "ok").increment(voice_notes as u64);
    metrics::counter!(SPEECH_SECONDS).increment(seconds);
}

/// One call to the image server ended with `outcome` (`ok`, or a failure's fixed kind).
pub fn image_call(outcome: &'static str) {
    metrics::counter!(IMAGE_CALLS, "outcome" => outcome).increment(1);
}

/// A request was refused by the daily limit of `kind` (`images`, `speech`) before any call.
pub fn media_refused(kind: &'static str) {
    metrics::counter!(MEDIA_REFUSED, "kind" => kind).increment(1);
}

/// Tokens of one LLM call: `tokens_in` sent (the prompt), `tokens_out` received (the reply).
pub fn tokens(tokens_in: u64, tokens_out: u64) {
    metrics::counter!(TOKENS, "direction" => "in").increment(tokens_in);
    metrics::counter!(TOKENS, "direction" => "out").increment(tokens_out);
}

/// One error of a fixed `kind`, such as `llm_timeout`, `telegram_send` or `database`.
pub fn error(kind: &'static str) {
    metrics::counter!(ERRORS, "kind" => kind).increment(1);
}

/// A call to the embedding server failed; `path` is `turn` or `background`, `kind` one of
/// [`crate::llm::embeddings::EmbeddingError::kind`]'s words or `storage`.
pub fn embedding_failed(path: &'static str, kind: &'static str) {
    metrics::counter!(EMBEDDING_FAILURES, "path" => path, "kind" => kind).increment(1);
}

/// The embedding server was asked for one query's vector; `path` is `turn` (a chat turn's
/// recall) or `search` (a search in the Mini App).
pub fn embedding_query(path: &'static str) {
    metrics::counter!(EMBEDDING_QUERIES, "path" => path).increment(1);
}

/// A Mini App API call was turned away with 429 by `limit` (`requests`, `searches`, `exports`).
pub fn webapp_limited(limit: &'static str) {
    metrics::counter!(WEBAPP_LIMITED, "limit" => limit).increment(1);
}

/// A turn asked for its message's vector: `used`, `failed` or `paused` (skipped after a failure).
pub fn recall_by_meaning(outcome: &'static str) {
    metrics::counter!(RECALL_BY_MEANING, "outcome" => outcome).increment(1);
}

/// The number of messages still waiting for their vector.
pub fn set_messages_waiting_for_vectors(messages: u64) {
    metrics::gauge!(MESSAGES_WAITING_FOR_VECTORS).set(messages as f64);
}

/// The number of open conversation sessions now.
pub fn set_active_sessions(sessions: u64) {
    metrics::gauge!(ACTIVE_SESSIONS).set(sessions as f64);
}

/// The size of the database file now.
pub fn set_database_bytes(bytes: u64) {
    metrics::gauge!(DATABASE_BYTES).set(bytes as f64);
}

/// A poll or webhook call from Telegram succeeded just now (by the system clock).
pub fn telegram_contact() {
    telegram_contact_at(SystemClock.now_ms());
}

/// A poll or webhook call from Telegram succeeded at `now_ms` (for callers with their own
/// [`Clock`], so that tests with a manual clock see consistent times).
pub fn telegram_contact_at(now_ms: i64) {
    LAST_CONTACT.record_at(now_ms);
    metrics::gauge!(LAST_TELEGRAM_CONTACT).set(now_ms as f64 / 1_000.0);
}

/// The process-wide last contact that [`telegram_contact`] records and production's `/healthz`
/// reads.
pub fn last_telegram_contact() -> LastContact {
    LAST_CONTACT.clone()
}

static LAST_CONTACT: LazyLock<LastContact> = LazyLock::new(LastContact::default);

/// When telemem last heard from Telegram, in Unix milliseconds; shared by clones. The health
/// check takes one as a dependency, so a test can judge its own instead of the process-wide one.
#[derive(Clone, Debug, Default)]
pub struct LastContact(Arc<AtomicI64>);

/// The stored value before any contact: no real contact happens at the epoch.
const NEVER: i64 = 0;

impl LastContact {
    /// Records a contact at `now_ms`. A contact reported late (by a task that was slow to record
    /// it) never moves the time backwards.
    pub fn record_at(&self, now_ms: i64) {
        self.0.fetch_max(now_ms, Ordering::Relaxed);
    }

    /// The time of the last contact, or `None` before the first one.
    pub fn last_ms(&self) -> Option<i64> {
        Some(self.0.load(Ordering::Relaxed)).filter(|ms| *ms != NEVER)
    }
}

/// Sets `telemem_job_running` for every job in `jobs`: 1 while it runs, 0 once it stopped.
pub fn set_jobs_running(jobs: &BackgroundJobs) {
    for (job, running) in jobs.states() {
        metrics::gauge!(JOB_RUNNING, "job" => job).set(if running { 1.0 } else { 0.0 });
    }
}

/// The background jobs started so far and how many instances of each still run; shared by
/// clones. Like [`LastContact`], the health check takes one as a dependency, so a test can judge
/// its own. Instances are counted because tests run several apps in one process.
#[derive(Clone, Debug, Default)]
pub struct BackgroundJobs(Arc<Mutex<BTreeMap<&'static str, usize>>>);

impl BackgroundJobs {
    /// Records that an instance of `job` runs, until the returned value is dropped.
    pub fn start(&self, job: &'static str) -> RunningJob {
        *self.lock().entry(job).or_default() += 1;
        RunningJob {
            jobs: self.clone(),
            job,
        }
    }

    /// Every job started so far, by name, and whether it still runs.
    pub fn states(&self) -> Vec<(&'static str, bool)> {
        self.lock()
            .iter()
            .map(|(job, running)| (*job, *running > 0))
            .collect()
    }

    /// The jobs that were started and no longer run, by name.
    pub fn stopped(&self) -> Vec<&'static str> {
        self.states()
            .into_iter()
            .filter_map(|(job, running)| (!running).then_some(job))
            .collect()
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<&'static str, usize>> {
        // The map stays consistent even if a holder panicked: each update is one statement.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// One running instance of a background job; dropping it records that the instance stopped.
#[must_use = "the job counts as stopped as soon as this is dropped"]
#[derive(Debug)]
pub struct RunningJob {
    jobs: BackgroundJobs,
    job: &'static str,
}

impl Drop for RunningJob {
    fn drop(&mut self) {
        if let Some(running) = self.jobs.lock().get_mut(self.job) {
            *running = running.saturating_sub(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_contact_is_none_until_the_first_contact() {
        let contact = LastContact::default();
        assert_eq!(contact.last_ms(), None);

        contact.record_at(5_000);

        assert_eq!(contact.last_ms(), Some(5_000));
    }

    #[test]
    fn a_late_report_of_an_older_contact_does_not_move_the_time_back() {
        let contact = LastContact::default();
        contact.record_at(9_000);

        contact.record_at(4_000);

        assert_eq!(contact.last_ms(), Some(9_000));
    }

    #[test]
    fn a_job_runs_while_any_instance_of_it_runs() {
        let jobs = BackgroundJobs::default();
        let first = jobs.start("purge");
        let second = jobs.start("purge");

        drop(first);
        let after_one_stopped = jobs.states();
        drop(second);

        assert_eq!(after_one_stopped, [("purge", true)]);
        assert_eq!(jobs.stopped(), ["purge"]);
    }

    #[test]
    fn latency_buckets_are_increasing() {
        assert!(LLM_LATENCY_BUCKETS.windows(2).all(|pair| pair[0] < pair[1]));
    }
}
