//! The store's side of recall, on each backend: the search by words takes terms as words
//! whatever characters they hold, never returns another conversation's messages, and ranks the
//! rarer, more frequent or shorter matches first; the search by meaning returns the
//! conversation's nearest vectors first; the embedder's mark only moves forward, also with two
//! embedders at once, and a new model starts over.

use telemem::storage::{
    ConversationKey, ImportMessage, ImportSession, MemoryVector, SearchTerm, Store, StoreOptions,
    VectorSource,
};

use crate::support::database::{ALICE_KEY, BOB_KEY, TestDb};
use crate::support::times::{MIDNIGHT_MS, MINUTE_MS};

/// Contents of `key`'s messages older than `before_id` matching any of `terms`, as ranked.
async fn found(
    store: &Store,
    key: ConversationKey,
    terms: &[SearchTerm],
    before_id: i64,
) -> Vec<String> {
    store
        .search_messages(key, terms, before_id, 10)
        .await
        .expect("search")
        .into_iter()
        .map(|message| message.content)
        .collect()
}

/// Stores `texts` as `key`'s messages, a minute apart, in one new session; returns their ids.
async fn messages(db: &TestDb, key: ConversationKey, texts: &[&str]) -> Vec<i64> {
    let session = db.session(key, MIDNIGHT_MS).await;
    let mut ids = Vec::new();
    for (minute, text) in (1..).zip(texts) {
        let at_ms = MIDNIGHT_MS + minute * MINUTE_MS;
        ids.push(
            db.message(key, session, telemem::storage::Role::User, text, at_ms)
                .await,
        );
    }
    ids
}

fn word(text: &str) -> SearchTerm {
    SearchTerm::Word(text.to_owned())
}

fn prefix(text: &str) -> SearchTerm {
    SearchTerm::Prefix(text.to_owned())
}

#[tokio::test]
async fn terms_with_quotes_backslashes_operators_or_any_script_are_looked_for_as_words() {
    let db = TestDb::new().await;
    messages(
        &db,
        ALICE_KEY,
        &[
            "Treffen an der Straße beim Müllerplatz",
            "Встреча в Москве в пятницу",
            "it's a test",
            "a&b or c|d",
            "plain words only",
        ],
    )
    .await;
    let everything = i64::MAX;

    for term in [
        word("'"),
        word("\""),
        word("\\"),
        word("&"),
        word("|"),
        word("!"),
        word(":*"),
        word("("),
        word("' | '"),
        prefix("'"),
        prefix(""),
        word("x' | 'plain"),
        word("x\" OR \"plain"),
        word("x\\' | plain"),
        word("!plain"),
        word("(plain | x"),
        word("nothing:*"),
    ] {
        let matched = found(
            &db.store,
            ALICE_KEY,
            std::slice::from_ref(&term),
            everything,
        )
        .await;
        let expected: &[&str] = match &term {
            SearchTerm::Word(text) if text.contains("plain") && !text.contains('x') => {
                &["plain words only"]
            }
            _ => &[],
        };
        assert_eq!(matched, expected, "{term:?}");
    }
    let cases: [(SearchTerm, &str); 6] = [
        (word("straße"), "Treffen an der Straße beim Müllerplatz"),
        (
            word("müllerplatz"),
            "Treffen an der Straße beim Müllerplatz",
        ),
        (prefix("москв"), "Встреча в Москве в пятницу"),
        (word("пятницу"), "Встреча в Москве в пятницу"),
        (word("it's"), "it's a test"),
        (word("c|d"), "a&b or c|d"),
    ];
    for (term, expected) in cases {
        let matched = found(
            &db.store,
            ALICE_KEY,
            std::slice::from_ref(&term),
            everything,
        )
        .await;
        assert_eq!(matched, [expected], "{term:?}");
    }
}

