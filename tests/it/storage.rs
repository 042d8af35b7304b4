//! Specifications of the SQLite store, run against real database files.

use std::collections::HashSet;

use telemem::storage::{
    BackendKind, ChatId, ConversationKey, LoadElsewhere, NewMessage, NoteAdded, NoteUpdate,
    RecordedUpdate, Role, Store, TurnOpening, TurnStartLimits, UpdateRecord, UpdateState, UserId,
};

use crate::support::database::{ALICE_KEY, BOB_KEY, CAROL_KEY, TestDb, count_rows, message_in};
use crate::support::times::{DAY_MS, HOUR_MS, MIDNIGHT_MS, SECOND_MS};
use crate::support::waiting::eventually;

#[tokio::test]
async fn history_window_includes_a_message_just_inside_and_excludes_one_just_outside() {
    let db = TestDb::new().await;
    // "Now" is one hour after midnight UTC, so the 24-hour window reaches back across midnight
    // into the previous day: a naive "since midnight" query would return nothing from before it.
    let now = MIDNIGHT_MS + HOUR_MS;
    let window_start = now - DAY_MS;
    let session = db.session(ALICE_KEY, now - DAY_MS - HOUR_MS).await;
    db.message(
        ALICE_KEY,
        session,
        Role::User,
        "too old",
        now - DAY_MS - SECOND_MS,
    )
    .await;
    db.message(
        ALICE_KEY,
        session,
        Role::User,
        "just inside",
        now - DAY_MS + SECOND_MS,
    )
    .await;
    db.message(
        ALICE_KEY,
        session,
        Role::User,
        "yesterday evening",
        MIDNIGHT_MS - HOUR_MS,
    )
    .await;
    db.message(
        ALICE_KEY,
        session,
        Role::User,
        "after midnight",
        MIDNIGHT_MS + 60 * SECOND_MS,
    )
    .await;

    let history = db.store.history(ALICE_KEY, window_start, 30).await.unwrap();

    let texts: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        ["just inside", "yesterday evening", "after midnight"]
    );
}

#[tokio::test]
async fn history_returns_only_the_latest_messages_up_to_the_limit_oldest_first() {
    let db = TestDb::new().await;
    let start = MIDNIGHT_MS;
    let session = db.session(ALICE_KEY, start).await;
    for index in 0..45 {
        let role = if index % 2 == 0 {
            Role::User
        } else {
            Role::Assistant
        };
        db.message(
            ALICE_KEY,
            session,
            role,
            &format!("message {index}"),
            start + index * SECOND_MS,
        )
        .await;
    }

    let history = db
        .store
        .history(ALICE_KEY, start - DAY_MS, 30)
        .await
        .unwrap();

    assert_eq!(history.len(), 30);
    let expected: Vec<String> = (15..45).map(|index| format!("message {index}")).collect();
    let texts: Vec<String> = history.iter().map(|m| m.content.clone()).collect();
    assert_eq!(texts, expected);
    assert!(
        history
            .windows(2)
            .all(|pair| pair[0].created_at_ms < pair[1].created_at_ms)
    );
    // A negative limit is no limit, as SQLite reads `LIMIT -1`.
    let unlimited = db.store.history(ALICE_KEY, start - DAY_MS, -1).await;
    assert_eq!(unlimited.unwrap().len(), 45);
}

#[tokio::test]
async fn messages_with_the_same_timestamp_keep_their_insertion_order() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.message(ALICE_KEY, session, Role::User, "question", MIDNIGHT_MS)
        .await;
    db.message(ALICE_KEY, session, Role::Assistant, "answer", MIDNIGHT_MS)
        .await;

    let history = db.store.history(ALICE_KEY, MIDNIGHT_MS, 30).await.unwrap();

    let texts: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["question", "answer"]);
}

#[tokio::test]
async fn one_user_never_gets_another_users_history_even_in_the_same_group() {
    let db = TestDb::new().await;
    let group = -100_123;
    let alice_in_group = ConversationKey::new(ChatId(group), UserId(11));
    let bob_in_group = ConversationKey::new(ChatId(group), UserId(22));
    let now = MIDNIGHT_MS;
    for key in [ALICE_KEY, BOB_KEY, alice_in_group, bob_in_group] {
        let session = db.session(key, now).await;
        let secret = format!("secret of user {} in chat {}", key.user_id, key.chat_id);
        db.message(key, session, Role::User, &secret, now).await;
    }

    for key in [ALICE_KEY, BOB_KEY, alice_in_group, bob_in_group] {
        let history = db.store.history(key, now - DAY_MS, 30).await.unwrap();
        assert_eq!(history.len(), 1, "conversation {key:?}");
        assert!(
            history
                .iter()
                .all(|m| m.chat_id == key.chat_id && m.user_id == key.user_id)
        );
        let export = db.store.all_messages(key).await.unwrap();
        assert_eq!(export, history);
    }
}

