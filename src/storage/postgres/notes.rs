//! PostgreSQL: notes about a person, kept by the summarizer or added by hand. Notes added by hand
//! are never dropped by the summarizer's updates. The rules of a note's time and earlier values,
//! and the order of the statements that replace the summarizer's list, are in
//! `src/storage/notes.rs`, shared with SQLite.

use std::borrow::Cow;

use super::PgStore;
use super::messages::storable;
use crate::storage::notes::{
    EditedNote, NoteListStatements, NoteRewrite, NoteRow, NoteSource, ReplacedRow, after_hand_edit,
    note_records, replace_note_list,
};
use crate::storage::{ConversationKey, NoteAdded, NoteRecord, NoteUpdate};

impl PgStore {
    /// The conversation's notes, oldest first (the numbering `/memory` shows).
    pub async fn notes(&self, key: ConversationKey) -> Result<Vec<NoteRecord>, sqlx::Error> {
        let rows = sqlx::query_as!(
            NoteRow,
            r#"SELECT id, note, created_at, confirmed_at, added_by_hand, valid_from, earlier
               FROM user_notes WHERE chat_id = $1 AND user_id = $2
               ORDER BY created_at, id"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_all(&self.pool)
        .await?;
        note_records(rows)
    }

    /// Makes `notes` the summarizer's complete list for the conversation (see the SQLite
    /// twin). The first statement locks the conversation's notes, so a replica replacing them
    /// at the same time waits.
    pub async fn replace_notes(
        &self,
        key: ConversationKey,
        notes: &[NoteUpdate],
        source_session_id: i64,
        stated_at_ms: i64,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        let source = NoteSource {
            key,
            session_id: source_session_id,
            stated_at_ms,
            now_ms,
        };
        let mut transaction = self.pool.begin().await?;
        replace_note_list(&mut *transaction, &source, notes).await?;
        transaction.commit().await
    }

    /// Adds a note the person wrote. A note with the same text, if the conversation has one
    /// already, becomes theirs and is confirmed at `now_ms`.
    pub async fn add_note_by_hand(
        &self,
        key: ConversationKey,
        note: &str,
        now_ms: i64,
    ) -> Result<NoteAdded, sqlx::Error> {
        let note = storable(note);
        let mut transaction = self.pool.begin().await?;
        let inserted = sqlx::query!(
            "INSERT INTO user_notes
                 (chat_id, user_id, note, created_at, confirmed_at, added_by_hand, valid_from)
             VALUES ($1, $2, $3, $4, $4, true, $4)
             ON CONFLICT (chat_id, user_id, note) DO NOTHING",
            key.chat_id.0,
            key.user_id.0,
            &*note,
            now_ms,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        if inserted == 0 {
            sqlx::query!(
                "UPDATE user_notes SET added_by_hand = true, confirmed_at = $4
                 WHERE chat_id = $1 AND user_id = $2 AND note = $3",
                key.chat_id.0,
                key.user_id.0,
                &*note,
                now_ms,
            )
            .execute(&mut *transaction)
            .await?;
        }
        transaction.commit().await?;
        Ok(NoteAdded::from_inserted(inserted))
    }

    /// Gives note `note_id` of the conversation the person's text `note` (see the SQLite twin);
    /// `false` if the conversation has no note with that id.
    pub async fn replace_note_by_hand(
        &self,
        key: ConversationKey,
        note_id: i64,
        note: &str,
        now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        let mut transaction = self.pool.begin().await?;
        // What SQLite's `UPDATE OR REPLACE` does in one statement: only when the note exists
        // (locked until the end), the other note with the new text goes, then the text changes.
        let Some(old) = sqlx::query_as!(
            EditedNote,
            "SELECT note, valid_from, earlier FROM user_notes
             WHERE id = $1 AND chat_id = $2 AND user_id = $3
             FOR UPDATE",
            note_id,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_optional(&mut *transaction)
        .await?
        else {
            return Ok(false);
        };
        let note = storable(note);
        sqlx::query!(
            "DELETE FROM user_notes
             WHERE chat_id = $1 AND user_id = $2 AND note = $3 AND id <> $4",
            key.chat_id.0,
            key.user_id.0,
            &*note,
            note_id,
        )
        .execute(&mut *transaction)
        .await?;
        let (valid_from, earlier) = after_hand_edit(old, &note, now_ms)?;
        sqlx::query!(
            "UPDATE user_notes SET note = $2, added_by_hand = true, confirmed_at = $3,
                                   valid_from = $4, earlier = $5
             WHERE id = $1",
            note_id,
            &*note,
            now_ms,
            valid_from,
            earlier,
        )
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(true)
    }

    /// Deletes one note of the conversation; `false` if it has no note with that id.
    pub async fn delete_note(
        &self,
        key: ConversationKey,
        note_id: i64,
    ) -> Result<bool, sqlx::Error> {
        let result = sqlx::query!(
            "DELETE FROM user_notes WHERE id = $1 AND chat_id = $2 AND user_id = $3",
            note_id,
            key.chat_id.0,
            key.user_id.0,
        )
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() == 1)
    }
}

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
