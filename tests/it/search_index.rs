//! The full-text index is brought up to date in batches, in the background (`storage::
//! search_index`). These specify that searches stay exact all the same, that the background task
//! catches up on its own, that deleting messages the index does not hold yet leaves it intact,
//! and that a database indexed by the old per-insert trigger keeps its index when migrated.

use std::borrow::Cow;
use std::time::Duration;

use telemem::storage::{ConversationKey, MIGRATOR, NewMessage, Role, SearchTerm, Store};

use crate::support::database::{ALICE_KEY, BOB_KEY, TempDatabase, TestDb, message_in};
use crate::support::times::{DAY_MS, MIDNIGHT_MS};
use crate::support::waiting::eventually;

/// Contents of the conversation's messages older than `before_id` that match `term`.
async fn found(store: &Store, key: ConversationKey, term: &str, before_id: i64) -> Vec<String> {
    store
        .search_messages(key, &[SearchTerm::Word(term.to_owned())], before_id, 10)
        .await
        .expect("search")
        .into_iter()
        .map(|message| message.content)
        .collect()
}

/// A connection of its own to the database at `url`, beside (and unseen by) the store.
async fn connection_beside_the_store(url: &str) -> sqlx::SqliteConnection {
    <sqlx::SqliteConnection as sqlx::Connection>::connect(&format!("{url}?mode=rwc"))
        .await
        .unwrap()
}

/// Stores a user's message through `connection`, behind the store's back (so its background
/// task does not know there is something to index); returns its id.
async fn insert_beside_the_store(
    connection: &mut sqlx::SqliteConnection,
    key: ConversationKey,
    session_id: i64,
    text: &str,
    at_ms: i64,
) -> i64 {
    sqlx::query_scalar(
        "INSERT INTO messages (chat_id, user_id, session_id, role, content, created_at,
                               tokens_in, tokens_out)
         VALUES (?1, ?2, ?3, 'user', ?4, ?5, 0, 0) RETURNING id",
    )
    .bind(key.chat_id)
    .bind(key.user_id)
    .bind(session_id)
    .bind(text)
    .bind(at_ms)
    .fetch_one(connection)
    .await
    .unwrap()
}

/// The last id given to a message, deleted or not.
async fn newest_id(db: &TestDb) -> i64 {
    let mut connection = connection_beside_the_store(&db.url).await;
    sqlx::query_scalar("SELECT seq FROM sqlite_sequence WHERE name = 'messages'")
        .fetch_one(&mut connection)
        .await
        .unwrap()
}

/// Runs FTS5's own consistency check of the index against the messages table.
async fn index_is_consistent(db: &TestDb) -> bool {
    let mut connection = connection_beside_the_store(&db.url).await;
    sqlx::query("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)")
        .execute(&mut connection)
        .await
        .is_ok()
}

/// The mark through which messages are indexed, as stored.
async fn indexed_through(db: &TestDb) -> i64 {
    let mut connection = connection_beside_the_store(&db.url).await;
    sqlx::query_scalar("SELECT indexed_through FROM search_index_progress")
        .fetch_one(&mut connection)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_message_stored_a_moment_ago_is_found_by_a_search_that_reaches_it() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.store.index_pending_messages().await.unwrap();
    // Stored behind the store's back, so that its background task never indexes them: only the
    // search itself can.
    let mut connection = connection_beside_the_store(&db.url).await;
    let parcel = insert_beside_the_store(
        &mut connection,
        ALICE_KEY,
        session,
        "where is the chemitek parcel",
        MIDNIGHT_MS,
    )
    .await;
    let newer = insert_beside_the_store(
        &mut connection,
        ALICE_KEY,
        session,
        "and the chemitek invoice",
        MIDNIGHT_MS + 1,
    )
    .await;

    // No waiting for the background batch: the search indexes what it could otherwise miss.
    let before_newer = found(&db.store, ALICE_KEY, "chemitek", newer).await;
    let all = found(&db.store, ALICE_KEY, "chemitek", newer + 1).await;

    assert_eq!(before_newer, ["where is the chemitek parcel"]);
    assert_eq!(all.len(), 2, "{all:?}");
    assert!(parcel < newer);
    assert!(index_is_consistent(&db).await);
}