#[tokio::test]
async fn another_conversations_matching_messages_never_come_back() {
    let db = TestDb::new().await;
    let group_alice = ConversationKey::new(telemem::storage::ChatId(-100), ALICE_KEY.user_id);
    let group_bob = ConversationKey::new(telemem::storage::ChatId(-100), BOB_KEY.user_id);
    let bob = messages(&db, BOB_KEY, &["bob's parcel 4711 is late"]).await;
    let own = messages(&db, ALICE_KEY, &["alice's parcel 4711 is late"]).await;
    messages(&db, group_alice, &["alice in the group: parcel 4711"]).await;
    messages(&db, group_bob, &["bob in the group: parcel 4711"]).await;
    let terms = [prefix("parc"), word("4711")];

    let alice_private = found(&db.store, ALICE_KEY, &terms, i64::MAX).await;
    let alice_group = found(&db.store, group_alice, &terms, i64::MAX).await;
    let before_her_message = found(&db.store, ALICE_KEY, &terms, own[0]).await;

    assert_eq!(alice_private, ["alice's parcel 4711 is late"]);
    assert_eq!(alice_group, ["alice in the group: parcel 4711"]);
    assert!(bob[0] < own[0]);
    assert!(before_her_message.is_empty(), "{before_her_message:?}");
}

#[tokio::test]
async fn a_rarer_more_frequent_or_shorter_match_ranks_first() {
    let db = TestDb::new().await;
    let ids = messages(
        &db,
        ALICE_KEY,
        &[
            "coffee in the morning",
            "coffee after lunch",
            "the zebra coffee mug",
            "coffee coffee coffee",
            "coffee in the evening",
        ],
    )
    .await;

    let ranked = found(
        &db.store,
        ALICE_KEY,
        &[word("coffee"), word("zebra")],
        i64::MAX,
    )
    .await;
    let before_the_zebra = found(&db.store, ALICE_KEY, &[word("coffee")], ids[2]).await;

    assert_eq!(ranked[0], "the zebra coffee mug");
    assert_eq!(ranked[1], "coffee coffee coffee");
    assert_eq!(ranked.len(), 5);
    assert_eq!(
        before_the_zebra,
        ["coffee after lunch", "coffee in the morning"]
    );
}

/// A vector of length 127 pointing mostly along `axis`, a little along the next one.
fn vector(axis: usize, lean: i8) -> Vec<u8> {
    let mut values = [0_i8; 127];
    values[axis] = 120;
    values[(axis + 1) % 127] = lean;
    values.iter().map(|&value| value as u8).collect()
}

fn message_vector(source_id: i64, vector: Vec<u8>) -> MemoryVector {
    MemoryVector {
        source: VectorSource::Message,
        source_id,
        text: String::new(),
        vector,
    }
}

#[tokio::test]
async fn the_nearest_messages_are_the_conversations_own_nearest_first() {
    let db = TestDb::new().await;
    let alice = messages(&db, ALICE_KEY, &["one", "two", "three", "four"]).await;
    let bob = messages(&db, BOB_KEY, &["bob's"]).await;
    let mut stored = vec![
        message_vector(alice[0], vector(0, 40)),
        message_vector(alice[1], vector(0, 0)),
        message_vector(alice[2], vector(5, 0)),
        message_vector(alice[3], vector(0, 1)),
        message_vector(bob[0], vector(0, 0)),
    ];
    // A vector of another length (another model's) is never compared.
    stored.push(message_vector(alice[2], vec![1, 2, 3]));
    db.store.store_vectors(&stored, Some(bob[0])).await.unwrap();

    let nearest = db
        .store
        .nearest_messages(ALICE_KEY, &vector(0, 0), alice[3], 2)
        .await
        .unwrap();

    let found: Vec<(&str, f64)> = nearest
        .iter()
        .map(|(message, similarity)| (message.content.as_str(), *similarity))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, "two");
    assert!((found[0].1 - 1.0).abs() < 1e-9, "{found:?}");
    assert_eq!(found[1].0, "one");
    assert!(
        (found[1].1 - (1.0 - 1600.0 / 32258.0)).abs() < 1e-6,
        "{found:?}"
    );
    assert_eq!(db.store.vector_count(ALICE_KEY).await.unwrap(), 4);
    assert_eq!(db.store.vector_count(BOB_KEY).await.unwrap(), 1);
}

