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

use std::future::Future;

use super::PgStore;
use crate::clock::start_of_utc_day_ms;
use crate::storage::{ConversationKey, PurgeCounts, UserId};

/// Runs `delete_batch` until a batch deletes fewer than `batch_size` rows (or a batch size that
/// cannot take a row, which would never end). Returns the rows deleted and the dependent rows
/// (summaries of sessions) counted beside them; the first count decides when to stop.
async fn in_batches<F, Fut>(batch_size: i64, mut delete_batch: F) -> Result<(u64, u64), sqlx::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(u64, u64), sqlx::Error>>,
{
    let (mut rows, mut dependents) = (0, 0);
    loop {
        let (deleted, dependent) = delete_batch().await?;
        rows += deleted;
        dependents += dependent;
        if batch_size <= 0 || deleted < batch_size as u64 {
            return Ok((rows, dependents));
        }
    }
}

/// The batch size as PostgreSQL's `LIMIT` takes it: a negative one, which SQLite reads as no
/// limit, becomes the largest.
fn whole_if_negative(batch_size: i64) -> i64 {
    if batch_size < 0 { i64::MAX } else { batch_size }
}

/// A `DELETE`'s or `UPDATE`'s row count as the (rows, dependents) pair of [`in_batches`].
fn counted(result: sqlx::postgres::PgQueryResult) -> (u64, u64) {
    (result.rows_affected(), 0)
}

