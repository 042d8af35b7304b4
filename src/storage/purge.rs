//! Deleting data: a user's `/clear` of one conversation, the purge of everything older than
//! the retention period (including the persona and settings of people gone that long, and their
//! daily usage counts), and the trim of one person's oldest sessions when their stored history
//! is over its cap (`USER_MAX_STORED_MB`).
//!
//! The purge deletes in batches, each its own short transaction, and yields between batches so
//! that chat turns waiting for the single writer connection get it: one big `DELETE` would hold
//! the write lock for about a second per 250,000 rows and stall every reply meanwhile.

use std::future::Future;

#[cfg(feature = "sqlite")]
use super::SqliteStore;
#[cfg(feature = "postgres")]
use super::postgres::purge::{counted, whole_if_negative};
use super::{Backend, Store};
use super::{ConversationKey, UserId};
use crate::clock::start_of_utc_day_ms;

/// How many rows a purge removed (or, in a dry run, would remove).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PurgeCounts {
    pub messages: u64,
    pub sessions: u64,
    pub summaries: u64,
    pub notes: u64,
    pub processed_updates: u64,
    /// Users' settings rows (persona, model).
    pub settings: u64,
    /// Days of a person's incognito token counts.
    pub incognito_usage: u64,
    /// Days of one person's usage counts (`daily_usage`).
    pub usage_days: u64,
}

impl PurgeCounts {
    pub fn total(&self) -> u64 {
        self.messages
            + self.sessions
            + self.summaries
            + self.notes
            + self.processed_updates
            + self.settings
            + self.incognito_usage
            + self.usage_days
    }
}

#[cfg(feature = "sqlite")]
/// FTS5's default for automatic merging (merge once a level holds this many segments).
const FTS_AUTOMERGE: i64 = 4;

/// Pause between two purge batches on SQLite, so waiting chat turns always get the writer in
/// between. PostgreSQL orders its writers itself: no pause there.
#[cfg(feature = "sqlite")]
const BATCH_PAUSE: std::time::Duration = std::time::Duration::from_millis(2);

/// Runs `delete_batch` until a batch deletes fewer than `batch_size` rows, pausing `pause`
/// between batches so that waiting writers get the connection. Returns the rows deleted.
#[cfg(feature = "sqlite")]
async fn in_batches<F, Fut>(
    batch_size: i64,
    pause: std::time::Duration,
    delete_batch: F,
) -> Result<u64, sqlx::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(u64, u64), sqlx::Error>>,
{
    in_batches_counting(batch_size, pause, delete_batch)
        .await
        .map(|(rows, _)| rows)
}

/// Runs `delete_batch` until a batch deletes fewer than `batch_size` rows (or a batch size that
/// cannot take a row, which would never end), pausing `pause` between batches. Returns the rows
/// deleted and the dependent rows (summaries of sessions) counted beside them; the first count
/// decides when to stop.
pub(super) async fn in_batches_counting<F, Fut>(
    batch_size: i64,
    pause: std::time::Duration,
    mut delete_batch: F,
) -> Result<(u64, u64), sqlx::Error>
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
        // SQLite's writer lock is fair, so turns already waiting for it go before the next
        // batch; the short pause also lets turns that are about to ask for it (and the CPU) in.
        if !pause.is_zero() {
            tokio::time::sleep(pause).await;
        }
    }
}

