//! Reaching the Bot API: the first contact at start (`getMe`), retried with backoff while Telegram
//! cannot be reached, and the backoff the poller uses after a failed poll.
//!
//! A network that is not up yet, a DNS failure or a Bot API that answers 5xx is waited out: one
//! log line per attempt names the API URL (never the token, which is part of every request's URL)
//! and the error, and `/healthz` reports unhealthy meanwhile. A token Telegram rejects is not
//! going to get better: it ends the start at once with a message that says so.

use std::time::Duration;

use teloxide::types::Me;
use teloxide::{ApiError, RequestError};
use tokio_util::sync::CancellationToken;

use crate::backoff::Backoff;
use crate::telegram::bot::TelegramBot;

/// The waits between attempts to reach Telegram: 1, 2, 4, then every 5 seconds, so the bot is
/// back within seconds of Telegram.
pub fn telegram_backoff() -> Backoff {
    Backoff::new(Duration::from_secs(1), Duration::from_secs(5))
}

/// Why the bot could not start talking to Telegram.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error(
        "Telegram rejected the bot token (TELOXIDE_TOKEN): check it with @BotFather; the Bot API \
         at {api_url} answered that it is not valid"
    )]
    InvalidToken { api_url: String },
    #[error("stopped before Telegram could be reached")]
    Stopped,
}

/// Asks Telegram who the bot is, retrying with backoff until it answers or `shutdown` is
/// cancelled. An invalid token fails at once.
pub async fn connect(
    bot: &TelegramBot,
    api_url: &str,
    shutdown: &CancellationToken,
) -> Result<Me, ConnectError> {
    let mut backoff = telegram_backoff();
    let mut attempt = 0_u32;
    loop {
        attempt += 1;
        let error = tokio::select! {
            () = shutdown.cancelled() => return Err(ConnectError::Stopped),
            result = bot.get_me().send() => match result {
                Ok(me) => return Ok(me),
                Err(error) => error,
            },
        };
        if matches!(error, RequestError::Api(ApiError::InvalidToken)) {
            return Err(ConnectError::InvalidToken {
                api_url: api_url.to_owned(),
            });
        }
        let delay = backoff.next_delay();
        crate::metrics::error("telegram_connect");
        // teloxide removes the token from the URL in network errors, so the error text is safe.
        tracing::warn!(
            api_url,
            attempt,
            retry_in_secs = delay.as_secs(),
            error = %error,
            "cannot reach the Telegram Bot API; retrying"
        );
        tokio::select! {
            () = shutdown.cancelled() => return Err(ConnectError::Stopped),
            () = tokio::time::sleep(delay) => {}
        }
    }
}
