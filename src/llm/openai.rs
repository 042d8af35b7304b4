//! The OpenAI chat-completions dialect (`POST {base}/chat/completions`), which OpenAI, Ollama,
//! vLLM, llama.cpp and most other servers speak: [`OpenAiDialect`]. This module only builds
//! headers and request bodies and reads responses and stream events; sending, retrying and error
//! mapping by HTTP status live in the client (`client.rs`).
//!
//! Compatible servers differ in what they stream: many send no usage even when asked, some send
//! a role-only first chunk, chunks with an empty `delta` or empty `choices`. All of that is normal
//! and must be tolerated; only the `[DONE]` marker tells a finished stream from a cut-off one.

use reqwest::header::{AUTHORIZATION, HeaderName};
use serde::{Deserialize, Serialize};

use super::dialect::{
    Dialect, StreamDecode, StreamStep, ToolCallPieces, WireContent, arguments_text, json_body,
};
use super::error::parse_json;
use super::sse::SseEvent;
use super::{ChatMessage, ChatRequest, Completion, LlmError, Role, ToolCall, ToolSpec};
use crate::secret::Secret;

/// The OpenAI chat-completions dialect; the key, if any, travels as a bearer token.
pub(super) struct OpenAiDialect;

impl Dialect for OpenAiDialect {
    fn path(&self) -> &'static str {
        "chat/completions"
    }

    fn key_header(&self, key: &Secret) -> (HeaderName, String) {
        (AUTHORIZATION, format!("Bearer {}", key.expose()))
    }

    fn stream_decoder(&self) -> Box<dyn StreamDecode> {
        Box::<StreamDecoder>::default()
    }

    /// The system prompt travels as the first `system` message; a turn's tool results travel
    /// as one `tool` message each.
    fn body(&self, model: &str, max_tokens: u32, request: &ChatRequest, stream: bool) -> Vec<u8> {
        let system = (!request.system.is_empty()).then(|| Message {
            role: "system",
            content: Some(WireContent::Text(&request.system)),
            ..Message::default()
        });
        let messages = system
            .into_iter()
            .chain(request.messages.iter().flat_map(messages))
            .collect();
        json_body(&Body {
            model,
            messages,
            max_tokens,
            stream,
            // Without this OpenAI itself never reports usage in a stream; servers that do not
            // know the option ignore it.
            stream_options: stream.then_some(StreamOptions {
                include_usage: true,
            }),
            tools: request.tools.iter().map(|spec| tool(spec)).collect(),
        })
    }

    fn parse_completion(&self, body: &[u8]) -> Result<Completion, LlmError> {
        let response: Response = parse_json("response", body)?;
        let choice = response
            .choices
            .into_iter()
            .next()
            .ok_or_else(|| LlmError::BadResponse("the response has no choices".to_owned()))?;
        let usage = response.usage.unwrap_or_default();
        let mut pieces = ToolCallPieces::default();
        for call in &choice.message.tool_calls {
            add_piece(&mut pieces, call);
        }
        Ok(Completion {
            text: choice.message.content.unwrap_or_default(),
            tokens_in: usage.prompt_tokens,
            tokens_out: usage.completion_tokens,
            tool_calls: pieces.finish(),
        })
    }
}

#[derive(Debug, Serialize)]
struct Body<'a> {
    model: &'a str,
    messages: Vec<Message<'a>>,
    max_tokens: u32,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
}

/// One message on the wire. Its content is a string, or for a turn with pictures the list of
/// parts that vision models read (the text, then each image as a `data:` URL); `null` for an
/// assistant turn that only called tools.
#[derive(Debug, Default, Serialize)]
struct Message<'a> {
    role: &'static str,
    content: Option<WireContent<'a, Part<'a>>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_calls: Vec<WireToolCall<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_call_id: Option<&'a str>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl },
}

#[derive(Debug, Serialize)]
struct ImageUrl {
    url: String,
}

/// A tool offered to the model, as a function.
#[derive(Debug, Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: &'a ToolSpec,
}

fn tool(spec: &ToolSpec) -> Tool<'_> {
    Tool {
        kind: "function",
        function: spec,
    }
}

/// An earlier call of a tool, replayed with the assistant turn that made it.
#[derive(Debug, Serialize)]
struct WireToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CalledFunction<'a>,
}

#[derive(Debug, Serialize)]
struct CalledFunction<'a> {
    name: &'a str,
    /// The arguments as JSON text, as the API has them.
    arguments: String,
}

/// The wire messages of one turn: the turn itself, then one `tool` message per result.
fn messages(message: &ChatMessage) -> Vec<Message<'_>> {
    let results = message.tool_results.iter().map(|result| Message {
        role: "tool",
        content: Some(WireContent::Text(&result.content)),
        tool_call_id: Some(&result.call_id),
        ..Message::default()
    });
    // A turn that only carries results has no text of its own to send.
    let carries_only_results = !message.tool_results.is_empty() && message.content.is_empty();
    let own = (!carries_only_results).then(|| turn(message));
    results.chain(own).collect()
}