impl Store {
    /// Deletes every message, session, summary and note of one conversation, with the messages
    /// their full-text index entries, and the stored payloads (the text) of the conversation's
    /// updates not handled yet. An update still waiting behind the `/clear` is answered all the
    /// same; it only loses its crash recovery. Settings (the persona) are not touched.
    pub async fn clear_conversation(
        &self,
        key: ConversationKey,
    ) -> Result<PurgeCounts, sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let mut writer = db.writer().await?;
                let mut transaction = super::begin_write(&mut writer).await?;
                // Secure-delete for this transaction only: the user's words are removed from the index
                // pages themselves, not just marked deleted (see the `messages_fts_owner` migration).
                sqlx::query!(
                    "INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', 1)"
                )
                .execute(&mut *transaction)
                .await?;
                let summaries = sqlx::query!(
                    "DELETE FROM session_summaries WHERE chat_id = ?1 AND user_id = ?2",
                    key.chat_id,
                    key.user_id,
                )
                .execute(&mut *transaction)
                .await?
                .rows_affected();
                let notes = sqlx::query!(
                    "DELETE FROM user_notes WHERE chat_id = ?1 AND user_id = ?2",
                    key.chat_id,
                    key.user_id,
                )
                .execute(&mut *transaction)
                .await?
                .rows_affected();
                let messages = sqlx::query!(
                    "DELETE FROM messages WHERE chat_id = ?1 AND user_id = ?2",
                    key.chat_id,
                    key.user_id,
                )
                .execute(&mut *transaction)
                .await?
                .rows_affected();
                let sessions = sqlx::query!(
                    "DELETE FROM sessions WHERE chat_id = ?1 AND user_id = ?2",
                    key.chat_id,
                    key.user_id,
                )
                .execute(&mut *transaction)
                .await?
                .rows_affected();
                let processed_updates = sqlx::query!(
                    "UPDATE processed_updates SET payload = NULL
                     WHERE chat_id = ?1 AND user_id = ?2 AND payload IS NOT NULL",
                    key.chat_id,
                    key.user_id,
                )
                .execute(&mut *transaction)
                .await?
                .rows_affected();
                sqlx::query!(
                    "INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', 0)"
                )
                .execute(&mut *transaction)
                .await?;
                transaction.commit().await?;
                Ok(PurgeCounts {
                    messages,
                    sessions,
                    summaries,
                    notes,
                    processed_updates,
                    settings: 0,
                    incognito_usage: 0,
                    usage_days: 0,
                })
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Deletes every message, session, summary and note of one conversation
                // (their vectors go with them), and the stored payloads (the text) of the
                // conversation's updates not handled yet, in one transaction. An update still
                // waiting behind the `/clear` is answered all the same; it only loses its crash
                // recovery. Settings (the persona) are not touched.
                let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
                let mut transaction = db.pool.begin().await?;
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
        }
    }

    /// Deletes everything created (messages, update records), last active (sessions, with their
    /// summaries; users, with their settings), last confirmed (notes) or counted (incognito
    /// tokens, by day) before `cutoff_ms`,
    /// `batch_size` rows per transaction.
    pub async fn purge_older_than(
        &self,
        cutoff_ms: i64,
        batch_size: i64,
    ) -> Result<PurgeCounts, sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let _running = db.purge_running();
                let messages = db.purge_messages(cutoff_ms, batch_size).await?;
                let (sessions, summaries) = in_batches_counting(batch_size, BATCH_PAUSE, || {
                    db.purge_session_batch(cutoff_ms, batch_size)
                })
                .await?;
                let notes = in_batches(batch_size, BATCH_PAUSE, || async move {
                    let deleted = sqlx::query!(
                        "DELETE FROM user_notes WHERE id IN
                             (SELECT id FROM user_notes WHERE confirmed_at < ?1 LIMIT ?2)",
                        cutoff_ms,
                        batch_size,
                    )
                    .execute(&mut *db.writer().await?)
                    .await?;
                    Ok((deleted.rows_affected(), 0))
                })
                .await?;
                let processed_updates = in_batches(batch_size, BATCH_PAUSE, || async move {
                    let deleted = sqlx::query!(
                        "DELETE FROM processed_updates WHERE update_id IN
                             (SELECT update_id FROM processed_updates WHERE received_at < ?1 LIMIT ?2)",
                        cutoff_ms,
                        batch_size,
                    )
                    .execute(&mut *db.writer().await?)
                    .await?;
                    Ok((deleted.rows_affected(), 0))
                })
                .await?;
                let settings = in_batches(batch_size, BATCH_PAUSE, || async move {
                    // A user's activity is the time of their newest message or settings change.
                    let deleted = sqlx::query!(
                        "DELETE FROM user_settings WHERE user_id IN
                             (SELECT user_id FROM user_settings WHERE last_active_at < ?1 LIMIT ?2)",
                        cutoff_ms,
                        batch_size,
                    )
                    .execute(&mut *db.writer().await?)
                    .await?;
                    Ok((deleted.rows_affected(), 0))
                })
                .await?;
                let incognito_usage = in_batches(batch_size, BATCH_PAUSE, || async move {
                    let deleted = sqlx::query!(
                        "DELETE FROM incognito_token_usage WHERE (user_id, day_start_at) IN
                             (SELECT user_id, day_start_at FROM incognito_token_usage
                              WHERE day_start_at < ?1 LIMIT ?2)",
                        cutoff_ms,
                        batch_size,
                    )
                    .execute(&mut *db.writer().await?)
                    .await?;
                    Ok((deleted.rows_affected(), 0))
                })
                .await?;
                let usage_days = db.purge_usage_days(cutoff_ms, batch_size).await?;
                let counts = PurgeCounts {
                    messages,
                    sessions,
                    summaries,
                    notes,
                    processed_updates,
                    settings,
                    incognito_usage,
                    usage_days,
                };
                Ok(counts)
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let batch_size = whole_if_negative(batch_size);
                let pool = &db.pool;
                let (messages, _) = in_batches_counting(batch_size, std::time::Duration::ZERO, || async move {
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
                let (sessions, summaries) =
                    in_batches_counting(batch_size, std::time::Duration::ZERO, || {
                        db.purge_session_batch(cutoff_ms, batch_size)
                    })
                    .await?;
                let (notes, _) =
                    in_batches_counting(batch_size, std::time::Duration::ZERO, || async move {
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
                let (processed_updates, _) = in_batches_counting(batch_size, std::time::Duration::ZERO, || async move {
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
                    db.purge_counters(cutoff_ms, batch_size).await?;
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
        }
    }

    /// Deletes `user_id`'s oldest closed sessions, in all their chats, until the text they store
    /// is at most `max_bytes` or no closed session is left: each session's messages in batches of
    /// `batch_size`, then the session with its summary. Vectors and index entries go with their
    /// rows (triggers). Open sessions are left alone: a turn may be writing to one.
    pub async fn purge_oldest_sessions_of(
        &self,
        user_id: UserId,
        max_bytes: i64,
        batch_size: i64,
    ) -> Result<PurgeCounts, sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let _running = db.purge_running();
                let mut counts = PurgeCounts::default();
                while self.stored_bytes(user_id).await?.bytes > max_bytes {
                    let Some(session_id) = db.oldest_closed_session_of(user_id).await? else {
                        break;
                    };
                    counts.messages += db.purge_session_messages(session_id, batch_size).await?;
                    let (sessions, summaries) = db.delete_session(session_id).await?;
                    counts.sessions += sessions;
                    counts.summaries += summaries;
                }
                Ok(counts)
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let batch_size = whole_if_negative(batch_size);
                let mut counts = PurgeCounts::default();
                while db.bytes_stored_by(user_id).await? > max_bytes {
                    let Some(session_id) = db.oldest_closed_session_of(user_id).await? else {
                        break;
                    };
                    counts.messages += db.purge_session_messages(session_id, batch_size).await?;
                    let (sessions, summaries) = db.delete_session(session_id).await?;
                    counts.sessions += sessions;
                    counts.summaries += summaries;
                }
                Ok(counts)
            }
        }
    }

    /// What [`Store::purge_older_than`] would delete, without deleting anything.
    pub async fn count_purgeable(&self, cutoff_ms: i64) -> Result<PurgeCounts, sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let row = sqlx::query!(
                    r#"SELECT
                         (SELECT count(*) FROM messages WHERE created_at < ?1) AS "messages!: i64",
                         (SELECT count(*) FROM sessions WHERE last_activity_at < ?1) AS "sessions!: i64",
                         (SELECT count(*) FROM session_summaries WHERE session_id IN
                              (SELECT id FROM sessions WHERE last_activity_at < ?1)) AS "summaries!: i64",
                         (SELECT count(*) FROM user_notes WHERE confirmed_at < ?1) AS "notes!: i64",
                         (SELECT count(*) FROM processed_updates WHERE received_at < ?1)
                              AS "processed_updates!: i64",
                         (SELECT count(*) FROM user_settings WHERE last_active_at < ?1)
                              AS "settings!: i64",
                         (SELECT count(*) FROM incognito_token_usage WHERE day_start_at < ?1)
                              AS "incognito_usage!: i64",
                         (SELECT count(*) FROM daily_usage WHERE day_start_at < ?2)
                              AS "usage_days!: i64""#,
                    cutoff_ms,
                    start_of_utc_day_ms(cutoff_ms),
                )
                .fetch_one(&mut *db.reader().await?)
                .await?;
                Ok(PurgeCounts {
                    messages: row.messages as u64,
                    sessions: row.sessions as u64,
                    summaries: row.summaries as u64,
                    notes: row.notes as u64,
                    processed_updates: row.processed_updates as u64,
                    settings: row.settings as u64,
                    incognito_usage: row.incognito_usage as u64,
                    usage_days: row.usage_days as u64,
                })
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
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
                .fetch_one(&db.pool)
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
    }
}

