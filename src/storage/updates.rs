//! Telegram update ids already taken in, for idempotent update handling.

use super::Store;

impl Store {
    /// Records that `update_id` was received. Returns `true` the first time, `false` when the
    /// update was already recorded (a redelivery that must not be answered again).
    pub async fn mark_update_processed(
        &self,
        update_id: i64,
        now_ms: i64,
    ) -> Result<bool, sqlx::Error> {
        let result = sqlx::query!(
            "INSERT INTO processed_updates (update_id, received_at) VALUES (?1, ?2)
             ON CONFLICT (update_id) DO NOTHING",
            update_id,
            now_ms,
        )
        .execute(&self.writer)
        .await?;
        Ok(result.rows_affected() == 1)
    }
}
