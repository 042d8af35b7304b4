//! Bounded retries with exponential backoff for one LLM call, all inside one time budget.
//!
//! Only transient failures are retried (HTTP 429, 5xx, a connection that could not be made or was
//! lost) and only while nothing has been shown to the user: the caller marks a failure as not
//! retryable once a stream has produced text, because retrying would restart the text under the
//! user's eyes. This module never looks at requests or replies, so it cannot leak them into logs.

use std::future::Future;
use std::time::Duration;

use tokio::time::Instant;

use super::LlmError;
use crate::backoff::Backoff;

/// The first retry waits this long; each later one waits twice as long as the one before.
const BASE_DELAY: Duration = Duration::from_millis(250);
/// Doubling stops here, so a large retry count cannot produce absurd waits.
const MAX_BACKOFF: Duration = Duration::from_secs(10);
/// The waits between attempts when the provider does not say how long to wait.
const BACKOFF: Backoff = Backoff::new(BASE_DELAY, MAX_BACKOFF);
/// A provider may ask for minutes in `Retry-After`; a chat user will not wait that long, and the
/// time budget would cut the wait short anyway.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);

/// How hard to try: retries after the first attempt, and the time budget for everything.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Policy {
    pub max_retries: u32,
    pub budget: Duration,
}

/// A failed attempt, and whether trying again could help.
#[derive(Debug)]
pub(crate) struct Failure {
    pub error: LlmError,
    pub retryable: bool,
}

impl Failure {
    /// A failure that must not be retried, whatever its kind.
    pub fn not_retryable(error: LlmError) -> Self {
        Self {
            error,
            retryable: false,
        }
    }
}

impl From<LlmError> for Failure {
    fn from(error: LlmError) -> Self {
        let retryable = error.is_transient();
        Self { error, retryable }
    }
}

/// Runs `attempt` until it succeeds, fails for good, runs out of retries, or the budget is spent
/// (then [`LlmError::Timeout`]). The budget covers the attempts and the waits between them.
pub(crate) async fn with_retries<T, F, Fut>(policy: Policy, attempt: F) -> Result<T, LlmError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let deadline = Instant::now() + policy.budget;
    match tokio::time::timeout_at(deadline, retry_until(policy, deadline, attempt)).await {
        Ok(result) => result,
        Err(_elapsed) => Err(LlmError::Timeout),
    }
}

async fn retry_until<T, F, Fut>(
    policy: Policy,
    deadline: Instant,
    mut attempt: F,
) -> Result<T, LlmError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, Failure>>,
{
    let mut retries_done = 0;
    loop {
        let failure = match attempt().await {
            Ok(value) => return Ok(value),
            Err(failure) => failure,
        };
        if !failure.retryable || retries_done >= policy.max_retries {
            return Err(failure.error);
        }
        let delay = delay_before_retry(&failure.error, retries_done);
        // Sleeping past the deadline would only turn an informative error (rate limited, server
        // down) into a bare timeout.
        if Instant::now() + delay >= deadline {
            return Err(failure.error);
        }
        retries_done += 1;
        tracing::warn!(
            error = %failure.error,
            status = ?failure.error.status(),
            attempt = retries_done,
            max_retries = policy.max_retries,
            ?delay,
            "LLM call failed; retrying"
        );
        tokio::time::sleep(delay).await;
    }
}

/// How long to wait before retry number `retries_done + 1`: what the provider asked for, if it
/// did (capped), else exponential backoff.
fn delay_before_retry(error: &LlmError, retries_done: u32) -> Duration {
    if let LlmError::RateLimited {
        retry_after: Some(retry_after),
    } = error
    {
        return (*retry_after).min(MAX_RETRY_AFTER);
    }
    backoff(retries_done)
}

/// The backoff before retry number `retries_done + 1`, which comes after `retries_done + 1`
/// failures in a row.
fn backoff(retries_done: u32) -> Duration {
    BACKOFF.delay_after(retries_done.saturating_add(1))
}

/// Reads `Retry-After` in its seconds form. The HTTP-date form is rare from API providers and is
/// treated as absent, which falls back to backoff.
pub(crate) fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::RETRY_AFTER)?.to_str().ok()?;
    value.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue, RETRY_AFTER};

    #[test]
    fn backoff_doubles_from_a_quarter_second_and_is_capped() {
        assert_eq!(backoff(0), Duration::from_millis(250));
        assert_eq!(backoff(1), Duration::from_millis(500));
        assert_eq!(backoff(2), Duration::from_secs(1));
        assert_eq!(backoff(10), MAX_BACKOFF);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }

    #[test]
    fn retry_after_from_the_provider_wins_over_backoff_but_is_capped() {
        let asked = |seconds| LlmError::RateLimited {
            retry_after: Some(Duration::from_secs(seconds)),
        };
        assert_eq!(delay_before_retry(&asked(2), 0), Duration::from_secs(2));
        assert_eq!(delay_before_retry(&asked(3600), 0), MAX_RETRY_AFTER);
        let unspecified = LlmError::RateLimited { retry_after: None };
        assert_eq!(delay_before_retry(&unspecified, 1), backoff(1));
    }

    #[test]
    fn retry_after_is_read_in_seconds_and_other_forms_are_ignored() {
        let headers_with = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(RETRY_AFTER, HeaderValue::from_static(value));
            headers
        };
        assert_eq!(
            parse_retry_after(&headers_with(" 7 ")),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            parse_retry_after(&headers_with("Wed, 21 Oct 2015 07:28:00 GMT")),
            None
        );
        assert_eq!(parse_retry_after(&HeaderMap::new()), None);
    }

    #[test]
    fn only_rate_limits_server_errors_and_connection_problems_are_retryable() {
        assert!(Failure::from(LlmError::RateLimited { retry_after: None }).retryable);
        assert!(Failure::from(LlmError::Server { status: 503 }).retryable);
        assert!(!Failure::from(LlmError::Rejected { status: 401 }).retryable);
        assert!(!Failure::from(LlmError::BadResponse("x".into())).retryable);
        assert!(!Failure::from(LlmError::Timeout).retryable);
        assert!(!Failure::not_retryable(LlmError::Server { status: 500 }).retryable);
    }
}