#[cfg(feature = "sqlite")]
impl SqliteStore {
    /// Old messages, in batches. Each batch adds delete markers to the full-text index. With
    /// FTS5's automatic merging on, the batch that crosses a merge threshold also merges index
    /// segments full of them: a long hold of the writer during which every chat turn waits.
    /// During the purge automatic merging is off and each batch is followed by a bounded merge
    /// step of its own, so that a waiting turn gets the writer between the two.
    async fn purge_messages(&self, cutoff_ms: i64, batch_size: i64) -> Result<u64, sqlx::Error> {
        let store = self;
        self.set_fts_automerge(0).await?;
        let messages = in_batches(batch_size, BATCH_PAUSE, || async move {
            let deleted = sqlx::query!(
                "DELETE FROM messages WHERE id IN
                     (SELECT id FROM messages WHERE created_at < ?1 ORDER BY created_at LIMIT ?2)",
                cutoff_ms,
                batch_size,
            )
            .execute(&mut *store.writer().await?)
            .await?;
            sqlx::query!("INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', 16)")
                .execute(&mut *store.writer().await?)
                .await?;
            Ok((deleted.rows_affected(), 0))
        })
        .await;
        let restored = self.set_fts_automerge(FTS_AUTOMERGE).await;
        let messages = messages?;
        restored?;
        Ok(messages)
    }

