//! Specifications of facts with a time and of questions about a period: a note that changed is
//! stored in the place of the old one, current since the session that changed it, with what it
//! said before (a bounded number of earlier values) and until when; the person's stored bytes
//! count those values; the prompt shows them; and the store reads the summaries and the
//! unsummarized messages of a period, one conversation's only.

use std::borrow::Cow;
use std::sync::Arc;

use telemem::storage::{EarlierValue, MIGRATOR, NoteUpdate, Replaced, Role};

use crate::support::database::{ALICE_KEY, BOB_KEY, TempDatabase, TestDb};
use crate::support::modest_model;
use crate::support::pipeline::Pipeline;
use crate::support::times::{DAY_MS, HOUR_MS, MIDNIGHT_MS};

fn changed(note: &str, old: &str) -> NoteUpdate {
    NoteUpdate {
        note: note.to_owned(),
        replaces: Some(Replaced::Changed(old.to_owned())),
    }
}

#[tokio::test]
async fn a_changed_note_takes_the_old_ones_place_since_the_session_that_changed_it() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let (said, moved, moved_again, ran) = (
        MIDNIGHT_MS,
        MIDNIGHT_MS + 10 * DAY_MS,
        MIDNIGHT_MS + 20 * DAY_MS,
        MIDNIGHT_MS + 30 * DAY_MS,
    );
    let store = &db.store;
    let first = [
        NoteUpdate::new("Lives in Hamburg"),
        NoteUpdate::new("Likes tea"),
    ];
    store
        .replace_notes(ALICE_KEY, &first, session, said, said + HOUR_MS)
        .await
        .unwrap();
    let second = [
        changed("Lives in Leipzig", "Lives in Hamburg"),
        NoteUpdate::new("Likes tea"),
    ];
    store
        .replace_notes(ALICE_KEY, &second, session, moved, ran)
        .await
        .unwrap();
    let third = [
        NoteUpdate::new("Likes tea"),
        changed("Lives in Berlin", "Lives in Leipzig"),
    ];
    store
        .replace_notes(ALICE_KEY, &third, session, moved_again, ran)
        .await
        .unwrap();

    let notes = store.notes(ALICE_KEY).await.unwrap();
    assert_eq!(notes.len(), 2);
    let home = &notes[0];
    assert_eq!(home.note, "Lives in Berlin", "in the first note's place");
    assert_eq!(
        home.valid_from_ms, moved_again,
        "since the session, not the run"
    );
    assert_eq!(
        home.earlier,
        [
            EarlierValue {
                note: "Lives in Leipzig".to_owned(),
                from_ms: Some(moved),
                until_ms: moved_again,
            },
            EarlierValue {
                note: "Lives in Hamburg".to_owned(),
                from_ms: Some(said),
                until_ms: moved,
            },
        ]
    );
    assert_eq!(
        (notes[1].note.as_str(), notes[1].valid_from_ms),
        ("Likes tea", said)
    );
    assert!(notes[1].earlier.is_empty());

    // A fourth value drops the oldest: the history is bounded.
    let fourth = [changed("Lives in Munich", "Lives in Berlin")];
    store
        .replace_notes(ALICE_KEY, &fourth, session, ran, ran)
        .await
        .unwrap();
    let home = &store.notes(ALICE_KEY).await.unwrap()[0];
    let earlier: Vec<&str> = home
        .earlier
        .iter()
        .map(|value| value.note.as_str())
        .collect();
    assert_eq!(earlier, ["Lives in Berlin", "Lives in Leipzig"]);
}

