//! The only code in telemem that speaks SQL. [`Store`] is the one handle the rest of the program
//! uses; behind it is one of two backends, chosen by the scheme of `DATABASE_URL`:
//!
//! - SQLite (`sqlite://…`, the default): one file beside the binary, nothing to run beside it.
//!   Its connections are in [`sqlite`]; its queries are in the topic modules (`messages`,
//!   `sessions`, …), next to the records they return, in `impl SqliteStore` blocks.
//! - PostgreSQL (`postgres://…`): a server shared by several replicas of the bot. Its queries
//!   are in [`postgres`], one module per topic, returning the same records.
//!
//! What both backends do around their SQL is written once, in the topic module: the row types
//! both read into and their conversions to records, and, for a write of several statements
//! (`replace_notes`, `import_sessions`), the order of the statements as a generic function over
//! a small trait that each backend implements with its own queries.
//!
//! Each backend has its own migrations (`migrations/sqlite`, `migrations/postgres`) and its own
//! compile-time checked queries; `scripts/prepare-queries` refreshes the offline query data of
//! both. [`Store`]'s methods are listed once, in [`backend_methods!`], which sends each call to the
//! backend in use: a backend missing a method, or having it with another signature, does not
//! compile. Nothing here knows about Telegram or the LLM, and nothing here decides policy (how
//! long a session lasts, what goes into a prompt): callers pass times and limits in.
//!
//! All times are integer UTC milliseconds since the Unix epoch (`*_ms`), compared as numbers.

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
compile_error!("telemem needs a storage backend: enable the `sqlite` or `postgres` feature");

use std::collections::HashMap;
use std::sync::Arc;

mod access;
#[cfg(feature = "sqlite")]
mod combined;
mod exchanges;
mod import;
mod incognito;
mod messages;
mod notes;
#[cfg(feature = "postgres")]
mod postgres;
mod purge;
mod replicas;
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

pub use crate::ids::{ChatId, UserId};
pub use crate::role::Role;
pub use access::{AccessRule, AccessRuleRecord, TokenLimitRecord};
pub use exchanges::{ExchangeReply, LastExchange};
pub use import::{ImportCounts, ImportMessage, ImportSession, SessionSpan};
pub use messages::{NewMessage, SearchTerm, StoredMessage, UndeliveredReply};
pub use notes::{EarlierValue, MAX_EARLIER_VALUES, NoteAdded, NoteRecord, NoteUpdate, Replaced};
#[cfg(feature = "postgres")]
pub use postgres::{MIGRATOR as POSTGRES_MIGRATOR, PgStore};
pub use purge::PurgeCounts;
pub use replicas::{Leadership, SoleTask};
pub use sessions::{OpenSession, SessionRecord, TurnStart, TurnStartLimits};
pub use settings::UserSettings;
#[cfg(feature = "sqlite")]
use sqlite::{Connections, begin_write, roll_back_failed_command, unless_closed};
#[cfg(feature = "sqlite")]
pub use sqlite::{MIGRATOR, SqliteStore};
pub use stats::{DatabaseTotals, UserStats};
pub use summaries::SummaryRecord;
pub use updates::{UnfinishedUpdate, UpdateRecord, UpdateState};
pub use usage::{PersonUsage, StoredBytes, TokensAndLimit};
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

/// One (chat, user) pair. History, sessions and summaries are keyed by both, so two members of a
/// group chat never share history, and one user's private chat is separate from their groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConversationKey {
    pub chat_id: ChatId,
    pub user_id: UserId,
}

