//! The only code in telemem that speaks SQL. [`Store`] is the one handle the rest of the program
//! uses; behind it is one of two backends, chosen by the scheme of `DATABASE_URL`:
//!
//! - SQLite (`sqlite://…`, the default): one file beside the binary, nothing to run beside it.
//!   Its connections are in [`sqlite`].
//! - PostgreSQL (`postgres://…`): a server shared by several replicas of the bot. Its pool is in
//!   [`postgres`], with what only it needs (its search ranking, its array inserts).
//!
//! Each operation is one [`Store`] method, in the topic module of the records it returns
//! (`messages`, `sessions`, …): its doc, signature, conversions, batching and row mapping are
//! written once, and only each backend's SQL twice, side by side: `run!` runs one statement,
//! `begin!` and `run_in!` a transaction of several ([`backend`]), and `select!` supplies the
//! columns of each record type ([`columns`]). A `match` on the backend is left for what only one
//! backend does (SQLite's write combining, PostgreSQL's array inserts and replica claims).
//!
//! Each backend has its own migrations (`migrations/sqlite`, `migrations/postgres`) and its own
//! compile-time checked queries; `scripts/prepare-queries` refreshes the offline query data of
//! both. Nothing here knows about Telegram or the LLM, and nothing here decides policy (how
//! long a session lasts, what goes into a prompt): callers pass times and limits in.
//!
//! All times are integer UTC milliseconds since the Unix epoch (`*_ms`), compared as numbers.

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
compile_error!("telemem needs a storage backend: enable the `sqlite` or `postgres` feature");

#[macro_use]
mod backend;
#[macro_use]
mod columns;

use std::sync::Arc;

mod access;
#[cfg(feature = "sqlite")]
mod combined;
mod exchanges;
mod import;
mod incognito;
mod media_usage;
mod messages;
mod notes;
#[cfg(feature = "postgres")]
mod postgres;
mod purge;
mod reminders;
mod replicas;
mod search;
#[cfg(feature = "sqlite")]
mod search_index;
mod sessions;
mod settings;
#[cfg(feature = "sqlite")]
mod sqlite;
mod stats;
mod summaries;
mod updates;
mod usage;
mod vector_cache;
mod vectors;

pub use crate::ids::{ChatId, ConversationKey, UserId};
pub use crate::role::Role;
pub use access::{
    AccessRule, AccessRuleRecord, AccessRulesFingerprint, StrangerAlert, TokenLimitRecord,
};
pub use exchanges::{ExchangeReply, LastExchange};
pub use import::{ImportCounts, ImportMessage, ImportSession, SessionSpan};
pub use media_usage::MediaUsed;
pub use messages::{NewMessage, SearchTerm, StoredMessage, UndeliveredReply};
pub use notes::{EarlierValue, MAX_EARLIER_VALUES, NoteAdded, NoteRecord, NoteUpdate, Replaced};
#[cfg(feature = "postgres")]
pub use postgres::{MIGRATOR as POSTGRES_MIGRATOR, PgStore};
pub use purge::PurgeCounts;
pub use reminders::{DueReminder, NewReminder, Reminder, ReminderAdded};
pub use replicas::{Leadership, SoleTask};
pub use sessions::{
    OpenSession, OpenedTurn, SessionRecord, StoredTurnMessage, TurnOpening, TurnStart,
    TurnStartLimits,
};
pub use settings::{Setting, UserSettings};
#[cfg(feature = "sqlite")]
use sqlite::{Connections, after_interval, begin_write, roll_back_failed_command, unless_closed};
#[cfg(feature = "sqlite")]
pub use sqlite::{MIGRATOR, SqliteStore};
pub use stats::{DatabaseTotals, UserStats};
pub use summaries::SummaryRecord;
pub use updates::{LoadElsewhere, RecordedUpdate, UnfinishedUpdate, UpdateRecord, UpdateState};
pub use usage::{DayTokens, PersonUsage, StoredBytes, TokensAndLimit};
pub use vector_cache::VectorCounts;
use vector_cache::{ConversationVectors, Held, VectorCache};
pub use vectors::{MemoryVector, TextToEmbed, VectorSource};

