//! Deleting data: a user's `/clear` of one conversation, the purge of everything older than
//! the retention period (including the persona and settings of people gone that long, and their
//! daily usage counts), and the trim of one person's oldest sessions when their stored history
//! is over its cap (`USER_MAX_STORED_MB`). Vectors and full-text index entries go with their rows
//! (triggers).
//!
//! The purge deletes in batches, each its own short transaction, so that chat turns waiting to
//! write get their turn in between: one big `DELETE` would hold SQLite's write lock for about a
//! second per 250,000 rows and stall every reply meanwhile. On SQLite the purge also pauses
//! between batches (its writer lock is fair, and the pause lets turns about to ask for it in);
//! on PostgreSQL each batch skips rows another transaction has locked (a turn writing to them,
//! or a second replica's purge taking its own batch), and a later run deletes what it skipped.

use std::future::Future;

use super::Result;
use super::{Backend, Store};
use super::{ConversationKey, UserId};
use crate::clock::start_of_utc_day_ms;

/// Deletes the rows of `$table` that belong to the conversation (`$chat_id`, `$user_id`) in the
/// transaction `$transaction`; how many.
macro_rules! delete_conversation_rows {
    ($transaction:ident, $table:literal, $chat_id:expr, $user_id:expr) => {
        run_in!(
            $transaction.execute,
            sqlite = sqlx::query!(
                "DELETE FROM " + $table + " WHERE chat_id = ?1 AND user_id = ?2",
                $chat_id,
                $user_id,
            ),
            postgres = sqlx::query!(
                "DELETE FROM " + $table + " WHERE chat_id = $1 AND user_id = $2",
                $chat_id,
                $user_id,
            ),
        )
    };
}

/// Deletes the rows of `$table` whose `$time` column is before `$cutoff`, `$batch_size` rows
/// (by `$key`, the columns `$columns`) per statement, until none is left; how many. On
/// PostgreSQL a batch skips the rows another transaction has locked.
macro_rules! delete_older_in_batches {
    (
        $store:ident, $table:literal, $key:literal, $columns:literal, $time:literal,
        $cutoff:expr, $batch_size:expr $(,)?
    ) => {
        delete_older_in_batches!(@statements $store, $cutoff, $batch_size, [
            "DELETE FROM " + $table + " WHERE " + $key
                + " IN (SELECT " + $columns + " FROM " + $table + " WHERE " + $time
        ])
    };
    (@statements $store:ident, $cutoff:expr, $batch_size:expr, [$($statement:tt)+]) => {
        $store.in_batches($batch_size, || async move {
            run!(
                $store.writer.execute,
                sqlite = sqlx::query!(
                    $($statement)+ + " < ?1 LIMIT ?2)",
                    $cutoff,
                    $batch_size,
                ),
                postgres = sqlx::query!(
                    $($statement)+ + " < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)",
                    $cutoff,
                    $batch_size,
                ),
            )
        })
    };
}

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
    /// Reminders: a conversation's on `/clear`; the purge takes only those sent, cancelled or
    /// given up.
    pub reminders: u64,
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
            + self.reminders
    }
}

/// The rows [`Store::count_purgeable`] counts, as the database returns the counts.
struct PurgeableRows {
    messages: i64,
    sessions: i64,
    summaries: i64,
    notes: i64,
    processed_updates: i64,
    settings: i64,
    incognito_usage: i64,
    usage_days: i64,
    reminders: i64,
}

impl From<PurgeableRows> for PurgeCounts {
    fn from(rows: PurgeableRows) -> Self {
        let count = |rows: i64| u64::try_from(rows).unwrap_or(0);
        Self {
            messages: count(rows.messages),
            sessions: count(rows.sessions),
            summaries: count(rows.summaries),
            notes: count(rows.notes),
            processed_updates: count(rows.processed_updates),
            settings: count(rows.settings),
            incognito_usage: count(rows.incognito_usage),
            usage_days: count(rows.usage_days),
            reminders: count(rows.reminders),
        }
    }
}

#[cfg(feature = "sqlite")]
/// FTS5's default for automatic merging (merge once a level holds this many segments).
const FTS_AUTOMERGE: i64 = 4;

/// Pause between two purge batches on SQLite, so waiting chat turns always get the writer in
/// between. PostgreSQL orders its writers itself: no pause there.
#[cfg(feature = "sqlite")]
const BATCH_PAUSE: std::time::Duration = std::time::Duration::from_millis(2);

/// The batch size as `LIMIT` takes it in both databases: a negative one means no limit.
fn whole_if_negative(batch_size: i64) -> i64 {
    if batch_size < 0 { i64::MAX } else { batch_size }
}

