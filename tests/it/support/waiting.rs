//! Waiting for something to happen without sleeping a guessed time: how long a test waits before
//! it fails, and [`eventually`] for conditions nothing announces.

use std::time::Duration;

use super::fake_llm::FakeLlm;

/// How long a test waits for the bot to do something before it fails.
pub const PATIENCE: Duration = Duration::from_secs(20);

/// How often [`eventually`] looks again.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Looks at `condition` until it holds, for `patience` at most; whether it came to hold. The last
/// look is at or after the deadline, so a condition that holds by then counts.
pub async fn eventually<F, Fut>(mut condition: F, patience: Duration) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + patience;
    loop {
        if condition().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

/// Waits until the model has been asked `count` times in all, answered or not; fails the test
/// after [`PATIENCE`].
pub async fn wait_for_model_requests(llm: &FakeLlm, count: usize) {
    if tokio::time::timeout(PATIENCE, llm.wait_for_requests(count))
        .await
        .is_err()
    {
        panic!("the model was not asked {count} times");
    }
}