impl PgStore {
    /// Deletes every message, session, summary and note of one conversation (their vectors go
    /// with them), and the stored payloads (the text) of the conversation's updates not handled
    /// yet, in one transaction. An update still waiting behind the `/clear` is answered all the
    /// same; it only loses its crash recovery. Settings (the persona) are not touched.
    pub async fn clear_conversation(
        &self,
        key: ConversationKey,
    ) -> Result<PurgeCounts, sqlx::Error> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        let mut transaction = self.pool.begin().await?;
        let summaries = sqlx::query!(
            "DELETE FROM session_summaries WHERE chat_id = $1 AND user_id = $2",
            chat_id,
            user_id,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        let notes = sqlx::query!(
            "DELETE FROM user_notes WHERE chat_id = $1 AND user_id = $2",
            chat_id,
            user_id,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        let messages = sqlx::query!(
            "DELETE FROM messages WHERE chat_id = $1 AND user_id = $2",
            chat_id,
            user_id,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        let sessions = sqlx::query!(
            "DELETE FROM sessions WHERE chat_id = $1 AND user_id = $2",
            chat_id,
            user_id,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        let processed_updates = sqlx::query!(
            "UPDATE processed_updates SET payload = NULL
             WHERE chat_id = $1 AND user_id = $2 AND payload IS NOT NULL",
            chat_id,
            user_id,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        transaction.commit().await?;
        Ok(PurgeCounts {
            messages,
            sessions,
            summaries,
            notes,
            processed_updates,
            ..PurgeCounts::default()
        })
    }

    /// Deletes everything created (messages, update records), last active (sessions, with their
    /// summaries; users, with their settings), last confirmed (notes) or counted (incognito
    /// tokens, by day) before `cutoff_ms`, and the usage counts of days that ended before the
    /// day of `cutoff_ms`, `batch_size` rows per statement.
    pub async fn purge_older_than(
        &self,
        cutoff_ms: i64,
        batch_size: i64,
    ) -> Result<PurgeCounts, sqlx::Error> {
        let batch_size = whole_if_negative(batch_size);
        let pool = &self.pool;
        let (messages, _) = in_batches(batch_size, || async move {
            sqlx::query!(
                "DELETE FROM messages WHERE id IN
                     (SELECT id FROM messages WHERE created_at < $1 ORDER BY created_at LIMIT $2
                      FOR UPDATE SKIP LOCKED)",
                cutoff_ms,
                batch_size,
            )
            .execute(pool)
            .await
            .map(counted)
        })
        .await?;
        let (sessions, summaries) = in_batches(batch_size, || {
            self.purge_session_batch(cutoff_ms, batch_size)
        })
        .await?;
        let (notes, _) = in_batches(batch_size, || async move {
            sqlx::query!(
                "DELETE FROM user_notes WHERE id IN
                     (SELECT id FROM user_notes WHERE confirmed_at < $1 LIMIT $2
                      FOR UPDATE SKIP LOCKED)",
                cutoff_ms,
                batch_size,
            )
            .execute(pool)
            .await
            .map(counted)
        })
        .await?;
        let (processed_updates, _) = in_batches(batch_size, || async move {
            sqlx::query!(
                "DELETE FROM processed_updates WHERE update_id IN
                     (SELECT update_id FROM processed_updates WHERE received_at < $1 LIMIT $2
                      FOR UPDATE SKIP LOCKED)",
                cutoff_ms,
                batch_size,
            )
            .execute(pool)
            .await
            .map(counted)
        })
        .await?;
        let (settings, incognito_usage, usage_days) =
            self.purge_counters(cutoff_ms, batch_size).await?;
        Ok(PurgeCounts {
            messages,
            sessions,
            summaries,
            notes,
            processed_updates,
            settings,
            incognito_usage,
            usage_days,
        })
    }

    /// One batch of old sessions with their summaries (and any message left behind, by
    /// cascade), in one statement, so both deletes take the same batch.
    async fn purge_session_batch(
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
    async fn purge_counters(
        &self,
        cutoff_ms: i64,
        batch_size: i64,
    ) -> Result<(u64, u64, u64), sqlx::Error> {
        let pool = &self.pool;
        let (settings, _) = in_batches(batch_size, || async move {
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
        let (incognito_usage, _) = in_batches(batch_size, || async move {
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
        let (usage_days, _) = in_batches(batch_size, || async move {
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

    /// Deletes `user_id`'s oldest closed sessions, in all their chats, until the text they store
    /// is at most `max_bytes` or no closed session is left: each session's messages in batches of
    /// `batch_size`, then the session with its summary. Vectors go with their rows (triggers).
    /// Open sessions are left alone: a turn may be writing to one.
    pub async fn purge_oldest_sessions_of(
        &self,
        user_id: UserId,
        max_bytes: i64,
        batch_size: i64,
    ) -> Result<PurgeCounts, sqlx::Error> {
        let batch_size = whole_if_negative(batch_size);
        let mut counts = PurgeCounts::default();
        while self.bytes_stored_by(user_id).await? > max_bytes {
            let Some(session_id) = self.oldest_closed_session_of(user_id).await? else {
                break;
            };
            counts.messages += self.purge_session_messages(session_id, batch_size).await?;
            let (sessions, summaries) = self.delete_session(session_id).await?;
            counts.sessions += sessions;
            counts.summaries += summaries;
        }
        Ok(counts)
    }

    /// The bytes of text `user_id` stores in all their chats.
    async fn bytes_stored_by(&self, user_id: UserId) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar!(
            r#"SELECT coalesce((SELECT bytes FROM stored_bytes WHERE user_id = $1), 0)
                   AS "bytes!""#,
            user_id.0,
        )
        .fetch_one(&self.pool)
        .await
    }

    /// The person's closed session with the oldest last activity, in any of their chats.
    async fn oldest_closed_session_of(&self, user_id: UserId) -> Result<Option<i64>, sqlx::Error> {
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
    async fn purge_session_messages(
        &self,
        session_id: i64,
        batch_size: i64,
    ) -> Result<u64, sqlx::Error> {
        let pool = &self.pool;
        let (messages, _) = in_batches(batch_size, || async move {
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
    async fn delete_session(&self, session_id: i64) -> Result<(u64, u64), sqlx::Error> {
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

    /// What [`PgStore::purge_older_than`] would delete, without deleting anything.
    pub async fn count_purgeable(&self, cutoff_ms: i64) -> Result<PurgeCounts, sqlx::Error> {
        let row = sqlx::query!(
            r#"SELECT
                 (SELECT count(*) FROM messages WHERE created_at < $1) AS "messages!",
                 (SELECT count(*) FROM sessions WHERE last_activity_at < $1) AS "sessions!",
                 (SELECT count(*) FROM session_summaries WHERE session_id IN
                      (SELECT id FROM sessions WHERE last_activity_at < $1)) AS "summaries!",
                 (SELECT count(*) FROM user_notes WHERE confirmed_at < $1) AS "notes!",
                 (SELECT count(*) FROM processed_updates WHERE received_at < $1)
                      AS "processed_updates!",
                 (SELECT count(*) FROM user_settings WHERE last_active_at < $1) AS "settings!",
                 (SELECT count(*) FROM incognito_token_usage WHERE day_start_at < $1)
                      AS "incognito_usage!",
                 (SELECT count(*) FROM daily_usage WHERE day_start_at < $2) AS "usage_days!""#,
            cutoff_ms,
            start_of_utc_day_ms(cutoff_ms),
        )
        .fetch_one(&self.pool)
        .await?;
        let count = |rows: i64| rows as u64;
        Ok(PurgeCounts {
            messages: count(row.messages),
            sessions: count(row.sessions),
            summaries: count(row.summaries),
            notes: count(row.notes),
            processed_updates: count(row.processed_updates),
            settings: count(row.settings),
            incognito_usage: count(row.incognito_usage),
            usage_days: count(row.usage_days),
        })
    }
}
