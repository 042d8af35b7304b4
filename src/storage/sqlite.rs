//! The SQLite backend's connections: opening the file with the right pragmas, the one writer
//! behind a fair (first come, first served) lock, a few readers, and the background checkpoints
//! of the write-ahead log. The queries themselves are in the topic modules beside this one
//! (the `Store` methods' SQLite arms), next to the records they return.
//!
//! SQLite allows one writer at a time anyway; queueing writers on our own lock instead of on
//! SQLite's busy handler (which sleeps between tries rather than waking a writer when the lock is
//! free) keeps a writer's wait short and predictable, and removes "database is locked" between
//! our own writers entirely. The writes every chat turn makes (its messages and delivery record)
//! reach that connection through one task that writes all waiting ones together ([`combined`]),
//! so that under load they share round trips and commits instead of queueing one by one. Reads
//! use a few separate connections: in WAL mode readers never block the writer and never wait for
//! it. The full-text index is brought up to date in batches in the background
//! ([`search_index`]), not inside each message's insert.
//!
//! The connections are kept open and locked directly rather than drawn from an `sqlx::Pool`: a
//! pool pings each connection when it is taken and again when it is returned, and every ping is a
//! round trip to the connection's worker thread that does nothing for the caller. A chat turn's
//! statements are short, so those extra round trips would weigh on every turn.
//!
//! [`combined`]: super::combined
//! [`search_index`]: super::search_index

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Context;
use sqlx::migrate::Migrator;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteSynchronous};
use sqlx::{ConnectOptions, Connection, SqliteConnection};
use tokio::sync::{MappedMutexGuard, Mutex, MutexGuard};

use super::Result;
use super::{combined, search_index};

/// The SQLite migrations in `migrations/sqlite/`, compiled into the binary.
pub static MIGRATOR: Migrator = sqlx::migrate!("migrations/sqlite");

/// How long a connection waits for another process (say `telemem purge` run by hand while the bot
/// is up) to release its lock before giving up with "database is busy".
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Readers are cheap in WAL mode; a few cover the bot's parallel chats on a small machine.
const READ_CONNECTIONS: usize = 4;

/// A cheaply clonable handle on an SQLite database.
#[derive(Clone, Debug)]
pub struct SqliteStore {
    pub(super) connections: Arc<Connections>,
    /// The combining task's queue: each chat turn's message writes (see [`combined`]).
    pub(super) writes: tokio::sync::mpsc::Sender<combined::Write>,
    /// This run's id in `processed_updates.claimed_by`.
    pub(super) replica: Arc<str>,
    /// Stops the background checkpoints and indexing when the last clone of the store is dropped.
    pub(super) _stop_background_tasks: Arc<tokio_util::sync::DropGuard>,
}

/// The open connections. `None` once [`SqliteStore::close`] has closed them: using a closed store is an
/// error ([`sqlx::Error::PoolClosed`]), as with a closed pool.
#[derive(Debug)]
pub(super) struct Connections {
    pub(super) writer: Mutex<Option<SqliteConnection>>,
    pub(super) readers: Vec<Mutex<Option<SqliteConnection>>>,
    /// Which reader to queue on when all are busy (round robin).
    pub(super) next_reader: AtomicUsize,
    pub(super) checkpointer: Mutex<Option<SqliteConnection>>,
    /// How many purges are running (see [`checkpoint_wal`]).
    pub(super) purges_running: AtomicUsize,
    /// Whether messages may have been stored since the last indexing batch ([`search_index`]).
    pub(super) index_pending: AtomicBool,
    /// Every message up to this id is in the full-text index, as of this process's last batch.
    pub(super) indexed_through: AtomicI64,
    /// Whether the writer has been taken since the last checkpoint round ([`checkpoint_wal`]).
    pub(super) written_since_checkpoint: AtomicBool,
}

impl Connections {
    /// The writer connection, once every earlier caller has released it. Every writer but the
    /// checkpoints takes it here, so that the checkpoints know when there may be something to do.
    pub(super) async fn lock_writer(&self) -> MutexGuard<'_, Option<SqliteConnection>> {
        let writer = self.writer.lock().await;
        self.written_since_checkpoint.store(true, Ordering::Release);
        writer
    }

    /// Messages may be waiting for the full-text index. Called while holding the writer before
    /// a write that stores messages, the next indexing batch (which needs the writer too) runs
    /// after that write.
    pub(super) fn messages_to_index(&self) {
        self.index_pending.store(true, Ordering::Release);
    }
}

