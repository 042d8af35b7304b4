//! PostgreSQL: Telegram updates taken in, for exactly-once answers across crashes and replicas.
//!
//! The replica that stores an update claims it (`claimed_by`) for a lease (`lease_until`) that it
//! renews while it runs ([`PgStore::renew_update_leases`]). An update delivered to two replicas is
//! stored once: the second insert finds it and is told it is not new. An unfinished update whose
//! replica is gone (its liveness lock is free: see `replicas::Liveness`) or whose lease has lapsed
//! (its replica hangs) is taken over by the next replica that looks
//! ([`PgStore::claim_unfinished_updates`]); `FOR UPDATE SKIP LOCKED` gives each such update to one
//! replica only, even when several look at once.

use super::PgStore;
use crate::storage::updates::UnfinishedRow;
use crate::storage::{ConversationKey, UnfinishedUpdate, UpdateRecord, UpdateState};

/// A row of `processed_updates` as PostgreSQL returns it: the state as text.
struct UnfinishedPgRow {
    update_id: i64,
    payload: Option<String>,
    state: String,
    answer_message_ids: Option<String>,
    reply_id: Option<i64>,
    reply_content: Option<String>,
}

impl From<UnfinishedPgRow> for UnfinishedUpdate {
    fn from(row: UnfinishedPgRow) -> Self {
        UnfinishedUpdate::from(UnfinishedRow {
            update_id: row.update_id,
            payload: row.payload,
            // The table's CHECK allows only the three states.
            state: UpdateState::from_stored(&row.state).unwrap_or(UpdateState::Done),
            answer_message_ids: row.answer_message_ids,
            reply_id: row.reply_id,
            reply_content: row.reply_content,
        })
    }
}

impl PgStore {
    /// See the SQLite backend's method of the same name.
    pub async fn mark_update_processed(
        &self,
        update_id: i64,
        now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        let result = sqlx::query!(
            "INSERT INTO processed_updates (update_id, received_at, state) VALUES ($1, $2, 'done')
             ON CONFLICT (update_id) DO NOTHING",
            update_id,
            now_ms,
        )
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    /// Stores received updates, claimed by this replica for one lease; for each whether it was
    /// new (`false`: another replica or an earlier delivery stored it first).
    pub async fn record_updates(
        &self,
        updates: &[UpdateRecord],
        now_ms: i64,
    ) -> Result<Vec<bool>, sqlx::Error> {
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
        let inserted = sqlx::query_scalar!(
            r#"INSERT INTO processed_updates
                   (update_id, received_at, payload, state, chat_id, user_id, claimed_by,
                    lease_until)
               SELECT update_.id, $5, update_.payload, 'received', update_.chat_id,
                      update_.user_id, $6, $7
               FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
                    AS update_ (id, payload, chat_id, user_id)
               ON CONFLICT (update_id) DO NOTHING
               RETURNING update_id"#,
            &ids,
            &payloads,
            &chats as &[Option<i64>],
            &users as &[Option<i64>],
            now_ms,
            &*self.replica,
            now_ms + self.lease_ms,
        )
        .fetch_all(&self.pool)
        .await?;
        // `remove`: an id given twice in one batch is new only the first time.
        let mut inserted: std::collections::HashSet<i64> = inserted.into_iter().collect();
        Ok(ids.iter().map(|id| inserted.remove(id)).collect())
    }

    /// See the SQLite backend's method of the same name.
    pub async fn set_update_state(
        &self,
        update_id: i64,
        state: UpdateState,
    ) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "UPDATE processed_updates
             SET state = $2, payload = CASE WHEN $2 = 'done' THEN NULL ELSE payload END
             WHERE update_id = $1",
            update_id,
            state.as_stored(),
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// See the SQLite backend's method of the same name.
    pub async fn unfinished_updates(
        &self,
        since_ms: i64,
        before_ms: i64,
    ) -> Result<Vec<UnfinishedUpdate>, sqlx::Error> {
        let rows = sqlx::query_as!(
            UnfinishedPgRow,
            r#"SELECT update_.update_id, update_.payload, update_.state,
                      update_.answer_message_ids,
                      reply.id AS "reply_id?", reply.content AS "reply_content?"
               FROM processed_updates AS update_
               LEFT JOIN messages AS reply
                 ON update_.state = 'replying'
                AND reply.chat_id = update_.chat_id AND reply.user_id = update_.user_id
                AND reply.update_id = update_.update_id AND reply.role = 'assistant'
                AND reply.telegram_message_id IS NULL
               WHERE update_.state <> 'done'
                 AND update_.received_at >= $1 AND update_.received_at < $2
               ORDER BY update_.update_id"#,
            since_ms,
            before_ms,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(UnfinishedUpdate::from).collect())
    }

    /// Takes over, oldest first and at most `limit`, the unfinished updates received since
    /// `since_ms` whose replica is gone, or whose lease lapsed by `now_ms` (their replica stopped
    /// renewing it), each for one lease of this replica. Returns them as [`PgStore::unfinished_updates`] does.
    pub async fn claim_unfinished_updates(
        &self,
        since_ms: i64,
        now_ms: i64,
        limit: i64,
    ) -> Result<Vec<UnfinishedUpdate>, sqlx::Error> {
        let rows = sqlx::query_as!(
            UnfinishedPgRow,
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
                      claimed.state AS "state!", claimed.answer_message_ids,
                      reply.id AS "reply_id?", reply.content AS "reply_content?"
               FROM claimed
               LEFT JOIN messages AS reply
                 ON claimed.state = 'replying'
                AND reply.chat_id = claimed.chat_id AND reply.user_id = claimed.user_id
                AND reply.update_id = claimed.update_id AND reply.role = 'assistant'
                AND reply.telegram_message_id IS NULL
               ORDER BY claimed.update_id"#,
            &*self.replica,
            since_ms,
            now_ms,
            self.lease_ms,
            limit,
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.into_iter().map(UnfinishedUpdate::from).collect())
    }

    /// Whether an update of `key` older than `update_id`, received since `since_ms`, is still
    /// being answered by another replica: a conversation's updates are answered in order even
    /// when a balancer spreads them over replicas.
    pub async fn earlier_update_elsewhere(
        &self,
        key: ConversationKey,
        update_id: i64,
        since_ms: i64,
    ) -> Result<bool, sqlx::Error> {
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
            &*self.replica,
        )
        .fetch_one(&self.pool)
        .await
    }

    /// Extends this replica's claims on the updates it has not finished by one lease from
    /// `now_ms`, and makes sure it shows as alive; how many.
    pub async fn renew_update_leases(&self, now_ms: i64) -> Result<u64, sqlx::Error> {
        self.liveness.keep().await?;
        let result = sqlx::query!(
            "UPDATE processed_updates SET lease_until = $2::bigint + $3::bigint
             WHERE claimed_by = $1 AND state <> 'done'",
            &*self.replica,
            now_ms,
            self.lease_ms,
        )
        .execute(&self.pool)
        .await?;
        Ok(result.rows_affected())
    }

    /// See the SQLite backend's method of the same name.
    pub async fn record_answer_messages(
        &self,
        update_id: i64,
        message_ids: &[i64],
    ) -> Result<(), sqlx::Error> {
        let ids = serde_json::to_string(message_ids)
            .map_err(|error| sqlx::Error::Encode(error.into()))?;
        sqlx::query!(
            "UPDATE processed_updates SET answer_message_ids = $2 WHERE update_id = $1",
            update_id,
            ids,
        )
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
