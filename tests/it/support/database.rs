//! Test databases: a URL for a database file in a temporary directory, a migrated store on one
//! ([`TestDb`]), the conversation keys the store tests use, a [`NewMessage`] with defaults so
//! each test states only the fields it cares about, and [`count_rows`] for what no `Store`
//! method reads.

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

/// The place of a database file in a temporary directory that lives as long as this value;
/// whoever opens it first creates it.
pub struct TempDatabase {
    pub url: String,
    _dir: tempfile::TempDir,
}

impl TempDatabase {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("telemem.db").display());
        Self { url, _dir: dir }
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
/// from the file: for tables no `Store` method reads, such as the full-text index.
pub async fn count_rows(url: &str, sql: &'static str) -> i64 {
    use sqlx::{Connection, Row};
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
