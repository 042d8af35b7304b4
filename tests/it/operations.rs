//! Specifications of running the bot in production: webhook mode, the health and metrics
//! endpoint during a conversation, and graceful shutdown of the real binary on SIGTERM.

use std::time::Duration;

use telemem::storage::{ChatId, ConversationKey, Role, UserId};

use crate::support::bot_harness::{ALICE, BOB, CAROL, TestBot, WEBHOOK_SECRET, post_to_webhook};
use crate::support::bot_process::{Surroundings, free_port, wait_for_update_counts};
use crate::support::fake_llm::Behaviour;
use crate::support::fake_telegram::called;
use crate::support::waiting::{PATIENCE, wait_for_model_requests};

#[tokio::test]
async fn in_webhook_mode_updates_are_accepted_only_with_the_secret_token() {
    let (mut bot, hook) = TestBot::start_with_webhook().await;
    let calls = bot.telegram.calls();
    let registration = calls.iter().find(|c| c.method == "setWebhook").unwrap();
    assert_eq!(registration.params["url"], hook);
    assert_eq!(registration.params["secret_token"], WEBHOOK_SECRET);
    assert!(!called(&calls, "getUpdates"), "no polling in webhook mode");

    bot.telegram
        .send_text(ALICE, ALICE, "forged without the secret");
    bot.telegram
        .send_text(ALICE, ALICE, "hello through the webhook");
    let updates = bot.telegram.take_pending_updates();
    let forged = serde_json::to_vec(&updates[0]).unwrap();
    let genuine = serde_json::to_vec(&updates[1]).unwrap();
    let without_secret = post_to_webhook(&hook, None, forged.clone()).await;
    let with_a_wrong_one = post_to_webhook(&hook, Some("guess"), forged).await;
    let with_the_secret = post_to_webhook(&hook, Some(WEBHOOK_SECRET), genuine.clone()).await;

    assert_eq!(without_secret, 401);
    assert_eq!(with_a_wrong_one, 401);
    assert_eq!(with_the_secret, 200);
    let replies = bot.wait_for_messages(ALICE, 1).await;
    assert!(
        replies[0].contains("hello through the webhook"),
        "{replies:?}"
    );
    let again = post_to_webhook(&hook, Some(WEBHOOK_SECRET), genuine).await;
    assert_eq!(again, 200, "a redelivery is acknowledged");
    bot.stop().await;
    assert_eq!(
        bot.telegram.sent_messages(ALICE).len(),
        1,
        "and not answered twice"
    );
    let stored = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    assert!(stored.iter().all(|m| !m.content.contains("forged")));
}

/// Webhook calls that come in while an update is being stored wait and are then stored together,
/// in one transaction, as one poll's updates are: under load one commit serves many calls. Each
/// call is answered only once its update is stored, and every message gets its one reply.
#[tokio::test]
async fn webhook_calls_that_come_in_while_one_is_stored_are_stored_together() {
    use sqlx::Connection;
    let (mut bot, hook) = TestBot::start_with_webhook().await;
    for round in 0..4 {
        for person in [ALICE, BOB, CAROL] {
            bot.telegram
                .send_text(person, person, &format!("message {round} of {person}"));
        }
    }
    let updates: Vec<Vec<u8>> = bot
        .telegram
        .take_pending_updates()
        .iter()
        .map(|update| serde_json::to_vec(update).unwrap())
        .collect();
    // SQLite's write lock, held by another connection: the first update's store waits for it.
    let mut holder = sqlx::SqliteConnection::connect(&bot.database_url)
        .await
        .unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut holder)
        .await
        .unwrap();
    let post = |update: Vec<u8>| {
        let hook = hook.clone();
        async move { post_to_webhook(&hook, Some(WEBHOOK_SECRET), update).await }
    };
    let mut updates = updates.into_iter();
    let first = tokio::spawn(post(updates.next().unwrap()));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let others = tokio::spawn(futures_util::future::join_all(updates.map(post)));
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert!(
        !first.is_finished() && !others.is_finished(),
        "no call is answered before its update is stored"
    );
    let released_at_ms = chrono::Utc::now().timestamp_millis();
    sqlx::query("COMMIT").execute(&mut holder).await.unwrap();
    let mut statuses = others.await.unwrap();
    statuses.push(first.await.unwrap());

    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
    let received: Vec<i64> =
        sqlx::query_scalar("SELECT received_at FROM processed_updates ORDER BY update_id")
            .fetch_all(&mut holder)
            .await
            .unwrap();
    assert_eq!(received.len(), 12, "{received:?}");
    // The first update was being stored as the others came in; they waited, and were stored in
    // one statement after the lock was released, all at one time. Stored one by one, each
    // would carry the time its call came in, before the release.
    let after_release: Vec<i64> = received
        .iter()
        .copied()
        .filter(|at| *at >= released_at_ms)
        .collect();
    assert_eq!(
        after_release.len(),
        11,
        "{received:?} (released at {released_at_ms})"
    );
    assert!(
        after_release.iter().all(|at| *at == after_release[0]),
        "{after_release:?}"
    );
    for person in [ALICE, BOB, CAROL] {
        let replies = bot.wait_for_messages(person, 4).await;
        for (round, reply) in replies.iter().enumerate() {
            assert!(
                reply.contains(&format!("message {round} of {person}")),
                "{replies:?}"
            );
        }
    }
    bot.stop().await;
    for person in [ALICE, BOB, CAROL] {
        assert_eq!(bot.telegram.sent_messages(person).len(), 4);
    }
}

