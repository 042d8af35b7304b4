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
use super::{ChatMessage, ChatRequest, Completion, LlmError, Role, ToolCall};
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

    /// The tool calls the stream carried, complete once it finished.
    fn tool_calls(&mut self) -> Vec<ToolCall>;

    /// The finished reply: the text received, with the usage and tool calls the stream reported.
    fn completion(&mut self, text: String) -> Completion {
        Completion {
            text,
            tokens_in: self.tokens_in(),
            tokens_out: self.tokens_out(),
            tool_calls: self.tool_calls(),
        }
    }
}

/// Tool calls arriving in pieces, keyed by the position the provider gives each: the id and
/// name come first (or, from some servers, not at all), the arguments as JSON text in fragments.
#[derive(Debug, Default)]
pub(super) struct ToolCallPieces {
    calls: std::collections::BTreeMap<u64, PartialToolCall>,
}

#[derive(Debug, Default)]
struct PartialToolCall {
    id: String,
    name: String,
    arguments: String,
}

impl ToolCallPieces {
    /// Adds what one event said about call `index`; empty pieces change nothing.
    pub fn add(&mut self, index: u64, id: Option<&str>, name: Option<&str>, arguments: &str) {
        let call = self.calls.entry(index).or_default();
        if let Some(id) = id.filter(|id| !id.is_empty()) {
            call.id = id.to_owned();
        }
        if let Some(name) = name.filter(|name| !name.is_empty()) {
            call.name.push_str(name);
        }
        call.arguments.push_str(arguments);
    }

    /// Adds a piece that names no position (some servers send each call whole, without one):
    /// a piece with a name starts a new call, one without continues the last.
    pub fn add_unplaced(&mut self, id: Option<&str>, name: Option<&str>, arguments: &str) {
        let starts_a_call = name.is_some_and(|name| !name.is_empty());
        let index = match self.calls.keys().next_back() {
            Some(last) if starts_a_call => last + 1,
            Some(last) => *last,
            None => 0,
        };
        self.add(index, id, name, arguments);
    }

    /// The complete calls, in order. A call without an id gets one (the answer must name it);
    /// one without a name is dropped, as nothing could run it.
    pub fn finish(&mut self) -> Vec<ToolCall> {
        std::mem::take(&mut self.calls)
            .into_iter()
            .filter(|(_, call)| !call.name.is_empty())
            .map(|(index, call)| ToolCall {
                id: if call.id.is_empty() {
                    format!("call_{index}")
                } else {
                    call.id
                },
                name: call.name,
                arguments: parse_arguments(&call.arguments),
            })
            .collect()
    }
}

/// A tool call's arguments as the model wrote them: a JSON object, `{}` when it wrote nothing.
/// Anything else is kept as a string, which the tool refuses as not an object.
pub(super) fn parse_arguments(text: &str) -> serde_json::Value {
    if text.trim().is_empty() {
        return serde_json::Value::Object(serde_json::Map::new());
    }
    serde_json::from_str(text).unwrap_or_else(|_| serde_json::Value::String(text.to_owned()))
}

/// A tool call's arguments as JSON text, for replaying the call to the model.
pub(super) fn arguments_text(arguments: &serde_json::Value) -> String {
    match arguments {
        serde_json::Value::String(raw) => raw.clone(),
        other => other.to_string(),
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