/// Runs `delete_batch` until a batch deletes fewer than `batch_size` rows (or a batch size that
/// cannot take a row, which would never end), pausing `pause` between batches. Returns the rows
/// deleted and the dependent rows (summaries of sessions) counted beside them; the first count
/// decides when to stop.
async fn in_batches_counting<F, Fut>(
    batch_size: i64,
    pause: std::time::Duration,
    mut delete_batch: F,
) -> Result<(u64, u64)>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<(u64, u64)>>,
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
    pub async fn clear_conversation(&self, key: ConversationKey) -> Result<PurgeCounts> {
        let (chat_id, user_id) = (key.chat_id.0, key.user_id.0);
        begin!(self, transaction);
        transaction.secure_delete_from_search_index(true).await?;
        // In this order: what refers to a session before the session.
        let counts = PurgeCounts {
            summaries: delete_conversation_rows!(
                transaction,
                "session_summaries",
                chat_id,
                user_id
            )?,
            notes: delete_conversation_rows!(transaction, "user_notes", chat_id, user_id)?,
            messages: delete_conversation_rows!(transaction, "messages", chat_id, user_id)?,
            sessions: delete_conversation_rows!(transaction, "sessions", chat_id, user_id)?,
            reminders: delete_conversation_rows!(transaction, "reminders", chat_id, user_id)?,
            processed_updates: run_in!(
                transaction.execute,
                query!(
                    sql = "UPDATE processed_updates SET payload = NULL
                           WHERE chat_id = $1 AND user_id = $2 AND payload IS NOT NULL",
                    chat_id,
                    user_id,
                ),
            )?,
            ..PurgeCounts::default()
        };
        transaction.secure_delete_from_search_index(false).await?;
        transaction.commit().await?;
        Ok(counts)
    }

    /// Deletes everything created (messages, update records), last active (sessions, with their
    /// summaries; users, with their settings), last confirmed (notes) or counted (incognito
    /// tokens, by day) before `cutoff_ms`, `batch_size` rows per transaction (negative: all at
    /// once).
    pub async fn purge_older_than(&self, cutoff_ms: i64, batch_size: i64) -> Result<PurgeCounts> {
        let batch_size = whole_if_negative(batch_size);
        let _running = self.purge_running();
        let messages = self.purge_messages(cutoff_ms, batch_size).await?;
        let (sessions, summaries) = self
            .in_batches_counting(batch_size, || {
                self.purge_session_batch(cutoff_ms, batch_size)
            })
            .await?;
        let notes = delete_older_in_batches!(
            self,
            "user_notes",
            "id",
            "id",
            "confirmed_at",
            cutoff_ms,
            batch_size,
        )
        .await?;
        let processed_updates = delete_older_in_batches!(
            self,
            "processed_updates",
            "update_id",
            "update_id",
            "received_at",
            cutoff_ms,
            batch_size,
        )
        .await?;
        // A user's activity is the time of their newest message or settings change.
        let settings = delete_older_in_batches!(
            self,
            "user_settings",
            "user_id",
            "user_id",
            "last_active_at",
            cutoff_ms,
            batch_size,
        )
        .await?;
        let incognito_usage = delete_older_in_batches!(
            self,
            "incognito_token_usage",
            "(user_id, day_start_at)",
            "user_id, day_start_at",
            "day_start_at",
            cutoff_ms,
            batch_size,
        )
        .await?;
        // The day holding the cutoff stays whole, so today's count (which the daily token limit
        // reads) is never deleted.
        let before_day_ms = start_of_utc_day_ms(cutoff_ms);
        let usage_days = delete_older_in_batches!(
            self,
            "daily_usage",
            "(user_id, day_start_at)",
            "user_id, day_start_at",
            "day_start_at",
            before_day_ms,
            batch_size,
        )
        .await?;
        // Waiting reminders stay, however long ago they were set.
        let reminders = delete_older_in_batches!(
            self,
            "reminders",
            "id",
            "id",
            "state IN ('sent', 'cancelled', 'failed') AND created_at",
            cutoff_ms,
            batch_size,
        )
        .await?;
        Ok(PurgeCounts {
            messages,
            sessions,
            summaries,
            notes,
            processed_updates,
            settings,
            incognito_usage,
            usage_days,
            reminders,
        })
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
    ) -> Result<PurgeCounts> {
        let batch_size = whole_if_negative(batch_size);
        let _running = self.purge_running();
        let mut counts = PurgeCounts::default();
        while self.stored_bytes(user_id).await?.bytes > max_bytes {
            let oldest = run!(
                self.reader.fetch_optional,
                query_scalar!(
                    sql = r#"SELECT id AS "id!" FROM sessions
                             WHERE user_id = $1 AND closed_at IS NOT NULL
                             ORDER BY last_activity_at, id LIMIT 1"#,
                    user_id.0,
                ),
            )?;
            let Some(session_id) = oldest else {
                break;
            };
            counts.messages += self
                .in_batches(batch_size, || async move {
                    run!(
                        self.writer.execute,
                        query!(
                            sqlite = "DELETE FROM messages WHERE id IN
                                          (SELECT id FROM messages WHERE session_id = ?1 LIMIT ?2)",
                            postgres = "DELETE FROM messages WHERE id IN
                                            (SELECT id FROM messages WHERE session_id = $1 LIMIT $2
                                             FOR UPDATE SKIP LOCKED)",
                            session_id,
                            batch_size,
                        ),
                    )
                })
                .await?;
            // The session and its summary (and, by cascade, any message stored since its
            // messages were deleted).
            begin!(self, transaction);
            counts.summaries += transaction.delete_summary(session_id).await?;
            counts.sessions += transaction.delete_session(session_id).await?;
            transaction.commit().await?;
        }
        Ok(counts)
    }

    /// What [`Store::purge_older_than`] would delete, without deleting anything.
    pub async fn count_purgeable(&self, cutoff_ms: i64) -> Result<PurgeCounts> {
        let before_day_ms = start_of_utc_day_ms(cutoff_ms);
        let rows = run!(
            self.reader.fetch_one,
            query_as!(
                PurgeableRows,
                sql = r#"SELECT
                           (SELECT count(*) FROM messages WHERE created_at < $1) AS "messages!: i64",
                           (SELECT count(*) FROM sessions
                            WHERE started_at < $1 AND last_activity_at < $1) AS "sessions!: i64",
                           (SELECT count(*) FROM session_summaries WHERE session_id IN
                                (SELECT id FROM sessions
                                 WHERE started_at < $1 AND last_activity_at < $1)) AS "summaries!: i64",
                           (SELECT count(*) FROM user_notes WHERE confirmed_at < $1) AS "notes!: i64",
                           (SELECT count(*) FROM processed_updates WHERE received_at < $1)
                                AS "processed_updates!: i64",
                           (SELECT count(*) FROM user_settings WHERE last_active_at < $1)
                                AS "settings!: i64",
                           (SELECT count(*) FROM incognito_token_usage WHERE day_start_at < $1)
                                AS "incognito_usage!: i64",
                           (SELECT count(*) FROM daily_usage WHERE day_start_at < $2)
                                AS "usage_days!: i64",
                           (SELECT count(*) FROM reminders
                            WHERE state IN ('sent', 'cancelled', 'failed') AND created_at < $1)
                                AS "reminders!: i64""#,
                cutoff_ms,
                before_day_ms,
            ),
        )?;
        Ok(rows.into())
    }

    /// Runs `delete_batch` (rows deleted) until a batch deletes fewer than `batch_size` rows,
    /// pausing between batches on SQLite. Returns the rows deleted.
    async fn in_batches<F, Fut>(&self, batch_size: i64, mut delete_batch: F) -> Result<u64>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<u64>>,
    {
        self.in_batches_counting(batch_size, || {
            let batch = delete_batch();
            async move { batch.await.map(|deleted| (deleted, 0)) }
        })
        .await
        .map(|(rows, _)| rows)
    }

    /// [`in_batches_counting`] with the pause this store's backend wants between batches.
    async fn in_batches_counting<F, Fut>(
        &self,
        batch_size: i64,
        delete_batch: F,
    ) -> Result<(u64, u64)>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<(u64, u64)>>,
    {
        let pause = match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(_) => BATCH_PAUSE,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => std::time::Duration::ZERO,
        };
        in_batches_counting(batch_size, pause, delete_batch).await
    }

    /// Marks a purge as running while the mark lives: SQLite's checkpoints then copy the
    /// write-ahead log beside the purge only. PostgreSQL needs no mark.
    fn purge_running(&self) -> PurgeMark<'_> {
        PurgeMark {
            #[cfg(feature = "sqlite")]
            _running: match &self.backend {
                Backend::Sqlite(db) => Some(db.purge_running()),
                #[cfg(feature = "postgres")]
                Backend::Postgres(_) => None,
            },
            _store: std::marker::PhantomData,
        }
    }

    /// Old messages, in batches. On SQLite each batch adds delete markers to the full-text
    /// index. With FTS5's automatic merging on, the batch that crosses a merge threshold also
    /// merges index segments full of them: a long hold of the writer during which every chat turn
    /// waits. During the purge automatic merging is off and each batch is followed by a bounded
    /// merge step of its own, so that a waiting turn gets the writer between the two.
    async fn purge_messages(&self, cutoff_ms: i64, batch_size: i64) -> Result<u64> {
        self.pause_search_index_merging().await?;
        let messages = self
            .in_batches(batch_size, || async move {
                let deleted = run!(
                    self.writer.execute,
                    query!(
                        sqlite = "DELETE FROM messages WHERE id IN
                                      (SELECT id FROM messages WHERE created_at < ?1 ORDER BY created_at LIMIT ?2)",
                        postgres = "DELETE FROM messages WHERE id IN
                                        (SELECT id FROM messages WHERE created_at < $1 ORDER BY created_at LIMIT $2
                                         FOR UPDATE SKIP LOCKED)",
                        cutoff_ms,
                        batch_size,
                    ),
                )?;
                self.merge_search_index_step().await?;
                Ok(deleted)
            })
            .await;
        let restored = self.resume_search_index_merging().await;
        let messages = messages?;
        restored?;
        Ok(messages)
    }

    /// One batch of old sessions with their summaries (and any message left behind, by cascade),
    /// so that both deletes take the same batch.
    async fn purge_session_batch(&self, cutoff_ms: i64, batch_size: i64) -> Result<(u64, u64)> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let mut writer = db.writer().await?;
                let mut transaction = super::begin_write(&mut writer).await?;
                // Both statements select the same batch: same ordering, same snapshot, one
                // transaction.
                macro_rules! in_batch {
                    ($statement:literal) => {
                        sqlx::query!(
                            $statement
                                + " IN (SELECT id FROM sessions WHERE last_activity_at < ?1
                                        ORDER BY last_activity_at, id LIMIT ?2)",
                            cutoff_ms,
                            batch_size,
                        )
                    };
                }
                let summaries = in_batch!("DELETE FROM session_summaries WHERE session_id")
                    .execute(&mut *transaction)
                    .await?
                    .rows_affected();
                let sessions = in_batch!("DELETE FROM sessions WHERE id")
                    .execute(&mut *transaction)
                    .await?
                    .rows_affected();
                transaction.commit().await?;
                Ok((sessions, summaries))
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // One statement, so that both deletes take the rows one batch locked. By start:
                // no index reads the last activity, which every message moves (a session last
                // active before the cutoff started before it).
                let row = sqlx::query!(
                    r#"WITH batch AS (
                           SELECT id FROM sessions WHERE started_at < $1 AND last_activity_at < $1
                           ORDER BY started_at, id LIMIT $2
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
                .fetch_one(&db.pool)
                .await?;
                Ok((row.sessions as u64, row.summaries as u64))
            }
        }
    }

    /// Turns SQLite's full-text index's automatic merging off for a purge of messages (see
    /// [`Store::purge_messages`]). PostgreSQL has no such index.
    async fn pause_search_index_merging(&self) -> Result<()> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => db.set_fts_automerge(0).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Ok(()),
        }
    }

    /// Turns SQLite's full-text index's automatic merging back on after a purge of messages.
    async fn resume_search_index_merging(&self) -> Result<()> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => db.restore_fts_automerge().await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Ok(()),
        }
    }

    /// A bounded merge step of SQLite's full-text index after a batch of deleted messages.
    async fn merge_search_index_step(&self) -> Result<()> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                sqlx::query!("INSERT INTO messages_fts (messages_fts, rank) VALUES ('merge', 16)")
                    .execute(&mut *db.writer().await?)
                    .await?;
                Ok(())
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => Ok(()),
        }
    }
}

