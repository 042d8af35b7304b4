//! Durable user notes, per (chat, user): facts and preferences the summarizer extracted, and
//! notes the person added by hand, which the summarizer's updates never drop.

#[cfg_attr(not(feature = "sqlite"), allow(unused_imports))]
use super::ConversationKey;
#[cfg(feature = "sqlite")]
use super::SqliteStore;

/// A note as stored.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct NoteRecord {
    pub id: i64,
    pub note: String,
    pub created_at_ms: i64,
    pub confirmed_at_ms: i64,
    /// Added (or last changed) by the person, not by the summarizer.
    pub added_by_hand: bool,
}

/// What adding a note by hand did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteAdded {
    /// A new note.
    New,
    /// The conversation had that note already; it is the person's own from now on.
    AlreadyKept,
}

#[cfg(feature = "sqlite")]
impl SqliteStore {
    /// The conversation's notes, oldest first (the numbering `/memory` shows).
    pub async fn notes(&self, key: ConversationKey) -> Result<Vec<NoteRecord>, sqlx::Error> {
        sqlx::query_as!(
            NoteRecord,
            r#"SELECT id AS "id!", note, created_at AS created_at_ms,
                      confirmed_at AS confirmed_at_ms, added_by_hand AS "added_by_hand: bool"
               FROM user_notes WHERE chat_id = ?1 AND user_id = ?2
               ORDER BY created_at, id"#,
            key.chat_id,
            key.user_id,
        )
        .fetch_all(&mut *self.reader().await?)
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
        let mut writer = self.writer().await?;
        let mut transaction = super::begin_write(&mut writer).await?;
        // Mark every current note as unconfirmed (or, added by hand, confirmed), confirm or
        // insert each new one, then delete whatever stayed unconfirmed.
        sqlx::query!(
            "UPDATE user_notes SET confirmed_at = iif(added_by_hand, ?3, -1)
             WHERE chat_id = ?1 AND user_id = ?2",
            key.chat_id,
            key.user_id,
            now_ms,
        )
        .execute(&mut *transaction)
        .await?;
        for note in notes {
            sqlx::query!(
                r#"INSERT INTO user_notes
                       (chat_id, user_id, note, source_session_id, created_at, confirmed_at)
                   VALUES (?1, ?2, ?3, ?4, ?5, ?5)
                   ON CONFLICT (chat_id, user_id, note) DO UPDATE SET confirmed_at = excluded.confirmed_at"#,
                key.chat_id,
                key.user_id,
                note,
                source_session_id,
                now_ms,
            )
            .execute(&mut *transaction)
            .await?;
        }
        sqlx::query!(
            "DELETE FROM user_notes WHERE chat_id = ?1 AND user_id = ?2 AND confirmed_at = -1",
            key.chat_id,
            key.user_id,
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
        let mut writer = self.writer().await?;
        let mut transaction = super::begin_write(&mut writer).await?;
        let inserted = sqlx::query!(
            "INSERT INTO user_notes (chat_id, user_id, note, created_at, confirmed_at, added_by_hand)
             VALUES (?1, ?2, ?3, ?4, ?4, 1)
             ON CONFLICT (chat_id, user_id, note) DO NOTHING",
            key.chat_id,
            key.user_id,
            note,
            now_ms,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        if inserted == 0 {
            sqlx::query!(
                "UPDATE user_notes SET added_by_hand = 1, confirmed_at = ?4
                 WHERE chat_id = ?1 AND user_id = ?2 AND note = ?3",
                key.chat_id,
                key.user_id,
                note,
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
        let mut writer = self.writer().await?;
        let mut transaction = super::begin_write(&mut writer).await?;
        // The other note goes by a DELETE of its own rather than by `UPDATE OR REPLACE`: rows
        // that REPLACE removes skip the delete triggers, and the person's stored bytes would
        // still count that note.
        sqlx::query!(
            "DELETE FROM user_notes
             WHERE chat_id = ?2 AND user_id = ?3 AND note = ?4 AND id <> ?1
               AND EXISTS (SELECT 1 FROM user_notes
                           WHERE id = ?1 AND chat_id = ?2 AND user_id = ?3)",
            note_id,
            key.chat_id,
            key.user_id,
            note,
        )
        .execute(&mut *transaction)
        .await?;
        let result = sqlx::query!(
            "UPDATE user_notes SET note = ?4, added_by_hand = 1, confirmed_at = ?5
             WHERE id = ?1 AND chat_id = ?2 AND user_id = ?3",
            note_id,
            key.chat_id,
            key.user_id,
            note,
            now_ms,
        )
        .execute(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok(result.rows_affected() == 1)
    }

    /// Deletes one note of the conversation; `false` if it has no note with that id.
    pub async fn delete_note(
        &self,
        key: ConversationKey,
        note_id: i64,
    ) -> Result<bool, sqlx::Error> {
        let result = sqlx::query!(
            "DELETE FROM user_notes WHERE id = ?1 AND chat_id = ?2 AND user_id = ?3",
            note_id,
            key.chat_id,
            key.user_id,
        )
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(result.rows_affected() == 1)
    }
}