#[tokio::test]
async fn the_embedding_mark_only_moves_forward_even_with_two_embedders_and_a_new_model_starts_over()
{
    let db = TestDb::new().await;
    let ids = messages(&db, ALICE_KEY, &["one", "two", "three", "four"]).await;
    assert!(!db.store.use_embedding_model("model-a").await.unwrap());
    let batch: Vec<MemoryVector> = ids
        .iter()
        .map(|&id| message_vector(id, vector(0, 0)))
        .collect();

    let (first, second) = tokio::join!(
        db.store.store_vectors(&batch[..3], Some(ids[2])),
        db.store.store_vectors(&batch[1..], Some(ids[1])),
    );
    first.unwrap();
    second.unwrap();
    db.store.store_vectors(&[], Some(ids[0])).await.unwrap();

    // SQLite goes by the mark alone: the last message is past it. PostgreSQL's mark passes only
    // messages stored a minute ago (ids may commit out of order), and until then tells the
    // messages with a vector apart by the vector itself: none is waiting.
    let expected: &[i64] = if db.url.starts_with("postgres") {
        &[]
    } else {
        &[ids[3]]
    };
    let waiting = db.store.messages_to_embed(10).await.unwrap();
    assert_eq!(
        waiting
            .iter()
            .map(|text| text.source_id)
            .collect::<Vec<_>>(),
        expected
    );
    assert_eq!(
        db.store.messages_waiting_for_vectors().await.unwrap(),
        i64::try_from(expected.len()).unwrap()
    );
    assert_eq!(db.store.vector_count(ALICE_KEY).await.unwrap(), 4);

    assert!(!db.store.use_embedding_model("model-a").await.unwrap());
    let (switched, again) = tokio::join!(
        db.store.use_embedding_model("model-b"),
        db.store.use_embedding_model("model-b"),
    );
    assert!(
        switched.unwrap() ^ again.unwrap(),
        "one of the two switches"
    );
    assert_eq!(db.store.vector_count(ALICE_KEY).await.unwrap(), 0);
    assert_eq!(db.store.messages_waiting_for_vectors().await.unwrap(), 4);
}

#[tokio::test]
async fn a_conversation_of_more_vectors_than_one_read_is_searched_whole_without_the_cache() {
    let db = TestDb::new().await;
    let holding_none = holding_no_vectors(&db).await;
    let count = 5_000;
    let imported: Vec<ImportMessage> = (0..count)
        .map(|number| ImportMessage {
            role: telemem::storage::Role::User,
            content: format!("message {number}"),
            created_at_ms: MIDNIGHT_MS + number * MINUTE_MS,
            import_key: format!("key {number}"),
        })
        .collect();
    let session = ImportSession {
        existing_id: None,
        messages: imported,
    };
    db.store
        .import_sessions(ALICE_KEY, &[session])
        .await
        .expect("the import");
    let ids: Vec<i64> = db
        .store
        .all_messages(ALICE_KEY)
        .await
        .unwrap()
        .iter()
        .map(|message| message.id)
        .collect();
    assert_eq!(ids.len(), 5_000);
    // The nearest three lie on either side of the first read's end.
    let leans = [(10, 3), (4_500, 1), (4_999, 2)];
    let vectors: Vec<MemoryVector> = ids
        .iter()
        .enumerate()
        .map(|(place, id)| {
            let lean = leans
                .iter()
                .find(|(at, _)| *at == place)
                .map(|(_, lean)| *lean);
            message_vector(
                *id,
                lean.map_or_else(|| vector(9, 0), |lean| vector(0, lean)),
            )
        })
        .collect();
    db.store.store_vectors(&vectors, None).await.unwrap();
    let query = vector(0, 0);
    let expected = ["message 4500", "message 4999", "message 10"];
    assert_eq!(
        nearest_contents(&holding_none, ALICE_KEY, &query).await,
        expected
    );
    assert_eq!(
        nearest_contents(&db.store, ALICE_KEY, &query).await,
        expected
    );
}

