//! The LLM client: one [`LlmClient`] that speaks either the OpenAI chat-completions dialect
//! (OpenAI, Ollama, vLLM, llama.cpp, ...) or Anthropic's Messages API, plain or streamed.
//!
//! It owns the wire: request bodies, server-sent events, retries with backoff inside one time
//! budget, and turning every failure into an [`LlmError`] the caller can branch on. It knows
//! nothing about Telegram, sessions or storage: callers hand it a finished [`ChatRequest`].
//!
//! Nothing here may leak the API key or a provider's error body into an error message: errors
//! end up in logs and, through careless callers, in chats. Bodies are only logged at debug level,
//! truncated and with the key masked.

mod anthropic;
mod openai;
mod retry;
mod sse;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use futures_util::StreamExt;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde::{Deserialize, Serialize};

pub use crate::role::Role;
use crate::secret::Secret;
use retry::{Failure, Policy};
use sse::{SseEvent, SseParser};

/// One turn of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content)
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self::new(Role::Assistant, content)
    }
}

/// Everything the model sees for one call. The system prompt is kept apart from the turns
/// because Anthropic takes it as a separate field; for OpenAI it becomes the first message.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChatRequest {
    pub system: String,
    pub messages: Vec<ChatMessage>,
}

/// The model's reply. Token counts are `None` when the provider did not report them (many
/// streaming servers do not); they are never estimated here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    pub tokens_in: Option<u32>,
    pub tokens_out: Option<u32>,
}

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
}

impl LlmError {
    /// The HTTP status behind this error, if there was one.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::RateLimited { .. } => Some(429),
            Self::Server { status } | Self::Rejected { status } => Some(*status),
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

/// Which API dialect the LLM server speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Provider {
    /// OpenAI-compatible `/chat/completions` (OpenAI, Ollama, vLLM, llama.cpp, ...).
    #[value(name = "openai")]
    OpenAi,
    /// Anthropic's `/messages`.
    Anthropic,
}

/// How to reach the LLM, from flags or environment variables.
#[derive(Clone, Debug, clap::Args)]
pub struct LlmConfig {
    /// Which API dialect the LLM server speaks.
    #[arg(
        long = "llm-provider",
        env = "LLM_PROVIDER",
        value_name = "LLM_PROVIDER",
        value_enum,
        default_value_t = Provider::OpenAi
    )]
    pub provider: Provider,

    /// Base URL of the API, up to and including the version segment. Default: a local Ollama
    /// (`http://127.0.0.1:11434/v1`) for openai, `https://api.anthropic.com/v1` for anthropic.
    #[arg(
        long = "llm-base-url",
        env = "LLM_BASE_URL",
        value_name = "LLM_BASE_URL"
    )]
    pub base_url: Option<reqwest::Url>,

    /// API key; local servers usually need none.
    #[arg(
        long = "llm-api-key",
        env = "LLM_API_KEY",
        value_name = "LLM_API_KEY",
        hide_env_values = true
    )]
    pub api_key: Option<Secret>,

    /// Model name, as the server knows it.
    #[arg(
        long = "llm-model",
        env = "LLM_MODEL",
        value_name = "LLM_MODEL",
        default_value = "llama3.2"
    )]
    pub model: String,

    /// Upper bound on the reply length, in tokens.
    #[arg(
        long = "llm-max-tokens",
        env = "LLM_MAX_TOKENS",
        value_name = "LLM_MAX_TOKENS",
        default_value_t = 1024,
        value_parser = clap::value_parser!(u32).range(1..=200_000)
    )]
    pub max_tokens: u32,

    /// Time budget for one call in seconds, retries and waits included.
    #[arg(
        long = "llm-timeout-secs",
        env = "LLM_TIMEOUT_SECS",
        value_name = "LLM_TIMEOUT_SECS",
        default_value_t = 60,
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub timeout_secs: u64,

    /// How often to retry a call after a rate limit, server error or connection failure.
    #[arg(
        long = "llm-max-retries",
        env = "LLM_MAX_RETRIES",
        value_name = "LLM_MAX_RETRIES",
        default_value_t = 3,
        value_parser = clap::value_parser!(u32).range(0..=10)
    )]
    pub max_retries: u32,
}