/// Counts a running purge while it lives.
pub(super) struct PurgeRunning<'a>(&'a AtomicUsize);

impl Drop for PurgeRunning<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A locked connection, used like `&mut SqliteConnection` (`.execute(&mut *conn)`).
pub(super) type Locked<'a> = MappedMutexGuard<'a, SqliteConnection>;

/// The connection a lock guards, or [`sqlx::Error::PoolClosed`] once [`SqliteStore::close`] has taken
/// it: a store used after closing fails like a closed pool.
pub(super) fn unless_closed(guard: MutexGuard<'_, Option<SqliteConnection>>) -> Result<Locked<'_>> {
    MutexGuard::try_map(guard, Option::as_mut).map_err(|_| sqlx::Error::PoolClosed)
}

/// What a background task of the store waits on between rounds: after `interval`, the store's
/// connections, or `None` once `stop` is cancelled or the store is dropped (the task ends).
pub(super) async fn after_interval(
    store: &std::sync::Weak<Connections>,
    stop: &tokio_util::sync::CancellationToken,
    interval: Duration,
) -> Option<Arc<Connections>> {
    tokio::select! {
        () = stop.cancelled() => return None,
        () = tokio::time::sleep(interval) => {}
    }
    store.upgrade()
}

impl SqliteStore {
    /// Opens (creating if missing, with its parent directory) the database at `database_url`.
    /// A database file telemem creates is readable by its owner only (0600), and so are its
    /// `-wal` and `-shm` files, which SQLite creates with the database file's permissions; a
    /// directory it creates is 0700. Does not migrate: call [`SqliteStore::migrate`].
    pub async fn connect(database_url: &str) -> anyhow::Result<Self> {
        Self::connect_with_limit(database_url, None).await
    }

    /// Like [`SqliteStore::connect`], with the database file capped at `max_bytes`: past it, writes fail
    /// with SQLite's "database or disk is full", exactly as on a full disk, and succeed again once
    /// the purge or `/clear` has freed pages.
    pub async fn connect_with_limit(
        database_url: &str,
        max_bytes: Option<u64>,
    ) -> anyhow::Result<Self> {
        let options = SqliteConnectOptions::from_str(database_url)
            .with_context(|| format!("DATABASE_URL `{database_url}` is not a valid SQLite URL"))?
            .create_if_missing(true)
            // WAL: readers and the writer do not block each other, and a commit is one append.
            .journal_mode(SqliteJournalMode::Wal)
            // NORMAL is durable across application crashes in WAL mode; only an OS crash or
            // power loss can lose the last commits, never corrupt the file.
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(BUSY_TIMEOUT)
            .foreign_keys(true)
            .pragma("temp_store", "memory");
        if !is_in_memory(database_url) {
            create_private_file(options.get_filename())?;
        }

        // The writer first: it creates the file and switches it to WAL before the readers open it.
        let writer = writer_options(options.clone(), max_bytes)
            .connect()
            .await
            .with_context(|| {
                format!("cannot open database {}", options.get_filename().display())
            })?;
        let mut readers = Vec::with_capacity(READ_CONNECTIONS);
        for _ in 0..READ_CONNECTIONS {
            let reader = options
                .clone()
                .read_only(true)
                .connect()
                .await
                .context("cannot open read connections to the database")?;
            readers.push(Mutex::new(Some(reader)));
        }
        let checkpointer = options
            .pragma("wal_autocheckpoint", "0")
            .connect()
            .await
            .context("cannot open the checkpoint connection to the database")?;
        let connections = Arc::new(Connections {
            writer: Mutex::new(Some(writer)),
            readers,
            next_reader: AtomicUsize::new(0),
            purges_running: AtomicUsize::new(0),
            checkpointer: Mutex::new(Some(checkpointer)),
            // Set by `migrate`: the index's progress table may not exist before.
            index_pending: AtomicBool::new(false),
            indexed_through: AtomicI64::new(0),
            written_since_checkpoint: AtomicBool::new(true),
        });
        let stop_background_tasks = tokio_util::sync::CancellationToken::new();
        tokio::spawn(checkpoint_wal(
            Arc::downgrade(&connections),
            stop_background_tasks.clone(),
        ));
        tokio::spawn(search_index::index_in_background(
            Arc::downgrade(&connections),
            stop_background_tasks.clone(),
        ));
        let (writes, queue) = tokio::sync::mpsc::channel(combined::QUEUE_CAPACITY);
        tokio::spawn(combined::combine_writes(Arc::clone(&connections), queue));
        Ok(Self {
            connections,
            writes,
            replica: super::new_replica_id().into(),
            _stop_background_tasks: Arc::new(stop_background_tasks.drop_guard()),
        })
    }

    /// Applies every migration not yet applied; a no-op on an up-to-date database.
    pub async fn migrate(&self) -> anyhow::Result<()> {
        MIGRATOR
            .run(&mut *self.writer().await?)
            .await
            .map_err(super::schema_error)
            .context("cannot apply database migrations")?;
        // A run that stopped may have left messages unindexed.
        self.connections.messages_to_index();
        self.restore_fts_automerge()
            .await
            .context("cannot set up the full-text index")
    }

    /// Closes every connection, after the writes already handed to the combining task and
    /// waiting for the connections in use to be released. Operations on the store (and its
    /// clones) fail from then on.
    pub async fn close(&self) {
        let (done, flushed) = tokio::sync::oneshot::channel();
        if self
            .writes
            .send(combined::Write::Flush { done })
            .await
            .is_ok()
        {
            let _ = flushed.await;
        }
        let connections = &self.connections;
        let all = std::iter::once(&connections.writer)
            .chain(&connections.readers)
            .chain(std::iter::once(&connections.checkpointer));
        for connection in all {
            if let Some(connection) = connection.lock().await.take()
                && let Err(error) = connection.close().await
            {
                tracing::debug!(error = %error, "closing a database connection failed");
            }
        }
    }

    /// The writer connection, once every earlier caller has released it.
    pub(super) async fn writer(&self) -> Result<Locked<'_>> {
        unless_closed(self.connections.lock_writer().await)
    }

    /// Queues a write for the combining task ([`combined`]) and waits for its outcome.
    pub(super) async fn queue_write<T>(
        &self,
        write: impl FnOnce(tokio::sync::oneshot::Sender<Result<T>>) -> combined::Write,
    ) -> Result<T> {
        let (done, outcome) = tokio::sync::oneshot::channel();
        self.writes
            .send(write(done))
            .await
            .map_err(|_| sqlx::Error::PoolClosed)?;
        outcome.await.map_err(|_| sqlx::Error::PoolClosed)?
    }

    /// Marks a purge as running until the returned guard is dropped.
    pub(super) fn purge_running(&self) -> PurgeRunning<'_> {
        let running = &self.connections.purges_running;
        running.fetch_add(1, Ordering::Relaxed);
        PurgeRunning(running)
    }

    /// A reader connection: a free one if there is one, else a place in one reader's queue.
    pub(super) async fn reader(&self) -> Result<Locked<'_>> {
        let readers = &self.connections.readers;
        for reader in readers {
            if let Ok(guard) = reader.try_lock() {
                return unless_closed(guard);
            }
        }
        let next = self.connections.next_reader.fetch_add(1, Ordering::Relaxed) % readers.len();
        unless_closed(readers[next].lock().await)
    }
}

