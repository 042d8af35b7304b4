//! One chat turn: the person's message stored in its session (or, in incognito, kept in the
//! process only), the prompt assembled from memory with every secret masked, the model asked, the
//! reply stored with its token usage. Also the exact prompt a message would get now, for
//! `telemem context`.

use std::borrow::Cow;

use anyhow::Context;

use super::{Conversations, PersonZone};
use crate::clock::start_of_utc_day_ms;
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::llm::{ChatRequest, Completion, Image};
use crate::memory::context::{AssembledContext, ContextInputs, MemoryPool, NoteLine, assemble};
use crate::memory::incognito::IncognitoTurn;
use crate::memory::notes::NoteText;
use crate::memory::preferences::standing_preferences;
use crate::memory::recall::{OLDER_SUMMARIES_READ, RecallQuery, Remembered, recall};
use crate::memory::redact::Redactor;
use crate::storage::{
    NewMessage, OpenedTurn, Role, StoredMessage, StoredTurnMessage, TurnOpening, TurnStart,
    TurnStartLimits, UserId,
};
use crate::time_zone::TimeZone;
use crate::tokens::estimate_tokens;

/// A turn in progress: the prompt is ready, and the user's message stored unless in incognito.
#[derive(Clone, Debug)]
pub struct Turn {
    pub key: ConversationKey,
    pub request: ChatRequest,
    pub prompt_tokens_estimate: usize,
    pub record: TurnRecord,
    /// Whether the person is one of the bot's admins (some tools are theirs alone); the front
    /// end says so.
    pub is_admin: bool,
    /// The person's language, for what the reply shows while a tool runs.
    pub lang: Lang,
    /// The person's time zone, for reminders.
    pub zone: PersonZone,
}

impl Turn {
    /// The turn of the stored message `user_message_id` in session `session_id`, with the prompt
    /// `assembled` for it.
    pub(super) fn stored(
        key: ConversationKey,
        assembled: AssembledContext,
        session_id: i64,
        user_message_id: i64,
        zone: PersonZone,
    ) -> Self {
        Self {
            key,
            request: assembled.request,
            prompt_tokens_estimate: assembled.total_tokens,
            record: TurnRecord::Stored {
                session_id,
                user_message_id,
            },
            is_admin: false,
            lang: Lang::default(),
            zone,
        }
    }
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
pub(super) fn reply_usage(turn: &Turn, completion: &Completion) -> (i64, i64) {
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
    /// The person's time zone, when it is not UTC.
    local_zone: Option<TimeZone>,
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

impl Conversations {
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
        let opening = TurnOpening {
            limits: self.turn_start_limits(now_ms),
            session_idle_ms: self.settings.session_idle_ms,
            older_summaries: OLDER_SUMMARIES_READ,
            content: message.stored,
            created_at_ms: now_ms,
            telegram_message_id,
        };
        // Stored once even when a crash makes the same Telegram message come back. Storing it
        // also records the user's activity (a trigger).
        let OpenedTurn { start, stored } = self
            .store
            .open_turn(key, opening)
            .await
            .context("cannot start the turn")?;
        let model = self.models().in_use(start.model.as_deref()).name;
        let mut turn = match stored {
            None => self.incognito_turn(key, message.prompt, now_ms, start.persona),
            Some(stored) => {
                self.stored_turn(key, message, telegram_message_id, now_ms, start, stored)
                    .await?
            }
        };
        // A picture turn may need another model (`VISION_MODEL`); otherwise the person's choice.
        turn.request.model = Some(model_for_this_turn.unwrap_or(model));
        if let Some(new_message) = turn.request.messages.last_mut() {
            new_message.images = images;
        }
        Ok(turn)
    }

    /// A turn of a conversation with memory, whose user's message `stored` is in its session: the
    /// prompt assembled from what `start` read.
    async fn stored_turn(
        &self,
        key: ConversationKey,
        message: NewMessageText<'_>,
        telegram_message_id: Option<i64>,
        now_ms: i64,
        mut start: TurnStart,
        stored: StoredTurnMessage,
    ) -> anyhow::Result<Turn> {
        if stored.is_new {
            self.keep_standing_preferences(key, message.stored).await;
        }
        self.embedder_wake.signal();
        let user_message_id = stored.message_id;
        if !stored.is_new {
            // Answered again after a crash, possibly after later messages of the conversation (a
            // replica took it over): its prompt is the history as it stood before it.
            start.history = self
                .history_through(key, now_ms, user_message_id - 1)
                .await?;
        }
        let new_message = StoredMessage {
            telegram_message_id,
            ..StoredMessage::new(
                user_message_id,
                key,
                stored.session_id,
                Role::User,
                message.prompt,
                now_ms,
            )
        };
        let zone = self.person_zone(&start);
        let assembled = self
            .assemble_context(key, now_ms, start, new_message)
            .await?;
        Ok(Turn::stored(
            key,
            assembled,
            stored.session_id,
            user_message_id,
            zone,
        ))
    }

    /// Keeps each standing preference `text` states ("from now on, answer in English") as the
    /// person's own note, as `/remember` would (unless they have it already or their notes are
    /// full): it then holds in every later prompt until they take it back with `/forget`,
    /// whether or not the summarizer notes it. A failure to store it is logged; the turn goes on.
    async fn keep_standing_preferences(&self, key: ConversationKey, text: &str) {
        if !self.settings.notes_enabled {
            return;
        }
        for preference in standing_preferences(text) {
            let Ok(note) = NoteText::parse(&preference) else {
                continue;
            };
            if let Err(error) = self.add_note(key, &note).await {
                tracing::warn!(error = ?error, "could not keep a standing preference as a note");
            }
        }
    }

    /// The stored history of the conversation at `at_ms`, up to and with message `through_id`:
    /// what a message answered again had before it.
    pub(super) async fn history_through(
        &self,
        key: ConversationKey,
        at_ms: i64,
        through_id: i64,
    ) -> anyhow::Result<Vec<StoredMessage>> {
        self.store
            .history_through(
                key,
                at_ms - self.settings.history_window_ms,
                self.settings.history_max_messages,
                through_id,
            )
            .await
            .context("cannot read the history up to a message")
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
            is_admin: false,
            lang: Lang::default(),
            zone: self.zone_or_default(None),
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
            local_zone: None,
            memory: MemoryPool::default(),
            history,
        }
        .masked(&self.redactor);
        self.assemble_material(now_ms, &material)
    }