#[tokio::test]
async fn a_reworded_note_keeps_its_time_and_a_value_that_was_never_a_note_is_kept_as_earlier() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let store = &db.store;
    let later = MIDNIGHT_MS + DAY_MS;
    store
        .replace_notes(
            ALICE_KEY,
            &[NoteUpdate::new("Has a dog")],
            session,
            MIDNIGHT_MS,
            later,
        )
        .await
        .unwrap();
    let updates = [
        NoteUpdate {
            note: "Has a dog named Rex".to_owned(),
            replaces: Some(Replaced::Reworded("Has a dog".to_owned())),
        },
        changed("Works at BASF", "Chemitek"),
    ];
    store
        .replace_notes(ALICE_KEY, &updates, session, later, later)
        .await
        .unwrap();

    let notes = store.notes(ALICE_KEY).await.unwrap();
    assert_eq!(notes[0].note, "Has a dog named Rex");
    assert_eq!(notes[0].valid_from_ms, MIDNIGHT_MS);
    assert!(notes[0].earlier.is_empty());
    assert_eq!(notes[1].note, "Works at BASF");
    assert_eq!(
        notes[1].earlier,
        [EarlierValue {
            note: "Chemitek".to_owned(),
            from_ms: None,
            until_ms: later,
        }]
    );
}

#[tokio::test]
async fn a_change_to_a_text_another_note_has_confirms_that_note_and_drops_the_old_one() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let store = &db.store;
    store
        .replace_notes(
            ALICE_KEY,
            &[NoteUpdate::new("Lives in Hamburg")],
            session,
            1,
            1,
        )
        .await
        .unwrap();
    store
        .add_note_by_hand(ALICE_KEY, "Lives in Leipzig", MIDNIGHT_MS)
        .await
        .unwrap();

    let updates = [changed("Lives in Leipzig", "Lives in Hamburg")];
    store
        .replace_notes(ALICE_KEY, &updates, session, MIDNIGHT_MS, MIDNIGHT_MS)
        .await
        .unwrap();

    let notes = store.notes(ALICE_KEY).await.unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].note, "Lives in Leipzig");
    assert!(notes[0].added_by_hand);
}

#[tokio::test]
async fn stored_bytes_count_what_a_note_said_before_and_give_it_back_when_the_note_goes() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let store = &db.store;
    let bytes = || async { store.stored_bytes(ALICE_KEY.user_id).await.unwrap().bytes };
    store
        .replace_notes(
            ALICE_KEY,
            &[NoteUpdate::new("Wohnt in Köln")],
            session,
            1,
            1,
        )
        .await
        .unwrap();
    assert_eq!(bytes().await, "Wohnt in Köln".len() as i64);

    let updates = [changed("Wohnt in Düsseldorf", "Wohnt in Köln")];
    store
        .replace_notes(ALICE_KEY, &updates, session, MIDNIGHT_MS, MIDNIGHT_MS)
        .await
        .unwrap();
    let note = &store.notes(ALICE_KEY).await.unwrap()[0];
    let earlier_json = serde_json::to_string(&note.earlier).unwrap();
    assert_eq!(
        bytes().await,
        ("Wohnt in Düsseldorf".len() + earlier_json.len()) as i64
    );

    // Changed by hand: the history grows, and the count with it.
    store
        .replace_note_by_hand(ALICE_KEY, note.id, "Wohnt in Bonn", MIDNIGHT_MS + DAY_MS)
        .await
        .unwrap();
    let note = &store.notes(ALICE_KEY).await.unwrap()[0];
    assert_eq!(note.earlier.len(), 2);
    assert_eq!(note.valid_from_ms, MIDNIGHT_MS + DAY_MS);
    let earlier_json = serde_json::to_string(&note.earlier).unwrap();
    assert_eq!(
        bytes().await,
        ("Wohnt in Bonn".len() + earlier_json.len()) as i64
    );

    store.delete_note(ALICE_KEY, note.id).await.unwrap();
    assert_eq!(bytes().await, 0);
}

/// Stores a session of `key` from `start_ms` to `end_ms` (a message at each end) with a summary
/// `summary` when given; returns its id.
async fn session_with(
    db: &TestDb,
    key: telemem::storage::ConversationKey,
    (start_ms, end_ms): (i64, i64),
    summary: Option<&str>,
) -> i64 {
    let session = db.session(key, start_ms).await;
    db.message(key, session, Role::User, "first words", start_ms)
        .await;
    db.message(key, session, Role::Assistant, "a reply", end_ms)
        .await;
    db.message(key, session, Role::User, "last words", end_ms)
        .await;
    db.store.close_session(key, end_ms).await.unwrap();
    if let Some(summary) = summary {
        db.store
            .add_summary(session, key, summary, end_ms + HOUR_MS)
            .await
            .unwrap();
    }
    session
}

