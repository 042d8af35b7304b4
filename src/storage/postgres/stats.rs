//! PostgreSQL: counts for `/stats`, `/metrics` and the health check. Sums of BIGINT columns are
//! NUMERIC in PostgreSQL; they are cast back, as no count here comes near the BIGINT range.

use super::PgStore;
use crate::storage::{ConversationKey, DatabaseTotals, UserId, UserStats};

impl PgStore {
    /// Figures for one (chat, user) conversation.
    pub async fn conversation_stats(
        &self,
        key: ConversationKey,
        window_since_ms: i64,
        today_since_ms: i64,
    ) -> Result<UserStats, sqlx::Error> {
        sqlx::query_as!(
            UserStats,
            r#"SELECT count(*) AS "messages_total!",
                      count(*) FILTER (WHERE created_at >= $3) AS "messages_in_window!",
                      coalesce(sum(tokens_in), 0)::bigint AS "tokens_in!",
                      coalesce(sum(tokens_out), 0)::bigint AS "tokens_out!",
                      coalesce(sum(tokens_in + tokens_out) FILTER (WHERE created_at >= $4), 0)
                          ::bigint AS "tokens_today!",
                      min(created_at) AS "first_activity_ms?",
                      max(created_at) AS "last_activity_ms?"
               FROM messages WHERE chat_id = $1 AND user_id = $2"#,
            key.chat_id.0,
            key.user_id.0,
            window_since_ms,
            today_since_ms,
        )
        .fetch_one(&self.pool)
        .await
    }

    /// Figures for one user across all their chats, the tokens of their incognito turns
    /// included (`today_since_ms` is the start of a UTC day).
    pub async fn user_stats(
        &self,
        user_id: UserId,
        window_since_ms: i64,
        today_since_ms: i64,
    ) -> Result<UserStats, sqlx::Error> {
        sqlx::query_as!(
            UserStats,
            r#"SELECT count(*) AS "messages_total!",
                      count(*) FILTER (WHERE created_at >= $2) AS "messages_in_window!",
                      (coalesce(sum(tokens_in), 0)
                          + (SELECT coalesce(sum(tokens_in), 0) FROM incognito_token_usage
                             WHERE user_id = $1))::bigint AS "tokens_in!",
                      (coalesce(sum(tokens_out), 0)
                          + (SELECT coalesce(sum(tokens_out), 0) FROM incognito_token_usage
                             WHERE user_id = $1))::bigint AS "tokens_out!",
                      (coalesce(sum(tokens_in + tokens_out) FILTER (WHERE created_at >= $3), 0)
                          + (SELECT coalesce(sum(tokens_in + tokens_out), 0)
                             FROM incognito_token_usage
                             WHERE user_id = $1 AND day_start_at >= $3))::bigint
                          AS "tokens_today!",
                      min(created_at) AS "first_activity_ms?",
                      max(created_at) AS "last_activity_ms?"
               FROM messages WHERE user_id = $1"#,
            user_id.0,
            window_since_ms,
            today_since_ms,
        )
        .fetch_one(&self.pool)
        .await
    }

    /// Row counts of the whole database and its size on the server.
    pub async fn database_totals(&self) -> Result<DatabaseTotals, sqlx::Error> {
        sqlx::query_as!(
            DatabaseTotals,
            r#"SELECT (SELECT count(*) FROM user_settings) AS "users!",
                      (SELECT count(*) FROM messages) AS "messages!",
                      (SELECT count(*) FROM sessions) AS "sessions!",
                      (SELECT count(*) FROM sessions WHERE closed_at IS NULL)
                          AS "open_sessions!",
                      (SELECT count(*) FROM session_summaries) AS "summaries!",
                      (SELECT min(created_at) FROM messages) AS "oldest_message_ms?",
                      (SELECT max(created_at) FROM messages) AS "newest_message_ms?",
                      pg_database_size(current_database()) AS "database_bytes!""#,
        )
        .fetch_one(&self.pool)
        .await
    }

    /// Answers if the database does: a statement that reads no table.
    pub async fn ping(&self) -> Result<(), sqlx::Error> {
        sqlx::query!("SELECT true AS alive")
            .fetch_one(&self.pool)
            .await?;
        Ok(())
    }

    /// The database's size on the server (`pg_database_size`): no table read.
    pub async fn database_bytes(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar!(r#"SELECT pg_database_size(current_database()) AS "bytes!""#)
            .fetch_one(&self.pool)
            .await
    }
}