impl LlmConfig {
    /// The configured base URL, or the provider's usual one.
    pub fn base_url(&self) -> reqwest::Url {
        if let Some(url) = &self.base_url {
            return url.clone();
        }
        let default = match self.provider {
            Provider::OpenAi => "http://127.0.0.1:11434/v1",
            Provider::Anthropic => "https://api.anthropic.com/v1",
        };
        // Both literals above are valid URLs; the test below proves it.
        reqwest::Url::parse(default).expect("default base URLs are valid")
    }

    /// The key, unless it is unset or empty (an empty `LLM_API_KEY=` means "no key").
    fn api_key(&self) -> Option<&Secret> {
        self.api_key.as_ref().filter(|key| !key.is_empty())
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs)
    }
}

/// A client for one configured LLM. Cloning is cheap and clones share connections.
#[derive(Clone)]
pub struct LlmClient {
    http: reqwest::Client,
    inner: Arc<Inner>,
}

/// What every call needs, computed once at start-up so a bad configuration fails there.
struct Inner {
    config: LlmConfig,
    endpoint: reqwest::Url,
    /// Authentication and version headers, with the key marked sensitive so that HTTP-level
    /// debug output redacts it.
    headers: HeaderMap,
}

impl LlmClient {
    pub fn new(config: &LlmConfig) -> anyhow::Result<Self> {
        let base = config.base_url();
        anyhow::ensure!(
            matches!(base.scheme(), "http" | "https"),
            "LLM_BASE_URL must be an http or https URL"
        );
        let path = match config.provider {
            Provider::OpenAi => "chat/completions",
            Provider::Anthropic => "messages",
        };
        let endpoint = format!("{}/{path}", base.as_str().trim_end_matches('/'));
        let endpoint = reqwest::Url::parse(&endpoint).context("building the LLM endpoint URL")?;
        let headers = auth_headers(config)?;
        let http = reqwest::Client::builder()
            // The call's overall budget is enforced around each call, retries included; this
            // only stops one unreachable host from eating all of it.
            .connect_timeout(Duration::from_secs(10).min(config.timeout()))
            .build()
            .context("building the HTTP client for the LLM")?;
        Ok(Self {
            http,
            inner: Arc::new(Inner {
                config: config.clone(),
                endpoint,
                headers,
            }),
        })
    }

    /// Asks for the whole reply at once.
    pub async fn complete(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        retry::with_retries(self.policy(), || self.complete_once(request)).await
    }

    /// Streams the reply. After each piece of text, `progress` holds everything received so far,
    /// so a consumer can show the latest text at its own pace (say, one message edit a second).
    /// Returns the whole reply once the stream has finished properly; a stream that is cut off
    /// is an error, never a shorter success. Once text has arrived the call is not retried.
    pub async fn stream(
        &self,
        request: &ChatRequest,
        progress: &tokio::sync::watch::Sender<String>,
    ) -> Result<Completion, LlmError> {
        retry::with_retries(self.policy(), || self.stream_once(request, progress)).await
    }

    fn policy(&self) -> Policy {
        Policy {
            max_retries: self.inner.config.max_retries,
            budget: self.inner.config.timeout(),
        }
    }

    async fn complete_once(&self, request: &ChatRequest) -> Result<Completion, Failure> {
        let response = self.send(request, false).await?;
        let body = response.bytes().await.map_err(LlmError::Connect)?;
        Ok(self.parse_completion(&body)?)
    }

    async fn stream_once(
        &self,
        request: &ChatRequest,
        progress: &tokio::sync::watch::Sender<String>,
    ) -> Result<Completion, Failure> {
        let response = self.send(request, true).await?;
        if is_json(&response) {
            // Some OpenAI-compatible servers ignore `stream: true` and answer in one piece.
            let body = response.bytes().await.map_err(LlmError::Connect)?;
            let completion = self.parse_completion(&body)?;
            progress.send_replace(completion.text.clone());
            return Ok(completion);
        }
        let mut decoder = self.stream_decoder();
        let mut parser = SseParser::new();
        let mut text = String::new();
        let mut chunks = response.bytes_stream();
        loop {
            let (events, ended) = match chunks.next().await {
                Some(chunk) => {
                    let chunk = chunk.map_err(|error| failure(LlmError::Connect(error), &text))?;
                    (parser.push(&chunk), false)
                }
                None => (parser.finish().into_iter().collect(), true),
            };
            for event in events {
                let finished = decoder
                    .apply(&event, &mut text, progress)
                    .map_err(|error| failure(error, &text))?;
                if finished {
                    return Ok(decoder.completion(text));
                }
            }
            if ended {
                break;
            }
        }
        let cut_off = LlmError::BadResponse("the stream ended before its end marker".to_owned());
        Err(failure(cut_off, &text))
    }

