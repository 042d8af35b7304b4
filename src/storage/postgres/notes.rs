//! PostgreSQL: notes about a person, kept by the summarizer or added by hand. Notes added by hand
//! are never dropped by the summarizer's updates. The rules of a note's time and earlier values,
//! and the order of the statements that replace the summarizer's list, are in
//! `src/storage/notes.rs`, shared with SQLite.

use std::borrow::Cow;

use super::messages::storable;
use crate::storage::ConversationKey;
use crate::storage::notes::{NoteListStatements, NoteRewrite, NoteSource, ReplacedRow};

impl NoteListStatements for sqlx::PgConnection {
    fn storable(text: &str) -> Cow<'_, str> {
        storable(text)
    }

    async fn unconfirm_notes(
        &mut self,
        key: ConversationKey,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "UPDATE user_notes
             SET confirmed_at = CASE WHEN added_by_hand THEN $3::bigint ELSE -1 END
             WHERE chat_id = $1 AND user_id = $2",
            key.chat_id.0,
            key.user_id.0,
            now_ms,
        )
        .execute(self)
        .await?;
        Ok(())
    }

    async fn note_to_rewrite(
        &mut self,
        key: ConversationKey,
        old: &str,
        note: &str,
    ) -> Result<Option<ReplacedRow>, sqlx::Error> {
        sqlx::query_as!(
            ReplacedRow,
            "SELECT id, valid_from, earlier FROM user_notes
         WHERE chat_id = $1 AND user_id = $2 AND note = $3 AND NOT added_by_hand
           AND confirmed_at = -1
           AND NOT EXISTS (SELECT 1 FROM user_notes
                           WHERE chat_id = $1 AND user_id = $2 AND note = $4)",
            key.chat_id.0,
            key.user_id.0,
            old,
            note,
        )
        .fetch_optional(self)
        .await
    }

    async fn rewrite_note(
        &mut self,
        source: &NoteSource,
        rewrite: &NoteRewrite<'_>,
    ) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "UPDATE user_notes SET note = $2, confirmed_at = $3, valid_from = $4, earlier = $5,
                               source_session_id = $6
         WHERE id = $1",
            rewrite.id,
            rewrite.note,
            source.now_ms,
            rewrite.valid_from,
            rewrite.earlier,
            source.session_id,
        )
        .execute(self)
        .await?;
        Ok(())
    }

    async fn upsert_note(
        &mut self,
        source: &NoteSource,
        note: &str,
        earlier: Option<String>,
    ) -> Result<(), sqlx::Error> {
        sqlx::query!(
            r#"INSERT INTO user_notes (chat_id, user_id, note, source_session_id, created_at,
                                          confirmed_at, valid_from, earlier)
                   VALUES ($1, $2, $3, $4, $5, $5, $6, $7)
                   ON CONFLICT (chat_id, user_id, note)
                       DO UPDATE SET confirmed_at = excluded.confirmed_at"#,
            source.key.chat_id.0,
            source.key.user_id.0,
            note,
            source.session_id,
            source.now_ms,
            source.stated_at_ms,
            earlier,
        )
        .execute(self)
        .await?;
        Ok(())
    }

    async fn delete_unconfirmed_notes(&mut self, key: ConversationKey) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "DELETE FROM user_notes WHERE chat_id = $1 AND user_id = $2 AND confirmed_at = -1",
            key.chat_id.0,
            key.user_id.0,
        )
        .execute(self)
        .await?;
        Ok(())
    }
}
