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
//! A turn is split in three steps: [`Conversations::begin_turn`] stores the user's message before
//! the model is called, so it is never lost; [`Conversations::ask`] calls the model;
//! [`Conversations::finish_turn`] stores the reply. The Telegram side stores the reply before
//! sending it, in one transaction with the update's `replying` mark (one write of well under a
//! millisecond), because that is what lets a crash at any moment leave neither a gap in the
//! history nor a second answer.
//!
//! A turn can be stopped while it asks the model ([`answer`]: `/cancel`, the Stop button, Ctrl-C
//! in the terminal), and the last one can be asked again, its new answer replacing the old one
//! ([`retry`]: `/retry`).

mod answer;
mod retry;

pub use answer::Answer;
pub use retry::{Retry, RetryStart};

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use tokio::sync::watch;

use crate::clock::{Clock, start_of_utc_day_ms};
use crate::config::{HistoryConfig, MemoryConfig, duration_ms};
use crate::i18n::Lang;
use crate::llm::transcription::{Recording, TranscriptionClient, TranscriptionError};
use crate::llm::{ChatRequest, Completion, Image, LlmClient, LlmError, ModelInUse, ModelList};
use crate::memory::context::{AssembledContext, ContextInputs, MemoryPool, NoteLine, assemble};
use crate::memory::embedder::EmbedderWake;
use crate::memory::incognito::{IncognitoMemory, IncognitoTurn};
use crate::memory::meaning::MeaningRecall;
use crate::memory::notes::{MAX_NOTES_BY_HAND, NoteText};
use crate::memory::recall::{RecallQuery, Remembered, recall};
use crate::memory::redact::Redactor;
use crate::memory::session::session_for_message;
use crate::memory::tokens::estimate_tokens;
use crate::quota::{Quota, QuotaSettings};
use crate::running_turns::RunningTurns;
use crate::storage::{
    ConversationKey, NewMessage, NoteAdded, NoteRecord, PurgeCounts, Role, Store, StoredMessage,
    SummaryRecord, TurnStart, TurnStartLimits, UserId,
};

/// The longest persona accepted, in characters.
pub const PERSONA_MAX_CHARS: usize = 1_000;

/// A persona text that passed its checks: not empty, not too long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Persona(String);

/// Why a persona text was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PersonaError {
    #[error("the persona is empty")]
    Empty,
    #[error("the persona is {length} characters long; at most {max} are allowed")]
    TooLong { length: usize, max: usize },
}