#[tokio::test]
async fn the_background_task_indexes_new_messages_without_any_search() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let mut newest = 0;
    for number in 0..30 {
        newest = db
            .message(
                ALICE_KEY,
                session,
                Role::User,
                &format!("message number {number} about lisbon"),
                MIDNIGHT_MS + number,
            )
            .await;
    }

    // The task runs every 200 ms; give it far longer on a busy machine.
    assert!(
        eventually(
            || async { indexed_through(&db).await >= newest },
            Duration::from_secs(10)
        )
        .await,
        "the background task did not index message {newest}"
    );

    assert_eq!(indexed_through(&db).await, newest);
    assert!(index_is_consistent(&db).await);
    assert_eq!(
        found(&db.store, ALICE_KEY, "lisbon", newest + 1)
            .await
            .len(),
        10
    );
}

#[tokio::test]
async fn messages_a_stopped_run_left_unindexed_are_indexed_after_the_next_start() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.store.index_pending_messages().await.unwrap();
    // As if a run had stored them and stopped before its next batch.
    let mut connection = connection_beside_the_store(&db.url).await;
    let newest = insert_beside_the_store(
        &mut connection,
        ALICE_KEY,
        session,
        "left behind by a crash",
        MIDNIGHT_MS,
    )
    .await;
    db.store.close().await;

    let restarted = Store::connect(&db.url).await.unwrap();
    restarted.migrate().await.unwrap();

    assert!(
        eventually(
            || async { indexed_through(&db).await >= newest },
            Duration::from_secs(10)
        )
        .await,
        "the restarted store did not index message {newest}"
    );
    assert!(index_is_consistent(&db).await);
}

#[tokio::test]
async fn more_messages_than_one_batch_are_all_indexed() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let mut connection = connection_beside_the_store(&db.url).await;
    // 2,500 messages in one statement: more than two batches of the indexer.
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 2499)
         INSERT INTO messages (chat_id, user_id, session_id, role, content, created_at,
                               tokens_in, tokens_out)
         SELECT ?1, ?2, ?3, 'user', 'note ' || i || ' tag' || (i % 7), ?4 + i, 0, 0 FROM n",
    )
    .bind(ALICE_KEY.chat_id)
    .bind(ALICE_KEY.user_id)
    .bind(session)
    .bind(MIDNIGHT_MS)
    .execute(&mut connection)
    .await
    .unwrap();
    let newest: i64 = sqlx::query_scalar("SELECT max(id) FROM messages")
        .fetch_one(&mut connection)
        .await
        .unwrap();

    let through = db.store.index_pending_messages().await.unwrap();

    assert_eq!(through, newest);
    assert_eq!(indexed_through(&db).await, newest);
    assert!(index_is_consistent(&db).await);
    let tagged: i64 =
        sqlx::query_scalar("SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'tag3'")
            .fetch_one(&mut connection)
            .await
            .unwrap();
    assert_eq!(tagged, (0..2500).filter(|i| i % 7 == 3).count() as i64);
}

#[tokio::test]
async fn deleting_messages_the_index_does_not_hold_yet_leaves_it_intact() {
    let db = TestDb::new().await;
    let alice_session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    db.message(
        ALICE_KEY,
        alice_session,
        Role::User,
        "indexed chemitek parcel",
        MIDNIGHT_MS,
    )
    .await;
    let through = db.store.index_pending_messages().await.unwrap();
    // Stored behind the store's back, so its background task does not index them: they are
    // not in the index when /clear and the purge delete them.
    let mut connection = connection_beside_the_store(&db.url).await;
    for (key, session, text, at_ms) in [
        (
            ALICE_KEY,
            alice_session,
            "unindexed chemitek invoice",
            MIDNIGHT_MS + 1,
        ),
        (
            BOB_KEY,
            bob_session,
            "an old chemitek order",
            MIDNIGHT_MS - 40 * DAY_MS,
        ),
    ] {
        insert_beside_the_store(&mut connection, key, session, text, at_ms).await;
    }
    assert_eq!(
        indexed_through(&db).await,
        through,
        "the two are not indexed"
    );

    db.store.clear_conversation(ALICE_KEY).await.unwrap();
    let purged = db
        .store
        .purge_older_than(MIDNIGHT_MS - 30 * DAY_MS, 100)
        .await
        .unwrap();
    let through = db.store.index_pending_messages().await.unwrap();

    assert_eq!(purged.messages, 1);
    // The deleted messages no longer hold the mark back.
    assert_eq!(through, newest_id(&db).await);
    assert!(index_is_consistent(&db).await);
    assert!(
        found(&db.store, ALICE_KEY, "chemitek", through + 1)
            .await
            .is_empty()
    );
    assert!(
        found(&db.store, BOB_KEY, "chemitek", through + 1)
            .await
            .is_empty()
    );
}

