//! What the per-conversation commands do to a conversation (the commands themselves, and what
//! they answer, are [`crate::commands`]): the persona, the language recorded for a person, the
//! model they chose, incognito, the notes added or forgotten by hand, `/memory`, `/stats`,
//! `/reset`, `/clear` and `/export`.

use anyhow::Context;

use super::Conversations;
use crate::bounded_text::{LengthError, within_length};
use crate::clock::start_of_utc_day_ms;
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::llm::ModelInUse;
use crate::memory::notes::{MAX_NOTES_BY_HAND, NoteText};
use crate::replies::views::{ConversationStats, MemoryOverview};
use crate::storage::{
    NoteAdded, NoteRecord, PurgeCounts, Setting, StoredMessage, UserId, UserSettings,
};

/// The longest persona accepted, in characters.
pub const PERSONA_MAX_CHARS: usize = 1_000;

/// A persona text that passed its checks: not empty, not too long.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Persona(String);

/// Why a persona text was refused.
pub type PersonaError = LengthError;

impl Persona {
    pub fn parse(text: &str) -> Result<Self, PersonaError> {
        within_length(text.trim().to_owned(), PERSONA_MAX_CHARS).map(Self)
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
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
    /// The notes and the summaries the bot holds for this conversation.
    pub async fn memory_overview(&self, key: ConversationKey) -> anyhow::Result<MemoryOverview> {
        let notes = self.notes(key).await?;
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
        let Some(note) = self.numbered_note(key, number).await? else {
            return Ok(None);
        };
        let deleted = self
            .store
            .delete_note(key, note.id)
            .await
            .context("cannot delete the note")?;
        Ok(deleted.then_some(note.note))
    }

    /// The user's persona, if set.
    pub async fn persona(&self, user_id: UserId) -> anyhow::Result<Option<String>> {
        let settings = self.user_settings(user_id).await?;
        Ok(settings.and_then(|settings| settings.persona))
    }

    /// Sets the user's persona, or with `None` goes back to the default.
    pub async fn set_persona(
        &self,
        user_id: UserId,
        persona: Option<&Persona>,
    ) -> anyhow::Result<()> {
        self.store
            .set_setting(
                user_id,
                Setting::Persona,
                persona.map(Persona::as_str),
                self.clock.now_ms(),
            )
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
            .set_setting(user_id, Setting::LanguageCode, Some(&code), now_ms)
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
        let settings = self.user_settings(user_id).await?;
        let code = settings.and_then(|settings| settings.language_code);
        Ok(Lang::from_code(code.as_deref()))
    }

    /// The models on offer and the one that answers the person.
    pub async fn model_menu(&self, user_id: UserId) -> anyhow::Result<ModelMenu> {
        let settings = self.user_settings(user_id).await?;
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
            .set_setting(user_id, Setting::Model, Some(&model), self.clock.now_ms())
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
        let notes = self.notes(key).await?;
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
        let Some(old) = self.numbered_note(key, number).await? else {
            return Ok(None);
        };
        let replaced = self
            .store
            .replace_note_by_hand(key, old.id, note.as_str(), self.clock.now_ms())
            .await
            .context("cannot change the note")?;
        self.embedder_wake.signal();
        Ok(replaced.then_some(old.note))
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

    /// The conversation's notes, in the order `/memory` lists them.
    pub(super) async fn notes(&self, key: ConversationKey) -> anyhow::Result<Vec<NoteRecord>> {
        self.store.notes(key).await.context("cannot read the notes")
    }

    /// Note number `number` (1-based, as `/memory` lists them), if there is one.
    async fn numbered_note(
        &self,
        key: ConversationKey,
        number: usize,
    ) -> anyhow::Result<Option<NoteRecord>> {
        let notes = self.notes(key).await?;
        Ok(number
            .checked_sub(1)
            .and_then(|index| notes.into_iter().nth(index)))
    }

    /// The person's settings, if they changed any.
    async fn user_settings(&self, user_id: UserId) -> anyhow::Result<Option<UserSettings>> {
        self.store
            .user_settings(user_id)
            .await
            .context("cannot read settings")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
