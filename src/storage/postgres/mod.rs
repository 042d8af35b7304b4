//! The PostgreSQL backend: a connection pool on a server that several replicas of the bot may
//! share, its migrations (`migrations/postgres`), and what only it needs around its queries (the
//! queries themselves are in the `Store` methods of the topic modules, beside SQLite's): the
//! search's BM25 ranking, the batched purge and import statements, the replicas' liveness lock.
//!
//! Unlike SQLite there is no single writer to queue on: the server orders concurrent writers
//! itself, so every method takes a pooled connection, and a write of several statements is one
//! transaction. Every connection carries a statement timeout, so that a query stuck behind a lock
//! fails instead of holding a chat turn forever.

pub(super) mod import;
pub(super) mod messages;
pub(super) mod replicas;
pub(super) mod search;
pub(super) mod vectors;

use std::time::Duration;

use anyhow::Context;
use sqlx::PgPool;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use super::{StoreOptions, schema_error};

/// The PostgreSQL migrations in `migrations/postgres/`, compiled into the binary.
pub static MIGRATOR: Migrator = sqlx::migrate!("migrations/postgres");

/// Connections the pool keeps at most unless `DATABASE_POOL_SIZE` says otherwise.
const DEFAULT_POOL_SIZE: u32 = 10;

/// How long one statement may run unless `DATABASE_STATEMENT_TIMEOUT_SECS` says otherwise.
const DEFAULT_STATEMENT_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a claim on an update holds unless `REPLICA_LEASE_SECS` says otherwise.
const DEFAULT_LEASE: Duration = Duration::from_secs(30);

/// How long a caller waits for a free connection before failing.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);

/// A pooled connection idle at least this long is pinged before it is handed out. Under load a
/// connection is back in use within milliseconds and never pinged; the shorter this time, the
/// narrower the window in which a server restart goes unnoticed until a statement fails.
const PING_AFTER_IDLE: Duration = Duration::from_millis(200);

/// A cheaply clonable handle on a PostgreSQL database.
#[derive(Clone, Debug)]
pub struct PgStore {
    pub(super) pool: PgPool,
    /// This replica's id in `processed_updates.claimed_by`.
    pub(super) replica: std::sync::Arc<str>,
    /// How long a claim on an update holds unless renewed, in ms.
    pub(super) lease_ms: i64,
    /// The lock that tells the other replicas this one is alive.
    pub(super) liveness: std::sync::Arc<replicas::Liveness>,
}

impl PgStore {
    /// Connects to the server `database_url` names. Fails with a message naming the server (never
    /// the password) when it cannot be reached or refuses the credentials.
    pub async fn connect(database_url: &str, options: &StoreOptions) -> anyhow::Result<Self> {
        let connect_options: PgConnectOptions = database_url
            .parse()
            .context("DATABASE_URL is not a valid PostgreSQL URL")?;
        let server = format!(
            "{}:{}/{}",
            connect_options.get_host(),
            connect_options.get_port(),
            connect_options.get_database().unwrap_or("postgres")
        );
        let statement_timeout = options
            .statement_timeout
            .unwrap_or(DEFAULT_STATEMENT_TIMEOUT);
        let connect_options = connect_options.options([(
            "statement_timeout",
            statement_timeout.as_millis().to_string(),
        )]);
        let pool = PgPoolOptions::new()
            .max_connections(options.pool_size.unwrap_or(DEFAULT_POOL_SIZE).max(2))
            .acquire_timeout(ACQUIRE_TIMEOUT)
            // sqlx pings every connection before handing it out unless told otherwise: a round
            // trip more for every statement. It also pings each one as it comes back, so a
            // connection that broke while in use is closed then; only one that sat idle long
            // enough for the server to restart meanwhile needs asking again.
            .test_before_acquire(false)
            .before_acquire(|connection, metadata| {
                Box::pin(async move {
                    if metadata.idle_for >= PING_AFTER_IDLE {
                        sqlx::Connection::ping(connection).await?;
                    }
                    Ok(true)
                })
            })
            .connect_with(connect_options.clone())
            .await
            .with_context(|| format!("cannot connect to PostgreSQL at {server}"))?;
        let replica: std::sync::Arc<str> = super::new_replica_id().into();
        let liveness = replicas::Liveness::hold(connect_options, replica.clone())
            .await
            .with_context(|| format!("cannot connect to PostgreSQL at {server}"))?;
        let lease = options.replica_lease.unwrap_or(DEFAULT_LEASE);
        Ok(Self {
            pool,
            replica,
            lease_ms: i64::try_from(lease.as_millis()).unwrap_or(i64::MAX),
            liveness: std::sync::Arc::new(liveness),
        })
    }

    /// Applies every migration not yet applied. Fails with a clear message when the database was
    /// migrated by a newer telemem. Migrations of two replicas starting together run one after
    /// the other (sqlx holds an advisory lock while it migrates).
    pub async fn migrate(&self) -> anyhow::Result<()> {
        MIGRATOR
            .run(&self.pool)
            .await
            .map_err(schema_error)
            .context("cannot apply database migrations")
    }

    /// Closes the pool, waiting for the connections in use to be returned.
    pub async fn close(&self) {
        self.pool.close().await;
        self.liveness.release().await;
    }
}