/// Rolls back the transaction of a command that failed part-way: the statements after a failing
/// one do not run, so its `COMMIT` never came. Nothing to roll back is no error.
pub(super) async fn roll_back_failed_command(connection: &mut SqliteConnection) {
    if let Err(rollback) = sqlx::query!("ROLLBACK").execute(connection).await {
        tracing::trace!(error = %rollback, "nothing to roll back");
    }
}

/// How often the write-ahead log is copied back into the database file. The checkpoint beside
/// the writer competes with the chat turns for the CPU while it copies, and the slowest turns are
/// the ones in flight meanwhile. Frequent rounds copy less at a time, so they delay those turns
/// less than rare, large ones.
const CHECKPOINT_INTERVAL: Duration = Duration::from_millis(100);

/// Copies the write-ahead log back into the database file in the background. By default SQLite
/// does this inside the commit that crosses its automatic checkpoint threshold, so the chat turn
/// that happens to make that commit pays for copying everyone's writes; the writer has automatic
/// checkpoints turned off instead. Ends when the store is closed or its last clone is dropped.
///
/// Each round is a few PASSIVE checkpoints, which never wait for readers. The first ones run
/// beside the writer: each copies what was written during the one before, so they catch up
/// (during a purge, the first has much to copy, and the purge writes more meanwhile). The last
/// holds the writer, so that no commit lands while it copies the little that is left: only a log
/// copied completely lets the next write start it again from its beginning. Beside a writer that
/// never pauses, checkpoints alone never copy the log completely, so it would grow without end,
/// every commit extending the file and every read searching an ever longer log index. While the
/// checkpoints beside the writer are slow, the round skips the last one rather than stall every
/// chat turn for as long, unless the log has grown past [`LARGE_LOG_PAGES`]; while a purge runs,
/// a round is one checkpoint beside the writer, and the log starts over after the purge. A round
/// runs only when the writer was taken since the last one, or the last did not copy the log
/// completely: an idle bot does not wake at every interval for nothing.
async fn checkpoint_wal(
    store: std::sync::Weak<Connections>,
    stop: tokio_util::sync::CancellationToken,
) {
    while let Some(connections) = after_interval(&store, &stop, CHECKPOINT_INTERVAL).await {
        // Nothing written, nothing to copy: an idle bot wakes for no checkpoint.
        if !connections
            .written_since_checkpoint
            .swap(false, Ordering::AcqRel)
        {
            continue;
        }
        let Ok(mut checkpointer) = unless_closed(connections.checkpointer.lock().await) else {
            break;
        };
        let Some(copied_completely) = checkpoint_round(&connections, &mut checkpointer).await
        else {
            break;
        };
        if !copied_completely {
            // The next round tries again, written to or not.
            connections
                .written_since_checkpoint
                .store(true, Ordering::Release);
        }
    }
}

