//! PostgreSQL: notes about a person, kept by the summarizer or added by hand.

use super::PgStore;
#[allow(unused_imports)]
use crate::storage::*;

impl PgStore {
    pub async fn notes(&self, _key: ConversationKey) -> Result<Vec<NoteRecord>, sqlx::Error> {
        Err(super::not_yet("notes"))
    }

    pub async fn replace_notes(
        &self,
        _key: ConversationKey,
        _notes: &[String],
        _source_session_id: i64,
        _now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        Err(super::not_yet("replace_notes"))
    }

    pub async fn add_note_by_hand(
        &self,
        _key: ConversationKey,
        _note: &str,
        _now_ms: i64,
    ) -> Result<NoteAdded, sqlx::Error> {
        Err(super::not_yet("add_note_by_hand"))
    }

    pub async fn replace_note_by_hand(
        &self,
        _key: ConversationKey,
        _note_id: i64,
        _note: &str,
        _now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("replace_note_by_hand"))
    }

    pub async fn delete_note(
        &self,
        _key: ConversationKey,
        _note_id: i64,
    ) -> Result<bool, sqlx::Error> {
        Err(super::not_yet("delete_note"))
    }
}
