//! Telegram updates taken in: stored durably before Telegram is told they arrived, then marked
//! as they are answered, with the Telegram messages that carry the answer so far, so that a crash
//! loses no message and answers none twice.

use super::Result;
#[cfg(feature = "sqlite")]
use super::combined::Write;
use super::{Backend, Store};
use super::{ConversationKey, UndeliveredReply};
#[cfg(feature = "postgres")]
use std::collections::HashMap;

/// An update to record for crash recovery: its id, its payload (the update's JSON), and the
/// conversation it belongs to, if any, so that `/clear` finds the payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpdateRecord {
    pub update_id: i64,
    pub owner: Option<ConversationKey>,
    pub payload: String,
}

impl From<(i64, String)> for UpdateRecord {
    /// An update of no conversation.
    fn from((update_id, payload): (i64, String)) -> Self {
        Self {
            update_id,
            owner: None,
            payload,
        }
    }
}

/// What [`Store::record_updates_in_order`] found of one update.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordedUpdate {
    /// Stored now. `behind_unfinished_elsewhere`: an older update of the same conversation was
    /// still being answered by another replica, so this one waits for it. `elsewhere`: the
    /// person's updates other replicas hold, for the per-person limits.
    New {
        behind_unfinished_elsewhere: bool,
        elsewhere: LoadElsewhere,
    },
    /// Recorded before (a redelivery): not answered again.
    SeenBefore,
}

/// A person's updates that other replicas took in, as one update of theirs was stored: those
/// still unfinished, and those received in the last minute. Always none on SQLite, where one
/// process takes in every update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadElsewhere {
    pub unfinished: u32,
    pub last_minute: u32,
}

/// The window of [`LoadElsewhere::last_minute`].
const MINUTE_MS: i64 = 60_000;

/// Where an update stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, sqlx::Type)]
#[sqlx(type_name = "TEXT", rename_all = "lowercase")]
pub enum UpdateState {
    /// Stored, not answered yet: handled (again) after a restart.
    Received,
    /// The answer is being sent: a stored reply (then it is delivered after a restart, into the
    /// messages recorded with the update), or a notice or a command's answer, which may have
    /// reached the user and is never sent again.
    Replying,
    Done,
}

#[cfg_attr(not(feature = "postgres"), allow(dead_code))]
impl UpdateState {
    /// The state as stored in `processed_updates.state`.
    pub(super) fn as_stored(self) -> &'static str {
        match self {
            Self::Received => "received",
            Self::Replying => "replying",
            Self::Done => "done",
        }
    }
}

/// An update whose handling did not finish before the process stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfinishedUpdate {
    pub update_id: i64,
    pub payload: Option<String>,
    pub state: UpdateState,
    /// The Telegram messages recorded as carrying the answer so far, in reading order.
    pub answer_message_ids: Vec<i64>,
    /// For an update left `replying`: the reply stored for it in its conversation whose delivery
    /// was never recorded, if there is one.
    pub undelivered_reply: Option<UndeliveredReply>,
}

/// A row of `processed_updates` as read, with its undelivered reply's columns, before its
/// message ids are parsed.
pub(super) struct UnfinishedRow {
    pub(super) update_id: i64,
    pub(super) payload: Option<String>,
    pub(super) state: UpdateState,
    pub(super) answer_message_ids: Option<String>,
    pub(super) reply_id: Option<i64>,
    pub(super) reply_content: Option<String>,
}

impl From<UnfinishedRow> for UnfinishedUpdate {
    fn from(row: UnfinishedRow) -> Self {
        // Only this module writes the column, always as a JSON array of integers.
        let answer_message_ids = row
            .answer_message_ids
            .and_then(|ids| serde_json::from_str(&ids).ok())
            .unwrap_or_default();
        let undelivered_reply = row
            .reply_id
            .zip(row.reply_content)
            .map(|(id, content)| UndeliveredReply { id, content });
        Self {
            update_id: row.update_id,
            payload: row.payload,
            state: row.state,
            answer_message_ids,
            undelivered_reply,
        }
    }
}

