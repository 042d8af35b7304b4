//! The [`LlmClient`]: one configured LLM reached over HTTP, plain or streamed, with retries
//! inside one time budget, every failure turned into an [`LlmError`].
//!
//! It owns sending, reading streams and sorting out HTTP statuses; what the requests and replies
//! look like belongs to the [`Dialect`] the configuration picked, which the client holds without
//! knowing which one it is. Nothing here may leak the API key or a provider's error body into an
//! error message: bodies are only logged at debug level, truncated and with the key masked.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use futures_util::StreamExt;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue};

use super::dialect::{Dialect, StreamDecode, StreamStep};
use super::retry::{self, Failure, Policy};
use super::sse::{SseEvent, SseParser};
use super::{ChatRequest, Completion, LlmConfig, LlmError, ModelList};

/// A client for one configured LLM. Cloning is cheap and clones share connections.
#[derive(Clone)]
pub struct LlmClient {
    http: reqwest::Client,
    inner: Arc<Inner>,
}

/// What every call needs, computed once at start-up so a bad configuration fails there.
struct Inner {
    config: LlmConfig,
    /// The models people may choose; a request names one of them or none (`LLM_MODEL`).
    models: ModelList,
    /// The provider's wire format, chosen once from the configuration.
    dialect: Box<dyn Dialect>,
    endpoint: reqwest::Url,
    /// The dialect's authentication and version headers and the body's content type.
    headers: HeaderMap,
    /// The models whose server refused tools, which are no longer offered them.
    without_tools: Mutex<HashSet<String>>,
}

impl LlmClient {
    pub fn new(config: &LlmConfig) -> anyhow::Result<Self> {
        let base = config.base_url();
        anyhow::ensure!(
            matches!(base.scheme(), "http" | "https"),
            "LLM_BASE_URL must be an http or https URL"
        );
        let dialect = config.dialect();
        let endpoint = format!("{}/{}", base.as_str().trim_end_matches('/'), dialect.path());
        let endpoint = reqwest::Url::parse(&endpoint).context("building the LLM endpoint URL")?;
        let mut headers = dialect.headers(config.api_key())?;
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
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
                models: ModelList::from_config(config),
                dialect,
                endpoint,
                headers,
                without_tools: Mutex::default(),
            }),
        })
    }

    /// The models people may choose, `LLM_MODEL` the default among them.
    pub fn models(&self) -> &ModelList {
        &self.inner.models
    }

    /// Asks for the whole reply at once.
    pub async fn complete(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        let request = self.offerable(request);
        let result = retry::with_retries(self.policy(), || self.complete_once(&request)).await;
        match self.tools_refused(&request, &result) {
            Some(without_tools) => {
                retry::with_retries(self.policy(), || self.complete_once(&without_tools)).await
            }
            None => result,
        }
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
        let request = self.offerable(request);
        let result =
            retry::with_retries(self.policy(), || self.stream_once(&request, progress)).await;
        match self.tools_refused(&request, &result) {
            Some(without_tools) => {
                retry::with_retries(self.policy(), || self.stream_once(&without_tools, progress))
                    .await
            }
            None => result,
        }
    }

    /// Whether `model` (`None`: `LLM_MODEL`) may be offered tools: not once its server said it
    /// cannot take them.
    pub fn supports_tools(&self, model: Option<&str>) -> bool {
        let model = model.unwrap_or(&self.inner.config.model);
        !self.without_tools().contains(model)
    }

    /// `request`, without its tools if its model cannot take them.
    fn offerable<'a>(&self, request: &'a ChatRequest) -> std::borrow::Cow<'a, ChatRequest> {
        if request.tools.is_empty() || self.supports_tools(request.model.as_deref()) {
            return std::borrow::Cow::Borrowed(request);
        }
        std::borrow::Cow::Owned(ChatRequest {
            tools: Vec::new(),
            ..request.clone()
        })
    }

    /// After `result`: when the server refused `request`'s tools, remembers that of its model
    /// and returns the request to send again without them.
    fn tools_refused(
        &self,
        request: &ChatRequest,
        result: &Result<Completion, LlmError>,
    ) -> Option<ChatRequest> {
        let Err(LlmError::ToolsUnsupported { status }) = result else {
            return None;
        };
        let model = request.model.as_deref().unwrap_or(&self.inner.config.model);
        tracing::warn!(
            model,
            status,
            "the model does not support tools; its turns go on without them"
        );
        self.without_tools().insert(model.to_owned());
        Some(ChatRequest {
            tools: Vec::new(),
            ..request.clone()
        })
    }

    fn without_tools(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        // Only inserts and lookups happen under the lock: a panic cannot leave it inconsistent.
        self.inner
            .without_tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
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
        Ok(self.inner.dialect.parse_completion(&body)?)
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
            let completion = self.inner.dialect.parse_completion(&body)?;
            progress.send_replace(completion.text.clone());
            return Ok(completion);
        }
        let mut decoder = self.inner.dialect.stream_decoder();
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
                let finished = apply_event(decoder.as_mut(), &event, &mut text, progress)
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
        let model = request.model.as_deref().unwrap_or(&config.model);
        let body = self
            .inner
            .dialect
            .body(model, config.max_tokens, request, stream);
        let response = self
            .http
            .post(self.inner.endpoint.clone())
            .headers(self.inner.headers.clone())
            .body(body)
            .send()
            .await
            .map_err(LlmError::Connect)?;
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let retry_after = retry::parse_retry_after(response.headers());
        let body = self.error_body(response).await;
        if !request.tools.is_empty() && status.as_u16() != 429 && mentions_tools(&body) {
            return Err(LlmError::ToolsUnsupported {
                status: status.as_u16(),
            });
        }
        Err(match status.as_u16() {
            429 => LlmError::RateLimited { retry_after },
            status @ 500..=599 => LlmError::Server { status },
            status @ 400..=499 => LlmError::Rejected { status },
            status => LlmError::BadResponse(format!("unexpected HTTP status {status}")),
        })
    }

    /// The start of a refusal's body, for telling a refusal of tools from others. Provider
    /// bodies explain failures (wrong model name, prompt too long) but may echo input, so they go
    /// to debug logs only, truncated and with the key masked.
    async fn error_body(&self, response: reqwest::Response) -> String {
        const KEPT_CHARS: usize = 1000;
        let status = response.status().as_u16();
        let Ok(body) = response.text().await else {
            return String::new();
        };
        let mut kept: String = body.chars().take(KEPT_CHARS).collect();
        if let Some(key) = self.inner.config.api_key() {
            kept = kept.replace(key.expose(), "[redacted]");
        }
        tracing::debug!(status, body = %kept, "LLM provider refused the request");
        kept
    }
}

