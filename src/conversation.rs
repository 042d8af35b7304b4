//! One chat turn, free of Telegram: record the user's message in its session, assemble the
//! prompt from memory, ask the model, record the reply. The Telegram handlers and `telemem chat`
//! both drive turns through [`Conversations`], as well as the per-conversation commands (persona,
//! stats, reset, clear, export), so that every front end behaves the same.
//!
//! A turn is split in three steps: [`Conversations::begin_turn`] stores the user's message before
//! the model is called, so it is never lost; [`Conversations::ask`] calls the model;
//! [`Conversations::finish_turn`] stores the reply. The Telegram side stores the reply before
//! sending it, in one transaction with the update's `replying` mark (one write of well under a
//! millisecond), because that is what lets a crash at any moment leave neither a gap in the
//! history nor a second answer.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use anyhow::Context;
use tokio::sync::watch;

use crate::clock::{Clock, start_of_utc_day_ms};
use crate::config::{HistoryConfig, MemoryConfig, duration_ms};
use crate::i18n::Lang;
use crate::llm::{ChatRequest, Completion, LlmClient, LlmError};
use crate::memory::context::{AssembledContext, ContextInputs, NoteLine, assemble};
use crate::memory::meaning::MeaningRecall;
use crate::memory::recall::{RecallQuery, Recalled, recall};
use crate::memory::redact::Redactor;
use crate::memory::session::session_for_message;
use crate::memory::tokens::estimate_tokens;
use crate::storage::{
    ConversationKey, NewMessage, NoteRecord, PurgeCounts, Role, Store, StoredMessage,
    SummaryRecord, TurnStart, TurnStartLimits,
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

/// A turn in progress: the user's message is stored and the prompt is ready.
#[derive(Clone, Debug)]
pub struct Turn {
    pub key: ConversationKey,
    pub session_id: i64,
    pub user_message_id: i64,
    pub request: ChatRequest,
    pub prompt_tokens_estimate: usize,
}

/// The history a prompt carries once `new` is stored: the stored `history` plus `new` (unless
/// it is there already, as when a crash made the same message come back), the last `limit` by
/// time, oldest first: what [`Store::history`] would read after storing it.
fn history_with(
    mut history: Vec<StoredMessage>,
    new: StoredMessage,
    limit: i64,
) -> Vec<StoredMessage> {
    if !history.iter().any(|message| message.id == new.id) {
        history.push(new);
    }
    history.sort_by_key(|message| (message.created_at_ms, message.id));
    let excess = history
        .len()
        .saturating_sub(usize::try_from(limit).unwrap_or(0));
    history.drain(..excess);
    history
}

/// The text a prompt is assembled from, before and after masking.
struct PromptMaterial {
    persona: Option<String>,
    notes: Vec<NoteLine>,
    summaries: Vec<SummaryRecord>,
    recalled: Vec<StoredMessage>,
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
        self.notes.iter_mut().for_each(|note| mask(&mut note.text));
        self.summaries
            .iter_mut()
            .for_each(|summary| mask(&mut summary.summary));
        self.recalled
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
    pub tokens_today: i64,
    pub tokens_total: i64,
    pub session_started_at_ms: Option<i64>,
    pub last_activity_ms: Option<i64>,
    pub now_ms: i64,
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
    /// The language code this process last recorded for each person, so that an unchanged one
    /// costs no write.
    recorded_languages: Arc<Mutex<HashMap<i64, String>>>,
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

/// What `/memory` shows: the notes and the summaries a prompt can draw on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryOverview {
    pub notes: Vec<NoteRecord>,
    pub summaries: Vec<SummaryRecord>,
}

impl Conversations {
    pub fn new(
        store: Store,
        llm: LlmClient,
        clock: Arc<dyn Clock>,
        redactor: Redactor,
        settings: ConversationSettings,
    ) -> Self {
        Self {
            store,
            llm,
            clock,
            redactor,
            settings: Arc::new(settings),
            meaning: None,
            recorded_languages: Arc::default(),
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

    /// Stores the user's message in its session and assembles the prompt.
    pub async fn begin_turn(
        &self,
        key: ConversationKey,
        text: &str,
        telegram_message_id: Option<i64>,
    ) -> anyhow::Result<Turn> {
        let now_ms = self.clock.now_ms();
        let start = self.turn_start(key, now_ms).await?;
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
        let message = NewMessage {
            key,
            session_id: session.session_id,
            role: Role::User,
            content: text,
            created_at_ms: now_ms,
            tokens_in: 0,
            tokens_out: 0,
            telegram_message_id,
        };
        let (user_message_id, _is_new) = self
            .store
            .add_user_message_once(&message)
            .await
            .context("cannot store the user's message")?;
        let stored = StoredMessage {
            telegram_message_id,
            ..StoredMessage::new(
                user_message_id,
                key,
                session.session_id,
                Role::User,
                text,
                now_ms,
            )
        };
        let assembled = self.assemble_context(key, now_ms, start, stored).await?;
        Ok(Turn {
            key,
            session_id: session.session_id,
            user_message_id,
            prompt_tokens_estimate: assembled.total_tokens,
            request: assembled.request,
        })
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
        let before_id = history.first().map_or(i64::MAX, |oldest| oldest.id);
        let recalled = if has_older_messages {
            // Masked only when it may leave the process: most turns recall by words alone.
            let masked_text = match self.meaning {
                Some(_) => self.redactor.redact(&new_text).into_owned(),
                None => String::new(),
            };
            let summaries_shown: Vec<i64> = start.summaries.iter().map(|s| s.session_id).collect();
            let query = RecallQuery {
                key,
                text: &new_text,
                masked_text: &masked_text,
                before_id,
                limit: settings.recall_limit,
                summaries_shown: &summaries_shown,
            };
            recall(&self.store, self.meaning.as_deref(), &query)
                .await
                .context("cannot read the memory")?
        } else {
            Recalled::default()
        };
        let mut summaries = start.summaries;
        summaries.extend(recalled.summaries);
        summaries.sort_by_key(|summary| (summary.session_started_at_ms, summary.session_id));
        let notes = if settings.notes_enabled {
            start.notes
        } else {
            Vec::new()
        };
        let material = PromptMaterial {
            persona: start.persona,
            notes: notes
                .into_iter()
                .map(|note| NoteLine {
                    text: note.note,
                    noted_at_ms: note.created_at_ms,
                })
                .collect(),
            summaries,
            recalled: recalled.messages,
            history,
        }
        .masked(&self.redactor);
        Ok(assemble(&ContextInputs {
            now_ms,
            default_prompt: &settings.default_prompt,
            persona: material.persona.as_deref(),
            notes: &material.notes,
            summaries: &material.summaries,
            recalled: &material.recalled,
            history: &material.history,
            memory_budget_tokens: settings.memory_budget_tokens,
        }))
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
        let new_message = StoredMessage::new(i64::MAX, key, 0, Role::User, text, now_ms);
        self.assemble_context(key, now_ms, start, new_message).await
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
        Ok(MemoryOverview { notes, summaries })
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
    /// as being answered in the same transaction (see `telegram::intake`). Returns the reply's id.
    pub async fn finish_turn(
        &self,
        turn: &Turn,
        completion: &Completion,
        update_id: Option<i64>,
    ) -> anyhow::Result<i64> {
        let tokens_in = completion
            .tokens_in
            .map(i64::from)
            .unwrap_or(turn.prompt_tokens_estimate as i64);
        let tokens_out = completion
            .tokens_out
            .map(i64::from)
            .unwrap_or(estimate_tokens(&completion.text) as i64);
        let reply = NewMessage {
            key: turn.key,
            session_id: turn.session_id,
            role: Role::Assistant,
            content: &completion.text,
            created_at_ms: self.clock.now_ms(),
            tokens_in,
            tokens_out,
            telegram_message_id: None,
        };
        self.store
            .add_reply(&reply, update_id)
            .await
            .context("cannot store the reply")
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
    pub async fn persona(&self, user_id: i64) -> anyhow::Result<Option<String>> {
        let settings = self
            .store
            .user_settings(user_id)
            .await
            .context("cannot read settings")?;
        Ok(settings.and_then(|settings| settings.persona))
    }

    /// Sets the user's persona, or with `None` goes back to the default.
    pub async fn set_persona(&self, user_id: i64, persona: Option<&Persona>) -> anyhow::Result<()> {
        self.store
            .set_persona(user_id, persona.map(Persona::as_str), self.clock.now_ms())
            .await
            .context("cannot store the persona")
    }

    /// Records the language code `user_id`'s client reported, for what the bot sends them on its
    /// own later ([`Self::language`]). Only a change is written, and an update without a code
    /// keeps the one recorded. A failure is logged, not returned: the answer at hand does not
    /// depend on it.
    pub async fn record_language(&self, user_id: i64, language_code: Option<&str>) {
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
            tracing::warn!(error = %error, user_id, "could not record the language");
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
    pub async fn language(&self, user_id: i64) -> anyhow::Result<Lang> {
        let settings = self
            .store
            .user_settings(user_id)
            .await
            .context("cannot read settings")?;
        let code = settings.and_then(|settings| settings.language_code);
        Ok(Lang::from_code(code.as_deref()))
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

    /// Deletes the conversation's history, sessions and summaries; the persona stays.
    pub async fn clear(&self, key: ConversationKey) -> anyhow::Result<PurgeCounts> {
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
        Ok(ConversationStats {
            messages_stored: stats.messages_total,
            messages_in_context: stats
                .messages_in_window
                .min(self.settings.history_max_messages),
            tokens_today: stats.tokens_today,
            tokens_total: stats.tokens_in + stats.tokens_out,
            session_started_at_ms: session.map(|s| s.started_at_ms),
            last_activity_ms: stats.last_activity_ms,
            now_ms,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: i64, created_at_ms: i64) -> StoredMessage {
        let key = crate::storage::ConversationKey::new(1, 1);
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
    fn messages_keep_time_order_even_when_the_clock_went_back() {
        let stored = vec![message(1, 10), message(2, 50)];
        assert_eq!(ids(&history_with(stored, message(3, 40), 3)), [1, 3, 2]);
    }
}
