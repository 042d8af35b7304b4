//! What the OpenAI-compatible side servers share (embeddings, transcription, speech, images): which base URL and
//! key apply (their own, else the chat server's when that speaks OpenAI), the endpoint under the
//! base URL, the bearer key in a sensitive header, an HTTP client of their own, and one call
//! tried once within a time limit. Each server's module decides what a request looks like, how
//! to read the answer and what each failure means to its callers.

use std::time::Duration;

use anyhow::Context;
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderValue};

use crate::llm::{LlmConfig, Provider};
use crate::secret::Secret;

/// A side server's endpoint, with the headers every request carries.
#[derive(Clone)]
pub(crate) struct ServiceEndpoint {
    pub http: reqwest::Client,
    pub url: reqwest::Url,
    pub headers: HeaderMap,
}

/// The settings that name one side server's address and key, for the messages of a wrong one.
pub(crate) struct SettingNames {
    pub base_url: &'static str,
    pub api_key: &'static str,
}

/// A side server's own address and key, each unset meaning "the chat server's".
pub(crate) struct OwnSettings<'a> {
    pub base_url: Option<&'a reqwest::Url>,
    pub api_key: Option<&'a Secret>,
    pub names: SettingNames,
}

/// Why one call to a side server failed before its answer could be read.
#[derive(Debug)]
pub(crate) enum CallFailure {
    /// No complete answer within the time limit.
    Timeout,
    /// The server could not be reached, or the answer broke off.
    Connect(reqwest::Error),
    /// The server answered with this unsuccessful HTTP status.
    Status(u16),
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
    /// settings that cannot work, naming the setting and never the key.
    pub fn from_settings(
        own: OwnSettings<'_>,
        llm: &LlmConfig,
        path: &str,
    ) -> anyhow::Result<Option<Self>> {
        let base = match (own.base_url, llm.provider) {
            (Some(url), _) => url.clone(),
            (None, Provider::OpenAi) => llm.base_url(),
            (None, Provider::Anthropic) => return Ok(None),
        };
        let key = own_or_chat_key(own.api_key, llm);
        Self::new(&base, path, key, own.names).map(Some)
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
                return Err(CallFailure::Status(status.as_u16()));
            }
            response.bytes().await.map_err(CallFailure::Connect)
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
            let body = response.bytes().await.map_err(CallFailure::Connect)?;
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
                .map_err(CallFailure::Connect)?;
            read(response).await
        };
        tokio::time::timeout(timeout, call)
            .await
            .unwrap_or(Err(CallFailure::Timeout))
    }

    /// The HTTP client of this endpoint, for a follow-up request to the same server (an image
    /// server answering with a URL to download).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// `path` under `base`, sending `key` as a bearer token. Fails on settings that cannot work,
    /// naming the setting and never the key.
    fn new(
        base: &reqwest::Url,
        path: &str,
        key: Option<&Secret>,
        settings: SettingNames,
    ) -> anyhow::Result<Self> {
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
        Ok(Self { http, url, headers })
    }
}