/// How a checkpoint round ends, once the checkpoints beside the writer have run.
enum RoundEnd {
    /// Copy the rest of the log holding the writer, so that the next write starts it over.
    CopyTheRestHoldingTheWriter,
    /// Leave the rest to a later round: holding the writer now would stall the chat turns.
    LeaveTheRest,
}

/// One round of [`checkpoint_wal`]: whether it copied the log completely, `None` once the store
/// is closed.
async fn checkpoint_round(
    connections: &Connections,
    checkpointer: &mut SqliteConnection,
) -> Option<bool> {
    let round_end = if connections.purges_running.load(Ordering::Relaxed) > 0 {
        // A purge fills the log faster than anything else; holding the writer for its pages
        // would stall chat turns for as long. The log starts over once the purge is done.
        checkpoint(checkpointer)
            .await
            .map(|_| RoundEnd::LeaveTheRest)
    } else {
        // While checkpoints are slow (a slow disk, a heavy writer), holding the writer would
        // stall every chat turn for as long, so the log grows until such a time has passed;
        // past LARGE_LOG_PAGES it must start over, even at the price of a stall.
        catch_up(checkpointer).await.map(|caught_up| {
            if caught_up.last <= QUICK_CHECKPOINT || caught_up.pages_in_log >= LARGE_LOG_PAGES {
                RoundEnd::CopyTheRestHoldingTheWriter
            } else {
                RoundEnd::LeaveTheRest
            }
        })
    };
    match round_end {
        Ok(RoundEnd::CopyTheRestHoldingTheWriter) => {}
        Ok(RoundEnd::LeaveTheRest) => return Some(false),
        Err(error) => {
            tracing::debug!(error = %error, "background WAL checkpoint failed");
            return Some(false);
        }
    }
    let writer = connections.writer.lock().await;
    writer.as_ref()?;
    let copied_completely = match checkpoint(checkpointer).await {
        // A reader's snapshot can keep the end of the log from being copied.
        Ok((in_log, copied)) => copied >= in_log,
        Err(error) => {
            tracing::debug!(error = %error, "background WAL checkpoint failed");
            false
        }
    };
    drop(writer);
    Some(copied_completely)
}

/// How many checkpoints of a round run beside the writer at most, before the one that holds it.
const CHECKPOINTS_BESIDE_THE_WRITER: usize = 4;

/// A checkpoint that found at most this many new pages had little to copy, so the writer wrote
/// little meanwhile, and the checkpoint that holds it has as little to do.
const FEW_NEW_PAGES: i64 = 256;

/// The checkpoint that holds the writer runs only after one beside it took at most this long.
/// Beside a heavy writer (such as a purge) they are slow: copying, and syncing a log the writer
/// keeps filling; the one holding the writer would then take as long.
const QUICK_CHECKPOINT: Duration = Duration::from_millis(5);

