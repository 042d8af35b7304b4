//! PostgreSQL: deleting data, with the same meaning and counts as on SQLite (`storage/purge.rs`):
//! a person's `/clear` of one conversation, the purge of everything older than the retention
//! period, and the trim of one person's oldest sessions when their history is over its cap.
//! Vectors go with their messages and summaries (the schema's triggers), and there is no
//! separate full-text index to clean.
//!
//! The purge deletes in batches, each its own short statement, so that it never holds many rows
//! locked while chat turns write. Each batch skips rows another transaction has locked (a turn
//! writing to them, or a second replica's purge taking its own batch): what it skips is
//! deleted by a later run.

use super::PgStore;
use crate::clock::start_of_utc_day_ms;
use crate::storage::UserId;
use crate::storage::purge::in_batches_counting;

/// The batch size as PostgreSQL's `LIMIT` takes it: a negative one, which SQLite reads as no
/// limit, becomes the largest.
pub(in crate::storage) fn whole_if_negative(batch_size: i64) -> i64 {
    if batch_size < 0 { i64::MAX } else { batch_size }
}

/// A `DELETE`'s or `UPDATE`'s row count as the (rows, dependents) pair of `in_batches_counting`.
pub(in crate::storage) fn counted(result: sqlx::postgres::PgQueryResult) -> (u64, u64) {
    (result.rows_affected(), 0)
}

impl PgStore {
    /// One batch of old sessions with their summaries (and any message left behind, by
    /// cascade), in one statement, so both deletes take the same batch.
    pub(in crate::storage) async fn purge_session_batch(
        &self,
        cutoff_ms: i64,
        batch_size: i64,
    ) -> Result<(u64, u64), sqlx::Error> {
        let row = sqlx::query!(
            r#"WITH batch AS (
                   SELECT id FROM sessions WHERE last_activity_at < $1
                   ORDER BY last_activity_at, id LIMIT $2
                   FOR UPDATE SKIP LOCKED),
               summaries AS (
                   DELETE FROM session_summaries WHERE session_id IN (SELECT id FROM batch)
                   RETURNING 1),
               sessions AS (
                   DELETE FROM sessions WHERE id IN (SELECT id FROM batch) RETURNING 1)
               SELECT (SELECT count(*) FROM sessions) AS "sessions!",
                      (SELECT count(*) FROM summaries) AS "summaries!""#,
            cutoff_ms,
            batch_size,
        )
        .fetch_one(&self.pool)
        .await?;
        Ok((row.sessions as u64, row.summaries as u64))
    }

    /// The settings of people inactive since before `cutoff_ms`, their incognito token counts of
    /// days before it, and every usage count of a day that ended before the day of `cutoff_ms`
    /// (the day holding the cutoff stays whole: the daily token limit reads today's count).
    pub(in crate::storage) async fn purge_counters(
        &self,
        cutoff_ms: i64,
        batch_size: i64,
    ) -> Result<(u64, u64, u64), sqlx::Error> {
        let pool = &self.pool;
        let (settings, _) =
            in_batches_counting(batch_size, std::time::Duration::ZERO, || async move {
                // A user's activity is the time of their newest message or settings change.
                sqlx::query!(
                    "DELETE FROM user_settings WHERE user_id IN
                     (SELECT user_id FROM user_settings WHERE last_active_at < $1 LIMIT $2
                      FOR UPDATE SKIP LOCKED)",
                    cutoff_ms,
                    batch_size,
                )
                .execute(pool)
                .await
                .map(counted)
            })
            .await?;
        let (incognito_usage, _) =
            in_batches_counting(batch_size, std::time::Duration::ZERO, || async move {
                sqlx::query!(
                    "DELETE FROM incognito_token_usage WHERE (user_id, day_start_at) IN
                     (SELECT user_id, day_start_at FROM incognito_token_usage
                      WHERE day_start_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
                    cutoff_ms,
                    batch_size,
                )
                .execute(pool)
                .await
                .map(counted)
            })
            .await?;
        let before_day_ms = start_of_utc_day_ms(cutoff_ms);
        let (usage_days, _) =
            in_batches_counting(batch_size, std::time::Duration::ZERO, || async move {
                sqlx::query!(
                    "DELETE FROM daily_usage WHERE (user_id, day_start_at) IN
                     (SELECT user_id, day_start_at FROM daily_usage
                      WHERE day_start_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
                    before_day_ms,
                    batch_size,
                )
                .execute(pool)
                .await
                .map(counted)
            })
            .await?;
        Ok((settings, incognito_usage, usage_days))
    }

    /// The bytes of text `user_id` stores in all their chats.
    pub(in crate::storage) async fn bytes_stored_by(
        &self,
        user_id: UserId,
    ) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar!(
            r#"SELECT coalesce((SELECT bytes FROM stored_bytes WHERE user_id = $1), 0)
                   AS "bytes!""#,
            user_id.0,
        )
        .fetch_one(&self.pool)
        .await
    }

    /// The person's closed session with the oldest last activity, in any of their chats.
    pub(in crate::storage) async fn oldest_closed_session_of(
        &self,
        user_id: UserId,
    ) -> Result<Option<i64>, sqlx::Error> {
        sqlx::query_scalar!(
            "SELECT id FROM sessions
             WHERE user_id = $1 AND closed_at IS NOT NULL
             ORDER BY last_activity_at, id LIMIT 1",
            user_id.0,
        )
        .fetch_optional(&self.pool)
        .await
    }

    /// One session's messages, in batches.
    pub(in crate::storage) async fn purge_session_messages(
        &self,
        session_id: i64,
        batch_size: i64,
    ) -> Result<u64, sqlx::Error> {
        let pool = &self.pool;
        let (messages, _) =
            in_batches_counting(batch_size, std::time::Duration::ZERO, || async move {
                sqlx::query!(
                    "DELETE FROM messages WHERE id IN
                     (SELECT id FROM messages WHERE session_id = $1 LIMIT $2
                      FOR UPDATE SKIP LOCKED)",
                    session_id,
                    batch_size,
                )
                .execute(pool)
                .await
                .map(counted)
            })
            .await?;
        Ok(messages)
    }

    /// One session and its summary (and, by cascade, any message stored since its messages were
    /// deleted); returns the sessions and summaries deleted.
    pub(in crate::storage) async fn delete_session(
        &self,
        session_id: i64,
    ) -> Result<(u64, u64), sqlx::Error> {
        let mut transaction = self.pool.begin().await?;
        let summaries = sqlx::query!(
            "DELETE FROM session_summaries WHERE session_id = $1",
            session_id
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        let sessions = sqlx::query!("DELETE FROM sessions WHERE id = $1", session_id)
            .execute(&mut *transaction)
            .await?
            .rows_affected();
        transaction.commit().await?;
        Ok((sessions, summaries))
    }
}
