//! Specifications of `telemem import`, run as the real binary: a Telegram Desktop export and a
//! JSON Lines file go into one person's memory with their times, cut into sessions by the idle
//! gap, once, around the conversation's live sessions; a bad file stores nothing.

use std::path::{Path, PathBuf};

use telemem::storage::{
    ChatId, ConversationKey, ImportMessage, ImportSession, Role, SessionSpan, Store, UserId,
};

use crate::support::command_line::{printed_by, run_telemem, stderr_of, telemem_command};
use crate::support::database::{TestDb, count_rows, daily_usage_rows};
use crate::support::fake_embeddings::FakeEmbeddings;
use crate::support::fake_llm::FakeLlm;
use crate::support::times::{DAY_MS, HOUR_MS, MIDNIGHT_MS, MINUTE_MS};

const KEY: ConversationKey = ConversationKey {
    chat_id: ChatId(7),
    user_id: UserId(7),
};

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// One JSON Lines line.
fn line(time_ms: i64, who: &str, text: &str) -> String {
    serde_json::json!({ "time": time_ms, "who": who, "text": text }).to_string()
}

fn write_file(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).expect("write the history file");
    path
}

fn import(url: &str, file: &Path, extra: &[&str]) -> std::process::Output {
    let file = file.to_str().expect("a UTF-8 path");
    let mut args = vec!["import", "--user", "7"];
    args.extend_from_slice(extra);
    args.push(file);
    run_telemem(url, &args, &[])
}

/// A conversation of two sessions three days ago (a gap of two hours between them).
fn two_sessions(start_ms: i64) -> String {
    [
        line(start_ms, "user", "I just adopted a cat named Miso"),
        line(
            start_ms + MINUTE_MS,
            "assistant",
            "Congratulations on Miso!",
        ),
        line(start_ms + 2 * MINUTE_MS, "me", "She likes tuna"),
        line(
            start_ms + 2 * HOUR_MS,
            "user",
            "my parcel number is XK-4471",
        ),
        line(
            start_ms + 121 * MINUTE_MS,
            "bot",
            "I will remember XK-4471.",
        ),
    ]
    .join("\n")
}

fn spans(planned: &[SessionSpan]) -> Vec<(i64, i64, bool)> {
    planned
        .iter()
        .map(|span| (span.started_at_ms, span.last_activity_at_ms, span.closed))
        .collect()
}

#[tokio::test]
async fn a_json_lines_history_keeps_its_times_and_is_cut_into_closed_sessions_by_the_gap() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let start = now_ms() - 3 * DAY_MS;
    let file = write_file(&dir, "history.jsonl", &two_sessions(start));

    let printed = printed_by(&import(&db.url, &file, &[]));

    assert!(
        printed.contains("imported 5 messages into 2 new sessions"),
        "{printed}"
    );
    let messages = db.store.all_messages(KEY).await.unwrap();
    let stored: Vec<(i64, Role)> = messages
        .iter()
        .map(|message| (message.created_at_ms, message.role))
        .collect();
    assert_eq!(
        stored,
        [
            (start, Role::User),
            (start + MINUTE_MS, Role::Assistant),
            (start + 2 * MINUTE_MS, Role::User),
            (start + 120 * MINUTE_MS, Role::User),
            (start + 121 * MINUTE_MS, Role::Assistant),
        ]
    );
    let sessions = db.store.session_spans(KEY).await.unwrap();
    assert_eq!(
        spans(&sessions),
        [
            (start, start + 2 * MINUTE_MS, true),
            (start + 120 * MINUTE_MS, start + 121 * MINUTE_MS, true)
        ]
    );
    // The summarizer's queue: closed sessions without a summary.
    let awaiting = db
        .store
        .sessions_awaiting_summary(now_ms(), 10)
        .await
        .unwrap();
    assert_eq!(awaiting.len(), 2);
    assert_eq!(messages[0].session_id, awaiting[0].id);
}

