//! What a call to the model is made of and what it returns: the conversation turns
//! ([`ChatMessage`]), the whole request ([`ChatRequest`]) and the reply ([`Completion`]).
//!
//! These are the client's domain types, shared by both dialects; how they look on the wire is
//! each dialect's business (`openai.rs`, `anthropic.rs`).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::Role;

/// One turn of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
    /// Pictures the model looks at with this turn's text. Only the turn being answered carries
    /// any: history keeps text alone, so an image travels once.
    #[serde(skip)]
    pub images: Vec<Image>,
    /// An assistant turn's requests for tools (after its text, if any).
    #[serde(skip)]
    pub tool_calls: Vec<ToolCall>,
    /// What the tools asked for in the turn before gave back (a `user` turn: Anthropic carries
    /// results in one; the OpenAI dialect sends each as its own `tool` message).
    #[serde(skip)]
    pub tool_results: Vec<ToolResult>,
}

/// A tool offered to the model: its name, what it does, and its arguments as a JSON Schema
/// object. Serialized, it is the OpenAI dialect's `function` object as it stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

/// The model's request to run a tool: the provider's id for the call, the tool's name and its
/// arguments (a JSON object; what the model wrote, parsed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: serde_json::Value,
}

/// What one tool call gave back, for the call with id `call_id`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    pub call_id: String,
    pub content: String,
    /// The tool failed; `content` says how.
    pub is_error: bool,
}

/// A picture sent to the model: its bytes and their media type (`image/jpeg`, `image/png`, ...).
#[derive(Clone, PartialEq, Eq)]
pub struct Image {
    pub media_type: &'static str,
    pub bytes: Arc<[u8]>,
}

impl std::fmt::Debug for Image {
    // The bytes say nothing to a reader of a log and can be megabytes long.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("media_type", &self.media_type)
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

impl Image {
    /// The bytes in standard base64, as both dialects carry them.
    pub fn base64(&self) -> String {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(&self.bytes)
    }
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            images: Vec::new(),
            tool_calls: Vec::new(),
            tool_results: Vec::new(),
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatRequest {
    /// The model to ask (the person's choice, or `VISION_MODEL` for a turn with a picture);
    /// `None`: the configured `LLM_MODEL`.
    pub model: Option<String>,
    pub system: String,
    pub messages: Vec<ChatMessage>,
    /// The tools the model may call in this request; empty: none offered.
    /// Shared with every other turn offered the same tools: a turn counts references instead
    /// of copying each tool's schema.
    pub tools: Vec<Arc<ToolSpec>>,
}

/// The model's reply. Token counts are `None` when the provider did not report them (many
/// streaming servers do not); they are never estimated here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    pub tokens_in: Option<u32>,
    pub tokens_out: Option<u32>,
    /// The tools the model asked to run before it answers; empty: `text` is the answer.
    pub tool_calls: Vec<ToolCall>,
}

/// Test support: a question about a picture (the first bytes of a PNG), after an earlier answer.
#[cfg(test)]
pub(super) fn picture_question() -> ChatRequest {
    let mut question = ChatMessage::user("what is this?");
    question.images.push(Image {
        media_type: "image/png",
        bytes: Arc::from(&b"\x89PNG"[..]),
    });
    ChatRequest {
        messages: vec![ChatMessage::assistant("earlier answer"), question],
        ..Default::default()
    }
}

/// Test support: one round of tools, an assistant turn calling `remember` with `{"text": "a"}`
/// as `call_id` and the user turn carrying what it gave back.
#[cfg(test)]
pub(super) fn remember_round(call_id: &str, content: &str, is_error: bool) -> Vec<ChatMessage> {
    let call = ToolCall {
        id: call_id.to_owned(),
        name: "remember".to_owned(),
        arguments: serde_json::json!({"text": "a"}),
    };
    let result = ToolResult {
        call_id: call_id.to_owned(),
        content: content.to_owned(),
        is_error,
    };
    vec![
        ChatMessage {
            tool_calls: vec![call],
            ..ChatMessage::assistant("")
        },
        ChatMessage {
            tool_results: vec![result],
            ..ChatMessage::user("")
        },
    ]
}
