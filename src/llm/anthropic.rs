//! The Anthropic Messages dialect (`POST {base}/messages`): [`AnthropicDialect`]. This module
//! only builds headers and request bodies and reads responses and stream events; sending,
//! retrying and error mapping by HTTP status live in the client (`client.rs`).
//!
//! Anthropic takes the system prompt as a top-level `system` field and accepts only `user` and
//! `assistant` turns, so any `system` turn in the history is folded into that field. A stream is
//! complete only after `message_stop`; usage arrives in `message_start` (input) and
//! `message_delta` (output).

use std::borrow::Cow;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::{Deserialize, Serialize};

use super::dialect::{
    Dialect, StreamDecode, StreamStep, ToolCallPieces, WireContent, WireMessage, json_body,
};
use super::error::parse_json;
use super::sse::SseEvent;
use super::{ChatMessage, ChatRequest, Completion, LlmError, Role, ToolCall, ToolSpec};
use crate::secret::Secret;

/// The API version this module is written against, sent as `anthropic-version`.
const API_VERSION: &str = "2023-06-01";

/// The Anthropic Messages dialect; the key, if any, travels as `x-api-key`.
pub(super) struct AnthropicDialect;

impl Dialect for AnthropicDialect {
    fn path(&self) -> &'static str {
        "messages"
    }

    fn key_header(&self, key: &Secret) -> (HeaderName, String) {
        (
            HeaderName::from_static("x-api-key"),
            key.expose().to_owned(),
        )
    }

    fn fixed_headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(API_VERSION),
        );
        headers
    }

    fn stream_decoder(&self) -> Box<dyn StreamDecode> {
        Box::<StreamDecoder>::default()
    }

    /// `system` turns in the history join the system prompt in the top-level `system` field.
    fn body(&self, model: &str, max_tokens: u32, request: &ChatRequest, stream: bool) -> Vec<u8> {
        let (system_turns, conversation): (Vec<&ChatMessage>, Vec<&ChatMessage>) = request
            .messages
            .iter()
            .partition(|message| message.role == Role::System);
        let system = if system_turns.is_empty() {
            Cow::Borrowed(request.system.as_str())
        } else {
            let parts = std::iter::once(request.system.as_str())
                .chain(system_turns.iter().map(|message| message.content.as_str()))
                .filter(|part| !part.is_empty());
            Cow::Owned(parts.collect::<Vec<_>>().join("\n\n"))
        };
        json_body(&Body {
            model,
            system,
            messages: conversation.into_iter().map(message).collect(),
            max_tokens,
            stream,
            tools: request.tools.iter().map(|spec| tool(spec)).collect(),
        })
    }

    fn parse_completion(&self, body: &[u8]) -> Result<Completion, LlmError> {
        let response: Response = parse_json("response", body)?;
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        for block in response.content {
            match block {
                ContentBlock::Text { text: part } => text.push_str(&part),
                ContentBlock::ToolUse { id, name, input } => {
                    tool_calls.push(ToolCall {
                        id,
                        name,
                        arguments: input,
                    });
                }
                ContentBlock::Other => {}
            }
        }
        let usage = response.usage.unwrap_or_default();
        Ok(Completion {
            text,
            tokens_in: usage.input_tokens,
            tokens_out: usage.output_tokens,
            tool_calls,
        })
    }
}

#[derive(Debug, Serialize)]
struct Body<'a> {
    model: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    system: Cow<'a, str>,
    messages: Vec<Message<'a>>,
    max_tokens: u32,
    stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
}

#[derive(Debug, Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a serde_json::Value,
}

fn tool(spec: &ToolSpec) -> Tool<'_> {
    Tool {
        name: &spec.name,
        description: &spec.description,
        input_schema: &spec.parameters,
    }
}

/// A turn's content is a string, or a list of blocks: for a turn with pictures, the images first
/// (Anthropic's advice: a picture before the question about it) and the text last; for a turn
/// with tool calls, its text and then each call; for a turn with tool results, the results first,
/// as the API requires.
type Message<'a> = WireMessage<'a, Block<'a>>;

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Image {
        source: ImageSource<'a>,
    },
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: &'a serde_json::Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
        is_error: bool,
    },
}

#[derive(Debug, Serialize)]
struct ImageSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'a str,
    data: String,
}

fn message(message: &ChatMessage) -> Message<'_> {
    if message.tool_calls.is_empty() && message.tool_results.is_empty() {
        return WireMessage::new(message, |message| {
            let images = message.images.iter().map(image);
            images.chain(std::iter::once(text(message))).collect()
        });
    }
    let results = message.tool_results.iter().map(|result| Block::ToolResult {
        tool_use_id: &result.call_id,
        content: &result.content,
        is_error: result.is_error,
    });
    // The API refuses empty text blocks: a turn that only calls tools or only answers them
    // carries none.
    let text = (!message.content.is_empty()).then(|| text(message));
    let calls = message.tool_calls.iter().map(|call| Block::ToolUse {
        id: &call.id,
        name: &call.name,
        input: &call.arguments,
    });
    let images = message.images.iter().map(image);
    Message {
        role: message.role,
        content: WireContent::Parts(results.chain(images).chain(text).chain(calls).collect()),
    }
}

