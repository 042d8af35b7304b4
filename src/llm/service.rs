//! What the OpenAI-compatible side servers share (embeddings, transcription): the endpoint under
//! a base URL, the bearer key in a sensitive header, and an HTTP client of their own. Each
//! server's module decides which base URL and key apply and what a request looks like.

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

/// The key for a side server: its own, else the chat key when the chat provider is OpenAI (the
/// same server family). The chat key never goes to a third party's server for Anthropic.
pub(crate) fn own_or_chat_key<'a>(
    own: Option<&'a Secret>,
    llm: &'a LlmConfig,
) -> Option<&'a Secret> {
    match (own, llm.provider) {
        (Some(key), _) => Some(key),
        (None, Provider::OpenAi) => llm.api_key.as_ref(),
        (None, Provider::Anthropic) => None,
    }
}

impl ServiceEndpoint {
    /// `path` under `base`, sending `key` as a bearer token. Fails on settings that cannot work,
    /// naming the setting and never the key.
    pub fn new(
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
