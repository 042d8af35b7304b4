//! What a person sees and changes of their own memory outside a chat turn (the Mini App, the
//! `search_memory` tool): the chats they have a memory in, their notes and session summaries by
//! id, and a search of it all by words and by meaning. Every operation is keyed by the person's
//! conversation, so nobody reaches another person's rows.

use anyhow::Context;

use super::Conversations;
use crate::ids::ConversationKey;
use crate::memory::context::{MemoryPool, MemoryRef};
use crate::memory::notes::{NoteLine, NoteText};
use crate::memory::recall::{RecallQuery, Remembered, recall};
use crate::storage::{ChatId, NoteRecord, Role, SummaryRecord, UserId};

/// What a search of a person's memory found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FoundMemory {
    pub kind: FoundKind,
    /// When it was said: a message's time, a summary's session start, a note's since.
    pub at_ms: i64,
    pub text: String,
}

/// Where a found text comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundKind {
    Note,
    /// A sentence of a session summary.
    Summary,
    /// A message, by its author.
    Message(Role),
}

impl Conversations {
    /// The chats in which `user_id` has a memory (sessions or notes), by chat id.
    pub async fn chats_of(&self, user_id: UserId) -> anyhow::Result<Vec<ChatId>> {
        self.store
            .chats_of_person(user_id)
            .await
            .context("cannot read the person's chats")
    }

    /// The conversation's notes, as `/memory` lists them.
    pub async fn notes_of(&self, key: ConversationKey) -> anyhow::Result<Vec<NoteRecord>> {
        self.notes(key).await
    }

    /// The conversation's latest `limit` session summaries, the newest first.
    pub async fn summaries_of(
        &self,
        key: ConversationKey,
        limit: i64,
    ) -> anyhow::Result<Vec<SummaryRecord>> {
        let mut summaries = self
            .store
            .recent_summaries(key, 0, limit)
            .await
            .context("cannot read the summaries")?;
        summaries.reverse();
        Ok(summaries)
    }

    /// Gives the conversation's note `note_id` the person's text `note`; `false` when the
    /// conversation has no such note.
    pub async fn change_note(
        &self,
        key: ConversationKey,
        note_id: i64,
        note: &NoteText,
    ) -> anyhow::Result<bool> {
        let changed = self
            .store
            .replace_note_by_hand(key, note_id, note.as_str(), self.clock.now_ms())
            .await
            .context("cannot change the note")?;
        if changed {
            self.embedder_wake.signal();
        }
        Ok(changed)
    }

    /// Deletes the conversation's note `note_id`; `false` when it has no such note.
    pub async fn remove_note(&self, key: ConversationKey, note_id: i64) -> anyhow::Result<bool> {
        self.store
            .delete_note(key, note_id)
            .await
            .context("cannot delete the note")
    }

    /// Deletes the summary of the conversation's session `session_id`; `false` when it has no
    /// such summary. The session is not summarized again.
    pub async fn remove_summary(
        &self,
        key: ConversationKey,
        session_id: i64,
    ) -> anyhow::Result<bool> {
        self.store
            .delete_summary(key, session_id)
            .await
            .context("cannot delete the summary")
    }

    /// The conversation's memory for `query`, as the model's recall ranks it (notes, summary
    /// sentences, messages older than the message `before_id`, by words and by meaning), at most
    /// `limit`, the newest first. Texts are as stored, not masked.
    pub async fn search_own_memory(
        &self,
        key: ConversationKey,
        query: &str,
        before_id: i64,
        limit: usize,
    ) -> anyhow::Result<Vec<FoundMemory>> {
        let masked_query = match self.meaning {
            Some(_) => self.redactor.redact(query).into_owned(),
            None => String::new(),
        };
        let notes = self.notes(key).await?;
        let recall_query = RecallQuery {
            key,
            text: query,
            masked_text: &masked_query,
            now_ms: self.clock.now_ms(),
            history: &[],
            before_id,
            limit: i64::try_from(limit).unwrap_or(i64::MAX),
            path: "search",
        };
        let remembered = Remembered {
            notes: notes.into_iter().map(NoteLine::from).collect(),
            recent_summaries: Vec::new(),
            older_summaries: None,
        };
        let pool = recall(
            &self.store,
            self.meaning.as_deref(),
            &recall_query,
            remembered,
        )
        .await
        .context("cannot search the memory")?;
        let mut found: Vec<FoundMemory> = pool
            .ranked
            .iter()
            .filter_map(|item| found_in(&pool, *item))
            .take(limit)
            .collect();
        found.sort_by_key(|found| std::cmp::Reverse(found.at_ms));
        Ok(found)
    }
}

/// The text `item` refers to in `pool`; `None` for the raw history, which a turn's prompt has
/// already, and for an item the pool lacks.
fn found_in(pool: &MemoryPool, item: MemoryRef) -> Option<FoundMemory> {
    match item {
        MemoryRef::Note(index) => {
            let note = pool.notes.get(index)?;
            Some(FoundMemory {
                kind: FoundKind::Note,
                at_ms: note.noted_at_ms,
                text: note.text.clone(),
            })
        }
        MemoryRef::Sentence { summary, sentence } => {
            let parts = pool.summaries.get(summary)?;
            Some(FoundMemory {
                kind: FoundKind::Summary,
                at_ms: parts.record.session_started_at_ms,
                text: parts.sentences.get(sentence)?.clone(),
            })
        }
        MemoryRef::Message(index) => {
            let message = pool.messages.get(index)?;
            Some(FoundMemory {
                kind: FoundKind::Message(message.role),
                at_ms: message.created_at_ms,
                text: message.content.clone(),
            })
        }
        MemoryRef::History(_) => None,
    }
}
