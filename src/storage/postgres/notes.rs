//! PostgreSQL: notes about a person, kept by the summarizer or added by hand. Notes added by hand
//! are never dropped by the summarizer's updates.

use super::PgStore;
use super::messages::storable;
use crate::storage::{ConversationKey, NoteAdded, NoteRecord};

impl PgStore {
    /// The conversation's notes, oldest first (the numbering `/memory` shows).
    pub async fn notes(&self, key: ConversationKey) -> Result<Vec<NoteRecord>, sqlx::Error> {
        sqlx::query_as!(
            NoteRecord,
            r#"SELECT id, note, created_at AS created_at_ms,
                      confirmed_at AS confirmed_at_ms, added_by_hand
               FROM user_notes WHERE chat_id = $1 AND user_id = $2
               ORDER BY created_at, id"#,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_all(&self.pool)
        .await
    }

    /// Makes `notes` the summarizer's complete list for the conversation: notes already stored
    /// keep their creation time and are confirmed at `now_ms`, new ones are added, the rest of
    /// the summarizer's are deleted. Notes added by hand all stay, confirmed at `now_ms` too.
    pub async fn replace_notes(
        &self,
        key: ConversationKey,
        notes: &[String],
        source_session_id: i64,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        let mut transaction = self.pool.begin().await?;
        // Mark every current note as unconfirmed (or, added by hand, confirmed), confirm or
        // insert each new one, then delete whatever stayed unconfirmed. The first statement
        // locks the conversation's notes, so a replica replacing them at the same time waits.
        sqlx::query!(
            "UPDATE user_notes
             SET confirmed_at = CASE WHEN added_by_hand THEN $3::bigint ELSE -1 END
             WHERE chat_id = $1 AND user_id = $2",
            key.chat_id.0,
            key.user_id.0,
            now_ms,
        )
        .execute(&mut *transaction)
        .await?;
        // One statement per note, in the list's order: new notes get ids (their place in the
        // list) in that order, and a note listed twice is simply confirmed twice.
        for note in notes {
            sqlx::query!(
                r#"INSERT INTO user_notes
                       (chat_id, user_id, note, source_session_id, created_at, confirmed_at)
                   VALUES ($1, $2, $3, $4, $5, $5)
                   ON CONFLICT (chat_id, user_id, note)
                       DO UPDATE SET confirmed_at = excluded.confirmed_at"#,
                key.chat_id.0,
                key.user_id.0,
                &*storable(note),
                source_session_id,
                now_ms,
            )
            .execute(&mut *transaction)
            .await?;
        }
        sqlx::query!(
            "DELETE FROM user_notes WHERE chat_id = $1 AND user_id = $2 AND confirmed_at = -1",
            key.chat_id.0,
            key.user_id.0,
        )
        .execute(&mut *transaction)
        .await?;
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
                 (chat_id, user_id, note, created_at, confirmed_at, added_by_hand)
             VALUES ($1, $2, $3, $4, $4, true)
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
        Ok(if inserted == 1 {
            NoteAdded::New
        } else {
            NoteAdded::AlreadyKept
        })
    }

    /// Gives note `note_id` of the conversation the person's text `note`, keeping its place in
    /// the list (its creation time); another note with that text already is removed, as the two
    /// are one now. `false` if the conversation has no note with that id.
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
        let exists = sqlx::query_scalar!(
            "SELECT id FROM user_notes WHERE id = $1 AND chat_id = $2 AND user_id = $3
             FOR UPDATE",
            note_id,
            key.chat_id.0,
            key.user_id.0,
        )
        .fetch_optional(&mut *transaction)
        .await?
        .is_some();
        if !exists {
            return Ok(false);
        }
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
        sqlx::query!(
            "UPDATE user_notes SET note = $2, added_by_hand = true, confirmed_at = $3
             WHERE id = $1",
            note_id,
            &*note,
            now_ms,
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
