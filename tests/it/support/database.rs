//! Test databases: a migrated store on a file in a temporary directory ([`TestDb`]), and the
//! conversation keys the store tests use.

use telemem::storage::{ConversationKey, NewMessage, Role, Store};

/// Two people's private conversations, for tests that call the store or the pipeline directly
/// (the bot harness's `ALICE` and `BOB` are user ids).
pub const ALICE_KEY: ConversationKey = ConversationKey {
    chat_id: 11,
    user_id: 11,
};
pub const BOB_KEY: ConversationKey = ConversationKey {
    chat_id: 22,
    user_id: 22,
};

/// A migrated store on a file in a temporary directory that lives as long as this value.
pub struct TestDb {
    pub store: Store,
    pub url: String,
    _dir: tempfile::TempDir,
}

impl TestDb {
    pub async fn new() -> Self {
        let dir = tempfile::tempdir().expect("temporary directory");
        let url = format!("sqlite://{}", dir.path().join("telemem.db").display());
        let store = Store::connect(&url).await.expect("open the test database");
        store.migrate().await.expect("migrate the test database");
        Self {
            store,
            url,
            _dir: dir,
        }
    }

    /// A test database around a store opened elsewhere (say, on a database prepared by hand).
    pub fn from_store(store: Store, url: String, dir: tempfile::TempDir) -> Self {
        Self {
            store,
            url,
            _dir: dir,
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
                key,
                session_id,
                role,
                content,
                created_at_ms: at_ms,
                tokens_in: 0,
                tokens_out: 0,
                telegram_message_id: None,
            })
            .await
            .expect("add message")
    }
}