#[tokio::test]
async fn with_summarize_the_imported_sessions_get_their_summaries_and_vectors_at_once() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let llm = FakeLlm::start().await;
    let embeddings = FakeEmbeddings::start().await;
    let file = write_file(&dir, "history.jsonl", &two_sessions(now_ms() - 3 * DAY_MS));
    let file = file.to_str().unwrap();
    let llm_url = llm.base_url();
    let settings = [
        ("LLM_BASE_URL", llm_url.as_str()),
        ("EMBEDDING_BASE_URL", embeddings.base_url()),
        ("EMBEDDING_MODEL", "fake-embedder"),
    ];

    let mut command = telemem_command(
        &db.url,
        &["import", "--user", "7", "--summarize", file],
        &settings,
    );

    // The fake servers answer on this test's runtime while the command runs.
    let output = tokio::task::spawn_blocking(move || command.output().expect("run telemem"))
        .await
        .unwrap();

    let printed = printed_by(&output);
    assert!(printed.contains("summarized 2 sessions"), "{printed}");
    assert!(
        printed.contains("embedded 5 messages and 2 summaries"),
        "{printed}"
    );
    let awaiting = db
        .store
        .sessions_awaiting_summary(now_ms(), 10)
        .await
        .unwrap();
    assert!(awaiting.is_empty(), "{awaiting:?}");
    assert_eq!(db.store.vector_count(KEY).await.unwrap(), 7);
}

#[tokio::test]
async fn a_telegram_export_is_the_person_and_the_assistant_with_media_as_markers() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let seconds = (now_ms() - 2 * DAY_MS) / 1_000;
    let export = serde_json::json!({
        "name": "Old Bot", "type": "bot_chat", "id": 5_550_001,
        "messages": [
            {"id": 1, "type": "service", "date_unixtime": seconds.to_string(),
             "actor": "Me", "actor_id": "user7", "action": "clear_history", "text": ""},
            {"id": 2, "type": "message", "date_unixtime": seconds.to_string(),
             "from": "Me", "from_id": "user7",
             "text": ["I ", {"type": "bold", "text": "love"}, " hiking in the Alps"]},
            {"id": 3, "type": "message", "date_unixtime": (seconds + 5).to_string(),
             "from": "Old Bot", "from_id": "user5550001", "text": "Which trail?"},
            {"id": 4, "type": "message", "date_unixtime": (seconds + 9).to_string(),
             "from": "Me", "from_id": "user7", "photo": "photos/p.jpg", "text": ""},
        ]
    });
    let file = write_file(
        &dir,
        "result.json",
        &serde_json::to_string_pretty(&export).unwrap(),
    );

    let printed = printed_by(&import(&db.url, &file, &[]));

    assert!(printed.contains("imported 3 messages"), "{printed}");
    assert!(printed.contains("skipped 1 service messages"), "{printed}");
    let messages = db.store.all_messages(KEY).await.unwrap();
    let stored: Vec<(i64, Role, &str)> = messages
        .iter()
        .map(|message| (message.created_at_ms, message.role, &*message.content))
        .collect();
    assert_eq!(
        stored,
        [
            (seconds * 1_000, Role::User, "I love hiking in the Alps"),
            ((seconds + 5) * 1_000, Role::Assistant, "Which trail?"),
            ((seconds + 9) * 1_000, Role::User, "[photo]"),
        ]
    );
}

#[tokio::test]
async fn importing_the_same_file_twice_stores_nothing_twice() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let start = now_ms() - 3 * DAY_MS;
    // "ok" twice in the same second is two messages, in the file and in the store.
    let history = format!(
        "{}\n{}\n{}",
        two_sessions(start),
        line(start + 3 * MINUTE_MS, "user", "ok"),
        line(start + 3 * MINUTE_MS, "user", "ok")
    );
    let file = write_file(&dir, "history.jsonl", &history);
    printed_by(&import(&db.url, &file, &[]));

    let again = printed_by(&import(&db.url, &file, &[]));

    assert!(
        again.contains("imported 0 messages into 0 new sessions"),
        "{again}"
    );
    assert!(again.contains("skipped 7 imported before"), "{again}");
    assert_eq!(db.store.all_messages(KEY).await.unwrap().len(), 7);
    assert_eq!(db.store.session_spans(KEY).await.unwrap().len(), 2);
}

