//! Durable user notes: facts and preferences the summarizer extracted, per (chat, user).

use super::{ConversationKey, Store};

/// A note as stored.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
pub struct NoteRecord {
    pub id: i64,
    pub note: String,
    pub created_at_ms: i64,
    pub confirmed_at_ms: i64,
}

impl Store {
    /// The conversation's notes, oldest first (the numbering `/memory` shows).
    pub async fn notes(&self, key: ConversationKey) -> Result<Vec<NoteRecord>, sqlx::Error> {
        sqlx::query_as!(
            NoteRecord,
            r#"SELECT id AS "id!", note, created_at AS created_at_ms,
                      confirmed_at AS confirmed_at_ms
               FROM user_notes WHERE chat_id = ?1 AND user_id = ?2
               ORDER BY created_at, id"#,
            key.chat_id,
            key.user_id,
        )
        .fetch_all(&mut *self.reader().await?)
        .await
    }

    /// Makes `notes` the conversation's complete list: notes already stored keep their creation
    /// time and are confirmed at `now_ms`, new ones are added, the rest are deleted.
    pub async fn replace_notes(
        &self,
        key: ConversationKey,
        notes: &[String],
        source_session_id: i64,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        let mut writer = self.writer().await?;
        let mut transaction = super::begin_write(&mut writer).await?;
        // Mark every current note as unconfirmed, confirm or insert each new one, then delete
        // whatever stayed unconfirmed.
        sqlx::query!(
            "UPDATE user_notes SET confirmed_at = -1 WHERE chat_id = ?1 AND user_id = ?2",
            key.chat_id,
            key.user_id,
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
