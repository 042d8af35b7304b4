//! The seam between the client and the API dialects: a [`Dialect`] says where a call goes, which
//! headers it carries, what its body looks like and how to read the reply, plain or streamed
//! (through a [`StreamDecode`]). `openai.rs` and `anthropic.rs` implement it; the client holds
//! the one the configuration picked and never asks which it is.
//!
//! Dialects only shape and read data: sending, retrying and mapping HTTP statuses to errors stay
//! in the client, so both dialects fail the same way.

use anyhow::Context;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;

use super::sse::SseEvent;
use super::{ChatMessage, ChatRequest, Completion, LlmError, Role};
use crate::secret::Secret;

/// One API dialect: the wire format of a provider's chat endpoint.
pub(super) trait Dialect: Send + Sync {
    /// The endpoint below the base URL.
    fn path(&self) -> &'static str;

    /// The header that carries the key, and its value for `key`.
    fn key_header(&self, key: &Secret) -> (HeaderName, String);

    /// The headers every request carries besides the key (an API version).
    fn fixed_headers(&self) -> HeaderMap {
        HeaderMap::new()
    }

    /// Authentication and version headers. The key goes in a header marked sensitive, so that
    /// HTTP-level debug output redacts it.
    fn headers(&self, api_key: Option<&Secret>) -> anyhow::Result<HeaderMap> {
        let mut headers = self.fixed_headers();
        if let Some(key) = api_key {
            let (name, value) = self.key_header(key);
            headers.insert(name, secret_header(&value)?);
        }
        Ok(headers)
    }

    /// The JSON request body for one call.
    fn body(&self, model: &str, max_tokens: u32, request: &ChatRequest, stream: bool) -> Vec<u8>;

    /// Reads a non-streaming response body.
    fn parse_completion(&self, body: &[u8]) -> Result<Completion, LlmError>;

    /// A decoder for one streamed response.
    fn stream_decoder(&self) -> Box<dyn StreamDecode>;
}

/// Follows one streamed response event by event, remembering the usage it reports.
pub(super) trait StreamDecode: Send {
    /// What one event means.
    fn decode(&mut self, event: &SseEvent) -> Result<StreamStep, LlmError>;

    fn tokens_in(&self) -> Option<u32>;

    fn tokens_out(&self) -> Option<u32>;

    /// The finished reply: the text received, with the usage the stream reported.
    fn completion(&self, text: String) -> Completion {
        Completion {
            text,
            tokens_in: self.tokens_in(),
            tokens_out: self.tokens_out(),
            tool_calls: Vec::new(),
        }
    }
}

/// What one stream event meant, as told by a dialect's decoder.
#[derive(Debug)]
pub(super) enum StreamStep {
    /// More reply text; often empty (role-only chunks, pings, usage).
    Text(String),
    /// The provider's end marker: the reply is complete.
    Finished,
}

/// One turn on the wire, as both dialects send it: a role, and either a plain string or, for a
/// turn with pictures, a list of the dialect's content parts `P`.
#[derive(Debug, Serialize)]
pub(super) struct WireMessage<'a, P> {
    pub role: Role,
    pub content: WireContent<'a, P>,
}

#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum WireContent<'a, P> {
    Text(&'a str),
    Parts(Vec<P>),
}

impl<'a, P> WireMessage<'a, P> {
    /// `message` with its text as a plain string; with pictures, as the parts `parts` makes.
    pub fn new(message: &'a ChatMessage, parts: impl FnOnce(&'a ChatMessage) -> Vec<P>) -> Self {
        let content = if message.images.is_empty() {
            WireContent::Text(&message.content)
        } else {
            WireContent::Parts(parts(message))
        };
        Self {
            role: message.role,
            content,
        }
    }
}

/// Serializes a request body. The dialects' bodies are structs of strings, numbers, booleans and
/// lists of those, which serde_json always serializes; an error is impossible.
pub(super) fn json_body(body: &impl Serialize) -> Vec<u8> {
    serde_json::to_vec(body).expect("request bodies have no map keys or types that can fail")
}

/// A header carrying the API key, marked sensitive.
fn secret_header(value: &str) -> anyhow::Result<HeaderValue> {
    // The parse error does not include the value, so it is safe to report.
    let mut header = HeaderValue::from_str(value)
        .context("LLM_API_KEY contains characters not allowed in an HTTP header")?;
    header.set_sensitive(true);
    Ok(header)
}