#[tokio::test]
async fn a_bad_file_is_refused_with_the_line_at_fault_and_nothing_is_stored() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let start = now_ms() - DAY_MS;
    let jsonl = format!(
        "{}\n{}\n{{\"time\": {start}, \"who\": \"narrator\", \"text\": \"x\"}}\n{}",
        line(start, "user", "first"),
        line(start + 1, "assistant", "second"),
        line(start + 2, "user", "fourth")
    );
    let bad_lines = write_file(&dir, "bad.jsonl", &jsonl);
    let bad_export = write_file(
        &dir,
        "result.json",
        "{\n \"id\": 1,\n \"messages\": [\n  {\"id\": 1, \"type\": \"message\", \"from_id\": \
         \"user7\", \"text\": \"hi\"}\n ]\n}",
    );

    let refused_lines = import(&db.url, &bad_lines, &[]);
    let refused_export = import(&db.url, &bad_export, &[]);

    assert!(!refused_lines.status.success());
    let stderr = stderr_of(&refused_lines);
    assert!(stderr.contains("line 3: who is \"narrator\""), "{stderr}");
    assert!(!refused_export.status.success());
    let stderr = stderr_of(&refused_export);
    assert!(stderr.contains("message #0 (id 1, line 4)"), "{stderr}");
    assert!(stderr.contains("date_unixtime"), "{stderr}");
    assert_eq!(
        count_rows(&db.url, "SELECT count(*) FROM messages").await,
        0
    );
    assert_eq!(
        count_rows(&db.url, "SELECT count(*) FROM sessions").await,
        0
    );
}

#[tokio::test]
async fn history_older_than_the_purge_age_is_refused_unless_left_out() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let now = now_ms();
    let history = [
        line(now - 40 * DAY_MS, "user", "ancient"),
        line(now - DAY_MS, "user", "recent"),
    ]
    .join("\n");
    let file = write_file(&dir, "history.jsonl", &history);

    let refused = import(&db.url, &file, &[]);
    let skipped = printed_by(&import(&db.url, &file, &["--skip-old"]));

    assert!(!refused.status.success());
    assert!(
        stderr_of(&refused).contains("PURGE_AFTER_SECS"),
        "{}",
        stderr_of(&refused)
    );
    assert!(
        skipped.contains("skipped 1 older than PURGE_AFTER_SECS"),
        "{skipped}"
    );
    let messages = db.store.all_messages(KEY).await.unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].content, "recent");
}

#[tokio::test]
async fn two_peoples_imports_do_not_mix() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let start = now_ms() - 2 * DAY_MS;
    let alice = write_file(
        &dir,
        "a.jsonl",
        &line(start, "user", "Alice's secret: tulips"),
    );
    let bob = write_file(
        &dir,
        "b.jsonl",
        &line(start, "user", "Bob's secret: dahlias"),
    );

    printed_by(&import(&db.url, &alice, &[]));
    let bob_path = bob.to_str().unwrap();
    printed_by(&run_telemem(
        &db.url,
        &["import", "--user", "8", bob_path],
        &[],
    ));

    let bob_key = ConversationKey::new(ChatId(8), UserId(8));
    let alice_texts = texts(&db.store, KEY).await;
    let bob_texts = texts(&db.store, bob_key).await;
    assert_eq!(alice_texts, ["Alice's secret: tulips"]);
    assert_eq!(bob_texts, ["Bob's secret: dahlias"]);
}