    /// One batch of old sessions with their summaries (and any message left behind, by cascade).
    async fn purge_session_batch(
        &self,
        cutoff_ms: i64,
        batch_size: i64,
    ) -> Result<(u64, u64), sqlx::Error> {
        let mut writer = self.writer().await?;
        let mut transaction = super::begin_write(&mut writer).await?;
        // Both statements select the same batch: same ordering, same snapshot, one transaction.
        let summaries = sqlx::query!(
            "DELETE FROM session_summaries WHERE session_id IN
                 (SELECT id FROM sessions WHERE last_activity_at < ?1
                  ORDER BY last_activity_at, id LIMIT ?2)",
            cutoff_ms,
            batch_size,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        let sessions = sqlx::query!(
            "DELETE FROM sessions WHERE id IN
                 (SELECT id FROM sessions WHERE last_activity_at < ?1
                  ORDER BY last_activity_at, id LIMIT ?2)",
            cutoff_ms,
            batch_size,
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        transaction.commit().await?;
        Ok((sessions, summaries))
    }

    /// Days of usage counts that ended before the day of `cutoff_ms`. The day holding the cutoff
    /// stays whole, so today's count (which the daily token limit reads) is never deleted.
    async fn purge_usage_days(&self, cutoff_ms: i64, batch_size: i64) -> Result<u64, sqlx::Error> {
        let store = self;
        let before_day_ms = start_of_utc_day_ms(cutoff_ms);
        in_batches(batch_size, BATCH_PAUSE, || async move {
            let deleted = sqlx::query!(
                "DELETE FROM daily_usage WHERE (user_id, day_start_at) IN
                     (SELECT user_id, day_start_at FROM daily_usage
                      WHERE day_start_at < ?1 LIMIT ?2)",
                before_day_ms,
                batch_size,
            )
            .execute(&mut *store.writer().await?)
            .await?;
            Ok((deleted.rows_affected(), 0))
        })
        .await
    }

    /// The person's closed session with the oldest last activity, in any of their chats.
    async fn oldest_closed_session_of(&self, user_id: UserId) -> Result<Option<i64>, sqlx::Error> {
        sqlx::query_scalar!(
            r#"SELECT id AS "id!" FROM sessions
               WHERE user_id = ?1 AND closed_at IS NOT NULL
               ORDER BY last_activity_at, id LIMIT 1"#,
            user_id,
        )
        .fetch_optional(&mut *self.reader().await?)
        .await
    }

    /// One session's messages, in batches.
    async fn purge_session_messages(
        &self,
        session_id: i64,
        batch_size: i64,
    ) -> Result<u64, sqlx::Error> {
        let store = self;
        in_batches(batch_size, BATCH_PAUSE, || async move {
            let deleted = sqlx::query!(
                "DELETE FROM messages WHERE id IN
                     (SELECT id FROM messages WHERE session_id = ?1 LIMIT ?2)",
                session_id,
                batch_size,
            )
            .execute(&mut *store.writer().await?)
            .await?;
            Ok((deleted.rows_affected(), 0))
        })
        .await
    }

    /// One session and its summary (and, by cascade, any message stored since its messages were
    /// deleted); returns the sessions and summaries deleted.
    async fn delete_session(&self, session_id: i64) -> Result<(u64, u64), sqlx::Error> {
        let mut writer = self.writer().await?;
        let mut transaction = super::begin_write(&mut writer).await?;
        let summaries = sqlx::query!(
            "DELETE FROM session_summaries WHERE session_id = ?1",
            session_id
        )
        .execute(&mut *transaction)
        .await?
        .rows_affected();
        let sessions = sqlx::query!("DELETE FROM sessions WHERE id = ?1", session_id)
            .execute(&mut *transaction)
            .await?
            .rows_affected();
        transaction.commit().await?;
        Ok((sessions, summaries))
    }

    /// Sets the full-text index's automatic merging (0: off; see [`Store::purge_older_than`]).
    async fn set_fts_automerge(&self, segments: i64) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "INSERT INTO messages_fts (messages_fts, rank) VALUES ('automerge', ?1)",
            segments,
        )
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(())
    }

    /// Turns the full-text index's automatic merging back on, in case a purge was interrupted
    /// (a crash, or `telemem purge` stopped) while it was off.
    pub(super) async fn restore_fts_automerge(&self) -> Result<(), sqlx::Error> {
        self.set_fts_automerge(FTS_AUTOMERGE).await
    }
}