#[tokio::test]
async fn health_and_metrics_report_a_live_bot_and_its_conversation() {
    let port = free_port();
    let http_addr = format!("127.0.0.1:{port}");
    let mut bot = TestBot::start_with_args(&["--http-addr", &http_addr]).await;
    bot.telegram.send_text(ALICE, ALICE, "count me");
    bot.wait_for_messages(ALICE, 1).await;

    let health = reqwest::get(format!("http://{http_addr}/healthz"))
        .await
        .unwrap();
    let status = health.status();
    let body: serde_json::Value = health.json().await.unwrap();
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["database"], "ok");
    assert!(
        body["last_telegram_contact_secs_ago"]
            .as_i64()
            .is_some_and(|secs| secs <= 5),
        "{body}"
    );
    let metrics = reqwest::get(format!("http://{http_addr}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for name in [
        "telemem_updates_received_total",
        "telemem_replies_sent_total",
        "telemem_llm_latency_seconds_bucket",
        "telemem_tokens_total",
        "telemem_database_bytes",
        "telemem_job_running{job=\"purge\"} 1\n",
        "telemem_job_running{job=\"summarizer\"} 1\n",
    ] {
        assert!(metrics.contains(name), "{name} missing from:\n{metrics}");
    }
    assert!(!metrics.contains("count me"), "no message text in metrics");
    bot.stop().await;
}

#[tokio::test]
async fn sigterm_in_the_middle_of_a_turn_lets_it_finish_and_loses_nothing() {
    let around = Surroundings::start().await;
    let mut bot = around.spawn_bot(&[]);
    around.llm.push(Behaviour::delay(
        Duration::from_millis(1_500),
        Behaviour::reply("finished after SIGTERM"),
    ));
    around.telegram.send_text(ALICE, ALICE, "a slow question");
    wait_for_model_requests(&around.llm, 1).await;

    bot.signal("TERM");
    let status = bot.wait_for_exit().await;

    assert!(status.success(), "exit status {status:?}");
    assert_eq!(
        around.telegram.sent_messages(ALICE),
        ["finished after SIGTERM"]
    );
    let store = around.store().await;
    let history = store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    let roles: Vec<Role> = history.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
}