/// A compile-time checked query reading [`UnfinishedRow`]s, the updates not done with the
/// undelivered reply of each, if any, by `SELECT … WHERE <not done> $rest`. The update's owner
/// leads the join through the conversation's index to its own messages. An update has one reply
/// at most: it is `replying` from then on and never answered again, so the join adds no rows.
macro_rules! select_unfinished {
    ($rest:literal $(, $argument:expr)* $(,)?) => {
        sqlx::query_as!(
            UnfinishedRow,
            r#"SELECT update_.update_id AS "update_id!", update_.payload,
                      update_.state AS "state: UpdateState", update_.answer_message_ids,
                      reply.id AS "reply_id?: i64", reply.content AS "reply_content?: String"
               FROM processed_updates AS update_
               LEFT JOIN messages AS reply
                 ON update_.state = 'replying'
                AND reply.chat_id = update_.chat_id AND reply.user_id = update_.user_id
                AND reply.update_id = update_.update_id AND reply.role = 'assistant'
                AND reply.telegram_message_id IS NULL
               WHERE update_.state <> 'done' "# + $rest,
            $($argument),*
        )
    };
}

impl Store {
    /// Records that `update_id` was received. Returns `true` the first time, `false` when the
    /// update was already recorded (a redelivery that must not be answered again). The update is
    /// marked done at once: use [`Store::record_updates`] to keep it for crash recovery.
    pub async fn mark_update_processed(&self, update_id: i64, now_ms: i64) -> Result<bool> {
        let result = run!(
            self.writer.execute,
            query!(
                sql = "INSERT INTO processed_updates (update_id, received_at, state) VALUES ($1, $2, 'done')
                       ON CONFLICT (update_id) DO NOTHING",
                update_id,
                now_ms,
            ),
        )?;
        Ok(result == 1)
    }

    /// Stores received updates with their payloads (state `received`) and owners for crash
    /// recovery, one poll's batch in one statement (passed as a JSON array of
    /// `[update_id, payload, chat_id, user_id]`). Returns for each whether it was new (`false`:
    /// seen before).
    pub async fn record_updates<U>(&self, updates: &[U], now_ms: i64) -> Result<Vec<bool>>
    where
        U: Clone + Into<UpdateRecord>,
    {
        let recorded = self
            .record_updates_in_order(updates, now_ms, now_ms)
            .await?;
        Ok(recorded
            .into_iter()
            .map(|recorded| recorded != RecordedUpdate::SeenBefore)
            .collect())
    }

