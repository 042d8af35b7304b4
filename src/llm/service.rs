//! What the OpenAI-compatible side servers share (embeddings, transcription, speech, images): which
//! base URL and key apply (their own, else the chat server's when that speaks OpenAI), the
//! endpoint under the base URL with the model its requests ask for, the bearer key in a sensitive
//! header, an HTTP client of their own, one call tried once within a time limit, and what a failed
//! call means ([`CallFailure`]: no answer, unreachable, refused, failed). Each server's module
//! decides what a request looks like and how to read the answer.

use std::time::Duration;

use anyhow::Context;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};

use crate::llm::server_settings::{ServerSettings, SideServer};
use crate::llm::{LlmConfig, Provider};
use crate::secret::Secret;

/// A side server's endpoint, with the headers every request carries and the model requests ask
/// for.
#[derive(Clone)]
pub(crate) struct ServiceEndpoint {
    pub http: reqwest::Client,
    pub url: reqwest::Url,
    pub headers: HeaderMap,
    pub model: String,
    /// The server's name in failures (`speech`: "could not reach the speech server").
    server: &'static str,
}

/// The URL and the model, never the headers: they carry the key.
impl std::fmt::Debug for ServiceEndpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.url, self.model)
    }
}

/// Why one call to a side server failed before its answer could be read. Messages name the
/// server and never carry its key or its body.
#[derive(Debug, thiserror::Error)]
pub enum CallFailure {
    /// No complete answer within the time limit.
    #[error("the {server} server did not answer in time")]
    Timeout { server: &'static str },
    /// The server could not be reached, or the answer broke off.
    #[error("could not reach the {server} server")]
    Connect {
        server: &'static str,
        #[source]
        error: reqwest::Error,
    },
    /// 4xx other than 429: the server refused the request; sending it again cannot help.
    #[error("the {server} server refused the request (HTTP {status})")]
    Refused { server: &'static str, status: u16 },
    /// 429 or 5xx: the server is busy or broken; later may work.
    #[error("the {server} server failed (HTTP {status})")]
    Failed { server: &'static str, status: u16 },
}

impl CallFailure {
    /// A short fixed name for metrics and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Timeout { .. } => "timeout",
            Self::Connect { .. } => "connect",
            Self::Refused { .. } => "refused",
            Self::Failed { .. } => "failed",
        }
    }
}

/// The key for a side server: its own, else the chat key when the chat provider is OpenAI (the
/// same server family). The chat key never goes to a third party's server for Anthropic.
fn own_or_chat_key<'a>(own: Option<&'a Secret>, llm: &'a LlmConfig) -> Option<&'a Secret> {
    match (own, llm.provider) {
        (Some(key), _) => Some(key),
        (None, Provider::OpenAi) => llm.api_key.as_ref(),
        (None, Provider::Anthropic) => None,
    }
}

impl ServiceEndpoint {
    /// `path` under the side server's own base URL, else under the chat server's when the chat
    /// provider is OpenAI; `None` when there is neither (Anthropic serves only chat). Fails on
    /// settings that cannot work (a blank model among them), naming the setting and never the
    /// key.
    pub fn from_settings<S: SideServer>(
        own: &ServerSettings<S>,
        llm: &LlmConfig,
        path: &str,
    ) -> anyhow::Result<Option<Self>> {
        let base = match (own.base_url.as_ref(), llm.provider) {
            (Some(url), _) => url.clone(),
            (None, Provider::OpenAi) => llm.base_url(),
            (None, Provider::Anthropic) => return Ok(None),
        };
        let key = own_or_chat_key(own.api_key.as_ref(), llm);
        let model = own.required_model()?;
        Self::new::<S>(&base, path, key, model).map(Some)
    }

    /// The call took longer than its time limit.
    pub fn timed_out(&self) -> CallFailure {
        CallFailure::Timeout {
            server: self.server,
        }
    }

