//! One chat turn, free of Telegram: record the user's message in its session, assemble the
//! prompt from memory, ask the model (the one the person chose), record the reply. The Telegram
//! handlers and `telemem chat` both drive turns through [`Conversations`], as well as the
//! per-conversation commands (persona, model, incognito, notes, stats, reset, clear, export), so
//! that every front end behaves the same.
//!
//! In incognito a turn stores nothing: no message, no session, hence no search index entry, no
//! vector and no summary. Its prompt carries the persona (a setting, not memory) and the last few
//! incognito turns kept in the process ([`IncognitoMemory`]), nothing of the stored memory; only
//! its token counts are stored, for the person's usage.
//!
//! [`Conversations`] also carries the per-person limits ([`Quota`]): front ends ask it before a
//! turn, and `/stats` shows the day's tokens against the limit.
//!
//! A turn's message is text, or what a photo, voice note or document became ([`TurnInput`]): the
//! text stored for it, the text and pictures the model gets. Transcribing a recording is offered
//! here too ([`Conversations::transcribe`]), so the front end only fetches files.
//!
//! Every front end runs a turn through one entry, [`Conversations::take_turn`] ([`chat_turn`]):
//! the checks, the daily limit, storing the message before the model is called
//! ([`Conversations::begin_turn`]), asking the model ([`Conversations::ask`]), storing the reply
//! ([`Conversations::finish_turn`]) before it is delivered (on Telegram in one transaction with the
//! update's `replying` mark, one write of well under a millisecond), because that is what lets a
//! crash at any moment leave neither a gap in the history nor a second answer.
//!
//! A turn can be stopped while it asks the model ([`answer`]: `/cancel`, the Stop button, Ctrl-C
//! in the terminal), and the last one can be asked again, its new answer replacing the old one
//! ([`retry`]: `/retry`). The turn itself is in [`turn`]; what the per-conversation commands do
//! to a conversation, in [`commands`]; answers read aloud in [`voice`], pictures drawn in
//! [`pictures`].

mod answer;
mod chat_turn;
mod commands;
mod export;
mod own_memory;
mod pictures;
mod reminders;
mod retry;
mod tools;
mod turn;
mod voice;

pub use crate::replies::views::{ConversationStats, MemoryOverview, ToolActivity};
pub use crate::voice_mode::VoiceMode;
pub use answer::Answer;
pub use chat_turn::{
    Asked, NoticeLater, PreparedInput, ReplyRecord, TurnEnd, TurnFrontEnd, TurnRequest,
};
pub use commands::{ModelMenu, NoteAddition, PERSONA_MAX_CHARS, Persona, PersonaError};
pub use export::{ExportFile, ExportFormat};
pub use own_memory::{FoundKind, FoundMemory};
pub use pictures::{Description, DescriptionError, DrawRefusal, DrawnPicture, drew_note};
pub use reminders::PersonZone;
pub use retry::{Retry, RetryStart};
pub use tools::{ToolSettings, ToolsOffer, activity_line};
pub use turn::{FinishedTurn, Turn, TurnInput, TurnRecord};
pub use voice::SpeakRefusal;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::clock::Clock;
use crate::config::{HistoryConfig, MemoryConfig, duration_ms};
use crate::llm::transcription::{Recording, TranscriptionClient, TranscriptionError};
use crate::llm::{LlmClient, ModelList};
use crate::memory::embedder::EmbedderWake;
use crate::memory::incognito::IncognitoMemory;
use crate::memory::meaning::MeaningRecall;
use crate::memory::redact::Redactor;
use crate::quota::{LimitReached, Quota, QuotaSettings, TokenCheck};
use crate::running_turns::RunningTurns;
use crate::storage::{Store, UserId};

/// `MAX_MESSAGE_CHARS`'s default.
const DEFAULT_MAX_MESSAGE_CHARS: usize = 4_096;

/// What a turn needs besides storage and the model.
#[derive(Clone, Debug)]
pub struct ConversationSettings {
    pub default_prompt: String,
    pub session_idle_ms: i64,
    pub history_window_ms: i64,
    pub history_max_messages: i64,
    pub summary_window_ms: i64,
    pub summary_count: i64,
    pub recall_limit: i64,
    pub notes_enabled: bool,
    pub memory_budget_tokens: usize,
    /// Longest message (in characters) a turn takes (`MAX_MESSAGE_CHARS`).
    pub max_message_chars: usize,
    /// The time zone of people who have not chosen theirs.
    pub default_time_zone: crate::time_zone::TimeZone,
    /// How long, and how many, incognito turns the process keeps for the next prompts.
    pub incognito_window_ms: i64,
    pub incognito_max_turns: usize,
}

impl ConversationSettings {
    /// The default system prompt, shipped with the binary.
    pub const DEFAULT_PROMPT: &'static str = include_str!("prompts/system.md");

    pub fn from_config(history: &HistoryConfig, memory: &MemoryConfig) -> Self {
        Self {
            default_prompt: Self::DEFAULT_PROMPT.to_owned(),
            session_idle_ms: duration_ms(history.session_idle()),
            history_window_ms: duration_ms(history.history_window()),
            history_max_messages: i64::from(history.history_max_messages),
            summary_window_ms: duration_ms(memory.summary_window()),
            summary_count: i64::from(memory.summary_count),
            recall_limit: i64::from(memory.recall_limit),
            notes_enabled: true,
            memory_budget_tokens: memory.context_token_budget as usize,
            max_message_chars: DEFAULT_MAX_MESSAGE_CHARS,
            incognito_window_ms: duration_ms(memory.incognito_window()),
            incognito_max_turns: memory.incognito_max_turns as usize,
            default_time_zone: crate::time_zone::TimeZone::UTC,
        }
    }

