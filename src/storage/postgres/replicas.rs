//! PostgreSQL: leadership of a sole task ([`SoleTask`]) as a session-level advisory lock on a
//! connection taken out of the pool for as long as it is held.

use crate::storage::Result;
use sqlx::Connection;

/// This replica's sign of life: a session-level advisory lock keyed by a hash of its id, held by a
/// connection of its own for as long as the process runs. When the process dies, the server ends
/// the session and drops the lock at once, so another replica (or the same bot started again)
/// takes over the dead one's unfinished updates without waiting for their leases to lapse.
#[derive(Debug)]
pub(in crate::storage) struct Liveness {
    connection: tokio::sync::Mutex<Option<sqlx::PgConnection>>,
    options: sqlx::postgres::PgConnectOptions,
    replica: std::sync::Arc<str>,
}

impl Liveness {
    /// Takes the lock of `replica` on a new connection.
    pub(super) async fn hold(
        options: sqlx::postgres::PgConnectOptions,
        replica: std::sync::Arc<str>,
    ) -> Result<Self> {
        let connection = Self::lock(&options, &replica).await?;
        Ok(Self {
            connection: tokio::sync::Mutex::new(Some(connection)),
            options,
            replica,
        })
    }

    async fn lock(
        options: &sqlx::postgres::PgConnectOptions,
        replica: &str,
    ) -> Result<sqlx::PgConnection> {
        use sqlx::ConnectOptions;
        let mut connection = options.connect().await?;
        sqlx::query_scalar!(
            r#"SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS "locked!""#,
            replica
        )
        .fetch_one(&mut connection)
        .await?;
        Ok(connection)
    }

    /// Takes the lock again on a new connection if the one holding it was lost (the server
    /// restarted, say), so that the replica shows as alive again.
    pub(in crate::storage) async fn keep(&self) -> Result<()> {
        let mut connection = self.connection.lock().await;
        if let Some(held) = connection.as_mut()
            && held.ping().await.is_ok()
        {
            return Ok(());
        }
        *connection = None;
        *connection = Some(Self::lock(&self.options, &self.replica).await?);
        Ok(())
    }

    /// Lets the lock go (the store is closing).
    pub(super) async fn release(&self) {
        if let Some(connection) = self.connection.lock().await.take() {
            let _ = connection.close().await;
        }
    }
}
