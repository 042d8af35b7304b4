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

use super::dialect::{Dialect, StreamDecode, StreamStep, WireContent, WireMessage, json_body};
use super::error::parse_json;
use super::sse::SseEvent;
use super::{ChatMessage, ChatRequest, Completion, LlmError, Role};
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

    /// The system prompt travels as the first `system` message.
    fn body(&self, model: &str, max_tokens: u32, request: &ChatRequest, stream: bool) -> Vec<u8> {
        let system = (!request.system.is_empty()).then(|| Message {
            role: Role::System,
            content: WireContent::Text(&request.system),
        });
        let messages = system
            .into_iter()
            .chain(request.messages.iter().map(message))
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
        Ok(Completion {
            text: choice.message.content.unwrap_or_default(),
            tokens_in: usage.prompt_tokens,
            tokens_out: usage.completion_tokens,
            tool_calls: Vec::new(),
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
}

/// A message's content is a string, or for a turn with pictures the list of parts that vision
/// models read (the text, then each image as a `data:` URL).
type Message<'a> = WireMessage<'a, Part<'a>>;

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

fn message(message: &ChatMessage) -> Message<'_> {
    WireMessage::new(message, |message| {
        let text = Part::Text {
            text: &message.content,
        };
        let images = message.images.iter().map(|image| Part::ImageUrl {
            image_url: ImageUrl {
                url: format!("data:{};base64,{}", image.media_type, image.base64()),
            },
        });
        std::iter::once(text).chain(images).collect()
    })
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
}

/// The end-of-stream marker; a stream without it was cut off.
const DONE: &str = "[DONE]";

/// Follows one streamed response, remembering the usage if the server reports it.
#[derive(Debug, Default)]
struct StreamDecoder {
    usage: Usage,
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
        let text = chunk
            .choices
            .into_iter()
            .next()
            .and_then(|choice| choice.delta.content)
            .unwrap_or_default();
        Ok(StreamStep::Text(text))
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
    use crate::llm::chat::picture_question;
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
}
