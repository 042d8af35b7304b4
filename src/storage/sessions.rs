//! Sessions: one stretch of a (chat, user) conversation. Opening, finding the open one, touching
//! and closing. When a session ends is decided by the caller (`memory`), not here.

use super::{ConversationKey, Store};

/// A session as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRecord {
    pub id: i64,
    pub chat_id: i64,
    pub user_id: i64,
    pub started_at_ms: i64,
    pub last_activity_at_ms: i64,
    pub closed_at_ms: Option<i64>,
}

impl Store {
    /// The conversation's open session, if any.
    pub async fn open_session(
        &self,
        key: ConversationKey,
    ) -> Result<Option<SessionRecord>, sqlx::Error> {
        sqlx::query_as!(
            SessionRecord,
            r#"SELECT id AS "id!", chat_id, user_id, started_at AS started_at_ms,
                      last_activity_at AS last_activity_at_ms, closed_at AS closed_at_ms
               FROM sessions
               WHERE chat_id = ?1 AND user_id = ?2 AND closed_at IS NULL"#,
            key.chat_id,
            key.user_id,
        )
        .fetch_optional(&self.reader)
        .await
    }

    /// Starts a new session at `now_ms`, closing the conversation's open one (if any) first.
    /// Returns the new session and the id of the one it closed.
    pub async fn start_session(
        &self,
        key: ConversationKey,
        now_ms: i64,
    ) -> Result<(SessionRecord, Option<i64>), sqlx::Error> {
        let mut transaction = self.writer.begin().await?;
        // A session ends when it was last active, not when we noticed it was idle.
        let closed = sqlx::query_scalar!(
            r#"UPDATE sessions SET closed_at = last_activity_at
               WHERE chat_id = ?1 AND user_id = ?2 AND closed_at IS NULL
               RETURNING id AS "id!""#,
            key.chat_id,
            key.user_id,
        )
        .fetch_optional(&mut *transaction)
        .await?;
        let session = sqlx::query_as!(
            SessionRecord,
            r#"INSERT INTO sessions (chat_id, user_id, started_at, last_activity_at)
               VALUES (?1, ?2, ?3, ?3)
               RETURNING id AS "id!", chat_id, user_id, started_at AS started_at_ms,
                         last_activity_at AS last_activity_at_ms, closed_at AS closed_at_ms"#,
            key.chat_id,
            key.user_id,
            now_ms,
        )
        .fetch_one(&mut *transaction)
        .await?;
        transaction.commit().await?;
        Ok((session, closed))
    }

    /// Moves a session's last activity forward to `now_ms` (never backwards).
    pub async fn touch_session(&self, session_id: i64, now_ms: i64) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "UPDATE sessions SET last_activity_at = max(last_activity_at, ?1) WHERE id = ?2",
            now_ms,
            session_id,
        )
        .execute(&self.writer)
        .await?;
        Ok(())
    }

    /// Closes the conversation's open session at `now_ms`. Returns the closed session's id, or
    /// `None` when no session was open.
    pub async fn close_session(
        &self,
        key: ConversationKey,
        now_ms: i64,
    ) -> Result<Option<i64>, sqlx::Error> {
        sqlx::query_scalar!(
            r#"UPDATE sessions SET closed_at = max(last_activity_at, ?3)
               WHERE chat_id = ?1 AND user_id = ?2 AND closed_at IS NULL
               RETURNING id AS "id!""#,
            key.chat_id,
            key.user_id,
            now_ms,
        )
        .fetch_optional(&self.writer)
        .await
    }
}