    /// Sends one attempt and sorts out unsuccessful statuses.
    async fn send(
        &self,
        request: &ChatRequest,
        stream: bool,
    ) -> Result<reqwest::Response, LlmError> {
        let config = &self.inner.config;
        let body = match config.provider {
            Provider::OpenAi => Body::OpenAi(openai::body(
                &config.model,
                config.max_tokens,
                request,
                stream,
            )),
            Provider::Anthropic => Body::Anthropic(anthropic::body(
                &config.model,
                config.max_tokens,
                request,
                stream,
            )),
        };
        let response = self
            .http
            .post(self.inner.endpoint.clone())
            .headers(self.inner.headers.clone())
            .json(&body)
            .send()
            .await
            .map_err(LlmError::Connect)?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry::parse_retry_after(response.headers());
        self.log_error_body(response).await;
        Err(match status.as_u16() {
            429 => LlmError::RateLimited { retry_after },
            status @ 500..=599 => LlmError::Server { status },
            status @ 400..=499 => LlmError::Rejected { status },
            status => LlmError::BadResponse(format!("unexpected HTTP status {status}")),
        })
    }

    /// Provider bodies explain failures (wrong model name, prompt too long) but may echo input,
    /// so they go to debug logs only, truncated and with the key masked.
    async fn log_error_body(&self, response: reqwest::Response) {
        const LOGGED_BYTES: usize = 1000;
        if !tracing::enabled!(tracing::Level::DEBUG) {
            return;
        }
        let status = response.status().as_u16();
        let Ok(body) = response.text().await else {
            return;
        };
        let mut shown: String = body.chars().take(LOGGED_BYTES).collect();
        if let Some(key) = self.inner.config.api_key() {
            shown = shown.replace(key.expose(), "[redacted]");
        }
        tracing::debug!(status, body = %shown, "LLM provider refused the request");
    }

    fn parse_completion(&self, body: &[u8]) -> Result<Completion, LlmError> {
        match self.inner.config.provider {
            Provider::OpenAi => openai::parse_completion(body),
            Provider::Anthropic => anthropic::parse_completion(body),
        }
    }

    fn stream_decoder(&self) -> StreamDecoder {
        match self.inner.config.provider {
            Provider::OpenAi => StreamDecoder::OpenAi(openai::StreamDecoder::default()),
            Provider::Anthropic => StreamDecoder::Anthropic(anthropic::StreamDecoder::default()),
        }
    }
}

/// The request body of either dialect; serialized as the inner body.
#[derive(Serialize)]
#[serde(untagged)]
enum Body<'a> {
    OpenAi(openai::Body<'a>),
    Anthropic(anthropic::Body<'a>),
}

/// What one stream event meant, as told by a provider's decoder.
#[derive(Debug)]
enum StreamStep {
    /// More reply text; often empty (role-only chunks, pings, usage).
    Text(String),
    /// The provider's end marker: the reply is complete.
    Finished,
}

enum StreamDecoder {
    OpenAi(openai::StreamDecoder),
    Anthropic(anthropic::StreamDecoder),
}

impl StreamDecoder {
    /// Applies one event to the text so far; `Ok(true)` once the stream is complete.
    fn apply(
        &mut self,
        event: &SseEvent,
        text: &mut String,
        progress: &tokio::sync::watch::Sender<String>,
    ) -> Result<bool, LlmError> {
        let step = match self {
            Self::OpenAi(decoder) => decoder.decode(event)?,
            Self::Anthropic(decoder) => decoder.decode(event)?,
        };
        match step {
            StreamStep::Finished => Ok(true),
            StreamStep::Text(delta) if delta.is_empty() => Ok(false),
            StreamStep::Text(delta) => {
                text.push_str(&delta);
                progress.send_replace(text.clone());
                Ok(false)
            }
        }
    }

    fn completion(&self, text: String) -> Completion {
        let (tokens_in, tokens_out) = match self {
            Self::OpenAi(decoder) => (decoder.tokens_in(), decoder.tokens_out()),
            Self::Anthropic(decoder) => (decoder.tokens_in(), decoder.tokens_out()),
        };
        Completion {
            text,
            tokens_in,
            tokens_out,
        }
    }
}

/// A stream failure is final once text has reached the user: a retry would start over.
fn failure(error: LlmError, text_so_far: &str) -> Failure {
    if text_so_far.is_empty() {
        Failure::from(error)
    } else {
        Failure::not_retryable(error)
    }
}

fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"))
}