fn image(image: &crate::llm::Image) -> Block<'_> {
    Block::Image {
        source: ImageSource {
            kind: "base64",
            media_type: image.media_type,
            data: image.base64(),
        },
    }
}

fn text(message: &ChatMessage) -> Block<'_> {
    Block::Text {
        text: &message.content,
    }
}

#[derive(Debug, Deserialize)]
struct Response {
    content: Vec<ContentBlock>,
    usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: serde_json::Value,
    },
    /// Thinking and future block kinds carry no reply text.
    #[serde(other)]
    Other,
}

#[derive(Debug, Default, Deserialize)]
struct Usage {
    input_tokens: Option<u32>,
    output_tokens: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        message: StartedMessage,
    },
    ContentBlockStart {
        index: u64,
        content_block: StartedBlock,
    },
    ContentBlockDelta {
        #[serde(default)]
        index: u64,
        delta: Delta,
    },
    MessageDelta {
        usage: Option<Usage>,
    },
    MessageStop,
    Error {
        error: ProviderError,
    },
    /// `ping`, `content_block_stop` and event kinds added later.
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct StartedMessage {
    usage: Option<Usage>,
}

/// A content block as it opens: a tool call names itself here, its input follows in pieces.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum StartedBlock {
    ToolUse {
        id: String,
        name: String,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Delta {
    #[serde(rename = "text_delta")]
    Text { text: String },
    /// A piece of a tool call's input, as JSON text.
    #[serde(rename = "input_json_delta")]
    InputJson { partial_json: String },
    /// Thinking deltas carry no reply text.
    #[serde(other)]
    Other,
}

#[derive(Debug, Deserialize)]
struct ProviderError {
    #[serde(rename = "type")]
    kind: String,
}

/// Follows one streamed response, remembering the usage it reports.
#[derive(Debug, Default)]
struct StreamDecoder {
    tokens_in: Option<u32>,
    tokens_out: Option<u32>,
    tool_calls: ToolCallPieces,
}

impl StreamDecode for StreamDecoder {
    fn decode(&mut self, event: &SseEvent) -> Result<StreamStep, LlmError> {
        let parsed: Event = parse_json("stream event", event.data.as_bytes())?;
        match parsed {
            Event::MessageStart { message } => {
                if let Some(usage) = message.usage {
                    self.tokens_in = usage.input_tokens;
                }
            }
            Event::ContentBlockDelta {
                delta: Delta::Text { text },
                ..
            } => return Ok(StreamStep::Text(text)),
            Event::ContentBlockStart {
                index,
                content_block: StartedBlock::ToolUse { id, name },
            } => self.tool_calls.add(index, Some(&id), Some(&name), ""),
            Event::ContentBlockDelta {
                index,
                delta: Delta::InputJson { partial_json },
            } => self.tool_calls.add(index, None, None, &partial_json),
            Event::MessageDelta { usage: Some(usage) } => {
                // `message_start` reports a placeholder output count; only this one is final.
                self.tokens_out = usage.output_tokens;
                if usage.input_tokens.is_some() {
                    self.tokens_in = usage.input_tokens;
                }
            }
            Event::MessageStop => return Ok(StreamStep::Finished),
            Event::Error { error } => return Err(stream_error(&error.kind)),
            Event::ContentBlockDelta { .. }
            | Event::ContentBlockStart { .. }
            | Event::MessageDelta { usage: None }
            | Event::Other => {}
        }
        Ok(StreamStep::Text(String::new()))
    }

    fn tokens_in(&self) -> Option<u32> {
        self.tokens_in
    }

    fn tokens_out(&self) -> Option<u32> {
        self.tokens_out
    }

    fn tool_calls(&mut self) -> Vec<ToolCall> {
        self.tool_calls.finish()
    }
}

/// Maps an `error` event to the error the same failure would have produced as an HTTP status,
/// so an overload reported mid-stream is retried like a 529 would be.
fn stream_error(kind: &str) -> LlmError {
    match kind {
        "overloaded_error" => LlmError::Server { status: 529 },
        "api_error" => LlmError::Server { status: 500 },
        "rate_limit_error" => LlmError::RateLimited { retry_after: None },
        _ => LlmError::BadResponse("the provider reported an error in the stream".to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::chat::{picture_question, remember_round};
    use serde_json::json;

    fn event(name: &str, data: serde_json::Value) -> SseEvent {
        SseEvent {
            event: Some(name.to_owned()),
            data: data.to_string(),
        }
    }

    /// The body sent for `request`, as JSON.
    fn body(request: &ChatRequest, stream: bool) -> serde_json::Value {
        serde_json::from_slice(&AnthropicDialect.body("claude", 5, request, stream)).unwrap()
    }

    #[test]
    fn system_turns_in_the_history_are_folded_into_the_system_field() {
        let request = ChatRequest {
            model: None,
            system: "persona".to_owned(),
            messages: vec![
                ChatMessage::new(Role::System, "summary of earlier talk"),
                ChatMessage::user("hi"),
            ],
            ..Default::default()
        };
        let value = body(&request, true);
        assert_eq!(
            value,
            json!({
                "model": "claude",
                "system": "persona\n\nsummary of earlier talk",
                "messages": [{"role": "user", "content": "hi"}],
                "max_tokens": 5,
                "stream": true
            })
        );
    }

    #[test]
    fn an_empty_system_prompt_is_not_sent() {
        let request = ChatRequest {
            model: None,
            system: String::new(),
            messages: vec![ChatMessage::user("hi")],
            ..Default::default()
        };
        let value = body(&request, false);
        assert!(value.get("system").is_none());
    }

    #[test]
    fn a_turn_with_a_picture_sends_a_base64_image_block_before_its_text() {
        let value = body(&picture_question(), false);
        assert_eq!(
            value["messages"],
            json!([
                {"role": "assistant", "content": "earlier answer"},
                {"role": "user", "content": [
                    {"type": "image", "source": {
                        "type": "base64", "media_type": "image/png", "data": "iVBORw=="
                    }},
                    {"type": "text", "text": "what is this?"}
                ]}
            ])
        );
    }

    #[test]
    fn only_text_blocks_make_up_the_reply() {
        let completion = AnthropicDialect
            .parse_completion(
                json!({
                    "content": [
                        {"type": "thinking", "thinking": "hmm"},
                        {"type": "text", "text": "Hello"},
                        {"type": "text", "text": " world"}
                    ],
                    "usage": {"input_tokens": 9, "output_tokens": 2}
                })
                .to_string()
                .as_bytes(),
            )
            .unwrap();
        assert_eq!(completion.text, "Hello world");
        assert_eq!(
            (completion.tokens_in, completion.tokens_out),
            (Some(9), Some(2))
        );
    }

    #[test]
    fn a_stream_reports_text_usage_and_its_end() {
        let mut decoder = StreamDecoder::default();
        let start = json!({"type": "message_start", "message": {"usage": {"input_tokens": 12, "output_tokens": 1}}});
        let delta = json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}});
        let usage = json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}});
        let ping = json!({"type": "ping"});
        assert!(
            matches!(decoder.decode(&event("message_start", start)).unwrap(), StreamStep::Text(t) if t.is_empty())
        );
        assert!(
            matches!(decoder.decode(&event("ping", ping)).unwrap(), StreamStep::Text(t) if t.is_empty())
        );
        assert!(
            matches!(decoder.decode(&event("content_block_delta", delta)).unwrap(), StreamStep::Text(t) if t == "Hi")
        );
        decoder.decode(&event("message_delta", usage)).unwrap();
        let stop = json!({"type": "message_stop"});
        assert!(matches!(
            decoder.decode(&event("message_stop", stop)).unwrap(),
            StreamStep::Finished
        ));
        assert_eq!(
            (decoder.tokens_in(), decoder.tokens_out()),
            (Some(12), Some(3))
        );
    }

    #[test]
    fn an_overload_reported_mid_stream_is_a_retryable_server_error() {
        let mut decoder = StreamDecoder::default();
        let overloaded = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        let error = decoder.decode(&event("error", overloaded)).unwrap_err();
        assert!(matches!(error, LlmError::Server { status: 529 }));
    }

    #[test]
    fn a_streamed_tool_use_block_becomes_a_call_after_the_text() {
        let mut decoder = StreamDecoder::default();
        let events = [
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Let me look."}}),
            ),
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "search_memory", "input": {}}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"query\": "}}),
            ),
            (
                "content_block_delta",
                json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "\"trip\"}"}}),
            ),
            (
                "content_block_stop",
                json!({"type": "content_block_stop", "index": 1}),
            ),
            // A call without input sends no delta: its arguments are an empty object.
            (
                "content_block_start",
                json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_2", "name": "now", "input": {}}}),
            ),
        ];
        let mut text = String::new();
        for (name, data) in events {
            if let StreamStep::Text(piece) = decoder.decode(&event(name, data)).unwrap() {
                text.push_str(&piece);
            }
        }
        let completion = decoder.completion(text);
        assert_eq!(completion.text, "Let me look.");
        assert_eq!(completion.tool_calls.len(), 2);
        assert_eq!(completion.tool_calls[0].id, "toolu_1");
        assert_eq!(completion.tool_calls[0].arguments, json!({"query": "trip"}));
        assert_eq!(completion.tool_calls[1].arguments, json!({}));
    }

    #[test]
    fn a_turn_calling_tools_carries_no_empty_text_block_and_results_come_first() {
        let request = ChatRequest {
            messages: remember_round("toolu_1", "failed", true),
            ..Default::default()
        };
        let value = body(&request, false);
        assert_eq!(
            value["messages"],
            json!([
                {"role": "assistant", "content": [
                    {"type": "tool_use", "id": "toolu_1", "name": "remember", "input": {"text": "a"}}
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "failed", "is_error": true}
                ]}
            ])
        );
    }
}