/// Whether `error` says the storage is full: SQLite's "database or disk is full" (the disk, or
/// `DATABASE_MAX_SIZE_MB`), or PostgreSQL's `disk_full`.
pub fn is_storage_full(error: &sqlx::Error) -> bool {
    const SQLITE_FULL: &str = "13";
    const POSTGRES_DISK_FULL: &str = "53100";
    matches!(
        error,
        sqlx::Error::Database(database)
            if matches!(database.code().as_deref(), Some(SQLITE_FULL | POSTGRES_DISK_FULL))
    )
}

/// Whether anything in `error`'s chain says the storage is full ([`is_storage_full`]).
pub fn is_storage_full_error(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<sqlx::Error>()
            .is_some_and(is_storage_full)
    })
}

/// Says in so many words that the database is newer than this binary.
fn schema_error(error: sqlx::migrate::MigrateError) -> anyhow::Error {
    match error {
        sqlx::migrate::MigrateError::VersionMissing(version) => anyhow::anyhow!(
            "the database schema is newer than this telemem (it has migration {version}, which \
             this binary does not know): run the newer telemem, or restore a backup"
        ),
        other => other.into(),
    }
}

/// What every operation of the store returns: its value, or the database's error.
pub type Result<T, E = sqlx::Error> = std::result::Result<T, E>;

/// Which database a [`Store`] speaks to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    Sqlite,
    Postgres,
}

impl BackendKind {
    /// The backend `database_url` names by its scheme; `None` for an unknown scheme.
    pub fn of_url(database_url: &str) -> Option<Self> {
        let scheme = database_url.split_once(':').map(|(scheme, _)| scheme)?;
        match scheme {
            "sqlite" => Some(Self::Sqlite),
            "postgres" | "postgresql" => Some(Self::Postgres),
            _ => None,
        }
    }
}

/// How to open the database: the URL, and the settings that apply to one backend only.
#[derive(Clone, Debug, Default)]
pub struct StoreOptions {
    /// SQLite: the file's size cap, past which writes fail as on a full disk.
    pub max_bytes: Option<u64>,
    /// PostgreSQL: how many connections the pool keeps at most.
    pub pool_size: Option<u32>,
    /// PostgreSQL: how long one statement may run before the server cancels it.
    pub statement_timeout: Option<std::time::Duration>,
    /// PostgreSQL: how long a replica's claim on an update holds unless renewed.
    pub replica_lease: Option<std::time::Duration>,
    /// Bytes of message vectors held in memory for the search by meaning (`None`:
    /// [`DEFAULT_VECTOR_CACHE_BYTES`]; 0: none, every search reads the database).
    pub vector_cache_bytes: Option<usize>,
}

/// The default bound of the vectors held in memory: 32 MiB, the vectors of about 80,000
/// messages at 384 dimensions.
pub const DEFAULT_VECTOR_CACHE_BYTES: usize = 32 * 1024 * 1024;

/// A new id for this process's store, unique among replicas: the process id and 64 random bits.
fn new_replica_id() -> String {
    let mut random = [0_u8; 8];
    // Without randomness the process id alone still tells this process from the others of its
    // host; replicas on other hosts differ by the clock's nanoseconds.
    if getrandom::fill(&mut random).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|since| since.subsec_nanos())
            .unwrap_or_default();
        random[..4].copy_from_slice(&nanos.to_le_bytes());
    }
    format!("{}-{:016x}", std::process::id(), u64::from_le_bytes(random))
}

/// A cheaply clonable handle on the database, whichever backend it is.
#[derive(Clone, Debug)]
pub struct Store {
    backend: Backend,
    vector_cache: Arc<VectorCache>,
}

#[derive(Clone, Debug)]
enum Backend {
    #[cfg(feature = "sqlite")]
    Sqlite(SqliteStore),
    #[cfg(feature = "postgres")]
    Postgres(PgStore),
}

impl Store {
    /// Opens the database at `database_url` with default options. Does not migrate: call
    /// [`Store::migrate`].
    pub async fn connect(database_url: &str) -> anyhow::Result<Self> {
        Self::connect_with(database_url, &StoreOptions::default()).await
    }

