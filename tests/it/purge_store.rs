//! The store's deletes, on each backend: the purge in small batches removes exactly what its dry
//! run counted, vectors included, and `/clear` counts what it deletes of one conversation and
//! leaves every other one whole.

use std::collections::HashSet;

use telemem::storage::{
    ChatId, ConversationKey, MemoryVector, NoteUpdate, PurgeCounts, Role, UserId, VectorSource,
};

use crate::support::database::{ALICE_KEY, BOB_KEY, TestDb};
use crate::support::times::{DAY_MS, HOUR_MS, MIDNIGHT_MS, MINUTE_MS};

/// A vector for each of `ids`' messages.
async fn embed(db: &TestDb, ids: &[i64]) {
    let vectors: Vec<MemoryVector> = ids
        .iter()
        .map(|&source_id| MemoryVector {
            source: VectorSource::Message,
            source_id,
            text: String::new(),
            vector: vec![1; 127],
        })
        .collect();
    db.store.store_vectors(&vectors, None).await.unwrap();
}

/// One session of `key` at `at_ms` with three messages (embedded), a summary and a note; returns
/// the messages' ids.
async fn day_of(db: &TestDb, key: ConversationKey, at_ms: i64, tag: &str) -> Vec<i64> {
    let session = db.session(key, at_ms).await;
    let mut ids = Vec::new();
    for minute in 0..3 {
        let text = format!("{tag} minute {minute}");
        let at = at_ms + minute * MINUTE_MS;
        ids.push(db.message(key, session, Role::User, &text, at).await);
    }
    embed(db, &ids).await;
    db.store
        .add_summary(session, key, &format!("summary of {tag}"), at_ms + HOUR_MS)
        .await
        .unwrap();
    db.store
        .replace_notes(
            key,
            &[NoteUpdate::new(format!("note of {tag}"))],
            session,
            at_ms,
            at_ms + HOUR_MS,
        )
        .await
        .unwrap();
    ids
}

#[tokio::test]
async fn purge_in_small_batches_removes_exactly_what_its_dry_run_counted_vectors_included() {
    let db = TestDb::new().await;
    let cutoff = MIDNIGHT_MS + 10 * DAY_MS;
    let mut kept = HashSet::new();
    for day in 0..15 {
        let key = ConversationKey::new(ChatId(day % 3), UserId(day % 3));
        let at = MIDNIGHT_MS + day * DAY_MS;
        let ids = day_of(&db, key, at, &format!("day{day}")).await;
        if at >= cutoff {
            kept.extend(ids);
        }
    }
    let expected = db.store.count_purgeable(cutoff).await.unwrap();
    assert_eq!(
        (expected.messages, expected.sessions, expected.summaries),
        (30, 10, 10)
    );

    let counts = db.store.purge_older_than(cutoff, 4).await.unwrap();

    assert_eq!(counts, expected);
    assert_eq!(db.store.count_purgeable(cutoff).await.unwrap().total(), 0);
    let mut remaining = HashSet::new();
    let mut vectors = 0;
    for person in 0..3 {
        let key = ConversationKey::new(ChatId(person), UserId(person));
        for message in db.store.all_messages(key).await.unwrap() {
            remaining.insert(message.id);
        }
        vectors += db.store.vector_count(key).await.unwrap();
        assert!(!db.store.notes(key).await.unwrap().is_empty());
    }
    assert_eq!(remaining, kept);
    assert_eq!(vectors, 15, "the kept messages' vectors, and only theirs");
}

#[tokio::test]
async fn clear_counts_what_it_deletes_and_leaves_every_other_conversation_whole() {
    let db = TestDb::new().await;
    let group_alice = ConversationKey::new(ChatId(-100), ALICE_KEY.user_id);
    for (day, key) in [ALICE_KEY, ALICE_KEY, BOB_KEY, group_alice]
        .into_iter()
        .enumerate()
    {
        let at = MIDNIGHT_MS + day as i64 * DAY_MS;
        day_of(&db, key, at, &format!("day{day}")).await;
    }

    let counts = db.store.clear_conversation(ALICE_KEY).await.unwrap();

    assert_eq!(
        counts,
        PurgeCounts {
            messages: 6,
            sessions: 2,
            summaries: 2,
            notes: 1,
            ..PurgeCounts::default()
        }
    );
    assert!(db.store.all_messages(ALICE_KEY).await.unwrap().is_empty());
    assert_eq!(db.store.vector_count(ALICE_KEY).await.unwrap(), 0);
    for other in [BOB_KEY, group_alice] {
        assert_eq!(db.store.all_messages(other).await.unwrap().len(), 3);
        assert_eq!(db.store.vector_count(other).await.unwrap(), 3);
        assert_eq!(db.store.notes(other).await.unwrap().len(), 1);
    }
    let again = db.store.clear_conversation(ALICE_KEY).await.unwrap();
    assert_eq!(again.total(), 0);
}

crate::postgres_variants!(
    purge_in_small_batches_removes_exactly_what_its_dry_run_counted_vectors_included,
    clear_counts_what_it_deletes_and_leaves_every_other_conversation_whole,
);