fn turn(message: &ChatMessage) -> Message<'_> {
    let tool_calls: Vec<WireToolCall<'_>> = message
        .tool_calls
        .iter()
        .map(|call| WireToolCall {
            id: &call.id,
            kind: "function",
            function: CalledFunction {
                name: &call.name,
                arguments: arguments_text(&call.arguments),
            },
        })
        .collect();
    let content = if message.images.is_empty() {
        let text_is_empty = message.content.is_empty() && !tool_calls.is_empty();
        (!text_is_empty).then_some(WireContent::Text(&message.content))
    } else {
        let text = Part::Text {
            text: &message.content,
        };
        let images = message.images.iter().map(|image| Part::ImageUrl {
            image_url: ImageUrl {
                url: format!("data:{};base64,{}", image.media_type, image.base64()),
            },
        });
        Some(WireContent::Parts(
            std::iter::once(text).chain(images).collect(),
        ))
    };
    Message {
        role: role_name(message.role),
        content,
        tool_calls,
        tool_call_id: None,
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

fn add_piece(pieces: &mut ToolCallPieces, call: &ResponseToolCall) {
    let function = call.function.as_ref();
    let arguments = function.and_then(|function| function.arguments.as_ref());
    // Most servers send the arguments as JSON text; a few send the object itself.
    let arguments = match arguments {
        Some(serde_json::Value::String(text)) => text.clone(),
        Some(serde_json::Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    let name = function.and_then(|function| function.name.as_deref());
    match call.index {
        Some(index) => pieces.add(index, call.id.as_deref(), name, &arguments),
        None => pieces.add_unplaced(call.id.as_deref(), name, &arguments),
    }
}

#[derive(Debug, Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Debug, Deserialize)]
struct Response {
    choices: Vec<Choice>,
    usage: Option<Usage>,
}

#[derive(Debug, Deserialize)]
struct Choice {
    message: ResponseMessage,
}

#[derive(Debug, Deserialize)]
struct ResponseMessage {
    /// `null` when the model answered with tool calls only.
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ResponseToolCall>,
}

/// A tool call, whole in a response, in pieces in a stream (the position, then the id and name,
/// then fragments of the arguments).
#[derive(Debug, Deserialize)]
struct ResponseToolCall {
    index: Option<u64>,
    id: Option<String>,
    function: Option<ResponseFunction>,
}

#[derive(Debug, Deserialize)]
struct ResponseFunction {
    name: Option<String>,
    arguments: Option<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
struct Usage {
    prompt_tokens: Option<u32>,
    completion_tokens: Option<u32>,
}

#[derive(Debug, Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    usage: Option<Usage>,
    /// Some servers (Ollama, vLLM) report a failure mid-stream as a chunk with an `error` field.
    error: Option<serde::de::IgnoredAny>,
}

#[derive(Debug, Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Delta,
}

#[derive(Debug, Default, Deserialize)]
struct Delta {
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ResponseToolCall>,
}

/// The end-of-stream marker; a stream without it was cut off.
const DONE: &str = "[DONE]";

/// Follows one streamed response, remembering the usage if the server reports it.
#[derive(Debug, Default)]
struct StreamDecoder {
    usage: Usage,
    tool_calls: ToolCallPieces,
}

impl StreamDecode for StreamDecoder {
    fn decode(&mut self, event: &SseEvent) -> Result<StreamStep, LlmError> {
        if event.data == DONE {
            return Ok(StreamStep::Finished);
        }
        let chunk: Chunk = parse_json("stream chunk", event.data.as_bytes())?;
        if chunk.error.is_some() {
            return Err(LlmError::BadResponse(
                "the server reported an error in the middle of the stream".to_owned(),
            ));
        }
        if let Some(usage) = chunk.usage {
            self.usage = usage;
        }
        // We never ask for more than one choice, so only the first can carry our text.
        let Some(choice) = chunk.choices.into_iter().next() else {
            return Ok(StreamStep::Text(String::new()));
        };
        for call in &choice.delta.tool_calls {
            add_piece(&mut self.tool_calls, call);
        }
        Ok(StreamStep::Text(choice.delta.content.unwrap_or_default()))
    }

    fn tool_calls(&mut self) -> Vec<ToolCall> {
        self.tool_calls.finish()
    }

    fn tokens_in(&self) -> Option<u32> {
        self.usage.prompt_tokens
    }

    fn tokens_out(&self) -> Option<u32> {
        self.usage.completion_tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::chat::{picture_question, remember_round};
    use serde_json::json;

    fn event(data: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: data.to_owned(),
        }
    }

    /// The body sent for `request`, as JSON.
    fn body(model: &str, request: &ChatRequest, stream: bool) -> serde_json::Value {
        serde_json::from_slice(&OpenAiDialect.body(model, 10, request, stream)).unwrap()
    }
    #[test]
    fn the_system_prompt_is_the_first_message_and_is_omitted_when_empty() {
        let mut request = ChatRequest {
            model: None,
            system: "be brief".to_owned(),
            messages: vec![ChatMessage::user("hi")],
            ..Default::default()
        };
        let with_system = body("m", &request, false);
        assert_eq!(
            with_system,
            json!({
                "model": "m",
                "messages": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi"}
                ],
                "max_tokens": 10,
                "stream": false
            })
        );
        request.system.clear();
        let without_system = body("m", &request, true);
        assert_eq!(
            without_system["messages"],
            json!([{"role": "user", "content": "hi"}])
        );
        assert_eq!(
            without_system["stream_options"],
            json!({"include_usage": true})
        );
    }

    #[test]
    fn a_turn_with_a_picture_sends_its_text_and_the_image_as_a_data_url() {
        let value = body("llava", &picture_question(), false);
        assert_eq!(
            value["messages"],
            json!([
                {"role": "assistant", "content": "earlier answer"},
                {"role": "user", "content": [
                    {"type": "text", "text": "what is this?"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw=="}}
                ]}
            ])
        );
    }

    #[test]
    fn a_response_without_content_or_usage_is_an_empty_completion_without_numbers() {
        let completion = OpenAiDialect
            .parse_completion(br#"{"choices":[{"message":{"role":"assistant","content":null}}]}"#)
            .unwrap();
        assert_eq!(completion.text, "");
        assert_eq!(completion.tokens_in, None);
        assert_eq!(completion.tokens_out, None);
    }

    #[test]
    fn a_response_without_choices_is_bad() {
        let error = OpenAiDialect
            .parse_completion(br#"{"choices":[]}"#)
            .unwrap_err();
        assert!(matches!(error, LlmError::BadResponse(_)));
    }

    #[test]
    fn role_only_empty_and_usage_chunks_carry_no_text() {
        let mut decoder = StreamDecoder::default();
        for data in [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{}}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}"#,
        ] {
            let step = decoder.decode(&event(data)).unwrap();
            assert!(matches!(step, StreamStep::Text(text) if text.is_empty()));
        }
        assert_eq!(decoder.tokens_in(), Some(3));
        assert_eq!(decoder.tokens_out(), Some(4));
        assert!(matches!(
            decoder.decode(&event("[DONE]")).unwrap(),
            StreamStep::Finished
        ));
    }

    #[test]
    fn an_error_chunk_mid_stream_is_a_bad_response() {
        let mut decoder = StreamDecoder::default();
        let error = decoder
            .decode(&event(r#"{"error":{"message":"model crashed"}}"#))
            .unwrap_err();
        assert!(matches!(error, LlmError::BadResponse(_)));
        assert!(!error.to_string().contains("model crashed"));
    }

    #[test]
    fn tool_calls_in_pieces_become_whole_calls_and_a_server_without_ids_gets_some() {
        let mut decoder = StreamDecoder::default();
        for data in [
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"remember","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"text\":"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"hi\"}"}}]}}]}"#,
            // Ollama: a whole call in one chunk, without an index or an id, arguments an object.
            r#"{"choices":[{"delta":{"tool_calls":[{"function":{"name":"search_memory","arguments":{"query":"x"}}}]}}]}"#,
        ] {
            decoder.decode(&event(data)).unwrap();
        }
        let calls = decoder.tool_calls();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].id, "call_a");
        assert_eq!(calls[0].arguments, json!({"text": "hi"}));
        assert_eq!(calls[1].name, "search_memory");
        assert!(!calls[1].id.is_empty());
        assert_eq!(calls[1].arguments, json!({"query": "x"}));
    }

    #[test]
    fn tools_are_offered_as_functions_and_results_follow_the_call_as_tool_messages() {
        let request = ChatRequest {
            messages: [
                vec![ChatMessage::user("hi")],
                remember_round("c1", "noted", false),
            ]
            .concat(),
            tools: vec![std::sync::Arc::new(ToolSpec {
                name: "remember".to_owned(),
                description: "keep a note".to_owned(),
                parameters: json!({"type": "object", "properties": {}}),
            })],
            ..Default::default()
        };
        let value = body("m", &request, false);
        assert_eq!(
            value["tools"],
            json!([{"type": "function", "function": {"name": "remember", "description": "keep a note",
                    "parameters": {"type": "object", "properties": {}}}}])
        );
        assert_eq!(
            value["messages"],
            json!([
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "remember", "arguments": "{\"text\":\"a\"}"}}
                ]},
                {"role": "tool", "content": "noted", "tool_call_id": "c1"}
            ])
        );
    }
}
