//! Privacy on the operations side: the database's file modes, what reaches the logs, update
//! payloads, the webhook and health endpoints, and settings left empty.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;
use telemem::storage::{ChatId, ConversationKey, Store, UpdateRecord, UpdateState};
use telemem::telegram::intake::random_webhook_secret;

use crate::support::bot_harness::{ALICE, TestBot, WEBHOOK_SECRET, post_to_webhook};
use crate::support::bot_process::Surroundings;
use crate::support::database::{ALICE_KEY, BOB_KEY, TestDb, count_rows};
use crate::support::fake_telegram::Fault;
use crate::support::times::{DAY_MS, MIDNIGHT_MS};
use crate::support::waiting::{PATIENCE, eventually};

fn mode(path: &std::path::Path) -> u32 {
    std::fs::metadata(path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        .permissions()
        .mode()
        & 0o777
}

#[tokio::test]
async fn the_database_and_its_wal_files_are_readable_by_their_owner_only() {
    let dir = tempfile::tempdir().unwrap();
    // World-readable, as /var/lib or a home directory often is.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let data_dir = dir.path().join("data");
    let database = data_dir.join("telemem.db");
    let url = format!("sqlite://{}", database.display());

    let store = Store::connect(&url).await.unwrap();
    store.migrate().await.unwrap();
    store
        .record_updates(&[(1, "{\"secret\":true}".to_owned())], 1_000)
        .await
        .unwrap();

    assert_eq!(mode(&data_dir), 0o700, "the directory telemem created");
    assert_eq!(mode(&database), 0o600, "the database file");
    for suffix in ["-wal", "-shm"] {
        let path = data_dir.join(format!("telemem.db{suffix}"));
        assert_eq!(mode(&path), 0o600, "{}", path.display());
    }
    store.close().await;
}

#[tokio::test]
async fn updates_telemem_cannot_read_never_put_their_text_in_the_logs() {
    let around = Surroundings::start().await;
    let telegram = &around.telegram;
    // A poll whose answer cannot be read at all, then an update whose message cannot be read.
    telegram.fail_next(
        "getUpdates",
        Fault::Unreadable(
            json!({ "ok": true, "result": [{ "update_id": "seven",
                "message": { "text": "my diagnosis is SECRET-POLL-TEXT" } }] })
            .to_string(),
        ),
    );
    telegram.send_raw_update(|update_id| {
        json!({ "update_id": update_id, "message": {
            "message_id": 1, "date": "yesterday", "chat": { "id": ALICE, "type": "private" },
            "from": { "id": ALICE, "is_bot": false, "first_name": "Alice" },
            "text": "my diagnosis is SECRET-UPDATE-TEXT" } })
    });
    let mut bot = around.spawn_bot(&[]);

    // A readable message after both: once it is answered, the bot has been past them.
    telegram.send_text(ALICE, ALICE, "hello");
    telegram.wait_for_message(ALICE, |_| true, PATIENCE).await;
    bot.signal("TERM");
    bot.wait_for_exit().await;
    let logs = bot.logs();

    assert!(!logs.contains("SECRET-POLL-TEXT"), "{logs}");
    assert!(!logs.contains("SECRET-UPDATE-TEXT"), "{logs}");
    assert!(logs.contains("polling Telegram failed"), "{logs}");
    assert!(logs.contains("cannot read"), "{logs}");
}

#[tokio::test]
async fn clear_deletes_the_text_of_the_persons_unanswered_updates_in_that_chat_only() {
    let db = TestDb::new().await;
    let alice_in_group = ConversationKey::new(ChatId(-5), ALICE_KEY.user_id);
    let record = |update_id, owner: ConversationKey| UpdateRecord {
        update_id,
        owner: Some(owner),
        payload: format!("{{\"text\":\"secret of update {update_id}\"}}"),
    };
    db.store
        .record_updates(
            &[
                record(1, ALICE_KEY),
                record(2, BOB_KEY),
                record(3, alice_in_group),
            ],
            MIDNIGHT_MS,
        )
        .await
        .unwrap();

    let counts = db.store.clear_conversation(ALICE_KEY).await.unwrap();

    let payloads: Vec<(i64, Option<String>)> = db
        .store
        .unfinished_updates(0, MIDNIGHT_MS + 1)
        .await
        .unwrap()
        .into_iter()
        .map(|update| (update.update_id, update.payload))
        .collect();
    assert_eq!(counts.processed_updates, 1);
    assert_eq!(
        payloads,
        [
            (1, None),
            (2, Some("{\"text\":\"secret of update 2\"}".to_owned())),
            (3, Some("{\"text\":\"secret of update 3\"}".to_owned())),
        ]
    );
}

#[tokio::test]
async fn the_purge_deletes_the_persona_and_settings_of_people_gone_for_the_retention_period() {
    let db = TestDb::new().await;
    db.store
        .set_setting(
            ALICE_KEY.user_id,
            telemem::storage::Setting::Persona,
            Some("I am a nurse in Lyon"),
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    db.store
        .set_setting(
            BOB_KEY.user_id,
            telemem::storage::Setting::Persona,
            Some("call me Bob"),
            MIDNIGHT_MS + 2 * DAY_MS,
        )
        .await
        .unwrap();

    let dry_run = db
        .store
        .count_purgeable(MIDNIGHT_MS + DAY_MS)
        .await
        .unwrap();
    let counts = db
        .store
        .purge_older_than(MIDNIGHT_MS + DAY_MS, 100)
        .await
        .unwrap();

    assert_eq!((dry_run.settings, counts.settings), (1, 1));
    assert!(
        db.store
            .user_settings(ALICE_KEY.user_id)
            .await
            .unwrap()
            .is_none()
    );
    let bob = db.store.user_settings(BOB_KEY.user_id).await.unwrap();
    assert_eq!(
        bob.and_then(|settings| settings.persona).as_deref(),
        Some("call me Bob")
    );
}

#[tokio::test]
async fn a_handled_update_keeps_no_payload_and_old_update_records_are_purged() {
    let db = TestDb::new().await;
    db.store
        .record_updates(&[(1, "{\"text\":\"secret\"}".to_owned())], MIDNIGHT_MS)
        .await
        .unwrap();
    db.store
        .set_update_state(1, UpdateState::Done)
        .await
        .unwrap();
    let payload_left = count_rows(
        &db.url,
        "SELECT count(*) FROM processed_updates WHERE payload IS NOT NULL",
    )
    .await;

    let counts = db
        .store
        .purge_older_than(MIDNIGHT_MS + 1, 100)
        .await
        .unwrap();

    assert_eq!(payload_left, 0);
    assert_eq!(counts.processed_updates, 1);
}

#[tokio::test]
async fn the_webhook_checks_the_secret_before_reading_the_body_and_caps_its_size() {
    let (mut bot, hook) = TestBot::start_with_webhook().await;
    let garbage = b"not json at all".to_vec();

    let garbage_with_a_wrong_secret = post_to_webhook(&hook, Some("guess"), garbage.clone()).await;
    let garbage_with_secret = post_to_webhook(&hook, Some(WEBHOOK_SECRET), garbage).await;
    let oversized = post_to_webhook(&hook, Some(WEBHOOK_SECRET), vec![b' '; 1024 * 1024 + 1]).await;
    bot.stop().await;

    assert_eq!(garbage_with_a_wrong_secret, 401);
    assert_eq!(garbage_with_secret, 400);
    assert_eq!(oversized, 413);
}

#[test]
fn the_default_webhook_secret_is_128_random_bits() {
    let first = random_webhook_secret().unwrap();
    let second = random_webhook_secret().unwrap();

    assert_eq!(first.expose().len(), 32);
    assert!(first.expose().chars().all(|c| c.is_ascii_hexdigit()));
    assert_ne!(first.expose(), second.expose());
}

#[tokio::test]
async fn variables_left_empty_count_as_not_set() {
    let around = Surroundings::start().await;
    // As an `.env` file or a compose file leaves them; ALLOW_ALL_USERS=true comes with the bot.
    let empty: Vec<(&str, &str)> = [
        "ALLOWED_USERS",
        "ADMIN_USERS",
        "DATABASE_MAX_SIZE_MB",
        "PURGE_AFTER_SECS",
        "PURGE_INTERVAL_SECS",
        "PURGE_FIRST_RUN_SECS",
        "PURGE_BATCH_SIZE",
        "SESSION_IDLE_SECS",
        "HISTORY_WINDOW_SECS",
        "HISTORY_MAX_MESSAGES",
        "SUMMARY_WINDOW_SECS",
        "SUMMARY_COUNT",
        "RECALL_LIMIT",
        "CONTEXT_TOKEN_BUDGET",
        "SUMMARIZER_INTERVAL_SECS",
        "SUMMARY_MAX_ATTEMPTS",
        "SUMMARY_RETRY_SECS",
        "TELEGRAM_WEBHOOK_URL",
        "TELEGRAM_WEBHOOK_SECRET",
        "MAX_MESSAGE_CHARS",
        "USER_MAX_PENDING",
        "USER_MESSAGES_PER_MINUTE",
        "SHUTDOWN_GRACE_SECS",
        "HTTP_ADDR",
        "HEALTH_MAX_SILENCE_SECS",
        "LOG_FORMAT",
        "LLM_API_KEY",
        "LLM_MODEL",
        "LLM_PROVIDER",
        "LLM_MAX_RETRIES",
        "LLM_MAX_TOKENS",
        "LLM_TIMEOUT_SECS",
        "REDACT_PATTERNS",
    ]
    .into_iter()
    .map(|name| (name, ""))
    .collect();
    let mut bot = around.spawn_bot(&empty);

    around.telegram.send_text(ALICE, ALICE, "hello");
    let mut exited = None;
    let answered_or_exited = eventually(
        || {
            let answered = !around.telegram.sent_messages(ALICE).is_empty();
            if !answered {
                exited = bot.exit_status();
            }
            std::future::ready(answered || exited.is_some())
        },
        PATIENCE,
    )
    .await;

    assert!(answered_or_exited, "neither answered nor stopped");
    assert_eq!(exited, None, "{}", bot.logs());
    bot.signal("TERM");
    assert!(bot.wait_for_exit().await.success());
}

crate::postgres_variants!(
    the_purge_deletes_the_persona_and_settings_of_people_gone_for_the_retention_period,
    clear_deletes_the_text_of_the_persons_unanswered_updates_in_that_chat_only,
    a_handled_update_keeps_no_payload_and_old_update_records_are_purged,
);

/// Neither an MCP server the bot starts nor any other process reading `/proc/<bot>/environ`
/// finds the bot token, the API key or the database's address there, while the bot goes on using
/// them. (The test runs as root, which may read any process's `/proc`; the values are gone from
/// there, not just hidden behind permissions.)
#[tokio::test]
async fn no_process_reads_the_bots_secrets_from_proc_not_even_an_mcp_server_it_started() {
    const API_KEY: &str = "sk-test-PROCSECRET1234567890";
    let around = Surroundings::start().await;
    let dir = tempfile::tempdir().unwrap();
    let mcp_config = dir.path().join("mcp.json");
    let config = json!({"mcpServers": {"echo": {
        "command": crate::support::mcp::mcp_echo_path(),
        "allow": "everyone"
    }}});
    std::fs::write(&mcp_config, config.to_string()).unwrap();
    let mut bot = around.spawn_bot(&[
        ("LLM_API_KEY", API_KEY),
        ("MCP_CONFIG", mcp_config.to_str().unwrap()),
    ]);
    bot.wait_for_log("MCP server connected", 1).await;
    around
        .llm
        .push(crate::support::fake_llm::Behaviour::tool_calls(&[(
            "echo__parent_environment",
            json!({}),
        )]));
    around
        .llm
        .push(crate::support::fake_llm::Behaviour::reply("Looked."));

    around.telegram.send_text(ALICE, ALICE, "look around");
    around
        .telegram
        .wait_for(
            |calls| crate::support::fake_telegram::called(calls, "sendMessage"),
            PATIENCE,
        )
        .await;
    let from_outside = std::fs::read(format!("/proc/{}/environ", bot.pid())).unwrap();
    let from_outside = String::from_utf8_lossy(&from_outside).into_owned();
    let requests = around.llm.requests();
    bot.signal("TERM");
    bot.wait_for_exit().await;

    let from_mcp = requests
        .last()
        .expect("the model call after the tool")
        .everything_sent();
    assert!(
        from_mcp.contains("PATH="),
        "the tool read the environment: {from_mcp}"
    );
    for seen in [&from_mcp, &from_outside] {
        for secret in [around.telegram.token(), API_KEY, &around.database.url] {
            assert!(!seen.contains(secret), "{secret} is readable: {seen}");
        }
    }
    assert!(
        from_outside.contains("TELOXIDE_TOKEN="),
        "names stay: {from_outside}"
    );
    assert_eq!(around.telegram.sent_messages(ALICE), ["Looked."]);
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {API_KEY}").as_str()),
        "the bot still uses its key"
    );
}
