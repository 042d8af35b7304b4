//! Shared test set-up: a real SQLite database in a fresh temporary directory, and waiting for
//! something to happen.

use std::time::Duration;

use telemem::storage::{ConversationKey, NewMessage, Role, Store};

/// 2026-11-30 00:00:00 UTC: tests place their messages around a midnight on purpose.
pub const MIDNIGHT_MS: i64 = 1_795_996_800_000;

pub const SECOND_MS: i64 = 1_000;
pub const HOUR_MS: i64 = 3_600 * SECOND_MS;
pub const DAY_MS: i64 = 24 * HOUR_MS;

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

/// How often [`eventually`] looks again.
const POLL_INTERVAL: Duration = Duration::from_millis(20);

/// Looks at `condition` until it holds, for `patience` at most; whether it came to hold. The last
/// look is at or after the deadline, so a condition that holds by then counts.
pub async fn eventually<F, Fut>(mut condition: F, patience: Duration) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + patience;
    loop {
        if condition().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL_INTERVAL).await;
    }
}

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