#[tokio::test]
async fn summaries_between_are_those_of_the_sessions_overlapping_the_period_oldest_first() {
    let db = TestDb::new().await;
    let day = |n: i64| MIDNIGHT_MS + n * DAY_MS;
    session_with(&db, ALICE_KEY, (day(0), day(0) + HOUR_MS), Some("day 0")).await;
    // Runs over midnight into day 2.
    session_with(
        &db,
        ALICE_KEY,
        (day(2) - HOUR_MS, day(2) + HOUR_MS),
        Some("night"),
    )
    .await;
    session_with(&db, ALICE_KEY, (day(3), day(3) + HOUR_MS), Some("day 3")).await;
    session_with(&db, ALICE_KEY, (day(4), day(4) + HOUR_MS), Some("day 4")).await;
    session_with(
        &db,
        BOB_KEY,
        (day(3), day(3) + HOUR_MS),
        Some("Bob's day 3"),
    )
    .await;

    let texts = |summaries: Vec<telemem::storage::SummaryRecord>| {
        summaries
            .into_iter()
            .map(|summary| summary.summary)
            .collect::<Vec<_>>()
    };
    let store = &db.store;
    let days_2_to_3 = store.summaries_between(ALICE_KEY, day(2), day(4), 10);
    assert_eq!(texts(days_2_to_3.await.unwrap()), ["night", "day 3"]);
    let day_1 = store.summaries_between(ALICE_KEY, day(1), day(2), 10);
    assert_eq!(texts(day_1.await.unwrap()), ["night"], "it overlaps day 1");
    let all_but_limited = store.summaries_between(ALICE_KEY, day(0), day(5), 2);
    assert_eq!(texts(all_but_limited.await.unwrap()), ["day 3", "day 4"]);
    let nothing = store.summaries_between(ALICE_KEY, day(5), day(6), 10);
    assert!(nothing.await.unwrap().is_empty());
    let bobs = store.summaries_between(BOB_KEY, day(0), day(5), 10);
    assert_eq!(texts(bobs.await.unwrap()), ["Bob's day 3"]);
}

#[tokio::test]
async fn messages_between_are_the_persons_own_in_sessions_without_a_summary() {
    let db = TestDb::new().await;
    let day = |n: i64| MIDNIGHT_MS + n * DAY_MS;
    session_with(
        &db,
        ALICE_KEY,
        (day(1), day(1) + HOUR_MS),
        Some("summarized"),
    )
    .await;
    let waiting = session_with(&db, ALICE_KEY, (day(2), day(2) + HOUR_MS), None).await;
    session_with(&db, BOB_KEY, (day(2), day(2) + HOUR_MS), None).await;

    let store = &db.store;
    let found = store
        .messages_between(ALICE_KEY, day(0), day(3), 10)
        .await
        .unwrap();
    let said: Vec<(&str, i64)> = found
        .iter()
        .map(|message| (message.content.as_str(), message.session_id))
        .collect();
    assert_eq!(said, [("first words", waiting), ("last words", waiting)]);
    assert!(
        found
            .iter()
            .all(|message| message.user_id == ALICE_KEY.user_id)
    );
    let latest = store.messages_between(ALICE_KEY, day(0), day(3), 1);
    assert_eq!(latest.await.unwrap()[0].content, "last words");
    let before_the_last = store.messages_between(ALICE_KEY, day(2), day(2) + HOUR_MS, 10);
    let before_the_last = before_the_last.await.unwrap();
    assert_eq!(before_the_last.len(), 1, "the period's end is not in it");
}