async fn texts(store: &Store, key: ConversationKey) -> Vec<String> {
    let messages = store.all_messages(key).await.unwrap();
    messages
        .into_iter()
        .map(|message| message.content)
        .collect()
}

#[tokio::test]
async fn an_imported_fact_is_recalled_by_its_words() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let start = now_ms() - 5 * DAY_MS;
    let mut history = vec![two_sessions(start)];
    for day in 1..4 {
        let at = start + day * DAY_MS;
        history.push(line(at, "user", "what should I cook tonight?"));
        history.push(line(at + MINUTE_MS, "assistant", "How about a risotto?"));
    }
    let file = write_file(&dir, "history.jsonl", &history.join("\n"));
    printed_by(&import(&db.url, &file, &[]));

    let context = run_telemem(
        &db.url,
        &[
            "context",
            "--chat",
            "7",
            "--user",
            "7",
            "what was my parcel number?",
        ],
        &[],
    );

    let printed = printed_by(&context);
    assert!(printed.contains("XK-4471"), "{printed}");
}

#[tokio::test]
async fn an_import_into_a_live_conversation_interleaves_by_time_without_overlapping_sessions() {
    let db = TestDb::new().await;
    let dir = tempfile::tempdir().unwrap();
    let live_start = now_ms() - 2 * DAY_MS;
    let live = db.session(KEY, live_start).await;
    db.message(KEY, live, Role::User, "live hello", live_start)
        .await;
    db.message(
        KEY,
        live,
        Role::Assistant,
        "live answer",
        live_start + 10 * MINUTE_MS,
    )
    .await;
    db.store
        .close_session(KEY, live_start + 10 * MINUTE_MS)
        .await
        .unwrap();
    db.store
        .add_summary(live, KEY, "they said hello", live_start + 11 * MINUTE_MS)
        .await
        .unwrap();
    // Before the live session (a session of its own), inside it, just after it (within the
    // gap: it joins), and long after it (a session of its own).
    let history = [
        line(live_start - 3 * HOUR_MS, "user", "imported long before"),
        line(live_start + 5 * MINUTE_MS, "user", "imported inside"),
        line(
            live_start + 25 * MINUTE_MS,
            "assistant",
            "imported just after",
        ),
        line(live_start + 5 * HOUR_MS, "user", "imported long after"),
    ]
    .join("\n");
    let file = write_file(&dir, "history.jsonl", &history);

    let printed = printed_by(&import(&db.url, &file, &[]));

    assert!(
        printed.contains("into 2 new sessions (1 existing sessions extended)"),
        "{printed}"
    );
    let in_order = texts(&db.store, KEY).await;
    assert_eq!(
        in_order,
        [
            "imported long before",
            "live hello",
            "imported inside",
            "live answer",
            "imported just after",
            "imported long after"
        ]
    );
    let sessions = db.store.session_spans(KEY).await.unwrap();
    for pair in sessions.windows(2) {
        assert!(
            pair[0].last_activity_at_ms < pair[1].started_at_ms,
            "{sessions:?}"
        );
    }
    let widened = sessions.iter().find(|span| span.id == live).unwrap();
    assert_eq!(widened.last_activity_at_ms, live_start + 25 * MINUTE_MS);
    // Its summary no longer covers it: the summarizer writes it again.
    let awaiting = db
        .store
        .sessions_awaiting_summary(now_ms(), 10)
        .await
        .unwrap();
    assert!(
        awaiting.iter().any(|session| session.id == live),
        "{awaiting:?}"
    );
}

