//! Test databases: a URL for a fresh database, a migrated store on one ([`TestDb`]), the
//! conversation keys the store tests use, a [`NewMessage`] with defaults so each test states only
//! the fields it cares about, and [`count_rows`] and [`daily_usage_rows`] for what no `Store`
//! method reads.
//!
//! A database is an SQLite file in a temporary directory, or, inside a test run by
//! [`postgres_variants!`], a new database on a throwaway PostgreSQL server that the first such test
//! starts (`scripts/pg-test-server`; it stops when the test binary ends). On a machine without
//! PostgreSQL's server binaries the PostgreSQL variants pass without running, after one line on
//! stderr saying so.

use telemem::storage::{ChatId, ConversationKey, NewMessage, Role, Store, UserId};

use super::times::MIDNIGHT_MS;

/// Three people's private conversations, for tests that call the store or the pipeline directly
/// (the bot harness's `ALICE`, `BOB` and `CAROL` are user ids).
pub const ALICE_KEY: ConversationKey = ConversationKey {
    chat_id: ChatId(11),
    user_id: UserId(11),
};
pub const BOB_KEY: ConversationKey = ConversationKey {
    chat_id: ChatId(22),
    user_id: UserId(22),
};
pub const CAROL_KEY: ConversationKey = ConversationKey {
    chat_id: ChatId(33),
    user_id: UserId(33),
};

/// A fresh database that lives as long as this value: a file in a temporary directory (whoever
/// opens it first creates it), or an empty PostgreSQL database when the test runs on PostgreSQL.
pub struct TempDatabase {
    pub url: String,
    _place: Place,
}

enum Place {
    Directory(#[allow(dead_code)] tempfile::TempDir),
    Postgres { name: String },
}

impl Drop for Place {
    fn drop(&mut self) {
        if let Place::Postgres { name } = self
            && let Some(server) = postgres_server()
        {
            let _ = psql(
                server,
                &format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
            );
        }
    }
}

thread_local! {
    /// Whether the test running on this thread runs on PostgreSQL ([`on_postgres`]).
    static ON_POSTGRES: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl TempDatabase {
    /// A fresh database of the backend the running test uses.
    pub fn new() -> Self {
        if ON_POSTGRES.get() {
            let server = postgres_server().expect("on_postgres runs only with a server");
            static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
            let name = format!(
                "test_{}",
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            );
            psql(server, &format!("CREATE DATABASE {name}")).expect("create a test database");
            let url = format!("{}/{name}", server.trim_end_matches("/postgres"));
            return Self {
                url,
                _place: Place::Postgres { name },
            };
        }
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("telemem.db").display());
        Self {
            url,
            _place: Place::Directory(dir),
        }
    }

    /// A store on this database, opened beside whatever else has it open.
    pub async fn connect(&self) -> Store {
        Store::connect(&self.url)
            .await
            .expect("open the test database")
    }
}

/// A migrated store on a [`TempDatabase`].
pub struct TestDb {
    pub store: Store,
    pub url: String,
    _database: TempDatabase,
}

impl TestDb {
    pub async fn new() -> Self {
        let database = TempDatabase::new();
        let store = database.connect().await;
        store.migrate().await.expect("migrate the test database");
        Self::from_store(store, database)
    }

    /// A test database around a store opened elsewhere (say, on a database prepared by hand).
    pub fn from_store(store: Store, database: TempDatabase) -> Self {
        Self {
            store,
            url: database.url.clone(),
            _database: database,
        }
    }

    /// Starts a session for `key` at `at_ms` and returns its id.
    pub async fn session(&self, key: ConversationKey, at_ms: i64) -> i64 {
        let (session, _) = self
            .store
            .start_session(key, at_ms)
            .await
            .expect("start session");
        session.id
    }

    /// Stores one message and returns its id.
    pub async fn message(
        &self,
        key: ConversationKey,
        session_id: i64,
        role: Role,
        content: &str,
        at_ms: i64,
    ) -> i64 {
        self.store
            .add_message(&NewMessage {
                role,
                created_at_ms: at_ms,
                ..message_in(key, session_id, content)
            })
            .await
            .expect("add message")
    }
}

/// The person's message `content` in `session_id`, at [`MIDNIGHT_MS`], with no tokens counted and
/// no Telegram message. A test changes what it cares about:
/// `NewMessage { role: Role::Assistant, ..message_in(key, session, "hello") }`.
pub fn message_in(key: ConversationKey, session_id: i64, content: &str) -> NewMessage<'_> {
    NewMessage {
        key,
        session_id,
        role: Role::User,
        content,
        created_at_ms: MIDNIGHT_MS,
        tokens_in: 0,
        tokens_out: 0,
        telegram_message_id: None,
    }
}