impl ConversationKey {
    pub fn new(chat_id: ChatId, user_id: UserId) -> Self {
        Self { chat_id, user_id }
    }
}

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

    /// Stores received updates with their payloads (state `received`) and owners for crash
    /// recovery. Returns for each whether it was new (`false`: seen before, by this replica or
    /// another).
    pub async fn record_updates<U>(
        &self,
        updates: &[U],
        now_ms: i64,
    ) -> Result<Vec<bool>, sqlx::Error>
    where
        U: Clone + Into<UpdateRecord>,
    {
        let updates: Vec<UpdateRecord> = updates.iter().cloned().map(Into::into).collect();
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(store) => store.record_updates(&updates, now_ms).await,
            #[cfg(feature = "postgres")]
            Backend::Postgres(store) => store.record_updates(&updates, now_ms).await,
        }
    }

    /// The conversation's `limit` messages older than message `before_id` nearest in meaning to
    /// `query` (a vector of the same model), nearest first, with their cosine similarity.
    ///
    /// Ranked over the conversation's vectors held in memory (`storage::vector_cache`), brought up to
    /// date first by the conversation's counters; a conversation too large to hold is searched
    /// in the database.
    pub async fn nearest_messages(
        &self,
        key: ConversationKey,
        query: &[u8],
        before_id: i64,
        limit: i64,
    ) -> Result<Vec<(StoredMessage, f64)>, sqlx::Error> {
        let counts = self.message_vector_counts(key).await?;
        let stored = counts.added - counts.removed;
        if stored <= 0 || limit <= 0 {
            return Ok(Vec::new());
        }
        let vectors = match self.vector_cache.look_up(key, counts, query.len()) {
            Held::Current(vectors) => vectors,
            held => {
                if !self.vector_cache.would_hold(stored, query.len()) {
                    return self
                        .nearest_messages_stored(key, query, before_id, limit)
                        .await;
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
        if ranked.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<i64> = ranked.iter().map(|(id, _)| *id).collect();
        let mut messages: HashMap<i64, StoredMessage> = self
            .messages_with_ids(key, &ids)
            .await?
            .into_iter()
            .map(|message| (message.id, message))
            .collect();
        // A message deleted since its vector was read is left out.
        Ok(ranked
            .into_iter()
            .filter_map(|(id, similarity)| messages.remove(&id).map(|found| (found, similarity)))
            .collect())
    }
}

/// Declares every other method of [`Store`], each sent to the same method of the backend in use.
macro_rules! backend_methods {
    ($(
        $(#[$attribute:meta])*
        pub async fn $name:ident(&self $(, $argument:ident: $type:ty)* $(,)?) -> $output:ty;
    )*) => {
        impl Store {
            $(
                $(#[$attribute])*
                pub async fn $name(&self $(, $argument: $type)*) -> $output {
                    match &self.backend {
                        #[cfg(feature = "sqlite")]
                        Backend::Sqlite(store) => store.$name($($argument),*).await,
                        #[cfg(feature = "postgres")]
                        Backend::Postgres(store) => store.$name($($argument),*).await,
                    }
                }
            )*
        }
    };
}

backend_methods! {
    // access
    /// Every access rule, by person.
    pub async fn access_rules(&self) -> Result<Vec<AccessRuleRecord>, sqlx::Error>;
    /// Stores `record`, replacing the person's earlier rule.
    pub async fn set_access_rule(&self, record: &AccessRuleRecord) -> Result<(), sqlx::Error>;
    /// Deletes the person's rule; whether there was one.
    pub async fn delete_access_rule(&self, user_id: UserId) -> Result<bool, sqlx::Error>;
    /// Records that the admins were told about the stranger `user_id`; whether this is the first
    /// time (only then are they told).
    pub async fn record_stranger_alert(&self, user_id: UserId, now_ms: i64) -> Result<bool, sqlx::Error>;
    /// The person's own daily token limit, if an admin set one.
    pub async fn token_limit(&self, user_id: UserId) -> Result<Option<TokenLimitRecord>, sqlx::Error>;
    /// Whether an admin gave anyone a daily token limit of their own (a number, not `off`).
    pub async fn any_own_token_limit(&self) -> Result<bool, sqlx::Error>;
    /// Stores `record`, replacing the person's earlier limit.
    pub async fn set_token_limit(&self, record: &TokenLimitRecord) -> Result<(), sqlx::Error>;
    /// Deletes the person's own limit, so the setting applies again; whether there was one.
    pub async fn delete_token_limit(&self, user_id: UserId) -> Result<bool, sqlx::Error>;
    // exchanges
    /// The conversation's last message from the person and the replies stored after it; `None` when
    /// the person has no message stored here.
    pub async fn last_exchange(&self, key: ConversationKey) -> Result<Option<LastExchange>, sqlx::Error>;
    /// Like [`Store::history`], but only up to the message `through_id`.
    pub async fn history_through(&self, key: ConversationKey, since_ms: i64, limit: i64, through_id: i64) -> Result<Vec<StoredMessage>, sqlx::Error>;
    /// Stores `reply` in place of the replies `replaced` (of the same conversation), in one
    /// transaction, and returns its id.
    pub async fn replace_replies(&self, replaced: &[i64], reply: &NewMessage<'_>, update_id: Option<i64>) -> Result<i64, sqlx::Error>;
    // import
    /// Every session of the conversation, oldest first (what an import plans around).
    pub async fn session_spans(&self, key: ConversationKey) -> Result<Vec<SessionSpan>, sqlx::Error>;
    /// The import keys of the conversation's imported messages.
    pub async fn import_keys(&self, key: ConversationKey) -> Result<Vec<String>, sqlx::Error>;
    /// Stores imported `sessions` in one transaction, skipping messages already imported; new
    /// sessions are stored closed, existing ones widen and are summarized again.
    pub async fn import_sessions(&self, key: ConversationKey, sessions: &[ImportSession]) -> Result<ImportCounts, sqlx::Error>;
    // incognito
    /// Whether the conversation is in incognito.
    pub async fn is_incognito(&self, key: ConversationKey) -> Result<bool, sqlx::Error>;
    /// Switches the conversation's incognito on (from `now_ms`) or off.
    pub async fn set_incognito(&self, key: ConversationKey, on: bool, now_ms: i64) -> Result<bool, sqlx::Error>;
    /// Adds the tokens of one incognito turn of `user_id` to their count of the UTC day that starts
    /// at `day_start_ms`.
    pub async fn add_incognito_tokens(&self, user_id: UserId, day_start_ms: i64, tokens_in: i64, tokens_out: i64) -> Result<(), sqlx::Error>;
    /// Tokens (in and out) `user_id`'s incognito turns used in all their chats since the UTC day
    /// that starts at `since_day_start_ms`.
    pub async fn incognito_tokens(&self, user_id: UserId, since_day_start_ms: i64) -> Result<i64, sqlx::Error>;
    // messages
    /// Stores a message and returns its id.
    pub async fn add_message(&self, message: &NewMessage<'_>) -> Result<i64, sqlx::Error>;
    /// Stores the bot's reply to the Telegram update `update_id` (if any) and, in the same
    /// statement (a trigger, see the `turn_writes` migration), marks that update as `replying`.
    pub async fn add_reply(&self, reply: &NewMessage<'_>, update_id: Option<i64>) -> Result<i64, sqlx::Error>;
    /// Stores a user's message unless the same Telegram message (chat and message id) is already
    /// stored, as when an update is handled again after a crash.
    pub async fn add_user_message_once(&self, message: &NewMessage<'_>) -> Result<(i64, bool), sqlx::Error>;
    /// Records which Telegram message carried a stored reply; for a reply that answers a Telegram
    /// update, the same statement marks that update `done` (a trigger).
    pub async fn set_telegram_message_id(&self, message_id: i64, telegram_message_id: i64) -> Result<(), sqlx::Error>;
    /// The conversation's last `limit` messages created at or after `since_ms`, oldest first.
    pub async fn history(&self, key: ConversationKey, since_ms: i64, limit: i64) -> Result<Vec<StoredMessage>, sqlx::Error>;
    /// Every message of the conversation, oldest first (for exports).
    pub async fn all_messages(&self, key: ConversationKey) -> Result<Vec<StoredMessage>, sqlx::Error>;
    /// The text stored for the person's Telegram message `telegram_message_id` in `key`'s
    /// conversation, if it was stored (a turn started before a crash).
    pub async fn user_message_text(&self, key: ConversationKey, telegram_message_id: i64) -> Result<Option<String>, sqlx::Error>;
    /// Every message of one session, oldest first (for its summary).
    pub async fn session_messages(&self, session_id: i64) -> Result<Vec<StoredMessage>, sqlx::Error>;
    // notes
    /// The conversation's notes, oldest first (the numbering `/memory` shows).
    pub async fn notes(&self, key: ConversationKey) -> Result<Vec<NoteRecord>, sqlx::Error>;
    /// Makes `notes` the summarizer's complete list for the conversation; new and changed notes
    /// hold since `stated_at_ms`, the time of the session they come from.
    pub async fn replace_notes(&self, key: ConversationKey, notes: &[NoteUpdate], source_session_id: i64, stated_at_ms: i64, now_ms: i64) -> Result<(), sqlx::Error>;
    /// Adds a note the person wrote.
    pub async fn add_note_by_hand(&self, key: ConversationKey, note: &str, now_ms: i64) -> Result<NoteAdded, sqlx::Error>;
    /// Gives note `note_id` of the conversation the person's text `note`, keeping its place in the
    /// list (its creation time); another note with that text already is removed, as the two are one
    /// now.
    pub async fn replace_note_by_hand(&self, key: ConversationKey, note_id: i64, note: &str, now_ms: i64) -> Result<bool, sqlx::Error>;
    /// Deletes one note of the conversation; `false` if it has no note with that id.
    pub async fn delete_note(&self, key: ConversationKey, note_id: i64) -> Result<bool, sqlx::Error>;
    // purge
    /// Deletes every message, session, summary and note of one conversation, with the messages
    /// their full-text index entries, and the stored payloads (the text) of the conversation's
    /// updates not handled yet.
    pub async fn clear_conversation(&self, key: ConversationKey) -> Result<PurgeCounts, sqlx::Error>;
    /// Deletes everything created (messages, update records), last active (sessions, with their
    /// summaries; users, with their settings), last confirmed (notes) or counted (incognito tokens,
    /// by day) before `cutoff_ms`, `batch_size` rows per transaction.
    pub async fn purge_older_than(&self, cutoff_ms: i64, batch_size: i64) -> Result<PurgeCounts, sqlx::Error>;
    /// Deletes `user_id`'s oldest closed sessions, in all their chats, until the text they store is
    /// at most `max_bytes` or no closed session is left.
    pub async fn purge_oldest_sessions_of(&self, user_id: UserId, max_bytes: i64, batch_size: i64) -> Result<PurgeCounts, sqlx::Error>;
    /// What [`Store::purge_older_than`] would delete, without deleting anything.
    pub async fn count_purgeable(&self, cutoff_ms: i64) -> Result<PurgeCounts, sqlx::Error>;
    // search_index
    /// Indexes every message not yet in the full-text index now, instead of at the background
    /// task's next batch.
    pub async fn index_pending_messages(&self) -> Result<i64, sqlx::Error>;
    /// Messages of the conversation matching any of `terms`, older than message `before_id`,
    /// most relevant first.
    pub async fn search_messages(&self, key: ConversationKey, terms: &[SearchTerm], before_id: i64, limit: i64) -> Result<Vec<StoredMessage>, sqlx::Error>;
    // sessions
    /// The conversation's open session, if any.
    pub async fn open_session(&self, key: ConversationKey) -> Result<Option<SessionRecord>, sqlx::Error>;
    /// What a chat turn reads before it stores the user's message, in one statement (each statement
    /// is a round trip to a database thread).
    pub async fn turn_start(&self, key: ConversationKey, limits: TurnStartLimits) -> Result<TurnStart, sqlx::Error>;
    /// Starts a new session at `now_ms`, closing the conversation's open one (if any) first.
    pub async fn start_session(&self, key: ConversationKey, now_ms: i64) -> Result<(SessionRecord, Option<i64>), sqlx::Error>;
    /// Closes the conversation's open session at `now_ms`.
    pub async fn close_session(&self, key: ConversationKey, now_ms: i64) -> Result<Option<i64>, sqlx::Error>;
    /// Closes every open session whose last activity is before `idle_before_ms`, at its last
    /// activity.
    pub async fn close_idle_sessions(&self, idle_before_ms: i64) -> Result<u64, sqlx::Error>;
    /// Closed sessions without a summary whose retry time (if any) has come, oldest first.
    pub async fn sessions_awaiting_summary(&self, now_ms: i64, limit: i64) -> Result<Vec<SessionRecord>, sqlx::Error>;
    /// Marks a session as needing no summary (it had no messages).
    pub async fn mark_session_summarized(&self, session_id: i64) -> Result<(), sqlx::Error>;
    /// Counts a summary attempt that is about to start and sets when to try again should it not
    /// succeed; returns the attempts so far, this one included.
    pub async fn begin_summary_attempt(&self, session_id: i64, retry_at_ms: i64) -> Result<i64, sqlx::Error>;
    /// Moves a session's next summary attempt to `retry_at_ms`.
    pub async fn schedule_summary_retry(&self, session_id: i64, retry_at_ms: i64) -> Result<(), sqlx::Error>;
    // settings
    /// The user's settings, or `None` for a user never seen.
    pub async fn user_settings(&self, user_id: UserId) -> Result<Option<UserSettings>, sqlx::Error>;
    /// Sets the user's persona; `None` goes back to the default behaviour.
    pub async fn set_persona(&self, user_id: UserId, persona: Option<&str>, now_ms: i64) -> Result<(), sqlx::Error>;
    /// Sets the user's preferred model; `None` goes back to the configured default.
    pub async fn set_model(&self, user_id: UserId, model: Option<&str>, now_ms: i64) -> Result<(), sqlx::Error>;
    /// Records the language code the user's Telegram app reported; `None` forgets it.
    pub async fn set_language_code(&self, user_id: UserId, language_code: Option<&str>, now_ms: i64) -> Result<(), sqlx::Error>;
    /// Deletes the user's settings entirely (persona and model).
    pub async fn clear_user_settings(&self, user_id: UserId) -> Result<bool, sqlx::Error>;
    // stats
    /// Figures for one (chat, user) conversation.
    pub async fn conversation_stats(&self, key: ConversationKey, window_since_ms: i64, today_since_ms: i64) -> Result<UserStats, sqlx::Error>;
    /// Figures for one user across all their chats, the tokens of their incognito turns included
    /// (`today_since_ms` is the start of a UTC day).
    pub async fn user_stats(&self, user_id: UserId, window_since_ms: i64, today_since_ms: i64) -> Result<UserStats, sqlx::Error>;
    /// Row counts of the whole database and its size on disk (main file, without the WAL).
    pub async fn database_totals(&self) -> Result<DatabaseTotals, sqlx::Error>;
    /// Answers if the database does.
    pub async fn ping(&self) -> Result<(), sqlx::Error>;
    /// The database file's size (main file, without the WAL), from its header.
    pub async fn database_bytes(&self) -> Result<i64, sqlx::Error>;
    // summaries
    /// Stores (or replaces) the summary of a session.
    pub async fn add_summary(&self, session_id: i64, key: ConversationKey, summary: &str, now_ms: i64) -> Result<(), sqlx::Error>;
    /// The conversation's last `limit` summaries written at or after `since_ms`, oldest first.
    pub async fn recent_summaries(&self, key: ConversationKey, since_ms: i64, limit: i64) -> Result<Vec<SummaryRecord>, sqlx::Error>;
    /// The summaries of the conversation's sessions that overlap `from_ms..to_ms`, oldest first
    /// (the `limit` latest when more do).
    pub async fn summaries_between(&self, key: ConversationKey, from_ms: i64, to_ms: i64, limit: i64) -> Result<Vec<SummaryRecord>, sqlx::Error>;
    /// The person's own messages written in `from_ms..to_ms` in sessions without a summary yet,
    /// oldest first (the `limit` latest when more do).
    pub async fn messages_between(&self, key: ConversationKey, from_ms: i64, to_ms: i64, limit: i64) -> Result<Vec<StoredMessage>, sqlx::Error>;
    // updates
    /// Records that `update_id` was received.
    pub async fn mark_update_processed(&self, update_id: i64, now_ms: i64) -> Result<bool, sqlx::Error>;
    /// Moves an update to `state`; `done` also drops the stored payload (the message text is kept
    /// in `messages` if it belongs there, and nowhere else).
    pub async fn set_update_state(&self, update_id: i64, state: UpdateState) -> Result<(), sqlx::Error>;
    /// Updates received from `since_ms` up to (not including) `before_ms` whose handling did not
    /// finish, oldest first, each left `replying` with its undelivered reply (see
    /// [`Store::add_reply`]).
    pub async fn unfinished_updates(&self, since_ms: i64, before_ms: i64) -> Result<Vec<UnfinishedUpdate>, sqlx::Error>;
    /// Records which Telegram messages carry the answer to `update_id` so far, in reading order (a
    /// streamed preview, the parts of a long reply already sent).
    pub async fn record_answer_messages(&self, update_id: i64, message_ids: &[i64]) -> Result<(), sqlx::Error>;
    /// Takes over, oldest first and at most `limit`, the unfinished updates received since
    /// `since_ms` that no running replica holds: on SQLite those another run took in, on
    /// PostgreSQL those whose replica's lease lapsed by `now_ms`.
    pub async fn claim_unfinished_updates(&self, since_ms: i64, now_ms: i64, limit: i64) -> Result<Vec<UnfinishedUpdate>, sqlx::Error>;
    /// Whether an update of `key` older than `update_id`, received since `since_ms`, is still
    /// being answered by another replica.
    pub async fn earlier_update_elsewhere(&self, key: ConversationKey, update_id: i64, since_ms: i64) -> Result<bool, sqlx::Error>;
    /// Keeps this replica's claims on the updates it is answering, for one lease from `now_ms`.
    pub async fn renew_update_leases(&self, now_ms: i64) -> Result<u64, sqlx::Error>;
    // replicas
    /// Leadership of `task` when no other replica holds it; `None` when one does.
    pub async fn try_lead(&self, task: SoleTask) -> Result<Option<Leadership>, sqlx::Error>;
    // usage
    /// Tokens `user_id` used on the UTC day starting at `day_start_ms`, and their own limit.
    pub async fn tokens_and_limit(&self, user_id: UserId, day_start_ms: i64) -> Result<TokensAndLimit, sqlx::Error>;
    /// Each person's use from the day starting at `since_ms` on (`today_ms`.
    pub async fn usage_by_person(&self, since_ms: i64, today_ms: i64, only: Option<UserId>) -> Result<Vec<PersonUsage>, sqlx::Error>;
    /// The bytes of text `user_id` stores in all their chats, and whether they were told that it
    /// reached the cap.
    pub async fn stored_bytes(&self, user_id: UserId) -> Result<StoredBytes, sqlx::Error>;
    /// Records that `user_id` was told their history reached the cap; whether they had not been
    /// told already.
    pub async fn record_stored_bytes_notice(&self, user_id: UserId, now_ms: i64) -> Result<bool, sqlx::Error>;
    /// Forgets that `user_id` was told about the cap.
    pub async fn forget_stored_bytes_notice(&self, user_id: UserId) -> Result<(), sqlx::Error>;
    // vectors
    /// Makes `model` the model the stored vectors come from.
    pub async fn use_embedding_model(&self, model: &str) -> Result<bool, sqlx::Error>;
    /// Up to `limit` messages waiting for a vector, oldest first.
    pub async fn messages_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error>;
    /// Up to `limit` session summaries without a vector.
    pub async fn summaries_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error>;
    /// Up to `limit` notes without a vector.
    pub async fn notes_to_embed(&self, limit: i64) -> Result<Vec<TextToEmbed>, sqlx::Error>;
    /// Stores `vectors` for the rows that still exist (a row deleted since it was read gets none)
    /// and, in the same transaction, marks every message up to `messages_through` as done,
    /// including those that could not be embedded.
    pub async fn store_vectors(&self, vectors: &[MemoryVector], messages_through: Option<i64>) -> Result<(), sqlx::Error>;
    /// How many messages are still waiting for a vector.
    pub async fn messages_waiting_for_vectors(&self) -> Result<i64, sqlx::Error>;
    /// [`Store::nearest_messages`] computed in the database, for a conversation too large to
    /// hold in memory.
    pub async fn nearest_messages_stored(&self, key: ConversationKey, query: &[u8], before_id: i64, limit: i64) -> Result<Vec<(StoredMessage, f64)>, sqlx::Error>;
    /// How many message vectors the conversation ever had added and removed.
    pub async fn message_vector_counts(&self, key: ConversationKey) -> Result<VectorCounts, sqlx::Error>;
    /// The conversation's message vectors with ids above `after_id`, by id.
    pub async fn message_vectors_after(&self, key: ConversationKey, after_id: i64) -> Result<Vec<(i64, Vec<u8>)>, sqlx::Error>;
    /// The conversation's messages among `ids`, in no particular order; never another
    /// conversation's.
    pub async fn messages_with_ids(&self, key: ConversationKey, ids: &[i64]) -> Result<Vec<StoredMessage>, sqlx::Error>;
    /// The conversation's `limit` session summaries nearest in meaning to `query`, nearest first,
    /// with their cosine similarity.
    pub async fn nearest_summaries(&self, key: ConversationKey, query: &[u8], limit: i64) -> Result<Vec<(SummaryRecord, f64)>, sqlx::Error>;
    /// The conversation's `limit` notes nearest in meaning to `query` (a vector of the same
    /// model), nearest first, with their cosine similarity; never another conversation's.
    pub async fn nearest_notes(&self, key: ConversationKey, query: &[u8], limit: i64) -> Result<Vec<(NoteRecord, f64)>, sqlx::Error>;
    /// How many vectors the conversation has, of messages, summaries and notes (for tests and
    /// `/stats`-like reports).
    pub async fn vector_count(&self, key: ConversationKey) -> Result<i64, sqlx::Error>;

}