    /// The time zone of the person whose turn starts with `start`.
    pub(super) fn person_zone(&self, start: &TurnStart) -> PersonZone {
        let chosen = start.time_zone.as_deref().and_then(TimeZone::parse);
        self.zone_or_default(chosen)
    }

    /// Persona, open session, notes, summaries and history of the conversation at `now_ms`.
    pub(super) async fn turn_start(
        &self,
        key: ConversationKey,
        now_ms: i64,
    ) -> anyhow::Result<TurnStart> {
        self.store
            .turn_start(key, self.turn_start_limits(now_ms))
            .await
            .context("cannot read the conversation's state")
    }

    /// How much of a conversation a turn at `now_ms` reads.
    fn turn_start_limits(&self, now_ms: i64) -> TurnStartLimits {
        let settings = &self.settings;
        TurnStartLimits {
            summaries_since_ms: now_ms - settings.summary_window_ms,
            summary_count: settings.summary_count,
            history_since_ms: now_ms - settings.history_window_ms,
            history_max_messages: settings.history_max_messages,
        }
    }

    /// Adds the new message to the stored history read at turn start, recalls older messages
    /// (only when the conversation has messages the raw history does not carry), masks secrets in
    /// everything that goes to the model, and assembles the prompt. The new message and the
    /// persona are masked too: a key pasted a second ago must not travel to a third-party model
    /// any more than one pasted last week. Only the prompt is masked; storage keeps the text as
    /// the person wrote it (their data, shown by `/export`).
    pub(super) async fn assemble_context(
        &self,
        key: ConversationKey,
        now_ms: i64,
        start: TurnStart,
        new_message: StoredMessage,
    ) -> anyhow::Result<AssembledContext> {
        let settings = &self.settings;
        let zone = self.person_zone(&start).zone;
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
            path: "turn",
        };
        let notes = if settings.notes_enabled {
            start.notes
        } else {
            Vec::new()
        };
        // The window is the sessions' time, not the summaries': an imported history's sessions
        // are summarized today but happened long ago, and its latest is no gist of the present.
        let recent_since_ms = now_ms - settings.summary_window_ms;
        let remembered = Remembered {
            notes: notes.into_iter().map(NoteLine::from).collect(),
            recent_summaries: start
                .summaries
                .into_iter()
                .filter(|summary| summary.session_last_activity_at_ms >= recent_since_ms)
                .collect(),
            older_summaries: start.older_summaries,
        };
        let memory = if settings.summary_count > 0 || settings.recall_limit > 0 {
            // Boxed: the searches' state is held only while they run, not by every turn in
            // flight for its whole life (the model's answer, the delivery).
            Box::pin(recall(
                &self.store,
                self.meaning.as_deref(),
                &query,
                remembered,
            ))
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
            local_zone: (zone != TimeZone::UTC).then_some(zone),
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
            local_zone: material.local_zone,
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: i64, created_at_ms: i64) -> StoredMessage {
        let key = crate::ids::ConversationKey::new(crate::storage::ChatId(1), UserId(1));
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
