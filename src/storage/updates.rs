//! Telegram updates taken in: stored durably before Telegram is told they arrived, then marked
//! as they are answered, so that a crash loses no message and answers none twice.

use super::Store;

/// Where an update stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, sqlx::Type)]
#[sqlx(type_name = "TEXT", rename_all = "lowercase")]
pub enum UpdateState {
    /// Stored, not answered yet: handled (again) after a restart.
    Received,
    /// A reply was being sent: it may have reached the user, so it is never sent again.
    Replying,
    Done,
}

/// An update whose handling did not finish before the process stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfinishedUpdate {
    pub update_id: i64,
    pub payload: Option<String>,
    pub state: UpdateState,
}

impl Store {
    /// Records that `update_id` was received. Returns `true` the first time, `false` when the
    /// update was already recorded (a redelivery that must not be answered again). The update is
    /// marked done at once: use [`Store::record_updates`] to keep it for crash recovery.
    pub async fn mark_update_processed(
        &self,
        update_id: i64,
        now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        let result = sqlx::query!(
            "INSERT INTO processed_updates (update_id, received_at, state) VALUES (?1, ?2, 'done')
             ON CONFLICT (update_id) DO NOTHING",
            update_id,
            now_ms,
        )
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(result.rows_affected() == 1)
    }

    /// Stores received updates with their payloads (state `received`) for crash recovery, one
    /// poll's batch in one statement (passed as a JSON array of `[update_id, payload]` pairs).
    /// Returns for each whether it was new (`false`: seen before).
    pub async fn record_updates(
        &self,
        updates: &[(i64, String)],
        now_ms: i64,
    ) -> Result<Vec<bool>, sqlx::Error> {
        let batch =
            serde_json::to_string(updates).map_err(|error| sqlx::Error::Encode(error.into()))?;
        // `WHERE true` tells SQLite's parser that ON CONFLICT belongs to the INSERT.
        let inserted = sqlx::query_scalar!(
            r#"INSERT INTO processed_updates (update_id, received_at, payload, state)
               SELECT update_.value ->> 0, ?2, update_.value ->> 1, 'received'
               FROM json_each(?1) AS update_
               WHERE true
               ON CONFLICT (update_id) DO NOTHING
               RETURNING update_id AS "update_id!: i64""#,
            batch,
            now_ms,
        )
        .fetch_all(&mut *self.writer().await?)
        .await?;
        // `remove`: an id given twice in one batch is new only the first time.
        let mut inserted: std::collections::HashSet<i64> = inserted.into_iter().collect();
        Ok(updates
            .iter()
            .map(|(update_id, _)| inserted.remove(update_id))
            .collect())
    }

    /// Moves an update to `state`; `done` also drops the stored payload (the message text is kept
    /// in `messages` if it belongs there, and nowhere else).
    pub async fn set_update_state(
        &self,
        update_id: i64,
        state: UpdateState,
    ) -> Result<(), sqlx::Error> {
        sqlx::query!(
            "UPDATE processed_updates
             SET state = ?2, payload = CASE WHEN ?2 = 'done' THEN NULL ELSE payload END
             WHERE update_id = ?1",
            update_id,
            state,
        )
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(())
    }

    /// Updates received from `since_ms` up to (not including) `before_ms` whose handling did not
    /// finish, oldest first.
    pub async fn unfinished_updates(
        &self,
        since_ms: i64,
        before_ms: i64,
    ) -> Result<Vec<UnfinishedUpdate>, sqlx::Error> {
        sqlx::query_as!(
            UnfinishedUpdate,
            r#"SELECT update_id AS "update_id!", payload, state AS "state: UpdateState"
               FROM processed_updates
               WHERE state <> 'done' AND received_at >= ?1 AND received_at < ?2
               ORDER BY update_id"#,
            since_ms,
            before_ms,
        )
        .fetch_all(&mut *self.reader().await?)
        .await
    }
}