#[tokio::test]
async fn the_bot_token_never_appears_in_logs_even_at_trace_level() {
    let around = Surroundings::start().await;
    let telegram = &around.telegram;
    // Streaming and throttling on, as in production: the bot makes every kind of call it makes
    // there.
    let mut bot = around.spawn_bot(&[
        ("LLM_API_KEY", "sk-test-SECRETKEY1234567890abcdef"),
        ("RUST_LOG", "trace"),
        ("STREAM_REPLIES", "true"),
        ("TELEGRAM_THROTTLE", "true"),
    ]);
    telegram.send_text(ALICE, ALICE, "hello");
    telegram
        .wait_for(|calls| called(calls, "sendMessage"), PATIENCE)
        .await;
    bot.signal("TERM");
    bot.wait_for_exit().await;
    let logs = bot.logs();

    assert!(
        logs.len() > 1_000,
        "trace logging was on: {} bytes",
        logs.len()
    );
    assert!(
        !logs.contains(telegram.token()),
        "the bot token leaked into the logs"
    );
    assert!(
        !logs.contains("SECRETKEY1234567890"),
        "the API key leaked into the logs"
    );
}

#[tokio::test]
async fn a_kill_9_under_load_loses_no_message_and_answers_none_twice() {
    let around = Surroundings::start().await;
    let telegram = &around.telegram;
    // A model that takes a while, as real ones do: most of a turn is spent waiting for it, so the
    // kill mostly lands there, where an unfinished turn is simply handled again.
    around.llm.set_default_delay(Duration::from_millis(300));
    let users: Vec<i64> = (1..=8).map(|n| 5_000 + n).collect();
    const TURNS: usize = 4;
    for turn in 0..TURNS {
        for &user in &users {
            telegram.send_text(user, user, &format!("user {user} message {turn}"));
        }
    }
    let mut bot = around.spawn_bot(&[]);
    // Killed once the first two replies of every user are delivered and recorded, while the
    // third turns wait for the model. Not the moment Telegram has taken a reply: that is the one
    // window left open (on Telegram, not yet recorded), where the next run sends it again
    // (docs/ARCHITECTURE.md).
    let first_run_replies = (users.len() * 2) as i64;
    wait_for_update_counts(&around.database.url, |updates| {
        updates.done >= first_run_replies
    })
    .await;

    bot.signal("KILL");
    bot.wait_for_exit().await;
    let mut restarted = around.spawn_bot(&[]);
    let all = users.len() * TURNS;
    telegram
        .wait_for(
            |calls| {
                calls
                    .iter()
                    .filter(|c| c.method == "sendMessage" && c.ok)
                    .count()
                    >= all
            },
            Duration::from_secs(60),
        )
        .await;
    restarted.signal("TERM");
    restarted.wait_for_exit().await;

    let store = around.store().await;
    for &user in &users {
        let replies = telegram.sent_messages(user);
        assert_eq!(replies.len(), TURNS, "user {user} got {replies:?}");
        for turn in 0..TURNS {
            let question = format!("user {user} message {turn}");
            assert_eq!(
                replies.iter().filter(|r| r.contains(&question)).count(),
                1,
                "{question}: {replies:?}"
            );
        }
        let history = store
            .all_messages(ConversationKey::new(ChatId(user), UserId(user)))
            .await
            .unwrap();
        let roles: Vec<Role> = history.iter().map(|m| m.role).collect();
        let expected: Vec<Role> = (0..TURNS)
            .flat_map(|_| [Role::User, Role::Assistant])
            .collect();
        assert_eq!(
            roles, expected,
            "user {user}: no duplicate and no gap in {history:#?}"
        );
    }
}

// The kill -9 under load lands at a moment of its own choosing, which on PostgreSQL's timing
// falls more often in the one window documented as left open (a reply on Telegram, not yet
// recorded): the crash specs on both backends (exactly_once.rs) kill at chosen points instead.
crate::postgres_variants!(
    in_webhook_mode_updates_are_accepted_only_with_the_secret_token,
    health_and_metrics_report_a_live_bot_and_its_conversation,
    sigterm_in_the_middle_of_a_turn_lets_it_finish_and_loses_nothing,
    the_bot_token_never_appears_in_logs_even_at_trace_level,
);

/// docs/CONTRACTS.md is the storage and conversation contracts in one place each: every public
/// method of `Store` and `Conversations` by topic, written from the code by `scripts/contracts`.
/// This keeps it current: a method added, renamed or documented differently fails here until the
/// page is written again.
#[test]
fn the_contracts_page_lists_every_public_method_of_the_store_and_the_conversations() {
    let output = std::process::Command::new("python3")
        .args(["scripts/contracts", "--check"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs scripts/contracts");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
