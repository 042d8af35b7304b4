//! What a call to the model is made of and what it returns: the conversation turns
//! ([`ChatMessage`]), the whole request ([`ChatRequest`]) and the reply ([`Completion`]).
//!
//! These are the client's domain types, shared by both dialects; how they look on the wire is
//! each dialect's business (`openai.rs`, `anthropic.rs`).

use serde::{Deserialize, Serialize};

use super::Role;

/// One turn of a conversation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: Role,
    pub content: String,
}

impl ChatMessage {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChatRequest {
    /// The model to ask; `None`: the configured `LLM_MODEL`.
    pub model: Option<String>,
    pub system: String,
    pub messages: Vec<ChatMessage>,
}

/// The model's reply. Token counts are `None` when the provider did not report them (many
/// streaming servers do not); they are never estimated here.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub text: String,
    pub tokens_in: Option<u32>,
    pub tokens_out: Option<u32>,
}
