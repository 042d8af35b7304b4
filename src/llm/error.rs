//! How an LLM call fails: [`LlmError`], in kinds a caller can act on, and the one way a
//! provider's unusable JSON becomes such an error.
//!
//! No error here may carry the API key or a provider's body: errors end up in logs and, through
//! careless callers, in chats.

use std::time::Duration;

/// Why a call failed, in kinds a caller can act on (wait and retry later, fix the configuration,
/// report a broken server). Messages never contain the API key or the provider's body.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// HTTP 429 (or a rate-limit event mid-stream), still there after the retries.
    #[error("the LLM provider is rate limiting us (HTTP 429)")]
    RateLimited { retry_after: Option<Duration> },
    /// HTTP 5xx (or an overload event mid-stream), still there after the retries.
    #[error("the LLM server failed (HTTP {status})")]
    Server { status: u16 },
    /// The whole call, retries included, did not finish within `LLM_TIMEOUT_SECS`.
    #[error("the LLM call did not finish within its time budget")]
    Timeout,
    /// The server could not be reached, or the connection broke while reading the reply.
    #[error("could not reach the LLM server")]
    Connect(#[source] reqwest::Error),
    /// The server answered 2xx but with something unusable: invalid JSON, an unexpected shape, a
    /// stream that ended before its end marker.
    #[error("the LLM server sent an unusable response: {0}")]
    BadResponse(String),
    /// A 4xx other than 429: a bad key, an unknown model, a prompt over the context limit.
    /// Retrying cannot help; the configuration or the request must change.
    #[error("the LLM provider rejected the request (HTTP {status})")]
    Rejected { status: u16 },
    /// The request offered tools and the server said it cannot take them (Ollama's "does not
    /// support tools", llama.cpp without `--jinja`). The same request without tools may work.
    #[error("the LLM server does not support tools (HTTP {status})")]
    ToolsUnsupported { status: u16 },
}

impl LlmError {
    /// The HTTP status behind this error, if there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::RateLimited { .. } => Some(429),
            Self::Server { status }
            | Self::Rejected { status }
            | Self::ToolsUnsupported { status } => Some(*status),
            Self::Timeout | Self::Connect(_) | Self::BadResponse(_) => None,
        }
    }

    /// Whether the same request might succeed if sent again shortly.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            Self::RateLimited { .. } | Self::Server { .. } | Self::Connect(_)
        )
    }
}

/// The provider's `what` (a response, a stream event) read as JSON into `T`. A JSON error is
/// described by its kind and position only: serde's message can quote parts of the body, which
/// must not reach error messages.
pub(super) fn parse_json<T: serde::de::DeserializeOwned>(
    what: &str,
    json: &[u8],
) -> Result<T, LlmError> {
    serde_json::from_slice(json).map_err(|error| {
        tracing::debug!(%error, "LLM {what} is not the expected JSON");
        LlmError::BadResponse(format!(
            "the {what} is not the expected JSON ({:?} error at line {} column {})",
            error.classify(),
            error.line(),
            error.column()
        ))
    })
}