    /// [`Store::record_updates`], telling for each new update also whether, as it was stored, an
    /// older update of its conversation received since `earlier_since_ms` was still being
    /// answered by another replica, and how many of the person's updates other replicas hold
    /// ([`LoadElsewhere`]; PostgreSQL; on SQLite one process answers them all, in order). The
    /// checks ride in the statement that stores the updates, so the usual turn costs no round
    /// trip of its own to keep a conversation's answers in order and its person's limits.
    #[cfg_attr(not(feature = "postgres"), allow(unused_variables))]
    pub async fn record_updates_in_order<U>(
        &self,
        updates: &[U],
        now_ms: i64,
        earlier_since_ms: i64,
    ) -> Result<Vec<RecordedUpdate>>
    where
        U: Clone + Into<UpdateRecord>,
    {
        let updates: Vec<UpdateRecord> = updates.iter().cloned().map(Into::into).collect();
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let rows: Vec<_> = updates
                    .iter()
                    .map(|update| {
                        let owner = update.owner;
                        (
                            update.update_id,
                            update.payload.as_str(),
                            owner.map(|key| key.chat_id),
                            owner.map(|key| key.user_id),
                        )
                    })
                    .collect();
                let batch = serde_json::to_string(&rows)
                    .map_err(|error| sqlx::Error::Encode(error.into()))?;
                let replica = &*db.replica;
                // `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT.
                let inserted = sqlx::query_scalar!(
                    r#"INSERT INTO processed_updates
                           (update_id, received_at, payload, state, chat_id, user_id, claimed_by)
                       SELECT update_.value ->> 0, ?2, update_.value ->> 1, 'received',
                              update_.value ->> 2, update_.value ->> 3, ?3
                       FROM json_each(?1) AS update_
                       WHERE true
                       ON CONFLICT (update_id) DO NOTHING
                       RETURNING update_id AS "update_id!: i64""#,
                    batch,
                    now_ms,
                    replica,
                )
                .fetch_all(&mut *db.writer().await?)
                .await?;
                // `remove`: an id given twice in one batch is new only the first time.
                let mut inserted: std::collections::HashSet<i64> = inserted.into_iter().collect();
                Ok(updates
                    .iter()
                    .map(|update| match inserted.remove(&update.update_id) {
                        true => RecordedUpdate::New {
                            behind_unfinished_elsewhere: false,
                            elsewhere: LoadElsewhere::default(),
                        },
                        false => RecordedUpdate::SeenBefore,
                    })
                    .collect())
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Stores received updates, claimed by this replica for one lease; for
                // each whether it was new (`false`: another replica or an earlier delivery stored
                // it first).
                let ids: Vec<i64> = updates.iter().map(|update| update.update_id).collect();
                let payloads: Vec<String> = updates
                    .iter()
                    .map(|update| update.payload.clone())
                    .collect();
                let chats: Vec<Option<i64>> = updates
                    .iter()
                    .map(|update| update.owner.map(|key| key.chat_id.0))
                    .collect();
                let users: Vec<Option<i64>> = updates
                    .iter()
                    .map(|update| update.owner.map(|key| key.user_id.0))
                    .collect();
                let inserted = sqlx::query!(
                    r#"INSERT INTO processed_updates
                           (update_id, received_at, payload, state, chat_id, user_id, claimed_by,
                            lease_until)
                       SELECT update_.id, $5, update_.payload, 'received', update_.chat_id,
                              update_.user_id, $6, $7
                       FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
                            AS update_ (id, payload, chat_id, user_id)
                       ON CONFLICT (update_id) DO NOTHING
                       RETURNING update_id AS "update_id!",
                                 EXISTS (SELECT 1 FROM processed_updates AS earlier
                                         WHERE earlier.chat_id = processed_updates.chat_id
                                           AND earlier.user_id = processed_updates.user_id
                                           AND earlier.payload IS NOT NULL
                                           AND earlier.update_id < processed_updates.update_id
                                           AND earlier.state <> 'done'
                                           AND earlier.received_at >= $8
                                           AND earlier.claimed_by IS DISTINCT FROM $6)
                                     AS "behind_unfinished_elsewhere!",
                                 (SELECT count(*) FROM processed_updates AS other
                                  WHERE other.user_id = processed_updates.user_id
                                    AND other.received_at >= $8
                                    AND other.payload IS NOT NULL
                                    AND other.state <> 'done'
                                    AND other.claimed_by IS DISTINCT FROM $6)
                                     AS "unfinished_elsewhere!",
                                 (SELECT count(*) FROM processed_updates AS other
                                  WHERE other.user_id = processed_updates.user_id
                                    AND other.received_at >= $9
                                    AND other.claimed_by IS DISTINCT FROM $6)
                                     AS "last_minute_elsewhere!""#,
                    &ids,
                    &payloads,
                    &chats as &[Option<i64>],
                    &users as &[Option<i64>],
                    now_ms,
                    &*db.replica,
                    now_ms + db.lease_ms,
                    earlier_since_ms,
                    now_ms - MINUTE_MS,
                )
                .fetch_all(&db.pool)
                .await?;
                let count = |count: i64| u32::try_from(count).unwrap_or(u32::MAX);
                // `remove`: an id given twice in one batch is new only the first time.
                let mut inserted: HashMap<i64, RecordedUpdate> = inserted
                    .into_iter()
                    .map(|row| {
                        let recorded = RecordedUpdate::New {
                            behind_unfinished_elsewhere: row.behind_unfinished_elsewhere,
                            elsewhere: LoadElsewhere {
                                unfinished: count(row.unfinished_elsewhere),
                                last_minute: count(row.last_minute_elsewhere),
                            },
                        };
                        (row.update_id, recorded)
                    })
                    .collect();
                Ok(ids
                    .iter()
                    .map(|id| match inserted.remove(id) {
                        Some(recorded) => recorded,
                        None => RecordedUpdate::SeenBefore,
                    })
                    .collect())
            }
        }
    }

    /// Moves an update to `state`; `done` also drops the stored payload (the message text is kept
    /// in `messages` if it belongs there, and nowhere else).
    pub async fn set_update_state(&self, update_id: i64, state: UpdateState) -> Result<()> {
        run!(
            self.writer.execute,
            sqlite = sqlx::query!(
                "UPDATE processed_updates
                 SET state = ?2, payload = CASE WHEN ?2 = 'done' THEN NULL ELSE payload END
                 WHERE update_id = ?1",
                update_id,
                state,
            ),
            postgres = sqlx::query!(
                "UPDATE processed_updates
                 SET state = $2, payload = CASE WHEN $2 = 'done' THEN NULL ELSE payload END
                 WHERE update_id = $1",
                update_id,
                state.as_stored(),
            ),
        )?;
        Ok(())
    }

    /// Updates received from `since_ms` up to (not including) `before_ms` whose handling did not
    /// finish, oldest first, each left `replying` with its undelivered reply (see
    /// [`Store::add_reply`]).
    pub async fn unfinished_updates(
        &self,
        since_ms: i64,
        before_ms: i64,
    ) -> Result<Vec<UnfinishedUpdate>> {
        let rows = run!(
            self.reader.fetch_all,
            sqlite = select_unfinished!(
                "AND update_.received_at >= ?1 AND update_.received_at < ?2
                 ORDER BY update_.update_id",
                since_ms,
                before_ms,
            ),
            postgres = select_unfinished!(
                "AND update_.received_at >= $1 AND update_.received_at < $2
                 ORDER BY update_.update_id",
                since_ms,
                before_ms,
            ),
        )?;
        Ok(rows.into_iter().map(UnfinishedUpdate::from).collect())
    }

    /// Takes over, oldest first and at most `limit`, the unfinished updates received since
    /// `since_ms` that another run of the bot took in: on SQLite, one process has the file, so
    /// those are the ones the last run left. Returns them as [`Store::unfinished_updates`] does.
    /// `now_ms` matters only where replicas hold leases (PostgreSQL).
    #[cfg_attr(not(feature = "postgres"), allow(unused_variables))]
    pub async fn claim_unfinished_updates(
        &self,
        since_ms: i64,
        now_ms: i64,
        limit: i64,
    ) -> Result<Vec<UnfinishedUpdate>> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let replica = &*db.replica;
                let mut writer = db.writer().await?;
                let mut transaction = super::begin_write(&mut writer).await?;
                let claimed = sqlx::query_scalar!(
                    r#"UPDATE processed_updates SET claimed_by = ?1
                       WHERE update_id IN (
                           SELECT update_id FROM processed_updates
                           WHERE state <> 'done' AND received_at >= ?2
                             AND (claimed_by IS NULL OR claimed_by <> ?1)
                           ORDER BY update_id LIMIT ?3)
                       RETURNING update_id AS "update_id!: i64""#,
                    replica,
                    since_ms,
                    limit,
                )
                .fetch_all(&mut *transaction)
                .await?;
                transaction.commit().await?;
                drop(writer);
                if claimed.is_empty() {
                    return Ok(Vec::new());
                }
                let claimed: std::collections::HashSet<i64> = claimed.into_iter().collect();
                Ok(self
                    .unfinished_updates(since_ms, i64::MAX)
                    .await?
                    .into_iter()
                    .filter(|update| claimed.contains(&update.update_id))
                    .collect())
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Takes over, oldest first and at most `limit`, the unfinished updates
                // received since `since_ms` whose replica is gone, or whose lease lapsed by
                // `now_ms` (their replica stopped renewing it), each for one lease of this replica.
                // Returns them as [`Store::unfinished_updates`] does.
                let rows = sqlx::query_as!(
                    UnfinishedRow,
                    r#"WITH claimed AS (
                           UPDATE processed_updates SET claimed_by = $1, lease_until = $3::bigint + $4::bigint
                           WHERE update_id IN (
                               SELECT update_id FROM processed_updates
                               WHERE state <> 'done' AND received_at >= $2
                                 AND claimed_by IS DISTINCT FROM $1
                                 AND (lease_until IS NULL OR lease_until < $3 OR NOT EXISTS (
                                     SELECT 1 FROM pg_locks AS alive
                                     WHERE alive.locktype = 'advisory' AND alive.granted
                                       AND alive.database = (SELECT oid FROM pg_database
                                                             WHERE datname = current_database())
                                       AND alive.objsubid = 1
                                       AND (alive.classid::bigint << 32) | alive.objid::bigint
                                           = hashtextextended(processed_updates.claimed_by, 0)))
                               ORDER BY update_id
                               LIMIT $5
                               FOR UPDATE SKIP LOCKED)
                           RETURNING update_id, payload, state, answer_message_ids, chat_id, user_id)
                       SELECT claimed.update_id AS "update_id!", claimed.payload,
                              claimed.state AS "state!: UpdateState", claimed.answer_message_ids,
                              reply.id AS "reply_id?", reply.content AS "reply_content?"
                       FROM claimed
                       LEFT JOIN messages AS reply
                         ON claimed.state = 'replying'
                        AND reply.chat_id = claimed.chat_id AND reply.user_id = claimed.user_id
                        AND reply.update_id = claimed.update_id AND reply.role = 'assistant'
                        AND reply.telegram_message_id IS NULL
                       ORDER BY claimed.update_id"#,
                    &*db.replica,
                    since_ms,
                    now_ms,
                    db.lease_ms,
                    limit,
                )
                .fetch_all(&db.pool)
                .await?;
                Ok(rows.into_iter().map(UnfinishedUpdate::from).collect())
            }
        }
    }

    /// Whether an update of `key` older than `update_id`, received since `since_ms`, is still
    /// being answered by another run. On SQLite one process answers them all, in order.
    pub async fn earlier_update_elsewhere(
        &self,
        key: ConversationKey,
        update_id: i64,
        since_ms: i64,
    ) -> Result<bool> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let replica = &*db.replica;
                sqlx::query_scalar!(
                    r#"SELECT EXISTS (
                           SELECT 1 FROM processed_updates
                           WHERE chat_id = ?1 AND user_id = ?2 AND payload IS NOT NULL
                             AND update_id < ?3 AND state <> 'done' AND received_at >= ?4
                             AND (claimed_by IS NULL OR claimed_by <> ?5)) AS "exists!: bool""#,
                    key.chat_id,
                    key.user_id,
                    update_id,
                    since_ms,
                    replica,
                )
                .fetch_one(&mut *db.reader().await?)
                .await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Whether an update of `key` older than `update_id`, received since
                // `since_ms`, is still being answered by another replica: a conversation's updates
                // are answered in order even when a balancer spreads them over replicas.
                sqlx::query_scalar!(
                    r#"SELECT EXISTS (
                           SELECT 1 FROM processed_updates
                           WHERE chat_id = $1 AND user_id = $2 AND payload IS NOT NULL
                             AND update_id < $3 AND state <> 'done' AND received_at >= $4
                             AND claimed_by IS DISTINCT FROM $5) AS "exists!""#,
                    key.chat_id.0,
                    key.user_id.0,
                    update_id,
                    since_ms,
                    &*db.replica,
                )
                .fetch_one(&db.pool)
                .await
            }
        }
    }

    /// Keeps this run's claims on the updates it is answering. On SQLite no other process takes
    /// them over, so there is nothing to renew.
    #[cfg_attr(not(feature = "postgres"), allow(unused_variables))]
    pub async fn renew_update_leases(&self, now_ms: i64) -> Result<u64> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(_) => Ok(0),
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                // PostgreSQL: Extends this replica's claims on the updates it has not finished by
                // one lease from `now_ms`, and makes sure it shows as alive; how many.
                db.liveness.keep().await?;
                let result = sqlx::query!(
                    "UPDATE processed_updates SET lease_until = $2::bigint + $3::bigint
                     WHERE claimed_by = $1 AND state <> 'done'",
                    &*db.replica,
                    now_ms,
                    db.lease_ms,
                )
                .execute(&db.pool)
                .await?;
                Ok(result.rows_affected())
            }
        }
    }

    /// Records which Telegram messages carry the answer to `update_id` so far, in reading order
    /// (a streamed preview, the parts of a long reply already sent). Called as soon as Telegram
    /// has created one and before anything else is sent for the update, so that a restart
    /// finishes these messages instead of sending new ones. Written together with the chat
    /// turns' writes (`combined`).
    pub async fn record_answer_messages(&self, update_id: i64, message_ids: &[i64]) -> Result<()> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let record = (update_id, message_ids.to_vec());
                db.queue_write(|done| Write::AnswerMessages { record, done })
                    .await
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let ids = serde_json::to_string(message_ids)
                    .map_err(|error| sqlx::Error::Encode(error.into()))?;
                sqlx::query!(
                    "UPDATE processed_updates SET answer_message_ids = $2 WHERE update_id = $1",
                    update_id,
                    ids,
                )
                .execute(&db.pool)
                .await?;
                Ok(())
            }
        }
    }
}
