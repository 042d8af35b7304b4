//! PostgreSQL: daily usage and stored bytes per person. Triggers keep both current as messages,
//! summaries and notes are written and deleted, so every read here is a primary-key lookup or a
//! range of days.

use super::PgStore;
use crate::storage::{PersonUsage, StoredBytes, TokensAndLimit, UserId};

impl PgStore {
    /// Tokens `user_id` used on the UTC day starting at `day_start_ms`, and their own limit:
    /// what the check before every turn needs, in one read of two primary keys.
    pub async fn tokens_and_limit(
        &self,
        user_id: UserId,
        day_start_ms: i64,
    ) -> Result<TokensAndLimit, sqlx::Error> {
        let row = sqlx::query!(
            r#"SELECT coalesce((SELECT tokens FROM daily_usage
                                WHERE user_id = $1 AND day_start_at = $2), 0) AS "used!",
                      EXISTS (SELECT 1 FROM token_limits WHERE user_id = $1) AS "limited!",
                      (SELECT daily_tokens FROM token_limits WHERE user_id = $1)
                          AS "daily_tokens?""#,
            user_id.0,
            day_start_ms,
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(TokensAndLimit {
            tokens_used: row.used,
            own_limit: row.limited.then_some(row.daily_tokens),
        })
    }

    /// Each person's use from the day starting at `since_ms` on (`today_ms`: the start of today),
    /// most tokens first; with `only`, that person's alone (nothing if they used nothing).
    pub async fn usage_by_person(
        &self,
        since_ms: i64,
        today_ms: i64,
        only: Option<UserId>,
    ) -> Result<Vec<PersonUsage>, sqlx::Error> {
        sqlx::query_as!(
            PersonUsage,
            r#"SELECT user_id,
                      sum(messages)::bigint AS "messages!",
                      sum(tokens)::bigint AS "tokens!",
                      coalesce(sum(tokens) FILTER (WHERE day_start_at >= $2), 0)::bigint
                          AS "tokens_today!"
               FROM daily_usage
               WHERE day_start_at >= $1 AND ($3::bigint IS NULL OR user_id = $3)
               GROUP BY user_id
               ORDER BY sum(tokens) DESC, user_id"#,
            since_ms,
            today_ms,
            only.map(|user_id| user_id.0),
        )
        .fetch_all(&self.pool)
        .await
    }

    /// The bytes of text `user_id` stores in all their chats, and whether they were told that
    /// it reached the cap.
    pub async fn stored_bytes(&self, user_id: UserId) -> Result<StoredBytes, sqlx::Error> {
        let row = sqlx::query!(
            r#"SELECT coalesce((SELECT bytes FROM stored_bytes WHERE user_id = $1), 0)
                          AS "bytes!",
                      EXISTS (SELECT 1 FROM stored_bytes_notices WHERE user_id = $1)
                          AS "told!""#,
            user_id.0,
        )
        .fetch_one(&self.pool)
        .await?;
        Ok(StoredBytes {
            bytes: row.bytes,
            told: row.told,
        })
    }

    /// Records that `user_id` was told their history reached the cap; whether they had not been
    /// told already.
    pub async fn record_stored_bytes_notice(
        &self,
        user_id: UserId,
        now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        let inserted = sqlx::query!(
            "INSERT INTO stored_bytes_notices (user_id, told_at) VALUES ($1, $2)
             ON CONFLICT (user_id) DO NOTHING",
            user_id.0,
            now_ms,
        )
        .execute(&self.pool)
        .await?;
        Ok(inserted.rows_affected() > 0)
    }

    /// Forgets that `user_id` was told about the cap: reaching it again is news again.
    pub async fn forget_stored_bytes_notice(&self, user_id: UserId) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "DELETE FROM stored_bytes_notices WHERE user_id = $1",
            user_id.0
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