    /// Like [`Store::connect`], with the SQLite file capped at `max_bytes`.
    pub async fn connect_with_limit(
        database_url: &str,
        max_bytes: Option<u64>,
    ) -> anyhow::Result<Self> {
        let options = StoreOptions {
            max_bytes,
            ..StoreOptions::default()
        };
        Self::connect_with(database_url, &options).await
    }

    /// Opens the database `database_url` names, SQLite or PostgreSQL by its scheme.
    pub async fn connect_with(database_url: &str, options: &StoreOptions) -> anyhow::Result<Self> {
        let backend = match BackendKind::of_url(database_url) {
            #[cfg(feature = "sqlite")]
            Some(BackendKind::Sqlite) => Backend::Sqlite(
                SqliteStore::connect_with_limit(database_url, options.max_bytes).await?,
            ),
            #[cfg(feature = "postgres")]
            Some(BackendKind::Postgres) => {
                Backend::Postgres(PgStore::connect(database_url, options).await?)
            }
            #[allow(unreachable_patterns)]
            Some(kind) => anyhow::bail!("this build of telemem has no {kind:?} backend"),
            None => anyhow::bail!(
                "DATABASE_URL must start with sqlite:// or postgres:// (it names neither)"
            ),
        };
        let vector_cache = VectorCache::new(
            options
                .vector_cache_bytes
                .unwrap_or(DEFAULT_VECTOR_CACHE_BYTES),
        );
        Ok(Self {
            backend,
            vector_cache: Arc::new(vector_cache),
        })
    }

    /// Which backend this store speaks to.
    pub fn kind(&self) -> BackendKind {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(_) => BackendKind::Sqlite,
            #[cfg(feature = "postgres")]
            Backend::Postgres(_) => BackendKind::Postgres,
        }
    }

    /// Applies every migration not yet applied; a no-op on an up-to-date database. Fails with a
    /// clear message when the database was migrated by a newer telemem.
    pub async fn migrate(&self) -> anyhow::Result<()> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(store) => store.migrate().await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(store) => store.migrate().await,
        }
    }

    /// Closes every connection, after the writes already handed over. Operations on the store
    /// (and its clones) fail from then on.
    pub async fn close(&self) {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(store) => store.close().await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(store) => store.close().await,
        }
    }

    /// The conversation's `limit` messages older than message `before_id` nearest in meaning to
    /// `query` (a vector of the same model), nearest first, with their cosine similarity.
    ///
    /// Ranked over the conversation's vectors held in memory (`storage::vector_cache`), brought up to
    /// date first by the conversation's counters; the vectors of a conversation too large to hold
    /// are read in pages for this search only.
    pub async fn nearest_messages(
        &self,
        key: ConversationKey,
        query: &[u8],
        before_id: i64,
        limit: i64,
    ) -> Result<Vec<(StoredMessage, f64)>> {
        if limit <= 0 {
            return Ok(Vec::new());
        }
        let counts = self.message_vector_counts(key).await?;
        let stored = counts.added - counts.removed;
        if stored <= 0 {
            return Ok(Vec::new());
        }
        let vectors = match self.vector_cache.look_up(key, counts, query.len()) {
            Held::Current(vectors) => vectors,
            held => {
                if !self.vector_cache.would_hold(stored, query.len()) {
                    let ranked = self
                        .nearest_stored(key, VectorSource::Message, query, before_id, limit)
                        .await?;
                    return self.messages_ranked(key, &ranked).await;
                }
                let caught_up = match held {
                    Held::Behind(behind) => {
                        let newer = self.message_vectors_after(key, behind.last_id()).await?;
                        VectorCache::caught_up(&behind, counts, newer)
                    }
                    _ => None,
                };
                let vectors = match caught_up {
                    Some(vectors) => vectors,
                    None => {
                        let rows = self.message_vectors_after(key, 0).await?;
                        ConversationVectors::new(counts, query.len(), rows)
                    }
                };
                self.vector_cache.hold(key, vectors)
            }
        };
        let ranked = vectors.nearest(query, before_id, usize::try_from(limit).unwrap_or(0));
        self.messages_ranked(key, &ranked).await
    }
}