impl Persona {
    pub fn parse(text: &str) -> Result<Self, PersonaError> {
        let trimmed = text.trim();
        let length = trimmed.chars().count();
        if length == 0 {
            return Err(PersonaError::Empty);
        }
        if length > PERSONA_MAX_CHARS {
            return Err(PersonaError::TooLong {
                length,
                max: PERSONA_MAX_CHARS,
            });
        }
        Ok(Self(trimmed.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

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
            incognito_window_ms: duration_ms(memory.incognito_window()),
            incognito_max_turns: memory.incognito_max_turns as usize,
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

/// A turn in progress: the prompt is ready, and the user's message stored unless in incognito.
#[derive(Clone, Debug)]
pub struct Turn {
    pub key: ConversationKey,
    pub request: ChatRequest,
    pub prompt_tokens_estimate: usize,
    pub record: TurnRecord,
}

/// Where a turn's exchange is kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnRecord {
    /// In the history: the user's message is stored in its session, the reply goes beside it.
    Stored {
        session_id: i64,
        user_message_id: i64,
    },
    /// In incognito: only in the process, for the next few prompts.
    Incognito { question: String, asked_at_ms: i64 },
}

/// What [`Conversations::finish_turn`] did with the reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinishedTurn {
    /// Stored in the history with this id; with an update id, it also marked the update
    /// `replying`.
    Stored { reply_id: i64 },
    /// In incognito: kept in the process only; the update's state is the caller's to mark.
    NotStored,
}

impl FinishedTurn {
    /// The stored reply's id, if it was stored.
    pub fn reply_id(self) -> Option<i64> {
        match self {
            Self::Stored { reply_id } => Some(reply_id),
            Self::NotStored => None,
        }
    }
}

/// The history a prompt carries once `new` is stored: the stored `history` plus `new` (unless
/// it is there already, as when a crash made the same message come back: then it takes `new`'s
/// text, which is what the model reads of a document), the last `limit` by time, oldest first:
/// what [`Store::history`] would read after storing it.
fn history_with(
    mut history: Vec<StoredMessage>,
    new: StoredMessage,
    limit: i64,
) -> Vec<StoredMessage> {
    match history.iter_mut().find(|message| message.id == new.id) {
        Some(stored) => stored.content = new.content,
        None => history.push(new),
    }
    history.sort_by_key(|message| (message.created_at_ms, message.id));
    let excess = history
        .len()
        .saturating_sub(usize::try_from(limit).unwrap_or(0));
    history.drain(..excess);
    history
}

/// The tokens a reply used: the provider's figures, or the documented estimate when the provider
/// reports none (many streaming servers, a stopped reply).
fn reply_usage(turn: &Turn, completion: &Completion) -> (i64, i64) {
    let tokens_in = completion
        .tokens_in
        .map(i64::from)
        .unwrap_or(turn.prompt_tokens_estimate as i64);
    let tokens_out = completion
        .tokens_out
        .map(i64::from)
        .unwrap_or(estimate_tokens(&completion.text) as i64);
    (tokens_in, tokens_out)
}

/// The new message's text as stored and as the model reads it (a document's whole text).
#[derive(Clone, Copy, Debug)]
struct NewMessageText<'a> {
    stored: &'a str,
    prompt: &'a str,
}

/// The person's message of a turn: text, or what a photo, voice note or document became.
#[derive(Clone, Debug, Default)]
pub struct TurnInput {
    /// Stored as their message: what history, summaries, recall and `/export` see.
    pub stored_text: String,
    /// What the model reads as the new message when it is more than the stored text (a
    /// document's whole text); `None`: the stored text.
    pub prompt_text: Option<String>,
    /// Pictures the model looks at with this turn only; they are never stored.
    pub images: Vec<Image>,
    /// The model for this turn when not the configured one (`VISION_MODEL` for a picture).
    pub model: Option<String>,
}

impl TurnInput {
    /// A plain text message.
    pub fn text(text: &str) -> Self {
        Self {
            stored_text: text.to_owned(),
            ..Self::default()
        }
    }
}

/// The text a prompt is assembled from, before and after masking.
struct PromptMaterial {
    persona: Option<String>,
    memory: MemoryPool,
    /// Ends with the new message.
    history: Vec<StoredMessage>,
}

impl PromptMaterial {
    /// The same material with every secret masked: all of it goes to the model.
    fn masked(mut self, redactor: &Redactor) -> Self {
        let mask = |text: &mut String| {
            if let Cow::Owned(masked) = redactor.redact(text) {
                *text = masked;
            }
        };
        self.persona.iter_mut().for_each(&mask);
        let memory = &mut self.memory;
        memory
            .notes
            .iter_mut()
            .for_each(|note| mask(&mut note.text));
        for parts in &mut memory.summaries {
            mask(&mut parts.record.summary);
            parts.sentences.iter_mut().for_each(&mask);
        }
        memory
            .messages
            .iter_mut()
            .chain(self.history.iter_mut())
            .for_each(|message| mask(&mut message.content));
        self
    }
}

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
    /// The language code this process last recorded for each person, so that an unchanged one
    /// costs no write.
    recorded_languages: Arc<Mutex<HashMap<UserId, String>>>,
    /// Told when a message or note is stored, so that it gets its vector soon.
    embedder_wake: EmbedderWake,
}

/// The most people whose recorded language is remembered in memory; past it the memory starts
/// over (the only cost: one more write per person).
const RECORDED_LANGUAGES_MAX: usize = 100_000;

/// The longest language code recorded: IETF tags from Telegram are a few characters; anything
/// else is not a language code.
const LANGUAGE_CODE_MAX_CHARS: usize = 35;

/// `code` as it is recorded: trimmed, and only when it looks like a language tag.
fn recordable_language_code(code: Option<&str>) -> Option<String> {
    let code = code?.trim();
    let looks_like_a_tag = !code.is_empty()
        && code.len() <= LANGUAGE_CODE_MAX_CHARS
        && code
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '_');
    looks_like_a_tag.then(|| code.to_owned())
}

/// What `/memory` shows: the notes and the summaries a prompt can draw on, and whether the
/// conversation is in incognito (when prompts draw on none of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryOverview {
    pub notes: Vec<NoteRecord>,
    pub summaries: Vec<SummaryRecord>,
    pub incognito: bool,
}

