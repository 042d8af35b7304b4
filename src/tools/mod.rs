//! The tools the model may call during a turn: the built-in ones (reminders, searching the
//! person's own memory, notes) and those of the MCP servers `MCP_CONFIG` names. A tool gets the
//! [`Caller`] it runs for and nothing else of the turn, so it can only reach that person's data;
//! what it returns is a [`ToolOutput`], an error included: a failing tool is something the model
//! is told about, never a failed turn.
//!
//! This layer knows nothing of Telegram; the conversation runs the rounds of calls
//! (`conversation/tools.rs`).

pub mod builtin;
pub mod config;
pub mod mcp;

/// Who a tool runs for: the person whose turn asked for it, in the chat it was asked in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caller {
    pub key: crate::ids::ConversationKey,
    /// Whether the person is one of the bot's admins (MCP servers are for admins by default).
    pub is_admin: bool,
}

/// What a tool call gave back: text for the model, or an error the model is told about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutput {
    pub text: String,
    pub is_error: bool,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: false,
        }
    }

    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
        }
    }
}