#[tokio::test]
async fn a_fact_that_changed_reaches_the_prompt_as_current_since_its_date_with_what_it_replaced() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline.llm.set_responder(Arc::new(modest_model::respond));
    pipeline.say(ALICE_KEY, "I live in Hamburg.").await;
    pipeline.clock.advance_ms(2 * HOUR_MS);
    pipeline.summarize().await;
    pipeline.clock.advance_ms(3 * DAY_MS);
    pipeline.say(ALICE_KEY, "I moved to Leipzig.").await;
    pipeline.clock.advance_ms(2 * HOUR_MS);
    pipeline.summarize().await;

    let asked = pipeline.say(ALICE_KEY, "Where did I live before?").await;

    assert_eq!(pipeline.notes_of(ALICE_KEY).await, ["I moved to Leipzig."]);
    let system = asked.system_prompt();
    assert!(
        system.contains(
            "- I moved to Leipzig. (since 2026-12-03; before: I live in Hamburg., \
             from 2026-11-30, until 2026-12-03)"
        ),
        "{system}"
    );
}

/// The migration that gave notes their time and earlier values.
const NOTE_VALIDITY: i64 = 20261204000300;

#[tokio::test]
async fn notes_stored_before_notes_had_a_time_hold_since_they_were_noted_and_keep_their_bytes() {
    // On SQLite, whose schema can be built up to a given migration.
    let database = TempDatabase::new();
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect(&format!(
        "{}?mode=rwc",
        database.url
    ))
    .await
    .unwrap();
    let before = sqlx::migrate::Migrator {
        migrations: Cow::Owned(
            MIGRATOR
                .migrations
                .iter()
                .filter(|migration| migration.version < NOTE_VALIDITY)
                .cloned()
                .collect(),
        ),
        ..sqlx::migrate::Migrator::DEFAULT
    };
    before.run(&mut connection).await.unwrap();
    sqlx::query(
        "INSERT INTO user_notes (chat_id, user_id, note, created_at, confirmed_at)
         VALUES (?1, ?2, 'Lives in Hamburg', ?3, ?3)",
    )
    .bind(ALICE_KEY.chat_id)
    .bind(ALICE_KEY.user_id)
    .bind(MIDNIGHT_MS)
    .execute(&mut connection)
    .await
    .unwrap();
    drop(connection);

    let store = database.connect().await;
    store.migrate().await.unwrap();
    let db = TestDb::from_store(store, database);

    let notes = db.store.notes(ALICE_KEY).await.unwrap();
    assert_eq!(notes[0].valid_from_ms, MIDNIGHT_MS);
    assert!(notes[0].earlier.is_empty());
    let bytes = db
        .store
        .stored_bytes(ALICE_KEY.user_id)
        .await
        .unwrap()
        .bytes;
    assert_eq!(bytes, "Lives in Hamburg".len() as i64);
    let session = db.session(ALICE_KEY, MIDNIGHT_MS + DAY_MS).await;
    let updates = [changed("Lives in Kiel", "Lives in Hamburg")];
    let moved = MIDNIGHT_MS + DAY_MS;
    db.store
        .replace_notes(ALICE_KEY, &updates, session, moved, moved)
        .await
        .unwrap();
    let notes = db.store.notes(ALICE_KEY).await.unwrap();
    assert_eq!(notes[0].earlier[0].from_ms, Some(MIDNIGHT_MS));
    let earlier = serde_json::to_string(&notes[0].earlier).unwrap();
    let bytes = db
        .store
        .stored_bytes(ALICE_KEY.user_id)
        .await
        .unwrap()
        .bytes;
    assert_eq!(bytes, ("Lives in Kiel".len() + earlier.len()) as i64);
}

crate::postgres_variants!(
    a_changed_note_takes_the_old_ones_place_since_the_session_that_changed_it,
    a_reworded_note_keeps_its_time_and_a_value_that_was_never_a_note_is_kept_as_earlier,
    a_change_to_a_text_another_note_has_confirms_that_note_and_drops_the_old_one,
    stored_bytes_count_what_a_note_said_before_and_give_it_back_when_the_note_goes,
    summaries_between_are_those_of_the_sessions_overlapping_the_period_oldest_first,
    messages_between_are_the_persons_own_in_sessions_without_a_summary,
    a_fact_that_changed_reaches_the_prompt_as_current_since_its_date_with_what_it_replaced,
);