#[tokio::test]
async fn a_database_indexed_by_the_old_trigger_keeps_its_index_after_the_migration() {
    let database = TempDatabase::new();
    let mut connection = connection_beside_the_store(&database.url).await;
    // The schema as it was before indexing moved to batches: the migrations before that one.
    const INDEXING_IN_BATCHES: i64 = 20261201000013;
    let before = sqlx::migrate::Migrator {
        migrations: Cow::Owned(
            MIGRATOR
                .migrations
                .iter()
                .filter(|migration| migration.version < INDEXING_IN_BATCHES)
                .cloned()
                .collect(),
        ),
        ..sqlx::migrate::Migrator::DEFAULT
    };
    before.run(&mut connection).await.unwrap();
    sqlx::query(
        "INSERT INTO sessions (id, chat_id, user_id, started_at, last_activity_at)
         VALUES (1, ?1, ?2, ?3, ?3)",
    )
    .bind(ALICE_KEY.chat_id)
    .bind(ALICE_KEY.user_id)
    .bind(MIDNIGHT_MS)
    .execute(&mut connection)
    .await
    .unwrap();
    for (number, text) in ["the chemitek parcel", "the chemitek invoice"]
        .iter()
        .enumerate()
    {
        let at_ms = MIDNIGHT_MS + number as i64;
        insert_beside_the_store(&mut connection, ALICE_KEY, 1, text, at_ms).await;
    }
    drop(connection);

    let store = database.connect().await;
    store.migrate().await.unwrap();
    let db = TestDb::from_store(store, database);

    assert_eq!(indexed_through(&db).await, 2);
    assert!(index_is_consistent(&db).await);
    assert_eq!(found(&db.store, ALICE_KEY, "chemitek", 3).await.len(), 2);
    // Deleting them removes their index entries (the trigger applies to indexed messages).
    db.store.clear_conversation(ALICE_KEY).await.unwrap();
    assert!(index_is_consistent(&db).await);
}

#[tokio::test]
async fn a_database_at_its_size_cap_indexes_what_fits_and_the_rest_once_space_returns() {
    let database = TempDatabase::new();
    let store = Store::connect_with_limit(&database.url, Some(1024 * 1024))
        .await
        .unwrap();
    store.migrate().await.unwrap();
    let db = TestDb::from_store(store, database);
    let session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    // Messages of distinct words, so that their index entries need pages of their own, until
    // the file is full.
    let mut stored = 0;
    for number in 0..5_000 {
        let text: String = (0..200).map(|word| format!("w{number}x{word} ")).collect();
        let message = NewMessage {
            created_at_ms: MIDNIGHT_MS + number,
            ..message_in(BOB_KEY, session, &text)
        };
        match db.store.add_message(&message).await {
            Ok(_) => stored += 1,
            Err(error) => {
                assert!(telemem::storage::is_storage_full(&error), "{error}");
                break;
            }
        }
    }
    assert!(
        stored > 0 && stored < 5_000,
        "the cap was reached after {stored}"
    );

    // Whatever fits is indexed; what does not waits, and nothing is left half-done.
    if let Err(error) = db.store.index_pending_messages().await {
        assert!(telemem::storage::is_storage_full(&error), "{error}");
    }
    db.store.clear_conversation(BOB_KEY).await.unwrap();
    let alice_session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let parcel = db
        .message(
            ALICE_KEY,
            alice_session,
            Role::User,
            "the chemitek parcel",
            MIDNIGHT_MS,
        )
        .await;

    assert_eq!(db.store.index_pending_messages().await.unwrap(), parcel);
    assert!(index_is_consistent(&db).await);
    assert_eq!(
        found(&db.store, ALICE_KEY, "chemitek", parcel + 1)
            .await
            .len(),
        1
    );
}