/// Applies one stream event to the text so far and shows the new text; `Ok(true)` once the
/// stream is complete.
fn apply_event(
    decoder: &mut dyn StreamDecode,
    event: &SseEvent,
    text: &mut String,
    progress: &tokio::sync::watch::Sender<String>,
) -> Result<bool, LlmError> {
    match decoder.decode(event)? {
        StreamStep::Finished => Ok(true),
        StreamStep::Text(delta) if delta.is_empty() => Ok(false),
        StreamStep::Text(delta) => {
            text.push_str(&delta);
            progress.send_replace(text.clone());
            Ok(false)
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

/// Whether a refusal speaks of tools: servers without tool support say so in words ("does not
/// support tools", "tools param requires --jinja flag"), under varying statuses.
fn mentions_tools(body: &str) -> bool {
    let body = body.to_lowercase();
    body.contains("tool") || body.contains("function call") || body.contains("jinja")
}

fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("application/json"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::parse_flags;

    #[test]
    fn anthropic_defaults_to_its_public_api() {
        let llm = parse_flags(&["--llm-provider", "anthropic"]).unwrap();
        assert_eq!(llm.base_url().as_str(), "https://api.anthropic.com/v1");
        let client = LlmClient::new(&llm).unwrap();
        assert_eq!(
            client.inner.endpoint.as_str(),
            "https://api.anthropic.com/v1/messages"
        );
    }

    #[test]
    fn a_stream_failure_is_retryable_only_before_any_text_arrived() {
        assert!(failure(LlmError::Server { status: 500 }, "").retryable);
        assert!(!failure(LlmError::Server { status: 500 }, "Hel").retryable);
        assert!(!failure(LlmError::BadResponse("cut".to_owned()), "").retryable);
    }

    #[test]
    fn a_trailing_slash_on_the_base_url_does_not_double_up() {
        let llm = parse_flags(&["--llm-base-url", "http://localhost:8080/v1/"]).unwrap();
        let client = LlmClient::new(&llm).unwrap();
        assert_eq!(
            client.inner.endpoint.as_str(),
            "http://localhost:8080/v1/chat/completions"
        );
    }
}
