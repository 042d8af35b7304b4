//! End-to-end specifications of the per-person limits, through the real dispatcher against the
//! fake Telegram and the fake LLM: the daily token limit (its refusal, `/stats`, an admin's
//! `/limit`) and the stored-history cap.

use std::sync::Arc;

use telemem::clock::ManualClock;
use telemem::i18n::Lang;
use telemem::replies;
use telemem::storage::{ChatId, ConversationKey, NewMessage, Role, Store, UserId};

use crate::support::bot_harness::{ALICE, BOB, GROUP, TestBot};
use crate::support::fake_telegram::BOT_USERNAME;
use crate::support::times::{DAY_MS, HOUR_MS, MIDNIGHT_MS};
use crate::support::waiting::{PATIENCE, eventually};

/// An admin (ADMIN_USERS) in the specs below.
const ADMIN: i64 = 777;

/// 20:00 UTC on 2026-11-30: the daily limits reset four hours later.
fn evening() -> Arc<ManualClock> {
    Arc::new(ManualClock::starting_at(MIDNIGHT_MS + 20 * HOUR_MS))
}

fn private(user: i64) -> ConversationKey {
    ConversationKey::new(ChatId(user), UserId(user))
}

fn in_group(user: i64) -> ConversationKey {
    ConversationKey::new(ChatId(GROUP), UserId(user))
}

/// The tokens stored on the messages of `key`'s conversation.
async fn tokens_of(store: &Store, key: ConversationKey) -> i64 {
    store
        .all_messages(key)
        .await
        .unwrap()
        .iter()
        .map(|message| message.tokens_in + message.tokens_out)
        .sum()
}

#[tokio::test]
async fn past_the_daily_token_limit_a_message_gets_the_reset_time_is_not_stored_and_reaches_no_model()
 {
    let admin = ADMIN.to_string();
    let args = ["--user-daily-token-limit", "10", "--admin-users", &admin];
    let mut bot = TestBot::start_with_clock(&args, evening()).await;
    // Alice spends her tokens in a group: the limit counts all her chats.
    let mention = format!("@{BOT_USERNAME} what is a parcel?");
    bot.telegram.send_group_text(GROUP, ALICE, &mention, false);
    bot.wait_for_messages(GROUP, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "and where is mine?");
    let refusal = bot.wait_for_messages(ALICE, 1).await;
    // Admins are exempt.
    bot.telegram.send_text(ADMIN, ADMIN, "first of mine");
    bot.telegram.send_text(ADMIN, ADMIN, "second of mine");
    bot.wait_for_messages(ADMIN, 2).await;
    bot.stop().await;

    assert!(
        refusal[0].contains("used your 10 tokens for today")
            && refusal[0].contains("resets at 2026-12-01 00:00 UTC (in 4 hours)"),
        "{refusal:?}"
    );
    let requests = bot.llm.requests();
    assert_eq!(requests.len(), 3, "the group turn and the admin's two");
    assert!(
        requests
            .iter()
            .all(|request| !request.everything_sent().contains("where is mine")),
        "the refused message reached the model"
    );
    assert!(
        bot.store
            .all_messages(private(ALICE))
            .await
            .unwrap()
            .is_empty(),
        "the refused message is not stored"
    );
    assert!(tokens_of(&bot.store, in_group(ALICE)).await >= 10);
}

#[tokio::test]
async fn stats_show_the_tokens_of_all_the_persons_chats_today_against_the_limit() {
    let args = ["--user-daily-token-limit", "50000"];
    let mut bot = TestBot::start_with_clock(&args, evening()).await;
    let mention = format!("@{BOT_USERNAME} hello group");
    bot.telegram.send_group_text(GROUP, ALICE, &mention, false);
    bot.wait_for_messages(GROUP, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "hello private");
    bot.wait_for_messages(ALICE, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "/stats");
    let replies = bot.wait_for_messages(ALICE, 2).await;
    bot.stop().await;

    let in_group = tokens_of(&bot.store, in_group(ALICE)).await;
    let in_private = tokens_of(&bot.store, private(ALICE)).await;
    assert!(in_group > 0 && in_private > 0);
    let expected = format!(
        "Tokens today: {} of 50,000 (in all your chats)",
        replies::thousands(Lang::En, (in_group + in_private) as u64)
    );
    assert!(replies[1].contains(&expected), "{}", replies[1]);
}

