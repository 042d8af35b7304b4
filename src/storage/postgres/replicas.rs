//! PostgreSQL: leadership of a sole task ([`SoleTask`]) as a session-level advisory lock on a
//! connection taken out of the pool for as long as it is held.

use sqlx::Connection;

use super::PgStore;
use crate::storage::{Leadership, SoleTask};

impl PgStore {
    /// Leadership of `task` if no other replica holds it now; `None` if one does.
    pub async fn try_lead(&self, task: SoleTask) -> Result<Option<Leadership>, sqlx::Error> {
        let mut holder = self.pool.acquire().await?.detach();
        let locked = sqlx::query_scalar!(
            r#"SELECT pg_try_advisory_lock($1) AS "locked!""#,
            task.lock_key()
        )
        .fetch_one(&mut holder)
        .await?;
        if locked {
            Ok(Some(Leadership {
                holder: Some(holder),
            }))
        } else {
            let _ = holder.close().await;
            Ok(None)
        }
    }
}
