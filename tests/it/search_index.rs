//! The full-text index is brought up to date in batches, in the background (`storage::
//! search_index`), and every indexed word carries its conversation. These specify that searches
//! stay exact all the same, that the background task catches up on its own, that deleting
//! messages the index does not hold yet leaves it intact, that a database indexed in an older
//! form is indexed again when migrated (a search meanwhile does not wait for the rebuild), that a
//! conversation finds its own words whatever punctuation surrounds them and never another's, and
//! that ranking counts the conversation's own words.

use std::borrow::Cow;
use std::time::Duration;

use telemem::storage::{ChatId, ConversationKey, MIGRATOR, NewMessage, Role, SearchTerm, Store};

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
async fn a_search_without_bound_in_a_process_just_started_indexes_a_short_backlog_first() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.store.index_pending_messages().await.unwrap();
    let mut connection = connection_beside_the_store(&db.url).await;
    insert_beside_the_store(
        &mut connection,
        ALICE_KEY,
        session,
        "the chemitek parcel",
        MIDNIGHT_MS,
    )
    .await;
    // Another process (say `telemem context`) that has not indexed anything yet itself.
    let other = Store::connect(&db.url).await.unwrap();

    let all = found(&other, ALICE_KEY, "chemitek", i64::MAX).await;

    assert_eq!(all, ["the chemitek parcel"]);
    other.close().await;
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
    let tagged: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'o11c11xtag3'",
    )
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

/// A database with the schema before migration `version`, holding two of Alice's messages about
/// "chemitek" in the index form of that time.
async fn database_before_migration(version: i64) -> TempDatabase {
    let database = TempDatabase::new();
    let mut connection = connection_beside_the_store(&database.url).await;
    let before = sqlx::migrate::Migrator {
        migrations: Cow::Owned(
            MIGRATOR
                .migrations
                .iter()
                .filter(|migration| migration.version < version)
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
    database
}

/// Indexing by a trigger in every insert, before batches.
const INDEXING_IN_BATCHES: i64 = 20261201000013;
/// Plain words with an owner column, before words carried their conversation.
const CONVERSATION_SCOPED_WORDS: i64 = 20261203000100;

#[tokio::test]
async fn a_database_indexed_in_an_older_form_is_indexed_again_after_the_migration() {
    for version in [INDEXING_IN_BATCHES, CONVERSATION_SCOPED_WORDS] {
        let database = database_before_migration(version).await;
        if version == CONVERSATION_SCOPED_WORDS {
            // As the batches of that time indexed them.
            let mut connection = connection_beside_the_store(&database.url).await;
            sqlx::raw_sql(
                "INSERT INTO messages_fts (rowid, content, owner)
                     SELECT id, content, owner FROM messages;
                 UPDATE search_index_progress SET indexed_through = 2",
            )
            .execute(&mut connection)
            .await
            .unwrap();
        }

        let store = database.connect().await;
        store.migrate().await.unwrap();
        let db = TestDb::from_store(store, database);

        // The search indexes the two itself rather than miss them.
        assert_eq!(found(&db.store, ALICE_KEY, "chemitek", 3).await.len(), 2);
        assert_eq!(indexed_through(&db).await, 2);
        assert!(index_is_consistent(&db).await);
        // Deleting them removes their index entries (the trigger applies to indexed messages).
        db.store.clear_conversation(ALICE_KEY).await.unwrap();
        assert!(index_is_consistent(&db).await);
        assert!(found(&db.store, ALICE_KEY, "chemitek", 3).await.is_empty());
    }
}

#[tokio::test]
async fn a_search_during_a_rebuild_of_the_index_finds_what_is_indexed_without_waiting() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.store.index_pending_messages().await.unwrap();
    // As a migration that changed the index's form leaves it: many messages, none indexed, and
    // the background task only starting on them.
    let mut connection = connection_beside_the_store(&db.url).await;
    sqlx::query(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 11999)
         INSERT INTO messages (chat_id, user_id, session_id, role, content, created_at,
                               tokens_in, tokens_out)
         SELECT ?1, ?2, ?3, 'user', 'rebuilt ' || i, ?4 + i, 0, 0 FROM n",
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

    let during = found(&db.store, ALICE_KEY, "rebuilt", newest + 1).await;

    assert!(during.is_empty(), "{during:?}");
    assert!(indexed_through(&db).await < newest, "the search waited");
    db.store.index_pending_messages().await.unwrap();
    assert_eq!(
        found(&db.store, ALICE_KEY, "rebuilt", newest + 1)
            .await
            .len(),
        10
    );
}

#[tokio::test]
async fn a_conversation_finds_only_its_own_words_after_any_punctuation() {
    let db = TestDb::new().await;
    let alice_session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    let group = ConversationKey::new(ChatId(-100_500), ALICE_KEY.user_id);
    let group_session = db.session(group, MIDNIGHT_MS).await;
    let texts = [
        (
            ALICE_KEY,
            alice_session,
            "(Chemitek) l'adresse: «Paris»—quai/7, \"Zürich\"",
        ),
        (BOB_KEY, bob_session, "my chemitek parcel to paris"),
        (group, group_session, "the group's chemitek order"),
    ];
    let mut newest = 0;
    for (number, (key, session, text)) in texts.into_iter().enumerate() {
        newest = db
            .message(key, session, Role::User, text, MIDNIGHT_MS + number as i64)
            .await;
    }
    db.store.index_pending_messages().await.unwrap();

    for word in ["chemitek", "adresse", "paris", "quai", "zurich", "7"] {
        assert_eq!(
            found(&db.store, ALICE_KEY, word, newest + 1).await.len(),
            1,
            "{word}"
        );
    }
    assert_eq!(
        found(&db.store, BOB_KEY, "chemitek", newest + 1).await,
        ["my chemitek parcel to paris"]
    );
    assert_eq!(
        found(&db.store, group, "chemitek", newest + 1).await,
        ["the group's chemitek order"]
    );
    let by_prefix = db
        .store
        .search_messages(
            BOB_KEY,
            &[SearchTerm::Prefix("pari".into())],
            newest + 1,
            10,
        )
        .await
        .unwrap();
    assert_eq!(by_prefix.len(), 1);
    assert!(index_is_consistent(&db).await);
}

#[tokio::test]
async fn ranking_counts_the_conversations_own_words_not_everyones() {
    let db = TestDb::new().await;
    let alice_session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    // "chemitek" is everywhere in Bob's messages and once in Alice's; "parcel" is in several of
    // hers. For her, the rare word is "chemitek".
    for number in 0..50 {
        db.message(
            BOB_KEY,
            bob_session,
            Role::User,
            &format!("chemitek report {number}"),
            MIDNIGHT_MS,
        )
        .await;
    }
    let mut newest = 0;
    for text in [
        "a parcel came",
        "another parcel came",
        "the parcel again",
        "parcel number four",
        "the chemitek box came",
    ] {
        newest = db
            .message(ALICE_KEY, alice_session, Role::User, text, MIDNIGHT_MS)
            .await;
    }
    db.store.index_pending_messages().await.unwrap();

    let ranked = db
        .store
        .search_messages(
            ALICE_KEY,
            &[
                SearchTerm::Word("chemitek".into()),
                SearchTerm::Word("parcel".into()),
            ],
            newest + 1,
            10,
        )
        .await
        .unwrap();

    assert_eq!(ranked.len(), 5);
    assert_eq!(ranked[0].content, "the chemitek box came");
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