/// A purge running, while it lives ([`Store::purge_running`]).
struct PurgeMark<'a> {
    #[cfg(feature = "sqlite")]
    _running: Option<super::sqlite::PurgeRunning<'a>>,
    _store: std::marker::PhantomData<&'a Store>,
}

impl super::backend::Writing<'_> {
    /// Turns SQLite's secure-delete on or off for this transaction: while on, deleted messages'
    /// words are removed from the full-text index's pages themselves, not just marked deleted
    /// (see the `messages_fts_owner` migration). PostgreSQL has no separate index to clean.
    #[cfg_attr(not(feature = "sqlite"), allow(unused_variables))]
    async fn secure_delete_from_search_index(&mut self, on: bool) -> Result<()> {
        match self {
            #[cfg(feature = "sqlite")]
            Self::Sqlite(transaction) => {
                sqlx::query!(
                    "INSERT INTO messages_fts (messages_fts, rank) VALUES ('secure-delete', ?1)",
                    on,
                )
                .execute(&mut **transaction)
                .await?;
                Ok(())
            }
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => Ok(()),
        }
    }
}

#[cfg(feature = "sqlite")]
impl super::SqliteStore {
    /// Sets the full-text index's automatic merging (0: off; see [`Store::purge_older_than`]).
    async fn set_fts_automerge(&self, segments: i64) -> Result<()> {
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
    pub(super) async fn restore_fts_automerge(&self) -> Result<()> {
        self.set_fts_automerge(FTS_AUTOMERGE).await
    }
}