#[tokio::test]
async fn an_admins_limit_command_shows_lifts_raises_and_restores_one_persons_limit() {
    let admin = ADMIN.to_string();
    let args = ["--user-daily-token-limit", "10", "--admin-users", &admin];
    let mut bot = TestBot::start_with_clock(&args, evening()).await;
    let telegram = &bot.telegram;
    telegram.send_text(ALICE, ALICE, "first");
    bot.wait_for_messages(ALICE, 1).await;
    telegram.send_text(ALICE, ALICE, "second");
    bot.wait_for_text(ALICE, "used your 10 tokens").await;

    telegram.send_text(ADMIN, ADMIN, &format!("/limit {ALICE}"));
    telegram.send_text(ADMIN, ADMIN, &format!("/limit {ALICE} off"));
    bot.wait_for_messages(ADMIN, 2).await;
    telegram.send_text(ALICE, ALICE, "third");
    bot.wait_for_text(ALICE, "third").await;
    telegram.send_text(ADMIN, ADMIN, &format!("/limit {ALICE} default"));
    bot.wait_for_messages(ADMIN, 3).await;
    telegram.send_text(ALICE, ALICE, "fourth");
    bot.wait_for_messages(ALICE, 4).await;
    telegram.send_text(ADMIN, ADMIN, &format!("/limit {ALICE} 2,000,000"));
    bot.wait_for_messages(ADMIN, 4).await;
    telegram.send_text(ALICE, ALICE, "fifth");
    bot.wait_for_text(ALICE, "fifth").await;
    bot.stop().await;

    let admin_replies = bot.telegram.sent_messages(ADMIN);
    assert_eq!(
        admin_replies,
        [
            "Daily token limit of 111: 10 tokens a day (USER_DAILY_TOKEN_LIMIT).",
            "Daily token limit of 111: no limit (set by admin 777 with /limit).",
            "Daily token limit of 111: 10 tokens a day (USER_DAILY_TOKEN_LIMIT).",
            "Daily token limit of 111: 2,000,000 tokens a day (set by admin 777 with /limit).",
        ]
    );
    let alice = bot.telegram.sent_messages(ALICE);
    assert!(alice[3].contains("used your 10 tokens"), "{alice:?}");
    let asked: Vec<String> = bot
        .llm
        .requests()
        .iter()
        .map(|request| request.everything_sent())
        .collect();
    assert_eq!(asked.len(), 3, "first, third and fifth");
    assert!(asked.iter().all(|sent| !sent.contains("fourth")));
    let stored = bot.store.token_limit(UserId(ALICE)).await.unwrap().unwrap();
    assert_eq!(
        (stored.daily_tokens, stored.set_by),
        (Some(2_000_000), UserId(ADMIN))
    );
}

/// A closed, summarized session of `key` from `at_ms`, holding one message `content`; returns its
/// id. Summarized, so the summarizer leaves it alone.
async fn closed_session(store: &Store, key: ConversationKey, at_ms: i64, content: &str) -> i64 {
    let (session, _) = store.start_session(key, at_ms).await.unwrap();
    store
        .add_message(&NewMessage {
            key,
            session_id: session.id,
            role: Role::User,
            content,
            created_at_ms: at_ms + 1_000,
            tokens_in: 0,
            tokens_out: 0,
            telegram_message_id: None,
        })
        .await
        .unwrap();
    store.close_session(key, at_ms + 2_000).await.unwrap();
    let summary = format!("session {}", session.id);
    store
        .add_summary(session.id, key, &summary, at_ms + 3_000)
        .await
        .unwrap();
    session.id
}