#[tokio::test]
async fn the_store_imports_in_one_transaction_and_skips_what_it_holds() {
    let db = TestDb::new().await;
    let start = now_ms() - DAY_MS;
    let message = |offset: i64, key: &str| ImportMessage {
        role: Role::User,
        content: format!("note {key}"),
        created_at_ms: start + offset,
        import_key: key.to_owned(),
    };
    let sessions = [
        ImportSession {
            existing_id: None,
            messages: vec![message(0, "a"), message(1, "b")],
        },
        ImportSession {
            existing_id: None,
            messages: vec![message(DAY_MS / 2, "c")],
        },
    ];

    let first = db.store.import_sessions(KEY, &sessions).await.unwrap();
    let second = db.store.import_sessions(KEY, &sessions).await.unwrap();

    assert_eq!((first.messages, first.sessions_created), (3, 2));
    assert_eq!((second.messages, second.sessions_created), (0, 0));
    assert_eq!(db.store.session_spans(KEY).await.unwrap().len(), 2);
    let mut keys = db.store.import_keys(KEY).await.unwrap();
    keys.sort();
    assert_eq!(keys, ["a", "b", "c"]);
    // The person's bookkeeping counts each message once: bytes, messages per day, no tokens.
    let bytes = db.store.stored_bytes(KEY.user_id).await.unwrap().bytes;
    assert_eq!(bytes, 3 * "note a".len() as i64);
    let usage = db
        .store
        .usage_by_person(start - 2 * DAY_MS, now_ms(), Some(KEY.user_id))
        .await
        .unwrap();
    assert_eq!((usage[0].messages, usage[0].tokens), (3, 0));
    let settings = db.store.user_settings(KEY.user_id).await.unwrap();
    assert!(settings.is_some());
    // Other conversations hold none of them.
    let other = ConversationKey::new(ChatId(8), UserId(8));
    assert!(db.store.import_keys(other).await.unwrap().is_empty());
}

#[tokio::test]
async fn an_import_counts_daily_usage_once_for_each_message_it_stores() {
    let db = TestDb::new().await;
    let message = |role, offset_ms: i64, key: &str| ImportMessage {
        role,
        content: format!("said {key}"),
        created_at_ms: MIDNIGHT_MS + offset_ms,
        import_key: key.to_owned(),
    };
    let first = [ImportSession {
        existing_id: None,
        messages: vec![
            message(Role::User, HOUR_MS, "a"),
            message(Role::Assistant, 2 * HOUR_MS, "b"),
            message(Role::User, DAY_MS + HOUR_MS, "c"),
        ],
    }];
    // The first import's messages again, among new ones.
    let second = [ImportSession {
        existing_id: None,
        messages: vec![
            message(Role::User, HOUR_MS / 2, "d"),
            message(Role::User, HOUR_MS, "a"),
            message(Role::Assistant, 2 * HOUR_MS, "b"),
            message(Role::User, DAY_MS + HOUR_MS / 2, "e"),
            message(Role::User, DAY_MS + HOUR_MS, "c"),
            message(Role::User, DAY_MS + 2 * HOUR_MS, "f"),
        ],
    }];

    db.store.import_sessions(KEY, &first).await.unwrap();
    let again = db.store.import_sessions(KEY, &second).await.unwrap();

    assert_eq!(again.messages, 3);
    // The person's own messages count, the assistant's do not; imported messages cost no tokens.
    let user = KEY.user_id.0;
    assert_eq!(
        daily_usage_rows(&db.url).await,
        [
            (user, MIDNIGHT_MS, 2, 0),
            (user, MIDNIGHT_MS + DAY_MS, 3, 0)
        ]
    );
}

crate::postgres_variants!(
    a_json_lines_history_keeps_its_times_and_is_cut_into_closed_sessions_by_the_gap,
    importing_the_same_file_twice_stores_nothing_twice,
    a_bad_file_is_refused_with_the_line_at_fault_and_nothing_is_stored,
    an_imported_fact_is_recalled_by_its_words,
    an_import_into_a_live_conversation_interleaves_by_time_without_overlapping_sessions,
    the_store_imports_in_one_transaction_and_skips_what_it_holds,
    an_import_counts_daily_usage_once_for_each_message_it_stores,
);