/// A log this long (256 MiB of 4 KiB pages) starts over even while checkpoints are slow.
const LARGE_LOG_PAGES: i64 = 65_536;

/// The last of the checkpoints that ran beside the writer.
struct CaughtUp {
    /// How long it took.
    last: Duration,
    /// How many pages the log held.
    pages_in_log: i64,
}

/// Checkpoints beside the writer until one finds little new to copy.
async fn catch_up(connection: &mut SqliteConnection) -> Result<CaughtUp> {
    let mut copied_before = 0;
    let mut caught_up = CaughtUp {
        last: Duration::ZERO,
        pages_in_log: 0,
    };
    for _ in 0..CHECKPOINTS_BESIDE_THE_WRITER {
        let started = std::time::Instant::now();
        let (in_log, copied) = checkpoint(connection).await?;
        caught_up = CaughtUp {
            last: started.elapsed(),
            pages_in_log: in_log,
        };
        // A log that has started over since the last checkpoint is new from its first page.
        let new_pages = if in_log >= copied_before {
            in_log - copied_before
        } else {
            in_log
        };
        copied_before = copied;
        if new_pages <= FEW_NEW_PAGES {
            break;
        }
    }
    Ok(caught_up)
}

/// A PASSIVE checkpoint; returns how many pages the log held as the checkpoint saw it, and how
/// many of them it copied into the database file.
async fn checkpoint(connection: &mut SqliteConnection) -> Result<(i64, i64)> {
    let (_busy, in_log, copied): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
        .fetch_one(connection)
        .await?;
    Ok((in_log, copied))
}

/// The writer's extra settings: a larger page cache, no checkpoints inside commits (see
/// [`checkpoint_wal`]) and the optional size cap.
fn writer_options(options: SqliteConnectOptions, max_bytes: Option<u64>) -> SqliteConnectOptions {
    // The one writer touches the index pages of every conversation; a page cache of 4 MiB
    // (SQLite's default is 2 MiB) keeps the hot ones in memory. A cache of 16 MiB measured the
    // same turns per second and purge stall on a database of a million messages, and held
    // 12 MiB more: the cache fills up to its size in any database larger than it.
    // When the log starts over, a file grown past 64 MiB (during a purge, say) is cut back to
    // that size rather than keeping its largest size on disk for good.
    let options = options
        .pragma("cache_size", "-4096")
        .pragma("wal_autocheckpoint", "0")
        .pragma("journal_size_limit", (64 * 1024 * 1024).to_string());
    match max_bytes {
        // SQLite's default page size is 4,096 bytes.
        Some(max_bytes) => options.pragma("max_page_count", (max_bytes / 4_096).max(1).to_string()),
        None => options,
    }
}

/// Starts a write transaction holding the write lock from its first statement (`BEGIN
/// IMMEDIATE`), so that it waits its turn behind another writer (the busy timeout). A deferred
/// transaction that reads first instead fails at once with "database is locked" when another
/// writer (`telemem purge` or a backup beside the bot) commits before its first write.
pub(super) async fn begin_write(
    connection: &mut SqliteConnection,
) -> Result<sqlx::Transaction<'_, sqlx::Sqlite>> {
    connection.begin_with("BEGIN IMMEDIATE").await
}

/// Whether `database_url` names an in-memory database, which has no file to protect.
fn is_in_memory(database_url: &str) -> bool {
    database_url.contains(":memory:") || database_url.contains("mode=memory")
}

/// Creates the database file, empty (which SQLite takes as a new database) and readable by its
/// owner only, before SQLite opens it: SQLite would create it 0644 (with the usual umask), and it
/// holds everyone's conversations. Its parent directory, if missing, is created 0700. An existing
/// file keeps its permissions: the operator may have chosen them.
fn create_private_file(database_file: &Path) -> anyhow::Result<()> {
    if let Some(parent) = database_file.parent()
        && !parent.as_os_str().is_empty()
        && !parent.exists()
    {
        private_directory_builder()
            .create(parent)
            .with_context(|| format!("cannot create database directory {}", parent.display()))?;
    }
    match private_file_options().open(database_file) {
        Ok(_) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error)
            .with_context(|| format!("cannot create database {}", database_file.display())),
    }
}

fn private_directory_builder() -> std::fs::DirBuilder {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
}

fn private_file_options() -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
}