/// The sessions of `key` that still have their summary, by id.
async fn summarized_sessions(store: &Store, key: ConversationKey) -> Vec<i64> {
    let summaries = store.recent_summaries(key, 0, 100).await.unwrap();
    let mut sessions: Vec<i64> = summaries.iter().map(|summary| summary.session_id).collect();
    sessions.sort_unstable();
    sessions
}

async fn messages_of_session(store: &Store, session_id: i64) -> usize {
    store.session_messages(session_id).await.unwrap().len()
}

#[tokio::test]
async fn past_the_stored_history_cap_only_that_persons_oldest_sessions_go_and_they_are_told_once() {
    let args = [
        "--user-max-stored-mb",
        "1",
        "--summarizer-interval-secs",
        "3600",
    ];
    let mut bot = TestBot::start_with_clock(&args, evening()).await;
    let store = bot.store.clone();
    let big = "x".repeat(400_000);
    let days_ago = |days: i64| MIDNIGHT_MS - days * DAY_MS;
    // Bob keeps 800 kB in sessions older than all of Alice's: under the cap, so untouched.
    let bob_sessions = [
        closed_session(&store, private(BOB), days_ago(6), &big).await,
        closed_session(&store, private(BOB), days_ago(5), &big).await,
    ];
    // Alice keeps 1.2 MB: over the 1 MiB cap.
    let alice_oldest = closed_session(&store, private(ALICE), days_ago(3), &big).await;
    let alice_older = closed_session(&store, private(ALICE), days_ago(2), &big).await;
    let alice_old = closed_session(&store, private(ALICE), days_ago(1), &big).await;

    bot.telegram.send_text(ALICE, ALICE, "hello");
    bot.wait_for_text(ALICE, "reached its limit of 1 MB").await;
    assert_eq!(messages_of_session(&store, alice_oldest).await, 0);
    assert_eq!(
        summarized_sessions(&store, private(ALICE)).await,
        [alice_older, alice_old],
        "the summary went with its session"
    );
    for kept in [alice_older, alice_old].into_iter().chain(bob_sessions) {
        assert_eq!(messages_of_session(&store, kept).await, 1);
    }

    // Over the cap again, now through a group: trimmed again, but not told again.
    closed_session(&store, in_group(ALICE), MIDNIGHT_MS, &big).await;
    bot.telegram.send_text(ALICE, ALICE, "hello again");
    let trimmed = eventually(
        || async { messages_of_session(&store, alice_older).await == 0 },
        PATIENCE,
    )
    .await;
    assert!(trimmed, "the next oldest session of Alice was not deleted");
    bot.telegram.send_text(ALICE, ALICE, "one more");
    bot.wait_for_text(ALICE, "one more").await;
    bot.stop().await;

    let notices = bot
        .telegram
        .sent_messages(ALICE)
        .into_iter()
        .filter(|text| text.contains("reached its limit"))
        .count();
    assert_eq!(notices, 1);
    for kept in [alice_old].into_iter().chain(bob_sessions) {
        assert_eq!(messages_of_session(&store, kept).await, 1);
    }
    assert_eq!(summarized_sessions(&store, private(BOB)).await.len(), 2);
    assert!(store.stored_bytes(UserId(ALICE)).await.unwrap().bytes <= 1024 * 1024);
}

crate::postgres_variants!(
    past_the_daily_token_limit_a_message_gets_the_reset_time_is_not_stored_and_reaches_no_model,
    stats_show_the_tokens_of_all_the_persons_chats_today_against_the_limit,
    an_admins_limit_command_shows_lifts_raises_and_restores_one_persons_limit,
    past_the_stored_history_cap_only_that_persons_oldest_sessions_go_and_they_are_told_once,
);