fn auth_headers(config: &LlmConfig) -> anyhow::Result<HeaderMap> {
    let mut headers = HeaderMap::new();
    let key = config.api_key();
    match config.provider {
        Provider::OpenAi => {
            if let Some(key) = key {
                headers.insert(
                    AUTHORIZATION,
                    secret_header(&format!("Bearer {}", key.expose()))?,
                );
            }
        }
        Provider::Anthropic => {
            if let Some(key) = key {
                headers.insert(
                    HeaderName::from_static("x-api-key"),
                    secret_header(key.expose())?,
                );
            }
            headers.insert(
                HeaderName::from_static("anthropic-version"),
                HeaderValue::from_static(anthropic::API_VERSION),
            );
        }
    }
    Ok(headers)
}

fn secret_header(value: &str) -> anyhow::Result<HeaderValue> {
    // The parse error does not include the value, so it is safe to report.
    let mut header = HeaderValue::from_str(value)
        .context("LLM_API_KEY contains characters not allowed in an HTTP header")?;
    header.set_sensitive(true);
    Ok(header)
}

/// A JSON error described by its kind and position only: serde's message can quote parts of the
/// body, which must not reach error messages.
fn invalid_json(what: &str, error: &serde_json::Error) -> LlmError {
    tracing::debug!(%error, "LLM {what} is not the expected JSON");
    LlmError::BadResponse(format!(
        "the {what} is not the expected JSON ({:?} error at line {} column {})",
        error.classify(),
        error.line(),
        error.column()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        llm: LlmConfig,
    }

    #[test]
    fn defaults_point_openai_at_a_local_ollama() {
        let cli = Cli::try_parse_from(["telemem"]).unwrap();
        assert_eq!(cli.llm.provider, Provider::OpenAi);
        assert_eq!(cli.llm.base_url().as_str(), "http://127.0.0.1:11434/v1");
        assert_eq!(cli.llm.model, "llama3.2");
        assert_eq!(
            (
                cli.llm.max_tokens,
                cli.llm.timeout_secs,
                cli.llm.max_retries
            ),
            (1024, 60, 3)
        );
        assert!(cli.llm.api_key.is_none());
    }

    #[test]
    fn anthropic_defaults_to_its_public_api() {
        let cli = Cli::try_parse_from(["telemem", "--llm-provider", "anthropic"]).unwrap();
        assert_eq!(cli.llm.base_url().as_str(), "https://api.anthropic.com/v1");
        let client = LlmClient::new(&cli.llm).unwrap();
        assert_eq!(
            client.inner.endpoint.as_str(),
            "https://api.anthropic.com/v1/messages"
        );
    }

    #[test]
    fn an_out_of_range_value_names_the_variable_and_the_range() {
        let error = Cli::try_parse_from(["telemem", "--llm-max-tokens", "0"]).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("LLM_MAX_TOKENS"), "{message}");
        assert!(message.contains("1..=200000"), "{message}");
    }

    #[test]
    fn an_unknown_provider_names_the_variable_and_the_choices() {
        let error = Cli::try_parse_from(["telemem", "--llm-provider", "gemini"]).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("LLM_PROVIDER"), "{message}");
        assert!(
            message.contains("openai") && message.contains("anthropic"),
            "{message}"
        );
    }

    #[test]
    fn the_key_is_redacted_in_the_config_debug_output() {
        let cli = Cli::try_parse_from(["telemem", "--llm-api-key", "sk-live-123"]).unwrap();
        assert!(!format!("{cli:?}").contains("sk-live-123"));
    }

    #[test]
    fn a_stream_failure_is_retryable_only_before_any_text_arrived() {
        assert!(failure(LlmError::Server { status: 500 }, "").retryable);
        assert!(!failure(LlmError::Server { status: 500 }, "Hel").retryable);
        assert!(!failure(LlmError::BadResponse("cut".to_owned()), "").retryable);
    }

    #[test]
    fn a_trailing_slash_on_the_base_url_does_not_double_up() {
        let cli = Cli::try_parse_from(["telemem", "--llm-base-url", "http://localhost:8080/v1/"])
            .unwrap();
        let client = LlmClient::new(&cli.llm).unwrap();
        assert_eq!(
            client.inner.endpoint.as_str(),
            "http://localhost:8080/v1/chat/completions"
        );
    }
}
