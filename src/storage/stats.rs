//! Usage figures: per conversation and per user for `/stats` and `telemem stats --user`, and
//! totals for the whole database.

use super::Result;
use super::Store;
use super::{ChatId, ConversationKey, UserId};

/// Message and token counts of one conversation or one user.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct UserStats {
    pub messages_total: i64,
    /// Messages created at or after the history window's start.
    pub messages_in_window: i64,
    /// Tokens sent to the model (prompts) and received from it (answers), of every stored turn
    /// (a person's figures add their incognito turns' tokens, which no conversation keeps).
    pub tokens_in: i64,
    pub tokens_out: i64,
    /// Tokens in and out since the start of the current UTC day.
    pub tokens_today: i64,
    /// When the first and the last stored message were written; `None` without messages.
    pub first_activity_ms: Option<i64>,
    pub last_activity_ms: Option<i64>,
}

/// Row counts of the whole database.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DatabaseTotals {
    /// People who ever wrote to the bot (a person's first message gives them a settings row).
    pub users: i64,
    pub messages: i64,
    /// Sessions of every state; of them, `open_sessions` not yet closed.
    pub sessions: i64,
    pub open_sessions: i64,
    pub summaries: i64,
    /// The times of the oldest and newest stored message; `None` when there is none.
    pub oldest_message_ms: Option<i64>,
    pub newest_message_ms: Option<i64>,
    /// The main database file's size (SQLite) or the database's (PostgreSQL).
    pub database_bytes: i64,
}

impl Store {
    /// Figures for one (chat, user) conversation.
    pub async fn conversation_stats(
        &self,
        key: ConversationKey,
        window_since_ms: i64,
        today_since_ms: i64,
    ) -> Result<UserStats> {
        self.stats(
            key.user_id,
            Some(key.chat_id),
            window_since_ms,
            today_since_ms,
        )
        .await
    }

    /// Figures for one user across all their chats, the tokens of their incognito turns
    /// included (`today_since_ms` is the start of a UTC day).
    pub async fn user_stats(
        &self,
        user_id: UserId,
        window_since_ms: i64,
        today_since_ms: i64,
    ) -> Result<UserStats> {
        self.stats(user_id, None, window_since_ms, today_since_ms)
            .await
    }

    /// Figures for the person's conversation in `chat_id`, or (`None`) for all of theirs with the
    /// tokens of their incognito turns, which belong to no conversation. The messages are read
    /// through the conversation index, one chat of the person's sessions at a time (every stored
    /// message is in a session of its conversation).
    async fn stats(
        &self,
        user_id: UserId,
        chat_id: Option<ChatId>,
        window_since_ms: i64,
        today_since_ms: i64,
    ) -> Result<UserStats> {
        let chat_id = chat_id.map(|chat_id| chat_id.0);
        run!(
            self.reader.fetch_one,
            query_as!(
                UserStats,
                sql = r#"WITH incognito AS (
                             SELECT coalesce(sum(tokens_in), 0) AS tokens_in,
                                    coalesce(sum(tokens_out), 0) AS tokens_out,
                                    coalesce(sum(CASE WHEN day_start_at >= $4
                                                      THEN tokens_in + tokens_out END), 0) AS today
                             FROM incognito_token_usage
                             WHERE user_id = $1 AND CAST($2 AS BIGINT) IS NULL)
                         SELECT count(*) AS "messages_total!: i64",
                                count(CASE WHEN created_at >= $3 THEN 1 END)
                                    AS "messages_in_window!: i64",
                                CAST(coalesce(sum(tokens_in), 0)
                                     + (SELECT tokens_in FROM incognito) AS BIGINT)
                                    AS "tokens_in!: i64",
                                CAST(coalesce(sum(tokens_out), 0)
                                     + (SELECT tokens_out FROM incognito) AS BIGINT)
                                    AS "tokens_out!: i64",
                                CAST(coalesce(sum(CASE WHEN created_at >= $4
                                                       THEN tokens_in + tokens_out END), 0)
                                     + (SELECT today FROM incognito) AS BIGINT)
                                    AS "tokens_today!: i64",
                                min(created_at) AS "first_activity_ms?: i64",
                                max(created_at) AS "last_activity_ms?: i64"
                         FROM messages
                         WHERE user_id = $1
                           AND chat_id IN (SELECT chat_id FROM sessions
                                           WHERE user_id = $1
                                             AND (CAST($2 AS BIGINT) IS NULL OR chat_id = $2))"#,
                user_id.0,
                chat_id,
                window_since_ms,
                today_since_ms,
            ),
        )
    }

    /// Row counts of the whole database and its size on disk (main file, without the WAL).
    pub async fn database_totals(&self) -> Result<DatabaseTotals> {
        run!(
            self.reader.fetch_one,
            query_as!(
                DatabaseTotals,
                sqlite = r#"SELECT (SELECT count(*) FROM user_settings) AS "users!: i64",
                                   (SELECT count(*) FROM messages) AS "messages!: i64",
                                   (SELECT count(*) FROM sessions) AS "sessions!: i64",
                                   (SELECT count(*) FROM sessions WHERE closed_at IS NULL)
                                       AS "open_sessions!: i64",
                                   (SELECT count(*) FROM session_summaries) AS "summaries!: i64",
                                   (SELECT min(created_at) FROM messages) AS "oldest_message_ms: i64",
                                   (SELECT max(created_at) FROM messages) AS "newest_message_ms: i64",
                                   (SELECT page_count * page_size
                                    FROM pragma_page_count(), pragma_page_size()) AS "database_bytes!: i64""#,
                postgres = r#"SELECT (SELECT count(*) FROM user_settings) AS "users!",
                                     (SELECT count(*) FROM messages) AS "messages!",
                                     (SELECT count(*) FROM sessions) AS "sessions!",
                                     (SELECT count(*) FROM sessions WHERE closed_at IS NULL)
                                         AS "open_sessions!",
                                     (SELECT count(*) FROM session_summaries) AS "summaries!",
                                     (SELECT min(created_at) FROM messages) AS "oldest_message_ms?",
                                     (SELECT max(created_at) FROM messages) AS "newest_message_ms?",
                                     pg_database_size(current_database()) AS "database_bytes!""#,
            ),
        )
    }

    /// Answers if the database does: a statement that reads no table, for health checks that
    /// must not compete with chat turns for the readers.
    pub async fn ping(&self) -> Result<()> {
        run!(
            self.reader.fetch_one,
            query_scalar!(
                sqlite = r#"SELECT 1 AS "alive!: bool""#,
                // PostgreSQL: Answers if the database does: a statement that reads no table.
                postgres = r#"SELECT true AS "alive!""#,
            ),
        )?;
        Ok(())
    }

    /// The database file's size (main file, without the WAL), from its header: no table read.
    pub async fn database_bytes(&self) -> Result<i64> {
        run!(
            self.reader.fetch_one,
            sqlite = sqlx::query_scalar!(
                r#"SELECT page_count * page_size AS "bytes!: i64"
                   FROM pragma_page_count(), pragma_page_size()"#
            ),
            // PostgreSQL: The database's size on the server (`pg_database_size`): no table
            // read.
            postgres =
                sqlx::query_scalar!(r#"SELECT pg_database_size(current_database()) AS "bytes!""#),
        )
    }
}