#[tokio::test]
async fn persona_round_trips_and_can_be_cleared() {
    let db = TestDb::new().await;
    assert_eq!(db.store.user_settings(UserId(11)).await.unwrap(), None);

    db.store
        .set_setting(
            UserId(11),
            telemem::storage::Setting::Persona,
            Some("Answer like a pirate 🏴‍☠️"),
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    let settings = db.store.user_settings(UserId(11)).await.unwrap().unwrap();
    assert_eq!(settings.persona.as_deref(), Some("Answer like a pirate 🏴‍☠️"));
    assert_eq!(settings.created_at_ms, MIDNIGHT_MS);

    db.store
        .set_setting(
            UserId(11),
            telemem::storage::Setting::Model,
            Some("llama3.2"),
            MIDNIGHT_MS + HOUR_MS,
        )
        .await
        .unwrap();
    db.store
        .set_setting(
            UserId(11),
            telemem::storage::Setting::Persona,
            None,
            MIDNIGHT_MS + 2 * HOUR_MS,
        )
        .await
        .unwrap();
    let settings = db.store.user_settings(UserId(11)).await.unwrap().unwrap();
    assert_eq!(settings.persona, None);
    assert_eq!(settings.model.as_deref(), Some("llama3.2"));
    assert_eq!(settings.last_active_at_ms, MIDNIGHT_MS + 2 * HOUR_MS);
    assert_eq!(db.store.user_settings(UserId(22)).await.unwrap(), None);

    assert!(db.store.clear_user_settings(UserId(11)).await.unwrap());
    assert_eq!(db.store.user_settings(UserId(11)).await.unwrap(), None);
}

#[tokio::test]
async fn the_language_is_recorded_beside_the_persona_and_replaced_when_it_changes() {
    let db = TestDb::new().await;
    db.store
        .set_setting(
            UserId(11),
            telemem::storage::Setting::LanguageCode,
            Some("de-AT"),
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    let settings = db.store.user_settings(UserId(11)).await.unwrap().unwrap();
    assert_eq!(settings.language_code.as_deref(), Some("de-AT"));
    assert_eq!(settings.created_at_ms, MIDNIGHT_MS);

    db.store
        .set_setting(
            UserId(11),
            telemem::storage::Setting::Persona,
            Some("terse"),
            MIDNIGHT_MS + HOUR_MS,
        )
        .await
        .unwrap();
    db.store
        .set_setting(
            UserId(11),
            telemem::storage::Setting::LanguageCode,
            Some("ru"),
            MIDNIGHT_MS + 2 * HOUR_MS,
        )
        .await
        .unwrap();
    let settings = db.store.user_settings(UserId(11)).await.unwrap().unwrap();
    assert_eq!(settings.language_code.as_deref(), Some("ru"));
    assert_eq!(settings.persona.as_deref(), Some("terse"));
    assert_eq!(settings.last_active_at_ms, MIDNIGHT_MS + 2 * HOUR_MS);
    assert_eq!(db.store.user_settings(UserId(22)).await.unwrap(), None);
}

/// Counts the messages whose full-text index entries hold `word`, in any conversation, and the
/// index's vocabulary rows for it, once every message stored so far is indexed. Indexed words
/// carry their conversation's owner token in front, up to its `x` (`storage::search_index`).
async fn fts_traces(db: &TestDb, word: &str) -> (i64, i64) {
    db.store.index_pending_messages().await.unwrap();
    // One connection: the vocabulary table below is a temporary table, private to it.
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect(&db.url)
        .await
        .unwrap();
    sqlx::query("CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_vocabulary USING fts5vocab(main, messages_fts, row)")
        .execute(&mut connection)
        .await
        .unwrap();
    sqlx::query_as(
        "SELECT coalesce(sum(doc), 0), count(*) FROM temp.fts_vocabulary
         WHERE substr(term, instr(term, 'x') + 1) = ?1",
    )
    .bind(word)
    .fetch_one(&mut connection)
    .await
    .unwrap()
}

#[tokio::test]
async fn clear_removes_every_trace_of_the_conversation_including_the_search_index() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.message(
        ALICE_KEY,
        session,
        Role::User,
        "where is the chemitek parcel",
        MIDNIGHT_MS,
    )
    .await;
    db.message(
        ALICE_KEY,
        session,
        Role::Assistant,
        "ups tracking says transit",
        MIDNIGHT_MS,
    )
    .await;
    db.store
        .add_summary(session, ALICE_KEY, "parcel from chemitek", MIDNIGHT_MS)
        .await
        .unwrap();
    db.store
        .set_setting(
            ALICE_KEY.user_id,
            telemem::storage::Setting::Persona,
            Some("be brief"),
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    db.message(
        BOB_KEY,
        bob_session,
        Role::User,
        "my own parcel",
        MIDNIGHT_MS,
    )
    .await;
    assert_eq!(fts_traces(&db, "chemitek").await, (1, 1));

    let counts = db.store.clear_conversation(ALICE_KEY).await.unwrap();

    assert_eq!(
        (counts.messages, counts.sessions, counts.summaries),
        (2, 1, 1)
    );
    assert!(db.store.all_messages(ALICE_KEY).await.unwrap().is_empty());
    assert_eq!(db.store.open_session(ALICE_KEY).await.unwrap(), None);
    assert!(
        db.store
            .recent_summaries(ALICE_KEY, 0, 10)
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(fts_traces(&db, "chemitek").await, (0, 0));
    assert_eq!(fts_traces(&db, "transit").await, (0, 0));
    // Bob's conversation and Alice's persona are untouched.
    assert_eq!(fts_traces(&db, "parcel").await, (1, 1));
    assert_eq!(db.store.all_messages(BOB_KEY).await.unwrap().len(), 1);
    let persona = db
        .store
        .user_settings(ALICE_KEY.user_id)
        .await
        .unwrap()
        .unwrap()
        .persona;
    assert_eq!(persona.as_deref(), Some("be brief"));
}

#[tokio::test]
async fn purge_in_small_batches_removes_exactly_the_old_rows() {
    let db = TestDb::new().await;
    let now = MIDNIGHT_MS + 40 * DAY_MS;
    let cutoff = now - 30 * DAY_MS;
    let mut kept = HashSet::new();
    for day in 0..40 {
        let key = ConversationKey::new(ChatId(day % 3), UserId(day % 3));
        let at = MIDNIGHT_MS + day * DAY_MS;
        let session = db.session(key, at).await;
        for minute in 0..5 {
            let id = db
                .message(
                    key,
                    session,
                    Role::User,
                    &format!("note day{day} minute {minute}"),
                    at + minute * 60_000,
                )
                .await;
            if at + minute * 60_000 >= cutoff {
                kept.insert(id);
            }
        }
        db.store
            .add_summary(session, key, &format!("summary of day {day}"), at + HOUR_MS)
            .await
            .unwrap();
        db.store.mark_update_processed(day, at).await.unwrap();
    }
    let expected = db.store.count_purgeable(cutoff).await.unwrap();
    assert_eq!(expected.messages, 10 * 5);
    assert_eq!(expected.sessions, 10);
    assert_eq!(expected.summaries, 10);
    assert_eq!(expected.processed_updates, 10);

    let counts = db.store.purge_older_than(cutoff, 7).await.unwrap();

    assert_eq!(counts, expected);
    let mut remaining = HashSet::new();
    for chat in 0..3 {
        for message in db
            .store
            .all_messages(ConversationKey::new(ChatId(chat), UserId(chat)))
            .await
            .unwrap()
        {
            assert!(message.created_at_ms >= cutoff);
            remaining.insert(message.id);
        }
    }
    assert_eq!(remaining, kept);
    assert_eq!(db.store.count_purgeable(cutoff).await.unwrap().total(), 0);
    let totals = db.store.database_totals().await.unwrap();
    assert_eq!((totals.sessions, totals.summaries), (30, 30));
    // The purged messages are gone from the search index too.
    assert_eq!(fts_traces(&db, "day0").await, (0, 0), "day 0 was purged");
    assert_eq!(fts_traces(&db, "day39").await, (5, 1), "day 39 is kept");
    // Automatic index merging, off during the purge, is on again.
    let mut connection = <sqlx::SqliteConnection as sqlx::Connection>::connect(&db.url)
        .await
        .unwrap();
    let automerge: i64 =
        sqlx::query_scalar("SELECT v FROM messages_fts_config WHERE k = 'automerge'")
            .fetch_one(&mut connection)
            .await
            .unwrap();
    assert_eq!(automerge, 4);
}

#[tokio::test]
async fn eight_concurrent_writers_complete_a_thousand_turns_each_without_lock_errors() {
    let db = TestDb::new().await;
    let mut writers = Vec::new();
    for writer in 0..8_i64 {
        let store = db.store.clone();
        writers.push(tokio::spawn(async move {
            let key = ConversationKey::new(ChatId(writer), UserId(writer));
            let (session, _) = store.start_session(key, MIDNIGHT_MS).await?;
            for turn in 0..1_000_i64 {
                let at = MIDNIGHT_MS + turn;
                chat_turn(&store, key, session.id, at, turn).await?;
            }
            Ok::<_, sqlx::Error>(())
        }));
    }
    for writer in writers {
        writer
            .await
            .expect("writer task")
            .expect("no database error");
    }

    let totals = db.store.database_totals().await.unwrap();
    assert_eq!(totals.messages, 8 * 2 * 1_000);
}

/// SQLite starts the write-ahead log over (instead of appending to it) only when a write begins
/// after a checkpoint has copied all of it. Checkpoints running beside a writer that never pauses
/// never catch up, and the log then grows as long as the load lasts: the store's checkpoints
/// must finish one while holding the writer. The log's header counts its restarts.
#[tokio::test]
async fn the_write_ahead_log_starts_over_while_writes_never_pause() {
    let db = TestDb::new().await;
    assert_the_log_starts_over_under_nonstop_writes(&db).await;
}

/// During a purge the checkpoints leave the writer alone (holding it stalled chat turns); once
/// the purge is over, the log must start over again.
#[tokio::test]
async fn after_a_purge_the_write_ahead_log_starts_over_again() {
    let db = TestDb::new().await;
    let key = ALICE_KEY;
    let session = db.session(key, MIDNIGHT_MS - 40 * DAY_MS).await;
    for turn in 0..50 {
        let at = MIDNIGHT_MS - 40 * DAY_MS + turn;
        db.message(key, session, Role::User, "old news", at).await;
    }
    let counts = db
        .store
        .purge_older_than(MIDNIGHT_MS - 30 * DAY_MS, 10)
        .await
        .unwrap();
    assert_eq!(counts.messages, 50);
    assert_the_log_starts_over_under_nonstop_writes(&db).await;
}

/// Writes without a pause from four tasks and fails unless the log's restart counter (in its
/// header) moves within fifty checkpoint intervals.
async fn assert_the_log_starts_over_under_nonstop_writes(db: &TestDb) {
    let log = format!("{}-wal", db.url.trim_start_matches("sqlite://"));
    let restarts_so_far = || {
        let header = std::fs::read(&log).expect("the write-ahead log exists");
        u32::from_be_bytes(header[12..16].try_into().expect("a 32-byte header"))
    };
    let writing = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut writers = Vec::new();
    for writer in 0..4_i64 {
        let (store, writing) = (db.store.clone(), writing.clone());
        writers.push(tokio::spawn(async move {
            let key = ConversationKey::new(ChatId(writer), UserId(writer));
            let (session, _) = store.start_session(key, MIDNIGHT_MS).await?;
            let mut turn = 0;
            while writing.load(std::sync::atomic::Ordering::Relaxed) {
                chat_turn(&store, key, session.id, MIDNIGHT_MS + turn, turn).await?;
                turn += 1;
            }
            Ok::<_, sqlx::Error>(turn)
        }));
    }
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let at_start = restarts_so_far();
    // Fifty checkpoint intervals of 100 ms at most; the first restart usually comes in one.
    let restarted = eventually(
        || async { restarts_so_far() != at_start },
        std::time::Duration::from_secs(5),
    )
    .await;
    writing.store(false, std::sync::atomic::Ordering::Relaxed);
    let mut turns = 0;
    for writer in writers {
        turns += writer
            .await
            .expect("writer task")
            .expect("no database error");
    }
    assert!(turns > 0);
    assert!(
        restarted,
        "the log never started over during {turns} turns written without a pause"
    );
}

async fn chat_turn(
    store: &Store,
    key: ConversationKey,
    session_id: i64,
    at: i64,
    turn: i64,
) -> Result<(), sqlx::Error> {
    let question = format!("question {turn}");
    store
        .add_message(&NewMessage {
            created_at_ms: at,
            telegram_message_id: Some(turn),
            ..message_in(key, session_id, &question)
        })
        .await?;
    store.history(key, at - DAY_MS, 30).await?;
    let answer = format!("answer {turn}");
    store
        .add_message(&NewMessage {
            role: Role::Assistant,
            created_at_ms: at,
            tokens_in: 12,
            tokens_out: 34,
            ..message_in(key, session_id, &answer)
        })
        .await?;
    Ok(())
}

#[tokio::test]
async fn unusual_unicode_and_64_kib_messages_round_trip_unchanged() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let big: String = "Grüße, 世界! 🚀 ".chars().cycle().take(64 * 1024).collect();
    let samples = [
        "emoji 👩‍👩‍👧‍👦🏳️‍🌈 and flags 🇩🇪".to_owned(),
        "right-to-left: שלום עולם مرحبا بالعالم".to_owned(),
        "combining: e\u{301} a\u{30a} and zero-width\u{200b}joiner\u{200d}".to_owned(),
        "control-ish \u{1}\u{7f}\u{feff} tabs\tand\r\nnewlines".to_owned(),
        "<b>not html</b> & \"quotes\" 'single' `code` *stars* _under_".to_owned(),
        big,
    ];
    for (index, text) in samples.iter().enumerate() {
        db.message(
            ALICE_KEY,
            session,
            Role::User,
            text,
            MIDNIGHT_MS + index as i64,
        )
        .await;
    }

    let history = db.store.history(ALICE_KEY, 0, 30).await.unwrap();

    let stored: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    let expected: Vec<&str> = samples.iter().map(String::as_str).collect();
    assert_eq!(stored, expected);
    assert!(history.last().unwrap().content.chars().count() >= 64 * 1024);

    // The same through the bot's write path (combined writes, whose rows travel as JSON), plus a
    // NUL character, which Telegram's JSON can carry.
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    let mut samples = samples.to_vec();
    samples.push("nul \u{0} inside".to_owned());
    for (index, text) in samples.iter().enumerate() {
        let message = NewMessage {
            created_at_ms: MIDNIGHT_MS + 2 * index as i64,
            telegram_message_id: Some(index as i64),
            ..message_in(BOB_KEY, bob_session, text)
        };
        db.store.add_user_message_once(&message).await.unwrap();
        let reply = NewMessage {
            role: Role::Assistant,
            created_at_ms: MIDNIGHT_MS + 2 * index as i64 + 1,
            telegram_message_id: None,
            ..message
        };
        db.store.add_reply(&reply, None).await.unwrap();
    }
    let history = db.store.history(BOB_KEY, 0, 30).await.unwrap();
    let stored: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    // PostgreSQL's TEXT cannot hold NUL: there it is stored as the replacement character.
    if db.store.kind() == BackendKind::Postgres {
        samples.pop();
        samples.push("nul \u{fffd} inside".to_owned());
    }
    let expected: Vec<&str> = samples
        .iter()
        .flat_map(|text| [text.as_str(), text.as_str()])
        .collect();
    assert_eq!(stored, expected);
}

#[tokio::test]
async fn migrations_rerun_on_an_existing_database_change_nothing() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.message(ALICE_KEY, session, Role::User, "kept", MIDNIGHT_MS)
        .await;
    db.store.close().await;

    let reopened = Store::connect(&db.url).await.unwrap();
    reopened.migrate().await.unwrap();
    reopened.migrate().await.unwrap();

    let history = reopened.history(ALICE_KEY, 0, 30).await.unwrap();
    assert_eq!(history.len(), 1);
    let pool = sqlx::SqlitePool::connect(&db.url).await.unwrap();
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(applied as usize, telemem::storage::MIGRATOR.iter().count());
}

#[tokio::test]
async fn an_update_is_new_only_the_first_time() {
    let db = TestDb::new().await;
    assert!(
        db.store
            .mark_update_processed(42, MIDNIGHT_MS)
            .await
            .unwrap()
    );
    assert!(
        !db.store
            .mark_update_processed(42, MIDNIGHT_MS + 1)
            .await
            .unwrap()
    );
    assert!(
        db.store
            .mark_update_processed(43, MIDNIGHT_MS + 1)
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn a_turns_start_reads_its_persona_session_notes_summaries_and_history_in_one_go() {
    let db = TestDb::new().await;
    // No settings row and no session before the first message.
    // History: the last 2 messages within the day before `now`.
    let limits = TurnStartLimits {
        summaries_since_ms: 0,
        summary_count: 3,
        history_since_ms: MIDNIGHT_MS,
        history_max_messages: 2,
    };
    let start = db.store.turn_start(ALICE_KEY, limits).await.unwrap();
    assert_eq!((start.persona, start.open_session), (None, None));
    assert!(start.notes.is_empty() && start.summaries.is_empty());
    assert!(!start.has_messages_before_window);
    assert_eq!(
        db.store.user_settings(ALICE_KEY.user_id).await.unwrap(),
        None
    );

    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.message(
        ALICE_KEY,
        session,
        Role::User,
        "hi",
        MIDNIGHT_MS + SECOND_MS,
    )
    .await;
    // The user's message recorded the user's activity.
    let settings = db
        .store
        .user_settings(ALICE_KEY.user_id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(settings.last_active_at_ms, MIDNIGHT_MS + SECOND_MS);
    db.store
        .set_setting(
            ALICE_KEY.user_id,
            telemem::storage::Setting::Persona,
            Some("terse"),
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    let start = db.store.turn_start(ALICE_KEY, limits).await.unwrap();
    assert_eq!(start.persona.as_deref(), Some("terse"));
    let open = start.open_session.unwrap();
    assert_eq!(open.id, session);
    assert_eq!(open.last_activity_at_ms, MIDNIGHT_MS + SECOND_MS);
    assert!(!start.has_messages_before_window);
    assert_eq!(
        start.history,
        db.store.history(ALICE_KEY, MIDNIGHT_MS, 2).await.unwrap()
    );
    assert_eq!(start.history.len(), 1);
    // Bob's row, session and notes are his own.
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    db.store
        .replace_notes(
            BOB_KEY,
            &[NoteUpdate::new("Bob's note")],
            bob_session,
            MIDNIGHT_MS,
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    db.store
        .add_summary(bob_session, BOB_KEY, "Bob's summary", MIDNIGHT_MS)
        .await
        .unwrap();
    let bob = db.store.turn_start(BOB_KEY, limits).await.unwrap();
    assert_eq!(bob.open_session.map(|open| open.id), Some(bob_session));
    assert_eq!(bob.notes[0].note, "Bob's note");
    assert_eq!(bob.summaries[0].summary, "Bob's summary");
    assert_eq!(bob.notes, db.store.notes(BOB_KEY).await.unwrap());
    assert_eq!(
        bob.summaries,
        db.store.recent_summaries(BOB_KEY, 0, 3).await.unwrap()
    );
    let alice = db.store.turn_start(ALICE_KEY, limits).await.unwrap();
    assert!(alice.notes.is_empty() && alice.summaries.is_empty());
    // A message before the window is not history; the last two of the window are.
    db.message(
        ALICE_KEY,
        session,
        Role::User,
        "old",
        MIDNIGHT_MS - SECOND_MS,
    )
    .await;
    for text in ["two", "three"] {
        db.message(ALICE_KEY, session, Role::User, text, MIDNIGHT_MS + HOUR_MS)
            .await;
    }
    let start = db.store.turn_start(ALICE_KEY, limits).await.unwrap();
    assert!(start.has_messages_before_window);
    // The last two of the window, oldest first.
    let texts: Vec<&str> = start
        .history
        .iter()
        .map(|message| message.content.as_str())
        .collect();
    assert_eq!(texts, ["two", "three"]);
}

#[tokio::test]
async fn storing_a_reply_marks_its_update_replying_and_recording_its_delivery_marks_it_done() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    // Storing the reply marks its update `replying`; recording its Telegram id marks it `done`.
    let update_id = 7_001;
    let other_update = 7_002;
    let recorded = db
        .store
        .record_updates(
            &[
                (update_id, "{}".to_owned()),
                (other_update, "{}".to_owned()),
            ],
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    assert_eq!(recorded, vec![true, true]);
    // Seen before, or twice in one batch: new only the first time.
    let again = db
        .store
        .record_updates(
            &[
                (update_id, "{}".to_owned()),
                (7_003, "{}".to_owned()),
                (7_003, "{}".to_owned()),
            ],
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    assert_eq!(again, vec![false, true, false]);
    let reply = NewMessage {
        role: Role::Assistant,
        created_at_ms: MIDNIGHT_MS + 2 * SECOND_MS,
        tokens_in: 10,
        tokens_out: 2,
        ..message_in(ALICE_KEY, session, "hello")
    };
    let reply_id = db.store.add_reply(&reply, Some(update_id)).await.unwrap();
    let states = |db: &TestDb| {
        let store = db.store.clone();
        async move {
            store
                .unfinished_updates(MIDNIGHT_MS, MIDNIGHT_MS + DAY_MS)
                .await
                .unwrap()
                .into_iter()
                .map(|update| (update.update_id, update.state, update.payload.is_some()))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        states(&db).await,
        vec![
            (update_id, UpdateState::Replying, true),
            (other_update, UpdateState::Received, true),
            (7_003, UpdateState::Received, true)
        ]
    );
    db.store
        .set_telegram_message_id(reply_id, 555)
        .await
        .unwrap();
    // Done (and its payload dropped): no longer unfinished. The others are untouched.
    assert_eq!(
        states(&db).await,
        vec![
            (other_update, UpdateState::Received, true),
            (7_003, UpdateState::Received, true)
        ]
    );
    let stored = db.store.all_messages(ALICE_KEY).await.unwrap();
    let reply = stored
        .iter()
        .find(|message| message.id == reply_id)
        .unwrap();
    assert_eq!(reply.telegram_message_id, Some(555));
}

#[tokio::test]
async fn an_answers_messages_are_recorded_with_its_update_and_its_reply_is_found_until_delivered() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let (update_id, other_update) = (9_001, 9_002);
    db.store
        .record_updates(
            &[
                owned_by(ALICE_KEY, update_id),
                owned_by(ALICE_KEY, other_update),
            ],
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    let answer_messages = |db: &TestDb| {
        let store = db.store.clone();
        async move {
            store
                .unfinished_updates(MIDNIGHT_MS, MIDNIGHT_MS + DAY_MS)
                .await
                .unwrap()
                .into_iter()
                .map(|update| (update.update_id, update.answer_message_ids))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        answer_messages(&db).await,
        [(update_id, vec![]), (other_update, vec![])]
    );

    // A preview, then a second part: each record replaces the one before.
    db.store
        .record_answer_messages(update_id, &[41])
        .await
        .unwrap();
    db.store
        .record_answer_messages(update_id, &[41, 42])
        .await
        .unwrap();
    assert_eq!(
        answer_messages(&db).await,
        [(update_id, vec![41, 42]), (other_update, vec![])]
    );

    // The stored reply is found with its update until its delivery is recorded; only for its own
    // conversation.
    let undelivered_reply = |db: &TestDb, update_id: i64| {
        let store = db.store.clone();
        async move {
            store
                .unfinished_updates(MIDNIGHT_MS, MIDNIGHT_MS + DAY_MS)
                .await
                .unwrap()
                .into_iter()
                .find(|update| update.update_id == update_id)
                .and_then(|update| update.undelivered_reply)
                .map(|reply| (reply.id, reply.content))
        }
    };
    assert_eq!(undelivered_reply(&db, update_id).await, None);
    let reply = NewMessage {
        role: Role::Assistant,
        created_at_ms: MIDNIGHT_MS + SECOND_MS,
        tokens_in: 1,
        tokens_out: 3,
        ..message_in(ALICE_KEY, session, "the stored reply")
    };
    let reply_id = db.store.add_reply(&reply, Some(update_id)).await.unwrap();
    assert_eq!(
        undelivered_reply(&db, update_id).await,
        Some((reply_id, "the stored reply".to_owned()))
    );
    assert_eq!(undelivered_reply(&db, other_update).await, None);
    db.store
        .set_telegram_message_id(reply_id, 41)
        .await
        .unwrap();
    assert_eq!(undelivered_reply(&db, update_id).await, None);
    assert_eq!(answer_messages(&db).await, [(other_update, vec![])]);

    // A reply in Alice's conversation is not the undelivered reply of an update of Bob's.
    let bobs_update = 9_003;
    db.store
        .record_updates(&[owned_by(BOB_KEY, bobs_update)], MIDNIGHT_MS)
        .await
        .unwrap();
    db.store.add_reply(&reply, Some(bobs_update)).await.unwrap();
    assert_eq!(undelivered_reply(&db, bobs_update).await, None);
}

/// One of the message writes handed over at once in the test below.
struct Write {
    key: ConversationKey,
    session_id: i64,
    role: Role,
    content: String,
    telegram_message_id: Option<i64>,
    update_id: Option<i64>,
}

#[tokio::test]
async fn message_writes_made_at_once_are_combined_and_each_gets_its_own_outcome() {
    let db = TestDb::new().await;
    let alice_session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    let updates: Vec<(i64, String)> = (0..20).map(|id| (8_000 + id, "{}".to_owned())).collect();
    db.store
        .record_updates(&updates, MIDNIGHT_MS)
        .await
        .unwrap();
    // 60 writes: users' messages of two conversations, replies answering updates, and a repeat
    // of a Telegram message (40 repeats 10).
    let expected: Vec<Write> = (0..60_i64)
        .map(|index| {
            let (key, session_id) = if index % 2 == 0 {
                (ALICE_KEY, alice_session)
            } else {
                (BOB_KEY, bob_session)
            };
            let is_reply = index % 3 == 0;
            Write {
                key,
                session_id,
                role: if is_reply {
                    Role::Assistant
                } else {
                    Role::User
                },
                content: format!("message {index} ✉️ «{}»", "x".repeat(index as usize)),
                telegram_message_id: (!is_reply).then_some(if index == 40 { 10 } else { index }),
                update_id: is_reply.then_some(8_000 + index / 3),
            }
        })
        .collect();
    let writes = expected.iter().enumerate().map(|(index, write)| {
        let message = NewMessage {
            role: write.role,
            created_at_ms: MIDNIGHT_MS + index as i64,
            telegram_message_id: write.telegram_message_id,
            ..message_in(write.key, write.session_id, &write.content)
        };
        let store = &db.store;
        async move {
            match write.update_id {
                Some(update) => store
                    .add_reply(&message, Some(update))
                    .await
                    .map(|id| (id, true)),
                None => store.add_user_message_once(&message).await,
            }
        }
    });
    // All handed over before the store's task runs: one round.
    let outcomes = futures_util::future::join_all(writes).await;

    let (first_id, first_new) = outcomes[10].as_ref().unwrap();
    assert!(*first_new);
    // The repeat got the stored message's id and stored nothing.
    assert_eq!(outcomes[40].as_ref().unwrap(), &(*first_id, false));
    let mut stored = db.store.all_messages(ALICE_KEY).await.unwrap();
    stored.extend(db.store.all_messages(BOB_KEY).await.unwrap());
    assert_eq!(stored.len(), 59);
    for (index, outcome) in outcomes.iter().enumerate() {
        if index == 40 {
            continue;
        }
        let (id, is_new) = outcome.as_ref().unwrap();
        assert!(is_new);
        let message = stored.iter().find(|message| message.id == *id).unwrap();
        let expected = &expected[index];
        assert_eq!(
            (message.chat_id, message.user_id),
            (expected.key.chat_id, expected.key.user_id)
        );
        assert_eq!(
            (&message.content, message.role),
            (&expected.content, expected.role)
        );
    }
    // Each reply marked its own update `replying`.
    let unfinished = db
        .store
        .unfinished_updates(MIDNIGHT_MS, MIDNIGHT_MS + DAY_MS)
        .await
        .unwrap();
    assert!(
        unfinished
            .iter()
            .all(|update| update.state == UpdateState::Replying)
    );
    assert_eq!(unfinished.len(), 20);

    // A write that fails (its session does not exist) fails alone; the one beside it is stored.
    let orphan = NewMessage {
        created_at_ms: MIDNIGHT_MS + HOUR_MS,
        telegram_message_id: Some(1_000),
        ..message_in(ALICE_KEY, 999_999, "orphan")
    };
    let beside = NewMessage {
        session_id: alice_session,
        content: "beside the orphan",
        telegram_message_id: Some(1_001),
        ..orphan.clone()
    };
    let (orphan, beside) = tokio::join!(
        db.store.add_user_message_once(&orphan),
        db.store.add_user_message_once(&beside)
    );
    assert!(orphan.is_err(), "{orphan:?}");
    let (beside_id, _) = beside.unwrap();
    let alice = db.store.all_messages(ALICE_KEY).await.unwrap();
    assert_eq!(
        alice
            .last()
            .map(|message| (message.id, message.content.as_str())),
        Some((beside_id, "beside the orphan"))
    );

    // Delivery records handed over at once: each reply gets its own Telegram id and each update
    // is done; a record for a message that does not exist changes nothing.
    let replies: Vec<i64> = (0..60)
        .filter(|index| index % 3 == 0)
        .map(|index| outcomes[index].as_ref().unwrap().0)
        .collect();
    let records = replies
        .iter()
        .enumerate()
        .map(|(offset, &reply_id)| {
            db.store
                .set_telegram_message_id(reply_id, 500 + offset as i64)
        })
        .chain(std::iter::once(
            db.store.set_telegram_message_id(123_456_789, 1),
        ));
    let recorded = futures_util::future::join_all(records).await;
    assert!(recorded.iter().all(Result::is_ok), "{recorded:?}");
    let mut stored = db.store.all_messages(ALICE_KEY).await.unwrap();
    stored.extend(db.store.all_messages(BOB_KEY).await.unwrap());
    for (offset, reply_id) in replies.iter().enumerate() {
        let reply = stored
            .iter()
            .find(|message| message.id == *reply_id)
            .unwrap();
        assert_eq!(reply.telegram_message_id, Some(500 + offset as i64));
    }
    assert!(
        db.store
            .unfinished_updates(MIDNIGHT_MS, MIDNIGHT_MS + DAY_MS)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn closing_the_store_first_finishes_the_writes_already_handed_over() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let write = |index: i64| {
        let store = db.store.clone();
        tokio::spawn(async move {
            let text = format!("last words {index}");
            store
                .add_user_message_once(&NewMessage {
                    created_at_ms: MIDNIGHT_MS + index,
                    telegram_message_id: Some(index),
                    ..message_in(ALICE_KEY, session, &text)
                })
                .await
        })
    };
    // A first wave of writes is being written while a second one waits in the queue; then the
    // store closes at once, as at shutdown.
    let mut writers: Vec<_> = (0..50).map(write).collect();
    tokio::task::yield_now().await;
    writers.extend((50..100).map(write));
    tokio::task::yield_now().await;
    db.store.close().await;
    for writer in writers {
        let (_, is_new) = writer.await.unwrap().unwrap();
        assert!(is_new);
    }
    assert!(db.store.all_messages(ALICE_KEY).await.is_err());
    let reopened = Store::connect(&db.url).await.unwrap();
    assert_eq!(reopened.all_messages(ALICE_KEY).await.unwrap().len(), 100);
}

#[tokio::test]
async fn starting_a_session_closes_the_open_one_at_its_last_activity() {
    let db = TestDb::new().await;
    let (first, closed) = db
        .store
        .start_session(ALICE_KEY, MIDNIGHT_MS)
        .await
        .unwrap();
    assert_eq!(closed, None);
    db.message(
        ALICE_KEY,
        first.id,
        Role::User,
        "hello",
        MIDNIGHT_MS + 5 * SECOND_MS,
    )
    .await;
    assert_eq!(
        db.store
            .open_session(ALICE_KEY)
            .await
            .unwrap()
            .unwrap()
            .last_activity_at_ms,
        MIDNIGHT_MS + 5 * SECOND_MS
    );

    let (second, closed) = db
        .store
        .start_session(ALICE_KEY, MIDNIGHT_MS + HOUR_MS)
        .await
        .unwrap();

    assert_eq!(closed, Some(first.id));
    assert_eq!(
        db.store.open_session(ALICE_KEY).await.unwrap().unwrap().id,
        second.id
    );
    assert_eq!(
        db.store
            .close_session(ALICE_KEY, MIDNIGHT_MS + 2 * HOUR_MS)
            .await
            .unwrap(),
        Some(second.id)
    );
    assert_eq!(db.store.open_session(ALICE_KEY).await.unwrap(), None);
    assert_eq!(
        db.store
            .close_session(ALICE_KEY, MIDNIGHT_MS + 2 * HOUR_MS)
            .await
            .unwrap(),
        None
    );
}

#[tokio::test]
async fn recent_summaries_are_the_latest_ones_oldest_first_with_their_session_times() {
    let db = TestDb::new().await;
    for day in 0..5 {
        let at = MIDNIGHT_MS + day * DAY_MS;
        let session = db.session(ALICE_KEY, at).await;
        db.store
            .add_summary(session, ALICE_KEY, &format!("day {day}"), at + HOUR_MS)
            .await
            .unwrap();
    }
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    db.store
        .add_summary(bob_session, BOB_KEY, "bob's", MIDNIGHT_MS + HOUR_MS)
        .await
        .unwrap();

    let summaries = db
        .store
        .recent_summaries(ALICE_KEY, MIDNIGHT_MS + DAY_MS, 3)
        .await
        .unwrap();

    let texts: Vec<&str> = summaries.iter().map(|s| s.summary.as_str()).collect();
    assert_eq!(texts, ["day 2", "day 3", "day 4"]);
    assert_eq!(summaries[0].session_started_at_ms, MIDNIGHT_MS + 2 * DAY_MS);
}

#[tokio::test]
async fn stats_count_messages_tokens_and_activity_per_conversation_and_per_user() {
    let db = TestDb::new().await;
    let now = MIDNIGHT_MS + 2 * DAY_MS + HOUR_MS;
    let group = ConversationKey::new(ChatId(-5), ALICE_KEY.user_id);
    for (key, at) in [
        (ALICE_KEY, MIDNIGHT_MS),
        (ALICE_KEY, now - HOUR_MS / 2),
        (group, now - 2 * HOUR_MS),
    ] {
        let session = db.session(key, at).await;
        db.store
            .add_message(&NewMessage {
                role: Role::Assistant,
                created_at_ms: at,
                tokens_in: 10,
                tokens_out: 5,
                ..message_in(key, session, "a")
            })
            .await
            .unwrap();
    }
    let today = MIDNIGHT_MS + 2 * DAY_MS;

    let private = db
        .store
        .conversation_stats(ALICE_KEY, now - DAY_MS, today)
        .await
        .unwrap();
    let overall = db
        .store
        .user_stats(ALICE_KEY.user_id, now - DAY_MS, today)
        .await
        .unwrap();
    let stranger = db
        .store
        .user_stats(UserId(999), now - DAY_MS, today)
        .await
        .unwrap();

    assert_eq!((private.messages_total, private.messages_in_window), (2, 1));
    assert_eq!(
        (private.tokens_in, private.tokens_out, private.tokens_today),
        (20, 10, 15)
    );
    assert_eq!(private.first_activity_ms, Some(MIDNIGHT_MS));
    assert_eq!(private.last_activity_ms, Some(now - HOUR_MS / 2));
    assert_eq!(
        (
            overall.messages_total,
            overall.messages_in_window,
            overall.tokens_today
        ),
        (3, 2, 15)
    );
    assert_eq!(stranger.messages_total, 0);
    assert_eq!(stranger.last_activity_ms, None);
}

#[tokio::test]
async fn a_note_by_hand_survives_the_summarizers_list_and_an_edit_keeps_its_place() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let summarized = [
        NoteUpdate::new("Works at Chemitek"),
        NoteUpdate::new("Likes tea"),
    ];
    db.store
        .replace_notes(ALICE_KEY, &summarized, session, MIDNIGHT_MS, MIDNIGHT_MS)
        .await
        .unwrap();
    let later = MIDNIGHT_MS + HOUR_MS;
    let store = &db.store;
    let added = store.add_note_by_hand(ALICE_KEY, "Has a daughter, Mia", later);
    assert_eq!(added.await.unwrap(), NoteAdded::New);
    let again = store.add_note_by_hand(ALICE_KEY, "Likes tea", later);
    assert_eq!(again.await.unwrap(), NoteAdded::AlreadyKept);

    // The summarizer's new complete list names neither the note by hand nor the one made theirs.
    let next = MIDNIGHT_MS + DAY_MS;
    store
        .replace_notes(
            ALICE_KEY,
            &[NoteUpdate::new("Works at Acme")],
            session,
            next,
            next,
        )
        .await
        .unwrap();
    let notes = store.notes(ALICE_KEY).await.unwrap();
    let listed: Vec<(&str, bool, i64)> = notes
        .iter()
        .map(|note| (note.note.as_str(), note.added_by_hand, note.confirmed_at_ms))
        .collect();
    assert_eq!(
        listed,
        [
            ("Likes tea", true, next),
            ("Has a daughter, Mia", true, next),
            ("Works at Acme", false, next),
        ]
    );

    // Changed by hand: same place; taking another note's text merges the two.
    let mia = notes[1].id;
    assert!(
        store
            .replace_note_by_hand(ALICE_KEY, mia, "Has a daughter, Mia (7)", next)
            .await
            .unwrap()
    );
    let tea = notes[0].id;
    assert!(
        store
            .replace_note_by_hand(ALICE_KEY, tea, "Works at Acme", next)
            .await
            .unwrap()
    );
    assert!(
        !store
            .replace_note_by_hand(BOB_KEY, mia, "not Bob's to change", next)
            .await
            .unwrap()
    );
    let texts: Vec<(String, bool)> = store
        .notes(ALICE_KEY)
        .await
        .unwrap()
        .into_iter()
        .map(|note| (note.note, note.added_by_hand))
        .collect();
    assert_eq!(
        texts,
        [
            ("Works at Acme".to_owned(), true),
            ("Has a daughter, Mia (7)".to_owned(), true)
        ]
    );
}

#[tokio::test]
async fn the_incognito_switch_is_per_conversation_and_counts_its_tokens_per_utc_day() {
    let db = TestDb::new().await;
    let store = &db.store;
    assert!(
        store
            .set_incognito(ALICE_KEY, true, MIDNIGHT_MS)
            .await
            .unwrap()
    );
    assert!(
        !store
            .set_incognito(ALICE_KEY, true, MIDNIGHT_MS)
            .await
            .unwrap()
    );
    let alice_elsewhere = ConversationKey::new(ChatId(-5), ALICE_KEY.user_id);
    assert!(store.is_incognito(ALICE_KEY).await.unwrap());
    assert!(!store.is_incognito(alice_elsewhere).await.unwrap());
    let limits = TurnStartLimits {
        summaries_since_ms: 0,
        summary_count: 3,
        history_since_ms: 0,
        history_max_messages: 10,
    };
    assert!(store.turn_start(ALICE_KEY, limits).await.unwrap().incognito);
    assert!(!store.turn_start(BOB_KEY, limits).await.unwrap().incognito);

    let yesterday = MIDNIGHT_MS - DAY_MS;
    let user = ALICE_KEY.user_id;
    store
        .add_incognito_tokens(user, yesterday, 10, 5)
        .await
        .unwrap();
    store
        .add_incognito_tokens(user, MIDNIGHT_MS, 7, 3)
        .await
        .unwrap();
    store
        .add_incognito_tokens(user, MIDNIGHT_MS, 1, 1)
        .await
        .unwrap();
    assert_eq!(store.incognito_tokens(user, MIDNIGHT_MS).await.unwrap(), 12);
    assert_eq!(store.incognito_tokens(user, yesterday).await.unwrap(), 27);
    let stats = store.user_stats(user, 0, MIDNIGHT_MS).await.unwrap();
    assert_eq!(
        (stats.tokens_in, stats.tokens_out, stats.tokens_today),
        (18, 9, 12)
    );

    assert!(
        store
            .set_incognito(ALICE_KEY, false, MIDNIGHT_MS)
            .await
            .unwrap()
    );
    assert!(!store.is_incognito(ALICE_KEY).await.unwrap());
}

#[tokio::test]
async fn incognito_token_counts_are_purged_in_time_and_the_switch_is_not() {
    let db = TestDb::new().await;
    let store = &db.store;
    let user = ALICE_KEY.user_id;
    store
        .set_incognito(ALICE_KEY, true, MIDNIGHT_MS - DAY_MS)
        .await
        .unwrap();
    store
        .add_incognito_tokens(user, MIDNIGHT_MS - DAY_MS, 10, 5)
        .await
        .unwrap();
    store
        .add_incognito_tokens(user, MIDNIGHT_MS, 7, 5)
        .await
        .unwrap();

    let counted = store.count_purgeable(MIDNIGHT_MS).await.unwrap();
    let purged = store.purge_older_than(MIDNIGHT_MS, 100).await.unwrap();

    assert_eq!((counted.incognito_usage, purged.incognito_usage), (1, 1));
    assert_eq!(store.incognito_tokens(user, 0).await.unwrap(), 12);
    assert!(
        store.is_incognito(ALICE_KEY).await.unwrap(),
        "the switch is not purged by age"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_turns_recording_their_deliveries_at_once_each_finish_their_own_update() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let update_ids: Vec<i64> = (8_000..8_064).collect();
    let records: Vec<(i64, String)> = update_ids.iter().map(|&id| (id, "{}".to_owned())).collect();
    db.store
        .record_updates(&records, MIDNIGHT_MS)
        .await
        .unwrap();
    let mut replies = Vec::new();
    for &update_id in &update_ids {
        let text = format!("reply to {update_id}");
        let reply = NewMessage {
            role: Role::Assistant,
            created_at_ms: MIDNIGHT_MS + update_id,
            ..message_in(ALICE_KEY, session, &text)
        };
        replies.push(db.store.add_reply(&reply, Some(update_id)).await.unwrap());
    }
    // Every turn records its delivery at the same moment (written together where the store
    // combines them), plus one record of a message that does not exist.
    let recorded = futures_util::future::join_all(replies.iter().enumerate().map(|(n, &id)| {
        let store = db.store.clone();
        tokio::spawn(async move { store.set_telegram_message_id(id, 50_000 + n as i64).await })
    }))
    .await;
    for outcome in recorded {
        outcome.expect("task").expect("recorded");
    }
    db.store
        .set_telegram_message_id(i64::MAX, 1)
        .await
        .expect("a record of no message changes nothing");
    let unfinished = db
        .store
        .unfinished_updates(MIDNIGHT_MS, MIDNIGHT_MS + DAY_MS)
        .await
        .unwrap();
    assert!(unfinished.is_empty(), "{unfinished:?}");
    let stored = db.store.all_messages(ALICE_KEY).await.unwrap();
    for (n, id) in replies.iter().enumerate() {
        let message = stored.iter().find(|message| message.id == *id).unwrap();
        assert_eq!(message.telegram_message_id, Some(50_000 + n as i64));
    }
}

/// A turn's opening of `content` at [`MIDNIGHT_MS`]: the whole history and three summaries read,
/// sessions idle after an hour. A test changes what it cares about.
fn opening_of(content: &str) -> TurnOpening<'_> {
    TurnOpening {
        limits: TurnStartLimits {
            summaries_since_ms: 0,
            summary_count: 3,
            history_since_ms: 0,
            history_max_messages: 30,
        },
        session_idle_ms: HOUR_MS,
        older_summaries: 60,
        content,
        created_at_ms: MIDNIGHT_MS,
        telegram_message_id: None,
    }
}

#[tokio::test]
async fn a_turn_opens_in_its_session_stores_its_message_once_and_reads_what_came_before() {
    let db = TestDb::new().await;
    let store = &db.store;
    let contents = |history: &[telemem::storage::StoredMessage]| -> Vec<String> {
        history
            .iter()
            .map(|message| message.content.clone())
            .collect()
    };
    let first = store
        .open_turn(
            ALICE_KEY,
            TurnOpening {
                telegram_message_id: Some(1),
                ..opening_of("hello")
            },
        )
        .await
        .unwrap();
    assert_eq!(first.start.open_session, None);
    assert!(first.start.history.is_empty());
    let first_stored = first.stored.expect("stored");
    assert!(first_stored.is_new);

    // Within the idle time: the same session; the history has the message before, not this one.
    let second_at = MIDNIGHT_MS + SECOND_MS;
    let second = store
        .open_turn(
            ALICE_KEY,
            TurnOpening {
                created_at_ms: second_at,
                telegram_message_id: Some(2),
                ..opening_of("again")
            },
        )
        .await
        .unwrap();
    let second_stored = second.stored.expect("stored");
    assert_eq!(second_stored.session_id, first_stored.session_id);
    assert_eq!(
        second.start.open_session.map(|open| open.id),
        Some(first_stored.session_id)
    );
    assert_eq!(contents(&second.start.history), ["hello"]);

    // The same Telegram message once more (answered again after a crash): stored once.
    let repeated = store
        .open_turn(
            ALICE_KEY,
            TurnOpening {
                created_at_ms: second_at + SECOND_MS,
                telegram_message_id: Some(2),
                ..opening_of("again")
            },
        )
        .await
        .unwrap()
        .stored
        .expect("stored");
    assert_eq!(
        (repeated.message_id, repeated.is_new),
        (second_stored.message_id, false)
    );

    // After the idle time: a new session; the idle one closed at its last activity.
    let later = second_at + HOUR_MS + 1;
    let third = store
        .open_turn(
            ALICE_KEY,
            TurnOpening {
                created_at_ms: later,
                telegram_message_id: Some(3),
                ..opening_of("later")
            },
        )
        .await
        .unwrap()
        .stored
        .expect("stored");
    assert_ne!(third.session_id, first_stored.session_id);
    let open = store.open_session(ALICE_KEY).await.unwrap().expect("open");
    assert_eq!(open.id, third.session_id);
    let closed = store.sessions_awaiting_summary(later, 10).await.unwrap();
    let closed: Vec<(i64, Option<i64>)> = closed
        .iter()
        .map(|session| (session.id, session.closed_at_ms))
        .collect();
    assert_eq!(closed, [(first_stored.session_id, Some(second_at))]);
    let stored = store.all_messages(ALICE_KEY).await.unwrap();
    assert_eq!(contents(&stored), ["hello", "again", "later"]);

    // The summaries recall ranks come with the start where the backend reads them there.
    store
        .add_summary(first_stored.session_id, ALICE_KEY, "greetings", later)
        .await
        .unwrap();
    let fourth = store
        .open_turn(
            ALICE_KEY,
            TurnOpening {
                created_at_ms: later + SECOND_MS,
                ..opening_of("more")
            },
        )
        .await
        .unwrap();
    assert_eq!(fourth.start.summaries.len(), 1);
    let latest = store.recent_summaries(ALICE_KEY, 0, 60).await.unwrap();
    match (store.kind(), &fourth.start.older_summaries) {
        (BackendKind::Postgres, Some(older)) => assert_eq!(older, &latest),
        (BackendKind::Sqlite, None) => {}
        (kind, older) => panic!("{kind:?} read {older:?}"),
    }

    // Bob's turn reads nothing of Alice's; Carol in incognito stores nothing.
    let bob = store
        .open_turn(BOB_KEY, opening_of("bob here"))
        .await
        .unwrap();
    assert!(bob.start.history.is_empty() && bob.start.summaries.is_empty());
    assert!(bob.start.older_summaries.unwrap_or_default().is_empty());
    assert!(bob.stored.expect("stored").is_new);
    store
        .set_incognito(CAROL_KEY, true, MIDNIGHT_MS)
        .await
        .unwrap();
    let carol = store
        .open_turn(CAROL_KEY, opening_of("off the record"))
        .await
        .unwrap();
    assert!(carol.start.incognito && carol.stored.is_none());
    assert!(store.all_messages(CAROL_KEY).await.unwrap().is_empty());
    assert_eq!(store.open_session(CAROL_KEY).await.unwrap(), None);
}

/// An update of `key`'s conversation, as the intake records it.
fn owned_by(key: ConversationKey, update_id: i64) -> UpdateRecord {
    UpdateRecord {
        update_id,
        owner: Some(key),
        payload: "{}".to_owned(),
    }
}

/// What the store said of updates that are all new: whether each waits for an older one on
/// another replica, and what other replicas hold of its person.
fn new_updates(recorded: Vec<RecordedUpdate>) -> impl Iterator<Item = (bool, LoadElsewhere)> {
    recorded.into_iter().map(|recorded| match recorded {
        RecordedUpdate::New {
            behind_unfinished_elsewhere,
            elsewhere,
        } => (behind_unfinished_elsewhere, elsewhere),
        RecordedUpdate::SeenBefore => panic!("every update here is new"),
    })
}

/// As an update is stored, the person's updates other replicas hold are counted for the
/// per-person limits: the unfinished ones, and those of the last minute.
#[tokio::test]
async fn an_update_stored_counts_what_other_replicas_hold_of_the_person() {
    let db = TestDb::new().await;
    let [first, second] = two_replicas(&db).await;
    let elsewhere = |recorded: Vec<RecordedUpdate>| -> Vec<LoadElsewhere> {
        new_updates(recorded)
            .map(|(_, elsewhere)| elsewhere)
            .collect()
    };
    let load = |unfinished: u32, last_minute: u32| LoadElsewhere {
        unfinished,
        last_minute,
    };
    let since = MIDNIGHT_MS - DAY_MS;
    let record = |store: &Store, updates: Vec<UpdateRecord>, at: i64| {
        let store = store.clone();
        async move {
            store
                .record_updates_in_order(&updates, at, since)
                .await
                .unwrap()
        }
    };
    let on_first = record(
        &first,
        vec![owned_by(ALICE_KEY, 1), owned_by(ALICE_KEY, 2)],
        MIDNIGHT_MS,
    )
    .await;
    let on_second = record(
        &second,
        vec![owned_by(ALICE_KEY, 3), owned_by(BOB_KEY, 4)],
        MIDNIGHT_MS + SECOND_MS,
    )
    .await;
    first.set_update_state(1, UpdateState::Done).await.unwrap();
    let a_minute_later = record(
        &second,
        vec![owned_by(ALICE_KEY, 5)],
        MIDNIGHT_MS + 61 * SECOND_MS,
    )
    .await;

    assert_eq!(
        elsewhere(on_first),
        [load(0, 0), load(0, 0)],
        "its own count here"
    );
    if db.store.kind() == BackendKind::Postgres {
        assert_eq!(elsewhere(on_second), [load(2, 2), load(0, 0)]);
        assert_eq!(elsewhere(a_minute_later), [load(1, 0)]);
    } else {
        // SQLite has one process, which takes in every update.
        assert_eq!(elsewhere(on_second), [load(0, 0), load(0, 0)]);
        assert_eq!(elsewhere(a_minute_later), [load(0, 0)]);
    }
}

#[tokio::test]
async fn an_update_stored_behind_an_unfinished_one_of_another_replica_is_told_so() {
    let db = TestDb::new().await;
    let [first, second] = two_replicas(&db).await;
    let behind = |recorded: Vec<RecordedUpdate>| -> Vec<bool> {
        new_updates(recorded).map(|(behind, _)| behind).collect()
    };
    let since = MIDNIGHT_MS - DAY_MS;
    let recorded = first
        .record_updates_in_order(&[owned_by(ALICE_KEY, 1)], MIDNIGHT_MS, since)
        .await
        .unwrap();
    assert_eq!(behind(recorded), [false]);
    // Alice's next update reaches the other replica while the first is unanswered; Bob's does not
    // wait for Alice's, and the first replica does not wait for its own.
    let recorded = second
        .record_updates_in_order(
            &[owned_by(ALICE_KEY, 2), owned_by(BOB_KEY, 3)],
            MIDNIGHT_MS,
            since,
        )
        .await
        .unwrap();
    let on_postgres = db.store.kind() == BackendKind::Postgres;
    // SQLite has one process, which answers every update in order.
    assert_eq!(behind(recorded), [on_postgres, false]);
    let recorded = first
        .record_updates_in_order(&[owned_by(ALICE_KEY, 4)], MIDNIGHT_MS, since)
        .await
        .unwrap();
    assert_eq!(behind(recorded), [on_postgres]);
    // Once the first update is done, nothing waits for it; nor for one older than `since`.
    first.set_update_state(1, UpdateState::Done).await.unwrap();
    first.set_update_state(2, UpdateState::Done).await.unwrap();
    first.set_update_state(4, UpdateState::Done).await.unwrap();
    let recorded = second
        .record_updates_in_order(&[owned_by(ALICE_KEY, 5)], MIDNIGHT_MS, since)
        .await
        .unwrap();
    assert_eq!(behind(recorded), [false]);
    let recorded = second
        .record_updates_in_order(&[owned_by(BOB_KEY, 6)], MIDNIGHT_MS, MIDNIGHT_MS + 1)
        .await
        .unwrap();
    assert_eq!(behind(recorded), [false]);
    assert_eq!(
        second
            .record_updates(&[owned_by(BOB_KEY, 6)], MIDNIGHT_MS)
            .await
            .unwrap(),
        [false]
    );
}

/// Two replicas of the bot: two stores on one database, each with its own connections.
async fn two_replicas(db: &TestDb) -> [Store; 2] {
    let other = Store::connect(&db.url).await.expect("open a second store");
    [db.store.clone(), other]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_starting_sessions_of_one_conversation_at_once_leave_one_open() {
    let db = TestDb::new().await;
    let replicas = two_replicas(&db).await;
    for round in 0..25 {
        let at = MIDNIGHT_MS + round * HOUR_MS;
        let started = futures_util::future::join_all(replicas.iter().map(|store| {
            let store = store.clone();
            tokio::spawn(async move { store.start_session(ALICE_KEY, at).await })
        }))
        .await;
        let mut ids = Vec::new();
        for outcome in started {
            let (session, _) = outcome.expect("task").expect("no database error");
            ids.push(session.id);
        }
        assert_ne!(ids[0], ids[1], "round {round}");
        let open = db.store.open_session(ALICE_KEY).await.unwrap().unwrap();
        assert!(ids.contains(&open.id), "round {round}");
        let open_sessions = "SELECT count(*) FROM sessions WHERE closed_at IS NULL";
        assert_eq!(count_rows(&db.url, open_sessions).await, 1, "round {round}");
    }
    let totals = db.store.database_totals().await.unwrap();
    assert_eq!((totals.sessions, totals.open_sessions), (50, 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_replicas_handling_the_same_messages_at_once_store_each_once_in_one_open_session() {
    let db = TestDb::new().await;
    let replicas = two_replicas(&db).await;
    // Each Telegram message reaches both replicas at once (as when one takes over an update the
    // other is still answering); each starts its turn as the bot does (`open_turn`). Every third
    // message comes after the idle time, so both race to close the session and open the next.
    for telegram_message_id in 0..30_i64 {
        let at = MIDNIGHT_MS + telegram_message_id * SECOND_MS;
        let session_idle_ms = if telegram_message_id % 3 == 0 {
            0
        } else {
            HOUR_MS
        };
        let turns = replicas.iter().map(|store| {
            let store = store.clone();
            tokio::spawn(async move {
                let text = format!("message {telegram_message_id}");
                let opening = TurnOpening {
                    session_idle_ms,
                    created_at_ms: at,
                    telegram_message_id: Some(telegram_message_id),
                    ..opening_of(&text)
                };
                let opened = store.open_turn(ALICE_KEY, opening).await?;
                let stored = opened.stored.expect("not in incognito");
                Ok::<_, sqlx::Error>((stored.message_id, stored.is_new))
            })
        });
        let outcomes: Vec<(i64, bool)> = futures_util::future::join_all(turns)
            .await
            .into_iter()
            .map(|outcome| outcome.expect("task").expect("no database error"))
            .collect();
        assert_eq!(outcomes[0].0, outcomes[1].0, "one message, one id");
        assert_eq!(
            outcomes.iter().filter(|(_, is_new)| *is_new).count(),
            1,
            "stored by one replica only: {outcomes:?}"
        );
    }
    let stored = db.store.all_messages(ALICE_KEY).await.unwrap();
    let texts: Vec<String> = stored.iter().map(|m| m.content.clone()).collect();
    let expected: Vec<String> = (0..30).map(|index| format!("message {index}")).collect();
    assert_eq!(texts, expected);
    let open_sessions = "SELECT count(*) FROM sessions WHERE closed_at IS NULL";
    assert_eq!(count_rows(&db.url, open_sessions).await, 1);
}

#[tokio::test]
async fn a_retry_replaces_the_last_replies_of_its_own_conversation_and_unsummarizes_the_session() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.message(ALICE_KEY, session, Role::User, "q1", MIDNIGHT_MS + 1)
        .await;
    db.message(ALICE_KEY, session, Role::Assistant, "a1", MIDNIGHT_MS + 2)
        .await;
    let question = NewMessage {
        created_at_ms: MIDNIGHT_MS + 3,
        telegram_message_id: Some(7),
        ..message_in(ALICE_KEY, session, "q2")
    };
    let (q2, _) = db.store.add_user_message_once(&question).await.unwrap();
    let reply = |content, at, tokens_out| NewMessage {
        role: Role::Assistant,
        created_at_ms: MIDNIGHT_MS + at,
        tokens_in: 3,
        tokens_out,
        ..message_in(ALICE_KEY, session, content)
    };
    let first_part = db.store.add_reply(&reply("a2", 4, 4), None).await.unwrap();
    let second_part = db
        .store
        .add_reply(&reply("more", 5, 1), None)
        .await
        .unwrap();
    db.store
        .set_telegram_message_id(first_part, 100)
        .await
        .unwrap();
    let bob_session = db.session(BOB_KEY, MIDNIGHT_MS).await;
    let bobs = db
        .message(
            BOB_KEY,
            bob_session,
            Role::Assistant,
            "Bob's",
            MIDNIGHT_MS + 6,
        )
        .await;
    db.store
        .add_summary(session, ALICE_KEY, "from the old answer", MIDNIGHT_MS + 7)
        .await
        .unwrap();

    let exchange = db.store.last_exchange(ALICE_KEY).await.unwrap().unwrap();
    assert_eq!(
        (exchange.message.id, exchange.message.content.as_str()),
        (q2, "q2")
    );
    let replies: Vec<(i64, &str, i64, Vec<i64>)> = exchange
        .replies
        .iter()
        .map(|r| {
            (
                r.id,
                r.content.as_str(),
                r.tokens_out,
                r.telegram_message_ids.clone(),
            )
        })
        .collect();
    assert_eq!(
        replies,
        [
            (first_part, "a2", 4, vec![100]),
            (second_part, "more", 1, vec![])
        ]
    );
    assert_eq!(db.store.last_exchange(CAROL_KEY).await.unwrap(), None);
    let through = db.store.history_through(ALICE_KEY, 0, 2, q2).await.unwrap();
    let texts: Vec<&str> = through.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(texts, ["a1", "q2"]);
    let text = db.store.user_message_text(ALICE_KEY, 7).await.unwrap();
    assert_eq!(text.as_deref(), Some("q2"));
    assert_eq!(db.store.user_message_text(BOB_KEY, 7).await.unwrap(), None);

    let again = reply("a2 again", 8, 9);
    let new_id = db
        .store
        .replace_replies(&[first_part, second_part, bobs], &again, None)
        .await
        .unwrap();

    let texts: Vec<String> = db
        .store
        .session_messages(session)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.content)
        .collect();
    assert_eq!(texts, ["q1", "a1", "q2", "a2 again"]);
    let exchange = db.store.last_exchange(ALICE_KEY).await.unwrap().unwrap();
    assert_eq!(exchange.replies.len(), 1);
    assert_eq!(exchange.replies[0].id, new_id);
    assert_eq!(
        db.store.all_messages(BOB_KEY).await.unwrap().len(),
        1,
        "not Bob's"
    );
    assert!(
        db.store
            .recent_summaries(ALICE_KEY, 0, 5)
            .await
            .unwrap()
            .is_empty()
    );
    db.store
        .close_session(ALICE_KEY, MIDNIGHT_MS + HOUR_MS)
        .await
        .unwrap();
    let awaiting = db
        .store
        .sessions_awaiting_summary(MIDNIGHT_MS + HOUR_MS, 10)
        .await
        .unwrap();
    assert_eq!(awaiting.iter().map(|s| s.id).collect::<Vec<_>>(), [session]);
}

#[tokio::test]
async fn the_summarizers_queue_holds_closed_sessions_until_summarized_in_closing_order() {
    let db = TestDb::new().await;
    let alice = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.message(ALICE_KEY, alice, Role::User, "hi", MIDNIGHT_MS + 1)
        .await;
    let bob = db.session(BOB_KEY, MIDNIGHT_MS).await;
    db.message(BOB_KEY, bob, Role::User, "hi", MIDNIGHT_MS + 2)
        .await;
    let carol = db.session(CAROL_KEY, MIDNIGHT_MS + HOUR_MS).await;
    let queue = |now_ms: i64, limit: i64| {
        let store = db.store.clone();
        async move {
            let sessions = store
                .sessions_awaiting_summary(now_ms, limit)
                .await
                .unwrap();
            sessions.into_iter().map(|s| s.id).collect::<Vec<_>>()
        }
    };

    let now = MIDNIGHT_MS + 2 * HOUR_MS;
    assert_eq!(
        db.store
            .close_idle_sessions(MIDNIGHT_MS + HOUR_MS)
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        db.store
            .close_idle_sessions(MIDNIGHT_MS + HOUR_MS)
            .await
            .unwrap(),
        0
    );
    assert_eq!(
        db.store.open_session(CAROL_KEY).await.unwrap().unwrap().id,
        carol
    );
    assert_eq!(queue(now, 10).await, [alice, bob]);
    assert_eq!(queue(now, 1).await, [alice]);
    let closed = db.store.open_session(ALICE_KEY).await.unwrap();
    assert_eq!(closed, None);

    assert_eq!(
        db.store
            .begin_summary_attempt(alice, now + HOUR_MS)
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        db.store
            .begin_summary_attempt(alice, now + HOUR_MS)
            .await
            .unwrap(),
        2
    );
    assert_eq!(queue(now, 10).await, [bob], "Alice's retry is not due");
    assert_eq!(queue(now + HOUR_MS, 10).await, [alice, bob]);
    db.store
        .schedule_summary_retry(bob, now + 2 * HOUR_MS)
        .await
        .unwrap();
    assert_eq!(queue(now + HOUR_MS, 10).await, [alice]);
    db.store
        .add_summary(alice, ALICE_KEY, "said hi", now + HOUR_MS)
        .await
        .unwrap();
    assert_eq!(queue(now + 3 * HOUR_MS, 10).await, [bob]);
    db.store.mark_session_summarized(bob).await.unwrap();
    assert!(queue(now + 3 * HOUR_MS, 10).await.is_empty());

    let totals = db.store.database_totals().await.unwrap();
    assert_eq!(
        (
            totals.sessions,
            totals.open_sessions,
            totals.summaries,
            totals.messages
        ),
        (3, 1, 1, 2)
    );
    assert_eq!(
        (totals.oldest_message_ms, totals.newest_message_ms),
        (Some(MIDNIGHT_MS + 1), Some(MIDNIGHT_MS + 2))
    );
    assert!(db.store.database_bytes().await.unwrap() > 0);
}

crate::postgres_variants!(
    history_window_includes_a_message_just_inside_and_excludes_one_just_outside,
    history_returns_only_the_latest_messages_up_to_the_limit_oldest_first,
    messages_with_the_same_timestamp_keep_their_insertion_order,
    one_user_never_gets_another_users_history_even_in_the_same_group,
    persona_round_trips_and_can_be_cleared,
    the_language_is_recorded_beside_the_persona_and_replaced_when_it_changes,
    eight_concurrent_writers_complete_a_thousand_turns_each_without_lock_errors,
    unusual_unicode_and_64_kib_messages_round_trip_unchanged,
    a_turns_start_reads_its_persona_session_notes_summaries_and_history_in_one_go,
    starting_a_session_closes_the_open_one_at_its_last_activity,
    recent_summaries_are_the_latest_ones_oldest_first_with_their_session_times,
    stats_count_messages_tokens_and_activity_per_conversation_and_per_user,
    a_note_by_hand_survives_the_summarizers_list_and_an_edit_keeps_its_place,
    the_incognito_switch_is_per_conversation_and_counts_its_tokens_per_utc_day,
    a_retry_replaces_the_last_replies_of_its_own_conversation_and_unsummarizes_the_session,
    the_summarizers_queue_holds_closed_sessions_until_summarized_in_closing_order,
    two_replicas_starting_sessions_of_one_conversation_at_once_leave_one_open,
    two_replicas_handling_the_same_messages_at_once_store_each_once_in_one_open_session,
    a_turn_opens_in_its_session_stores_its_message_once_and_reads_what_came_before,
    an_update_stored_behind_an_unfinished_one_of_another_replica_is_told_so,
    an_update_stored_counts_what_other_replicas_hold_of_the_person,
    many_turns_recording_their_deliveries_at_once_each_finish_their_own_update,
    incognito_token_counts_are_purged_in_time_and_the_switch_is_not,
    an_update_is_new_only_the_first_time,
    storing_a_reply_marks_its_update_replying_and_recording_its_delivery_marks_it_done,
    an_answers_messages_are_recorded_with_its_update_and_its_reply_is_found_until_delivered,
);