    /// The plain "last messages within the window" context, without summaries, recall or
    /// notes: the baseline the memory evaluation compares against.
    pub fn without_long_term_memory(mut self) -> Self {
        self.summary_count = 0;
        self.recall_limit = 0;
        self.notes_enabled = false;
        self.memory_budget_tokens = usize::MAX;
        self
    }
}

/// The entry point for chat turns and per-conversation commands; cheap to clone.
#[derive(Clone)]
pub struct Conversations {
    store: Store,
    llm: LlmClient,
    clock: Arc<dyn Clock>,
    redactor: Redactor,
    settings: Arc<ConversationSettings>,
    /// Recall by meaning, when an embedding model is configured.
    meaning: Option<Arc<MeaningRecall>>,
    /// The last few turns of the conversations in incognito.
    incognito: Arc<IncognitoMemory>,
    /// The turns asking the model right now, so that a stop request reaches them.
    running: RunningTurns,
    /// What each person may use.
    quota: Quota,
    /// Turns recordings into text, when a transcription server is configured.
    transcriber: Option<TranscriptionClient>,
    /// Reads answers aloud, when a speech server is configured ([`voice`]).
    speech: Option<crate::llm::speech::SpeechClient>,
    /// Draws pictures, when an image server is configured ([`pictures`]).
    images: Option<crate::llm::images::ImageClient>,
    /// Pictures the model drew during a turn, until the front end sends them.
    drawn_for_turns: pictures::DrawnForTurns,
    /// The language code this process last recorded for each person, so that an unchanged one
    /// costs no write.
    recorded_languages: Arc<Mutex<HashMap<UserId, String>>>,
    /// Told when a message or note is stored, so that it gets its vector soon.
    embedder_wake: EmbedderWake,
    /// The tools offered to the model, when `TOOLS` is on.
    tools: Option<Arc<tools::ToolRuntime>>,
    /// Told when a reminder is stored, so that the delivery job looks again.
    reminder_wake: Arc<tokio::sync::Notify>,
}

impl Conversations {
    pub fn new(
        store: Store,
        llm: LlmClient,
        clock: Arc<dyn Clock>,
        redactor: Redactor,
        settings: ConversationSettings,
    ) -> Self {
        let incognito =
            IncognitoMemory::new(settings.incognito_window_ms, settings.incognito_max_turns);
        let quota = Quota::new(store.clone(), clock.clone(), QuotaSettings::default());
        Self {
            store,
            llm,
            clock,
            redactor,
            settings: Arc::new(settings),
            meaning: None,
            incognito: Arc::new(incognito),
            running: RunningTurns::default(),
            quota,
            transcriber: None,
            speech: None,
            images: None,
            drawn_for_turns: pictures::DrawnForTurns::default(),
            recorded_languages: Arc::default(),
            embedder_wake: EmbedderWake::default(),
            tools: None,
            reminder_wake: Arc::default(),
        }
    }

    /// The same conversations, signalling `wake` whenever they store a message or a note.
    pub fn with_embedder_wake(mut self, wake: EmbedderWake) -> Self {
        self.embedder_wake = wake;
        self
    }

    /// The same conversations with the per-person limits of `settings` (without: none).
    pub fn with_quota(mut self, settings: QuotaSettings) -> Self {
        self.quota = Quota::new(self.store.clone(), self.clock.clone(), settings);
        self
    }

    /// Whether `user_id` used up their daily tokens, so that their next turn (a message, a
    /// retry, an inline question) is refused before it is stored or sent to the model. A failed
    /// check lets the turn go on: the turn itself meets the same database next.
    pub async fn daily_limit_reached(&self, user_id: UserId) -> Option<LimitReached> {
        match self.quota.check_tokens(user_id).await {
            Ok(TokenCheck::Within) => None,
            Ok(TokenCheck::Reached(reached)) => {
                tracing::info!(
                    user_id = user_id.0,
                    "refused a turn: the daily token limit is used up"
                );
                Some(reached)
            }
            Err(error) => {
                tracing::warn!(error = ?error, "could not check the daily token limit");
                None
            }
        }
    }

    /// The per-person limits.
    pub fn quota(&self) -> &Quota {
        &self.quota
    }

    /// The same conversations, transcribing recordings with `transcriber`.
    pub fn with_transcriber(mut self, transcriber: TranscriptionClient) -> Self {
        self.transcriber = Some(transcriber);
        self
    }

    /// Whether recordings can be transcribed (a transcription server is configured).
    pub fn can_transcribe(&self) -> bool {
        self.transcriber.is_some()
    }

    /// The words spoken in `recording`, within `timeout`.
    pub async fn transcribe(
        &self,
        recording: Recording,
        timeout: std::time::Duration,
    ) -> Result<String, TranscriptionError> {
        match &self.transcriber {
            Some(transcriber) => transcriber.transcribe(recording, timeout).await,
            None => Err(TranscriptionError::NotConfigured),
        }
    }

    /// The same conversations, recalling by meaning as well as by words.
    pub fn with_meaning(mut self, meaning: Arc<MeaningRecall>) -> Self {
        self.meaning = Some(meaning);
        self
    }

    pub fn settings(&self) -> &ConversationSettings {
        &self.settings
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// The models people may choose, `LLM_MODEL` the default among them.
    pub fn models(&self) -> &ModelList {
        self.llm.models()
    }
}
