//! Waits that double after each failure in a row, up to a maximum: the one backoff shared by
//! everything that retries (reaching Telegram, delivering a reply, calling the LLM, summarizing,
//! embedding).
//!
//! It only computes durations; sleeping, giving up and time budgets stay with the callers, which
//! differ in all three. Beside it, [`LastingFailure`]: how a background job that keeps retrying
//! logs a failure that lasts (once, not at every attempt).

use std::time::Duration;

/// Doubling waits between attempts, from `first` up to `max`.
#[derive(Clone, Debug)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    failures: u32,
}

impl Backoff {
    pub const fn new(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            failures: 0,
        }
    }

    /// The wait after `failures` failures in a row (the first failure waits `first`).
    pub fn delay_after(&self, failures: u32) -> Duration {
        let doublings = failures.saturating_sub(1).min(16);
        self.first.saturating_mul(1 << doublings).min(self.max)
    }

    /// The wait before the next attempt; each call doubles the following one, up to the maximum.
    pub fn next_delay(&mut self) -> Duration {
        self.failures = self.failures.saturating_add(1);
        self.delay_after(self.failures)
    }

    /// After a success: the next failure waits the shortest time again.
    pub fn reset(&mut self) {
        self.failures = 0;
    }
}

/// Whether a background job's last attempt failed, so that a lasting failure (a server down, a
/// full disk) is logged once as a warning, then at debug level while it lasts, and its end once.
#[derive(Debug)]
pub struct LastingFailure {
    /// What the job does, for the log lines: "embedding", "indexing new messages for search".
    job: &'static str,
    failing: bool,
}

impl LastingFailure {
    pub const fn new(job: &'static str) -> Self {
        Self {
            job,
            failing: false,
        }
    }

    /// Whether the last attempt failed.
    pub fn is_failing(&self) -> bool {
        self.failing
    }

    /// After a successful attempt.
    pub fn worked(&mut self) {
        if self.failing {
            tracing::info!("{} works again", self.job);
        }
        self.failing = false;
    }

    /// After a failed attempt, which the job tries again later.
    pub fn failed(&mut self, error: &dyn std::fmt::Display) {
        if self.failing {
            tracing::debug!(error = %error, "{} failed again", self.job);
        } else {
            tracing::warn!(error = %error, "{} failed; trying again later", self.job);
        }
        self.failing = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_its_maximum_and_starts_over_after_a_success() {
        let mut backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(5));
        let delays: Vec<u64> = (0..5).map(|_| backoff.next_delay().as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 5, 5]);
        backoff.reset();
        assert_eq!(backoff.next_delay(), Duration::from_secs(1));
    }
}