/// What `/model` shows: the models on offer and the one that answers the person.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelMenu {
    pub models: Vec<String>,
    pub in_use: ModelInUse,
}

/// What adding a note by hand did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteAddition {
    Added,
    /// The note was kept already (now as the person's own).
    AlreadyKept,
    /// The conversation holds [`MAX_NOTES_BY_HAND`] notes added by hand already.
    TooMany,
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
            recorded_languages: Arc::default(),
            embedder_wake: EmbedderWake::default(),
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

    /// The text stored for the person's Telegram message `telegram_message_id`, if a turn for it
    /// began before (a resumed turn then needs no second transcription).
    pub async fn stored_message_text(
        &self,
        key: ConversationKey,
        telegram_message_id: i64,
    ) -> anyhow::Result<Option<String>> {
        self.store
            .user_message_text(key, telegram_message_id)
            .await
            .context("cannot read the stored message")
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

    /// Stores the user's message in its session and assembles the prompt; in incognito, only
    /// assembles the prompt. The request names the model the person chose.
    pub async fn begin_turn(
        &self,
        key: ConversationKey,
        text: &str,
        telegram_message_id: Option<i64>,
    ) -> anyhow::Result<Turn> {
        self.begin_turn_with(key, TurnInput::text(text), telegram_message_id)
            .await
    }

    /// [`Conversations::begin_turn`] for any message: stores `input`'s stored text, and gives the
    /// model its prompt text, its pictures (on the new message only) and its model.
    pub async fn begin_turn_with(
        &self,
        key: ConversationKey,
        input: TurnInput,
        telegram_message_id: Option<i64>,
    ) -> anyhow::Result<Turn> {
        let TurnInput {
            stored_text,
            prompt_text,
            images,
            model: model_for_this_turn,
        } = input;
        let message = NewMessageText {
            stored: &stored_text,
            prompt: prompt_text.as_deref().unwrap_or(&stored_text),
        };
        let now_ms = self.clock.now_ms();
        let start = self.turn_start(key, now_ms).await?;
        let model = self.models().in_use(start.model.as_deref()).name;
        let mut turn = if start.incognito {
            self.incognito_turn(key, message.prompt, now_ms, start.persona)
        } else {
            self.stored_turn(key, message, telegram_message_id, now_ms, start)
                .await?
        };
        // A picture turn may need another model (`VISION_MODEL`); otherwise the person's choice.
        turn.request.model = Some(model_for_this_turn.unwrap_or(model));
        if let Some(new_message) = turn.request.messages.last_mut() {
            new_message.images = images;
        }
        Ok(turn)
    }

    /// A turn of a conversation with memory: the user's message stored in its session, the
    /// prompt assembled from what `start` read.
    async fn stored_turn(
        &self,
        key: ConversationKey,
        message: NewMessageText<'_>,
        telegram_message_id: Option<i64>,
        now_ms: i64,
        mut start: TurnStart,
    ) -> anyhow::Result<Turn> {
        let session = session_for_message(
            &self.store,
            key,
            start.open_session,
            now_ms,
            self.settings.session_idle_ms,
        )
        .await
        .context("cannot find or start the session")?;
        // Stored once even when a crash makes the same Telegram message come back. Storing it
        // also records the user's activity (a trigger).
        let text = message.stored;
        let message_to_store = NewMessage {
            key,
            session_id: session.session_id,
            role: Role::User,
            content: text,
            created_at_ms: now_ms,
            tokens_in: 0,
            tokens_out: 0,
            telegram_message_id,
        };
        let (user_message_id, is_new) = self
            .store
            .add_user_message_once(&message_to_store)
            .await
            .context("cannot store the user's message")?;
        self.embedder_wake.signal();
        if !is_new {
            // Answered again after a crash, possibly after later messages of the conversation (a
            // replica took it over): its prompt is the history as it stood before it.
            start.history = self
                .store
                .history_through(
                    key,
                    now_ms - self.settings.history_window_ms,
                    self.settings.history_max_messages,
                    user_message_id - 1,
                )
                .await
                .context("cannot read the history before the message")?;
        }
        let stored = StoredMessage {
            telegram_message_id,
            ..StoredMessage::new(
                user_message_id,
                key,
                session.session_id,
                Role::User,
                message.prompt,
                now_ms,
            )
        };
        let assembled = self.assemble_context(key, now_ms, start, stored).await?;
        Ok(Turn {
            key,
            request: assembled.request,
            prompt_tokens_estimate: assembled.total_tokens,
            record: TurnRecord::Stored {
                session_id: session.session_id,
                user_message_id,
            },
        })
    }

    /// A turn in incognito: nothing stored, the prompt assembled from the persona, the last
    /// incognito turns kept in the process and the new message.
    fn incognito_turn(
        &self,
        key: ConversationKey,
        text: &str,
        now_ms: i64,
        persona: Option<String>,
    ) -> Turn {
        let assembled = self.incognito_context(key, text, now_ms, persona);
        Turn {
            key,
            request: assembled.request,
            prompt_tokens_estimate: assembled.total_tokens,
            record: TurnRecord::Incognito {
                question: text.to_owned(),
                asked_at_ms: now_ms,
            },
        }
    }

    /// The prompt of an incognito message `text`: the persona, the incognito turns the process
    /// keeps, the message; no notes, summaries, recall or stored history.
    fn incognito_context(
        &self,
        key: ConversationKey,
        text: &str,
        now_ms: i64,
        persona: Option<String>,
    ) -> AssembledContext {
        // Kept only in the process: they have no id, no session and no Telegram message.
        let message =
            |role, content: &str, at_ms| StoredMessage::new(0, key, 0, role, content, at_ms);
        let mut history: Vec<StoredMessage> = self
            .incognito
            .recent(key, now_ms)
            .iter()
            .flat_map(|turn| {
                [
                    message(Role::User, &turn.question, turn.question_at_ms),
                    message(Role::Assistant, &turn.answer, turn.answered_at_ms),
                ]
            })
            .collect();
        history.push(message(Role::User, text, now_ms));
        let material = PromptMaterial {
            persona,
            memory: MemoryPool::default(),
            history,
        }
        .masked(&self.redactor);
        self.assemble_material(now_ms, &material)
    }

    /// Persona, open session, notes, summaries and history of the conversation at `now_ms`.
    async fn turn_start(&self, key: ConversationKey, now_ms: i64) -> anyhow::Result<TurnStart> {
        let settings = &self.settings;
        let limits = TurnStartLimits {
            summaries_since_ms: now_ms - settings.summary_window_ms,
            summary_count: settings.summary_count,
            history_since_ms: now_ms - settings.history_window_ms,
            history_max_messages: settings.history_max_messages,
        };
        self.store
            .turn_start(key, limits)
            .await
            .context("cannot read the conversation's state")
    }

    /// Adds the new message to the stored history read at turn start, recalls older messages
    /// (only when the conversation has messages the raw history does not carry), masks secrets in
    /// everything that goes to the model, and assembles the prompt. The new message and the
    /// persona are masked too: a key pasted a second ago must not travel to a third-party model
    /// any more than one pasted last week. Only the prompt is masked; storage keeps the text as
    /// the person wrote it (their data, shown by `/export`).
    async fn assemble_context(
        &self,
        key: ConversationKey,
        now_ms: i64,
        start: TurnStart,
        new_message: StoredMessage,
    ) -> anyhow::Result<AssembledContext> {
        let settings = &self.settings;
        // Everything in the window fits unless the stored history already has the maximum.
        let has_older_messages = start.has_messages_before_window
            || start.history.len() as i64 >= settings.history_max_messages;
        // The full-text search is local, so it may use the text as written; the embedding
        // server may be a third party and gets it masked.
        let new_text = new_message.content.clone();
        let history = history_with(start.history, new_message, settings.history_max_messages);
        let (previous, new) = history.split_at(history.len().saturating_sub(1));
        let before_id = new.first().map_or(i64::MAX, |new| new.id);
        // Masked only when it may leave the process: most turns recall by words alone.
        let masked_text = match self.meaning {
            Some(_) => self.redactor.redact(&new_text).into_owned(),
            None => String::new(),
        };
        let query = RecallQuery {
            key,
            text: &new_text,
            masked_text: &masked_text,
            now_ms,
            history: previous,
            before_id,
            limit: if has_older_messages {
                settings.recall_limit
            } else {
                0
            },
        };
        let notes = if settings.notes_enabled {
            start.notes
        } else {
            Vec::new()
        };
        let remembered = Remembered {
            notes: notes.into_iter().map(NoteLine::from).collect(),
            recent_summaries: start.summaries,
        };
        let memory = if settings.summary_count > 0 || settings.recall_limit > 0 {
            recall(&self.store, self.meaning.as_deref(), &query, remembered)
                .await
                .context("cannot read the memory")?
        } else {
            MemoryPool {
                note_order: (0..remembered.notes.len()).rev().collect(),
                notes: remembered.notes,
                ..MemoryPool::default()
            }
        };
        let material = PromptMaterial {
            persona: start.persona,
            memory,
            history,
        }
        .masked(&self.redactor);
        Ok(self.assemble_material(now_ms, &material))
    }

    /// The prompt made of `material` (masked already), within the memory budget.
    fn assemble_material(&self, now_ms: i64, material: &PromptMaterial) -> AssembledContext {
        let settings = &self.settings;
        assemble(&ContextInputs {
            now_ms,
            default_prompt: &settings.default_prompt,
            persona: material.persona.as_deref(),
            memory: &material.memory,
            history: &material.history,
            memory_budget_tokens: settings.memory_budget_tokens,
        })
    }

    /// The exact prompt a message `text` would get now, without storing anything (for
    /// `telemem context`).
    pub async fn preview_context(
        &self,
        key: ConversationKey,
        text: &str,
    ) -> anyhow::Result<AssembledContext> {
        let now_ms = self.clock.now_ms();
        let start = self.turn_start(key, now_ms).await?;
        let model = self.models().in_use(start.model.as_deref()).name;
        let mut context = if start.incognito {
            self.incognito_context(key, text, now_ms, start.persona)
        } else {
            let new_message = StoredMessage::new(i64::MAX, key, 0, Role::User, text, now_ms);
            self.assemble_context(key, now_ms, start, new_message)
                .await?
        };
        context.request.model = Some(model);
        Ok(context)
    }

    /// The notes and the summaries the bot holds for this conversation.
    pub async fn memory_overview(&self, key: ConversationKey) -> anyhow::Result<MemoryOverview> {
        let notes = self
            .store
            .notes(key)
            .await
            .context("cannot read the notes")?;
        let summaries = self
            .store
            .recent_summaries(key, 0, 50)
            .await
            .context("cannot read the summaries")?;
        let incognito = self.incognito(key).await?;
        Ok(MemoryOverview {
            notes,
            summaries,
            incognito,
        })
    }

    /// Deletes note number `number` (1-based, as `/memory` lists them); returns its text.
    pub async fn forget_note(
        &self,
        key: ConversationKey,
        number: usize,
    ) -> anyhow::Result<Option<String>> {
        let notes = self
            .store
            .notes(key)
            .await
            .context("cannot read the notes")?;
        let Some(note) = number.checked_sub(1).and_then(|index| notes.get(index)) else {
            return Ok(None);
        };
        let deleted = self
            .store
            .delete_note(key, note.id)
            .await
            .context("cannot delete the note")?;
        Ok(deleted.then(|| note.note.clone()))
    }

    /// Asks the model for the reply; with `progress`, streams and publishes the text so far.
    pub async fn ask(
        &self,
        turn: &Turn,
        progress: Option<&watch::Sender<String>>,
    ) -> Result<Completion, LlmError> {
        match progress {
            Some(progress) => self.llm.stream(&turn.request, progress).await,
            None => self.llm.complete(&turn.request).await,
        }
    }

    /// Stores the model's reply with its token usage (the provider's figures, or the documented
    /// estimate when the provider reports none). With `update_id`, the Telegram update is marked
    /// as being answered in the same transaction (see `telegram::intake`). In incognito, keeps
    /// the exchange in the process for the next few prompts and stores only the token counts.
    pub async fn finish_turn(
        &self,
        turn: &Turn,
        completion: &Completion,
        update_id: Option<i64>,
    ) -> anyhow::Result<FinishedTurn> {
        let (tokens_in, tokens_out) = reply_usage(turn, completion);
        let now_ms = self.clock.now_ms();
        let session_id = match &turn.record {
            TurnRecord::Stored { session_id, .. } => *session_id,
            TurnRecord::Incognito {
                question,
                asked_at_ms,
            } => {
                let exchange = IncognitoTurn {
                    question: question.clone(),
                    question_at_ms: *asked_at_ms,
                    answer: completion.text.clone(),
                    answered_at_ms: now_ms,
                };
                self.incognito.remember(turn.key, exchange, now_ms);
                self.count_incognito_tokens(turn.key.user_id, now_ms, tokens_in, tokens_out)
                    .await;
                return Ok(FinishedTurn::NotStored);
            }
        };
        let reply = NewMessage {
            key: turn.key,
            session_id,
            role: Role::Assistant,
            content: &completion.text,
            created_at_ms: now_ms,
            tokens_in,
            tokens_out,
            telegram_message_id: None,
        };
        let reply_id = self
            .store
            .add_reply(&reply, update_id)
            .await
            .context("cannot store the reply")?;
        self.embedder_wake.signal();
        Ok(FinishedTurn::Stored { reply_id })
    }

    /// Adds an incognito turn's tokens to the person's usage of the day. A failure is logged and
    /// the reply still goes out: a count is not worth an answer.
    async fn count_incognito_tokens(
        &self,
        user_id: UserId,
        now_ms: i64,
        tokens_in: i64,
        tokens_out: i64,
    ) {
        let day = start_of_utc_day_ms(now_ms);
        if let Err(error) = self
            .store
            .add_incognito_tokens(user_id, day, tokens_in, tokens_out)
            .await
        {
            tracing::error!(error = ?error, user_id = user_id.0, "could not count an incognito turn's tokens");
        }
    }

    /// Records which Telegram message carried a stored reply (for exports and debugging), which
    /// also marks the Telegram update it answered as done. Under load the records of several
    /// turns are written in one statement (the store combines them).
    pub async fn reply_delivered(
        &self,
        reply_id: i64,
        telegram_message_id: i64,
    ) -> anyhow::Result<()> {
        self.store
            .set_telegram_message_id(reply_id, telegram_message_id)
            .await
            .context("cannot record the reply's Telegram message")
    }

    /// One whole turn without streaming, for callers that need no progress (the tests and the
    /// memory evaluation; `telemem chat` streams).
    pub async fn chat(&self, key: ConversationKey, text: &str) -> anyhow::Result<Completion> {
        let turn = self.begin_turn(key, text, None).await?;
        let completion = self
            .ask(&turn, None)
            .await
            .context("the model did not answer")?;
        self.finish_turn(&turn, &completion, None).await?;
        Ok(completion)
    }

    /// The user's persona, if set.
    pub async fn persona(&self, user_id: UserId) -> anyhow::Result<Option<String>> {
        let settings = self
            .store
            .user_settings(user_id)
            .await
            .context("cannot read settings")?;
        Ok(settings.and_then(|settings| settings.persona))
    }

    /// Sets the user's persona, or with `None` goes back to the default.
    pub async fn set_persona(
        &self,
        user_id: UserId,
        persona: Option<&Persona>,
    ) -> anyhow::Result<()> {
        self.store
            .set_persona(user_id, persona.map(Persona::as_str), self.clock.now_ms())
            .await
            .context("cannot store the persona")
    }

    /// Records the language code `user_id`'s client reported, for what the bot sends them on its
    /// own later ([`Self::language`]). Only a change is written, and an update without a code
    /// keeps the one recorded. A failure is logged, not returned: the answer at hand does not
    /// depend on it.
    pub async fn record_language(&self, user_id: UserId, language_code: Option<&str>) {
        let Some(code) = recordable_language_code(language_code) else {
            return;
        };
        {
            let recorded = self
                .recorded_languages
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if recorded.get(&user_id) == Some(&code) {
                return;
            }
        }
        let now_ms = self.clock.now_ms();
        if let Err(error) = self
            .store
            .set_language_code(user_id, Some(&code), now_ms)
            .await
        {
            tracing::warn!(error = %error, user_id = user_id.0, "could not record the language");
            return;
        }
        let mut recorded = self
            .recorded_languages
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if recorded.len() >= RECORDED_LANGUAGES_MAX {
            recorded.clear();
        }
        recorded.insert(user_id, code);
    }

    /// The language to write to `user_id` in outside an answer to them: the one their client
    /// last reported, English when none was recorded.
    pub async fn language(&self, user_id: UserId) -> anyhow::Result<Lang> {
        let settings = self
            .store
            .user_settings(user_id)
            .await
            .context("cannot read settings")?;
        let code = settings.and_then(|settings| settings.language_code);
        Ok(Lang::from_code(code.as_deref()))
    }

    /// The models people may choose, `LLM_MODEL` the default among them.
    pub fn models(&self) -> &ModelList {
        self.llm.models()
    }

    /// The models on offer and the one that answers the person.
    pub async fn model_menu(&self, user_id: UserId) -> anyhow::Result<ModelMenu> {
        let settings = self
            .store
            .user_settings(user_id)
            .await
            .context("cannot read settings")?;
        let chosen = settings.and_then(|settings| settings.model);
        Ok(ModelMenu {
            models: self.models().names().to_vec(),
            in_use: self.models().in_use(chosen.as_deref()),
        })
    }

    /// Makes the model on offer called `name` ([`ModelList::find`]) answer the person from now
    /// on, in all their chats. Returns its name as offered, or `None` when no model on offer is
    /// called so (nothing changes then).
    pub async fn choose_model(
        &self,
        user_id: UserId,
        name: &str,
    ) -> anyhow::Result<Option<String>> {
        let Some(model) = self.models().find(name).map(str::to_owned) else {
            return Ok(None);
        };
        self.store
            .set_model(user_id, Some(&model), self.clock.now_ms())
            .await
            .context("cannot store the model")?;
        Ok(Some(model))
    }

    /// Whether the conversation is in incognito.
    pub async fn incognito(&self, key: ConversationKey) -> anyhow::Result<bool> {
        self.store
            .is_incognito(key)
            .await
            .context("cannot read the incognito switch")
    }

    /// Switches incognito on or off for the conversation; returns whether that changed anything.
    /// The incognito turns the process kept go either way: switched off, the conversation is
    /// stored again and they are forgotten; switched on, it starts afresh.
    pub async fn set_incognito(&self, key: ConversationKey, on: bool) -> anyhow::Result<bool> {
        let changed = self
            .store
            .set_incognito(key, on, self.clock.now_ms())
            .await
            .context("cannot store the incognito switch")?;
        self.incognito.forget(key);
        Ok(changed)
    }

    /// Adds a note the person wrote to the conversation's notes.
    pub async fn add_note(
        &self,
        key: ConversationKey,
        note: &NoteText,
    ) -> anyhow::Result<NoteAddition> {
        let notes = self
            .store
            .notes(key)
            .await
            .context("cannot read the notes")?;
        let is_kept = notes.iter().any(|kept| kept.note == note.as_str());
        let by_hand = notes.iter().filter(|kept| kept.added_by_hand).count();
        if !is_kept && by_hand >= MAX_NOTES_BY_HAND {
            return Ok(NoteAddition::TooMany);
        }
        let added = self
            .store
            .add_note_by_hand(key, note.as_str(), self.clock.now_ms())
            .await
            .context("cannot store the note")?;
        self.embedder_wake.signal();
        Ok(match added {
            NoteAdded::New => NoteAddition::Added,
            NoteAdded::AlreadyKept => NoteAddition::AlreadyKept,
        })
    }

    /// Gives note number `number` (1-based, as `/memory` lists them) the person's text `note`;
    /// returns its old text, or `None` when there is no such note.
    pub async fn replace_note(
        &self,
        key: ConversationKey,
        number: usize,
        note: &NoteText,
    ) -> anyhow::Result<Option<String>> {
        let notes = self
            .store
            .notes(key)
            .await
            .context("cannot read the notes")?;
        let Some(old) = number.checked_sub(1).and_then(|index| notes.get(index)) else {
            return Ok(None);
        };
        let replaced = self
            .store
            .replace_note_by_hand(key, old.id, note.as_str(), self.clock.now_ms())
            .await
            .context("cannot change the note")?;
        self.embedder_wake.signal();
        Ok(replaced.then(|| old.note.clone()))
    }

    /// Closes the current session now; the next message starts a fresh one. Returns whether a
    /// session was open.
    pub async fn reset_session(&self, key: ConversationKey) -> anyhow::Result<bool> {
        let closed = self
            .store
            .close_session(key, self.clock.now_ms())
            .await
            .context("cannot close the session")?;
        Ok(closed.is_some())
    }

    /// Deletes the conversation's history, sessions, summaries and notes, and forgets its
    /// incognito turns; the persona and the settings stay.
    pub async fn clear(&self, key: ConversationKey) -> anyhow::Result<PurgeCounts> {
        self.incognito.forget(key);
        self.store
            .clear_conversation(key)
            .await
            .context("cannot clear the conversation")
    }

    /// The conversation's messages, oldest first, for `/export`.
    pub async fn export(&self, key: ConversationKey) -> anyhow::Result<Vec<StoredMessage>> {
        self.store
            .all_messages(key)
            .await
            .context("cannot read the conversation for export")
    }

    /// Figures for `/stats`.
    pub async fn stats(&self, key: ConversationKey) -> anyhow::Result<ConversationStats> {
        let now_ms = self.clock.now_ms();
        let stats = self
            .store
            .conversation_stats(
                key,
                now_ms - self.settings.history_window_ms,
                start_of_utc_day_ms(now_ms),
            )
            .await
            .context("cannot read statistics")?;
        let session = self
            .store
            .open_session(key)
            .await
            .context("cannot read the session")?;
        let session =
            session.filter(|s| now_ms - s.last_activity_at_ms <= self.settings.session_idle_ms);
        let model = self.model_menu(key.user_id).await?.in_use;
        let incognito = self.incognito(key).await?;
        let incognito_tokens_today = self
            .store
            .incognito_tokens(key.user_id, start_of_utc_day_ms(now_ms))
            .await
            .context("cannot read the incognito usage")?;
        let tokens_today = self.quota.tokens_today(key.user_id).await?;
        // In incognito the next prompt carries the turns the process keeps, nothing stored.
        let messages_in_context = if incognito {
            2 * self.incognito.recent(key, now_ms).len() as i64
        } else {
            stats
                .messages_in_window
                .min(self.settings.history_max_messages)
        };
        Ok(ConversationStats {
            messages_stored: stats.messages_total,
            messages_in_context,
            tokens_today: tokens_today.used,
            daily_token_limit: tokens_today.limit,
            tokens_total: stats.tokens_in + stats.tokens_out,
            session_started_at_ms: session.map(|s| s.started_at_ms),
            last_activity_ms: stats.last_activity_ms,
            now_ms,
            model,
            incognito,
            incognito_tokens_today,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: i64, created_at_ms: i64) -> StoredMessage {
        let key = crate::storage::ConversationKey::new(crate::storage::ChatId(1), UserId(1));
        StoredMessage::new(
            id,
            key,
            1,
            Role::User,
            format!("message {id}"),
            created_at_ms,
        )
    }

    fn ids(history: &[StoredMessage]) -> Vec<i64> {
        history.iter().map(|message| message.id).collect()
    }

    #[test]
    fn the_new_message_joins_the_history_and_pushes_out_the_oldest_at_the_limit() {
        let stored = vec![message(1, 10), message(2, 20), message(3, 30)];
        assert_eq!(
            ids(&history_with(stored.clone(), message(4, 40), 5)),
            [1, 2, 3, 4]
        );
        assert_eq!(ids(&history_with(stored, message(4, 40), 3)), [2, 3, 4]);
    }

    #[test]
    fn only_language_tags_are_recorded() {
        assert_eq!(
            recordable_language_code(Some(" de-AT ")),
            Some("de-AT".to_owned())
        );
        assert_eq!(
            recordable_language_code(Some("pt_br")),
            Some("pt_br".to_owned())
        );
        assert_eq!(recordable_language_code(Some("")), None);
        assert_eq!(recordable_language_code(Some("de; DROP")), None);
        assert_eq!(recordable_language_code(Some(&"a".repeat(36))), None);
        assert_eq!(recordable_language_code(None), None);
    }

    #[test]
    fn a_message_stored_before_a_crash_is_not_added_twice() {
        let stored = vec![message(1, 10), message(2, 20)];
        assert_eq!(ids(&history_with(stored, message(2, 20), 3)), [1, 2]);
    }

    #[test]
    fn a_message_stored_before_a_crash_takes_the_text_the_model_reads_now() {
        let stored = vec![message(1, 10), message(2, 20)];
        let mut resumed = message(2, 30);
        resumed.content = "the whole document".to_owned();
        let history = history_with(stored, resumed, 3);
        assert_eq!(ids(&history), [1, 2]);
        assert_eq!(history[1].content, "the whole document");
        assert_eq!(history[1].created_at_ms, 20);
    }

    #[test]
    fn messages_keep_time_order_even_when_the_clock_went_back() {
        let stored = vec![message(1, 10), message(2, 50)];
        assert_eq!(ids(&history_with(stored, message(3, 40), 3)), [1, 3, 2]);
    }
}