/// Another handle on `db` holding no vectors in memory: every search by meaning reads the stored
/// ones.
async fn holding_no_vectors(db: &TestDb) -> Store {
    Store::connect_with(
        &db.url,
        &StoreOptions {
            vector_cache_bytes: Some(0),
            ..StoreOptions::default()
        },
    )
    .await
    .expect("a handle holding no vectors")
}

/// The contents `store` finds nearest to `query` among `key`'s messages.
async fn nearest_contents(store: &Store, key: ConversationKey, query: &[u8]) -> Vec<String> {
    store
        .nearest_messages(key, query, i64::MAX, 3)
        .await
        .expect("search by meaning")
        .into_iter()
        .map(|(message, _)| message.content)
        .collect()
}

#[tokio::test]
async fn the_search_by_meaning_follows_every_change_whoever_makes_it() {
    let db = TestDb::new().await;
    // Another process on the same database (a replica, `telemem import`, a script) writes; this
    // store searches with the vectors it holds in memory, and one without any held compares.
    let other = Store::connect(&db.url).await.expect("a second handle");
    let holding_none = holding_no_vectors(&db).await;
    assert!(!other.use_embedding_model("model-a").await.unwrap());
    let ids = messages(&db, ALICE_KEY, &["one", "two", "three"]).await;
    let bob = messages(&db, BOB_KEY, &["bob's"]).await;
    let query = vector(0, 0);
    let searches = async |expected: &[&str]| {
        assert_eq!(
            nearest_contents(&db.store, ALICE_KEY, &query).await,
            expected
        );
        assert_eq!(
            nearest_contents(&holding_none, ALICE_KEY, &query).await,
            expected
        );
    };
    assert!(
        nearest_contents(&db.store, ALICE_KEY, &query)
            .await
            .is_empty()
    );

    let far = |id| message_vector(id, vector(9, 0));
    other
        .store_vectors(&[far(ids[0]), message_vector(ids[1], vector(0, 60))], None)
        .await
        .unwrap();
    searches(&["two", "one"]).await;

    other
        .store_vectors(
            &[
                message_vector(ids[2], vector(0, 10)),
                message_vector(bob[0], query.clone()),
            ],
            None,
        )
        .await
        .unwrap();
    searches(&["three", "two", "one"]).await;

    // Replaced in place: the held vector must not stay.
    other.store_vectors(&[far(ids[2])], None).await.unwrap();
    searches(&["two", "one", "three"]).await;

    other.clear_conversation(ALICE_KEY).await.unwrap();
    searches(&[]).await;
    let again = messages(&db, ALICE_KEY, &["four"]).await;
    other
        .store_vectors(&[message_vector(again[0], query.clone())], None)
        .await
        .unwrap();
    searches(&["four"]).await;
    assert_eq!(
        nearest_contents(&db.store, BOB_KEY, &query).await,
        ["bob's"]
    );

    // A new model: every vector goes, and the held ones with them.
    assert!(other.use_embedding_model("model-b").await.unwrap());
    searches(&[]).await;
}

crate::postgres_variants!(
    the_search_by_meaning_follows_every_change_whoever_makes_it,
    a_conversation_of_more_vectors_than_one_read_is_searched_whole_without_the_cache,
    terms_with_quotes_backslashes_operators_or_any_script_are_looked_for_as_words,
    another_conversations_matching_messages_never_come_back,
    a_rarer_more_frequent_or_shorter_match_ranks_first,
    the_nearest_messages_are_the_conversations_own_nearest_first,
    the_embedding_mark_only_moves_forward_even_with_two_embedders_and_a_new_model_starts_over,
);