/// The number `sql` (a `SELECT count(*) ...`) counts in the database at `url`, read straight
/// from the database: for tables no `Store` method reads, such as the full-text index.
pub async fn count_rows(url: &str, sql: &'static str) -> i64 {
    use sqlx::{Connection, Row};
    if url.starts_with("postgres") {
        let mut connection = sqlx::PgConnection::connect(url)
            .await
            .expect("open the test database");
        let count = sqlx::query(sql)
            .fetch_one(&mut connection)
            .await
            .expect("count rows")
            .get(0);
        let _ = connection.close().await;
        return count;
    }
    let mut connection = sqlx::SqliteConnection::connect(url)
        .await
        .expect("open the test database");
    let count = sqlx::query(sql)
        .fetch_one(&mut connection)
        .await
        .expect("count rows")
        .get(0);
    let _ = connection.close().await;
    count
}

/// One row of `daily_usage`: `(user id, the day's first ms, messages, tokens)`.
pub type UsageRow = (i64, i64, i64, i64);

/// Every row of `daily_usage` in the database at `url`, by person and day, read straight from the
/// table: the `Store` reads only add the days up.
pub async fn daily_usage_rows(url: &str) -> Vec<UsageRow> {
    use sqlx::Connection;
    const ROWS: &str = "SELECT user_id, day_start_at, messages, tokens FROM daily_usage
                        ORDER BY user_id, day_start_at";
    if url.starts_with("postgres") {
        let mut connection = sqlx::PgConnection::connect(url)
            .await
            .expect("open the test database");
        let rows = sqlx::query_as(ROWS)
            .fetch_all(&mut connection)
            .await
            .expect("read daily usage");
        let _ = connection.close().await;
        return rows;
    }
    let mut connection = sqlx::SqliteConnection::connect(url)
        .await
        .expect("open the test database");
    let rows = sqlx::query_as(ROWS)
        .fetch_all(&mut connection)
        .await
        .expect("read daily usage");
    let _ = connection.close().await;
    rows
}

/// The URL of the throwaway PostgreSQL server of this test run (its `postgres` database), started
/// on first use; `None` when this machine has no PostgreSQL server binaries.
pub fn postgres_server() -> Option<&'static str> {
    static SERVER: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    SERVER
        .get_or_init(|| {
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-test-server");
            let output = std::process::Command::new(script)
                .args(["start", "--owner-pid", &std::process::id().to_string()])
                .output()
                .expect("run scripts/pg-test-server");
            match output.status.code() {
                Some(0) => Some(String::from_utf8_lossy(&output.stdout).trim().to_owned()),
                Some(3) => {
                    eprintln!(
                        "PostgreSQL tests skipped: no PostgreSQL server binaries on this machine \
                         (install Debian's postgresql package to run them)"
                    );
                    None
                }
                _ => panic!(
                    "scripts/pg-test-server failed: {}",
                    String::from_utf8_lossy(&output.stderr)
                ),
            }
        })
        .as_deref()
}

/// Runs one statement on the test server's `postgres` database.
fn psql(server: &str, statement: &str) -> std::io::Result<()> {
    let status = std::process::Command::new("psql")
        .args([server, "-q", "-v", "ON_ERROR_STOP=1", "-c", statement])
        .stdout(std::process::Stdio::null())
        .status()?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!("psql failed: {statement}")))
    }
}

/// Runs `test` (a `#[tokio::test]` function) with every [`TempDatabase`] it makes on PostgreSQL;
/// passes without running it when this machine has no PostgreSQL server.
pub fn on_postgres(test: fn()) {
    if postgres_server().is_none() {
        return;
    }
    ON_POSTGRES.set(true);
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            ON_POSTGRES.set(false);
        }
    }
    let _reset = Reset;
    test();
}

/// Declares, in a module `on_postgres`, a PostgreSQL variant of each named test of this file:
/// `postgres_variants!(stores_a_message, purges_old_rows);`.
#[macro_export]
macro_rules! postgres_variants {
    ($($test:ident),* $(,)?) => {
        mod on_postgres {
            $(
                #[test]
                fn $test() {
                    $crate::support::database::on_postgres(super::$test);
                }
            )*
        }
    };
}
