//! The figures a reply is made from, as plain values: what `/stats`, `/memory` and a running
//! tool show. `conversation` fills them in and the front ends hand them to `replies`, which
//! needs nothing else of the conversation.

use crate::llm::ModelInUse;
use crate::storage::{NoteRecord, SummaryRecord};

/// Figures for `/stats`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConversationStats {
    pub messages_stored: i64,
    /// Messages the next prompt would carry verbatim.
    pub messages_in_context: i64,
    /// Tokens the person used today in all their chats (the daily limit counts those).
    pub tokens_today: u64,
    /// The person's daily token limit; `None`: no limit.
    pub daily_token_limit: Option<u64>,
    pub tokens_total: i64,
    pub session_started_at_ms: Option<i64>,
    pub last_activity_ms: Option<i64>,
    pub now_ms: i64,
    /// The model that answers the person.
    pub model: ModelInUse,
    /// Whether the conversation is in incognito.
    pub incognito: bool,
    /// Tokens the person's incognito turns used today, in all their chats.
    pub incognito_tokens_today: i64,
}

/// What `/memory` shows: the notes and the summaries a prompt can draw on, and whether the
/// conversation is in incognito (when prompts draw on none of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryOverview {
    /// Every note of the conversation, oldest first, numbered from 1 in that order for `/forget`.
    pub notes: Vec<NoteRecord>,
    /// The latest summaries a prompt can draw on, oldest first.
    pub summaries: Vec<SummaryRecord>,
    pub incognito: bool,
}

/// What the person sees while a tool runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolActivity {
    SearchingMemory,
    Remembering,
    SettingReminder,
    UsingTool,
}