    /// The server could not be reached, or its answer broke off.
    pub fn unreachable(&self, error: reqwest::Error) -> CallFailure {
        CallFailure::Connect {
            server: self.server,
            error,
        }
    }

    /// What an unsuccessful HTTP `status` means: 429 and 5xx a busy or broken server, any other
    /// a refusal.
    pub fn status_failure(&self, status: u16) -> CallFailure {
        let server = self.server;
        match status {
            429 | 500..=599 => CallFailure::Failed { server, status },
            _ => CallFailure::Refused { server, status },
        }
    }

    /// Posts one request, its body set by `with_body` (JSON, a form), and reads the whole
    /// successful answer, all within `timeout`. Tried once: the caller decides what a failure
    /// means. The server's body on a failure is never read, so it cannot leak into errors.
    pub async fn post(
        &self,
        timeout: Duration,
        with_body: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> Result<impl AsRef<[u8]>, CallFailure> {
        self.exchange(timeout, with_body, |response| async move {
            let status = response.status();
            if !status.is_success() {
                return Err(self.status_failure(status.as_u16()));
            }
            response
                .bytes()
                .await
                .map_err(|error| self.unreachable(error))
        })
        .await
    }

    /// Posts one request like [`Self::post`], but hands back the answer of any status with its
    /// body, for a server whose refusals say why (an image server's safety system). Only a
    /// timeout and a broken connection are failures here.
    pub async fn post_reading_any_answer(
        &self,
        timeout: Duration,
        with_body: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
    ) -> Result<(u16, impl AsRef<[u8]>), CallFailure> {
        self.exchange(timeout, with_body, |response| async move {
            let status = response.status().as_u16();
            let body = response
                .bytes()
                .await
                .map_err(|error| self.unreachable(error))?;
            Ok((status, body))
        })
        .await
    }

    /// Sends one request and reads its answer with `read`, all within `timeout`.
    async fn exchange<T, Reading>(
        &self,
        timeout: Duration,
        with_body: impl FnOnce(reqwest::RequestBuilder) -> reqwest::RequestBuilder,
        read: impl FnOnce(reqwest::Response) -> Reading,
    ) -> Result<T, CallFailure>
    where
        Reading: Future<Output = Result<T, CallFailure>>,
    {
        let request = self
            .http
            .post(self.url.clone())
            .headers(self.headers.clone());
        let call = async {
            let response = with_body(request)
                .send()
                .await
                .map_err(|error| self.unreachable(error))?;
            read(response).await
        };
        tokio::time::timeout(timeout, call)
            .await
            .unwrap_or_else(|_| Err(self.timed_out()))
    }

    /// The HTTP client of this endpoint, for a follow-up request to the same server (an image
    /// server answering with a URL to download).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// `path` under `base`, sending `key` as a bearer token. Fails on settings that cannot work,
    /// naming the setting and never the key.
    fn new<S: SideServer>(
        base: &reqwest::Url,
        path: &str,
        key: Option<&Secret>,
        model: &str,
    ) -> anyhow::Result<Self> {
        let settings = &S::NAMES;
        anyhow::ensure!(
            matches!(base.scheme(), "http" | "https"),
            "{} must be an http or https URL",
            settings.base_url
        );
        let url = format!("{}/{path}", base.as_str().trim_end_matches('/'));
        let url = reqwest::Url::parse(&url)
            .with_context(|| format!("building the endpoint URL from {}", settings.base_url))?;
        let mut headers = HeaderMap::new();
        if let Some(key) = key.filter(|key| !key.is_empty()) {
            // The parse error does not include the value, so it is safe to report.
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
                .with_context(|| {
                    format!(
                        "{} contains characters not allowed in an HTTP header",
                        settings.api_key
                    )
                })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .build()
            .context("building an HTTP client")?;
        Ok(Self {
            http,
            url,
            headers,
            model: model.to_owned(),
            server: settings.server,
        })
    }
}
