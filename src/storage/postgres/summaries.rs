//! PostgreSQL: session summaries. Storing one marks its session summarized (a trigger).

use super::PgStore;
use super::messages::storable;
use crate::storage::{ConversationKey, Role, StoredMessage, SummaryRecord};

impl PgStore {
    /// Stores (or replaces) the summary of a session.
    pub async fn add_summary(
        &self,
        session_id: i64,
        key: ConversationKey,
        summary: &str,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        sqlx::query!(
            r#"INSERT INTO session_summaries (session_id, chat_id, user_id, summary, created_at)
               VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (session_id) DO UPDATE
                   SET summary = excluded.summary, created_at = excluded.created_at"#,
            session_id,
            key.chat_id.0,
            key.user_id.0,
            &*storable(summary),
            now_ms,
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// The conversation's last `limit` summaries written at or after `since_ms`, oldest first.
    pub async fn recent_summaries(
        &self,
        key: ConversationKey,
        since_ms: i64,
        limit: i64,
    ) -> Result<Vec<SummaryRecord>, sqlx::Error> {
        let mut summaries = sqlx::query_as!(
            SummaryRecord,
            r#"SELECT summary.session_id, summary.chat_id, summary.user_id,
                      summary.summary, summary.created_at AS created_at_ms,
                      session.started_at AS session_started_at_ms,
                      session.last_activity_at AS session_last_activity_at_ms
               FROM session_summaries AS summary
               JOIN sessions AS session ON session.id = summary.session_id
               WHERE summary.chat_id = $1 AND summary.user_id = $2 AND summary.created_at >= $3
               ORDER BY summary.created_at DESC, summary.session_id DESC
               LIMIT CASE WHEN $4::bigint >= 0 THEN $4 END"#,
            key.chat_id.0,
            key.user_id.0,
            since_ms,
            limit,
        )
        .fetch_all(&self.pool)
        .await?;
        summaries.reverse();
        Ok(summaries)
    }

    /// The summaries of the conversation's sessions that overlap `from_ms..to_ms` (a session
    /// from its first message to its last), oldest first: the `limit` latest of them when more
    /// do. What "what did we talk about last week?" reads.
    pub async fn summaries_between(
        &self,
        key: ConversationKey,
        from_ms: i64,
        to_ms: i64,
        limit: i64,
    ) -> Result<Vec<SummaryRecord>, sqlx::Error> {
        let mut summaries = sqlx::query_as!(
            SummaryRecord,
            r#"SELECT summary.session_id, summary.chat_id, summary.user_id,
                      summary.summary, summary.created_at AS created_at_ms,
                      session.started_at AS session_started_at_ms,
                      session.last_activity_at AS session_last_activity_at_ms
               FROM sessions AS session
               JOIN session_summaries AS summary ON summary.session_id = session.id
               WHERE session.chat_id = $1 AND session.user_id = $2
                 AND session.started_at < $4 AND session.last_activity_at >= $3
               ORDER BY session.started_at DESC, session.id DESC
               LIMIT CASE WHEN $5::bigint >= 0 THEN $5 END"#,
            key.chat_id.0,
            key.user_id.0,
            from_ms,
            to_ms,
            limit,
        )
        .fetch_all(&self.pool)
        .await?;
        summaries.reverse();
        Ok(summaries)
    }

    /// The person's own messages (not the replies) written in `from_ms..to_ms` in sessions that
    /// have no summary yet, oldest first: the `limit` latest of them when more do.
    pub async fn messages_between(
        &self,
        key: ConversationKey,
        from_ms: i64,
        to_ms: i64,
        limit: i64,
    ) -> Result<Vec<StoredMessage>, sqlx::Error> {
        sqlx::query_as!(
            StoredMessage,
            r#"SELECT id AS "id!", chat_id AS "chat_id!", user_id AS "user_id!",
                      session_id AS "session_id!", role AS "role!: Role",
                      content AS "content!", created_at AS "created_at_ms!",
                      tokens_in AS "tokens_in!", tokens_out AS "tokens_out!",
                      telegram_message_id
               FROM (SELECT * FROM messages
                     WHERE chat_id = $1 AND user_id = $2 AND created_at >= $3
                       AND created_at < $4 AND role = 'user'
                       AND NOT EXISTS (SELECT 1 FROM session_summaries AS summary
                                       WHERE summary.session_id = messages.session_id)
                     ORDER BY created_at DESC, id DESC
                     LIMIT CASE WHEN $5::bigint >= 0 THEN $5 END) AS latest
               ORDER BY created_at ASC, id ASC"#,
            key.chat_id.0,
            key.user_id.0,
            from_ms,
            to_ms,
            limit,
        )
        .fetch_all(&self.pool)
        .await
    }
}
