//! Specifications of the bot under overload and when its surroundings fail: one flooding person
//! never delays another, the per-user limits, a Bot API that cannot be reached at start or goes
//! away while running, and a shutdown bounded by its grace period.

use std::time::{Duration, Instant};

use telemem::storage::{ChatId, ConversationKey, Role, Store, UserId};

use crate::support::bot_harness::{ALICE, BOB, TestBot};
use crate::support::bot_process::{Surroundings, free_port, wait_for_update_counts};
use crate::support::fake_llm::{Behaviour, FakeLlm, last_user_message};
use crate::support::waiting::{PATIENCE, eventually, wait_for_model_requests};

/// How long the fake model takes per answer in the flood scenarios.
const MODEL_TIME: Duration = Duration::from_millis(300);

const LIMITS_OFF: [&str; 4] = ["--user-max-pending", "0", "--user-messages-per-minute", "0"];

/// The model requests whose newest message contains `needle`.
fn model_requests_for(llm: &FakeLlm, needle: &str) -> usize {
    llm.requests()
        .iter()
        .filter(|request| last_user_message(&request.body).contains(needle))
        .count()
}

/// Waits until every stored update is finished (answered, turned away or ignored).
async fn wait_until_every_update_is_finished(store: &Store) {
    let unfinished = || async { store.unfinished_updates(0, i64::MAX).await.unwrap() };
    if !eventually(|| async { unfinished().await.is_empty() }, PATIENCE).await {
        panic!("still unfinished: {:?}", unfinished().await);
    }
}

/// ALICE sends `count` messages at once; returns when the bot has answered the first.
async fn flood(bot: &TestBot, count: usize) {
    for n in 0..count {
        bot.telegram.send_text(ALICE, ALICE, &format!("flood {n}"));
    }
    bot.wait_for_messages(ALICE, 1).await;
}

/// BOB asks one question while ALICE floods; returns how long his answer took.
async fn time_bobs_turn(bot: &TestBot) -> Duration {
    let asked = Instant::now();
    bot.telegram.send_text(BOB, BOB, "my one question");
    let replies = bot.wait_for_messages(BOB, 1).await;
    assert!(replies[0].contains("my one question"), "{replies:?}");
    asked.elapsed()
}

#[tokio::test]
async fn one_flooding_user_never_delays_another_users_turn() {
    let mut args = LIMITS_OFF.to_vec();
    args.extend(["--shutdown-grace-secs", "1"]);
    let mut bot = TestBot::start_with_args(&args).await;
    bot.llm.set_default_delay(MODEL_TIME);

    flood(&bot, 120).await;
    let bobs_wait = time_bobs_turn(&bot).await;

    assert!(
        bobs_wait < MODEL_TIME + Duration::from_secs(1),
        "BOB waited {bobs_wait:?} behind ALICE's backlog"
    );
    bot.stop().await;
}

#[tokio::test]
async fn past_the_pending_limit_a_flood_gets_one_notice_and_never_reaches_the_model() {
    let mut bot = TestBot::start().await;
    bot.llm.set_default_delay(MODEL_TIME);

    flood(&bot, 120).await;
    let bobs_wait = time_bobs_turn(&bot).await;
    wait_for_update_counts(&bot.database_url, |counts| counts.done == 121).await;
    bot.stop().await;

    let replies = bot.telegram.sent_messages(ALICE);
    let notices = replies
        .iter()
        .filter(|reply| reply.contains("faster than I can answer"))
        .count();
    assert_eq!(notices, 1, "{replies:#?}");
    assert_eq!(replies.len(), 5 + 1, "five answers and the notice");
    assert_eq!(model_requests_for(&bot.llm, "flood"), 5);
    assert!(
        bobs_wait < MODEL_TIME + Duration::from_secs(1),
        "{bobs_wait:?}"
    );
    let stored = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    assert_eq!(
        stored.iter().filter(|m| m.role == Role::User).count(),
        5,
        "messages turned away are not stored"
    );
}

#[tokio::test]
async fn past_the_per_minute_limit_messages_get_one_notice() {
    let mut bot =
        TestBot::start_with_args(&["--user-messages-per-minute", "3", "--user-max-pending", "0"])
            .await;
    for n in 0..3 {
        bot.telegram.send_text(ALICE, ALICE, &format!("paced {n}"));
        bot.wait_for_messages(ALICE, n + 1).await;
    }

    for n in 3..6 {
        bot.telegram.send_text(ALICE, ALICE, &format!("paced {n}"));
    }
    // All six stored and handled: the last three may still be on their way from Telegram.
    wait_for_update_counts(&bot.database_url, |counts| counts.done == 6).await;
    bot.stop().await;

    let replies = bot.telegram.sent_messages(ALICE);
    assert_eq!(replies.len(), 4, "{replies:#?}");
    assert!(replies[3].contains("more than 3 messages in a minute"));
    assert_eq!(model_requests_for(&bot.llm, "paced"), 3);
}

#[tokio::test]
async fn administrators_are_not_limited() {
    let admin = ALICE.to_string();
    let mut bot =
        TestBot::start_with_args(&["--admin-users", &admin, "--user-max-pending", "2"]).await;
    // A model that takes a while, so more than two of the admin's messages are surely waiting.
    bot.llm.set_default_delay(MODEL_TIME);
    for n in 0..6 {
        bot.telegram.send_text(ALICE, ALICE, &format!("admin {n}"));
    }
    let replies = bot.wait_for_messages(ALICE, 6).await;
    wait_until_every_update_is_finished(&bot.store).await;
    bot.stop().await;

    assert!(
        replies.iter().all(|reply| reply.contains("] admin")),
        "{replies:#?}"
    );
    assert_eq!(model_requests_for(&bot.llm, "admin"), 6);
}

#[tokio::test]
async fn when_telegram_goes_away_while_running_polling_retries_and_nothing_is_lost() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "before the outage");
    bot.wait_for_messages(ALICE, 1).await;

    bot.telegram.set_down(true);
    for n in 0..3 {
        bot.telegram
            .send_text(ALICE, ALICE, &format!("during the outage {n}"));
    }
    // Long enough for several polls to fail.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    bot.telegram.set_down(false);
    let replies = bot.wait_for_messages(ALICE, 4).await;
    wait_until_every_update_is_finished(&bot.store).await;
    bot.stop().await;

    for n in 0..3 {
        let question = format!("during the outage {n}");
        assert_eq!(
            replies.iter().filter(|r| r.contains(&question)).count(),
            1,
            "{replies:#?}"
        );
    }
    assert_eq!(bot.telegram.sent_messages(ALICE).len(), 4);
}

/// `/healthz` of a bot process at `http_addr`: the status and the body.
async fn health(http_addr: &str) -> (u16, serde_json::Value) {
    let response = reqwest::get(format!("http://{http_addr}/healthz"))
        .await
        .expect("the health endpoint answers");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

#[tokio::test]
async fn a_bot_started_while_telegram_is_unreachable_waits_unhealthy_and_then_serves() {
    let around = Surroundings::start().await;
    let telegram = &around.telegram;
    let http_addr = format!("127.0.0.1:{}", free_port());
    telegram.set_down(true);

    let mut bot = around.spawn_bot(&[("HTTP_ADDR", &http_addr)]);
    bot.wait_for_log("cannot reach the Telegram Bot API", 2)
        .await;
    let (status_while_down, body_while_down) = health(&http_addr).await;
    telegram.set_down(false);
    telegram.send_text(ALICE, ALICE, "are you there?");
    telegram.wait_for_message(ALICE, |_| true, PATIENCE).await;
    let (status_after, _) = health(&http_addr).await;
    bot.signal("TERM");
    let exit = bot.wait_for_exit().await;
    let logs = bot.logs();

    assert_eq!(status_while_down, 503, "{body_while_down}");
    assert!(
        body_while_down["reason"]
            .as_str()
            .is_some_and(|reason| reason.contains("Telegram not reached yet")),
        "{body_while_down}"
    );
    assert_eq!(status_after, 200);
    assert!(exit.success(), "{exit:?}\n{logs}");
    assert!(logs.contains(telegram.api_url().as_str()), "{logs}");
    assert!(!logs.contains(telegram.token()), "the token leaked: {logs}");
    assert!(!logs.contains("panicked"), "{logs}");
    assert_eq!(telegram.sent_messages(ALICE).len(), 1);
}

#[tokio::test]
async fn an_invalid_token_ends_the_start_at_once_with_a_clear_message() {
    let around = Surroundings::start().await;

    let started = Instant::now();
    let mut bot = around.spawn_bot(&[("TELOXIDE_TOKEN", "123456:not-the-token")]);
    let exit = bot.wait_for_exit().await;
    let logs = bot.logs();

    assert!(!exit.success());
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(logs.contains("Telegram rejected the bot token"), "{logs}");
    assert!(!logs.contains("panicked"), "{logs}");
    assert!(!logs.contains("not-the-token"), "{logs}");
    assert!(!logs.to_lowercase().contains("backtrace"), "{logs}");
}

#[tokio::test]
async fn sigterm_stops_within_the_grace_period_and_the_next_start_answers_what_was_left() {
    let around = Surroundings::start().await;
    let telegram = &around.telegram;
    let grace = [("SHUTDOWN_GRACE_SECS", "1")];
    around.llm.push(Behaviour::Hang);
    let mut first = around.spawn_bot(&grace);
    for n in 0..3 {
        telegram.send_text(ALICE, ALICE, &format!("left over {n}"));
    }
    wait_for_model_requests(&around.llm, 1).await;
    // All three are stored by the first run before it stops: what it leaves is in its database.
    let records = around.store().await;
    assert!(
        eventually(
            || async {
                let unfinished = records.unfinished_updates(0, i64::MAX).await.unwrap();
                unfinished.len() == 3
            },
            PATIENCE
        )
        .await,
        "the first run did not store all three"
    );

    let signalled = Instant::now();
    first.signal("TERM");
    let exit = first.wait_for_exit().await;
    let stop_time = signalled.elapsed();
    let mut second = around.spawn_bot(&grace);
    telegram
        .wait_for(|_| telegram.sent_messages(ALICE).len() >= 3, PATIENCE)
        .await;
    wait_until_every_update_is_finished(&records).await;
    second.signal("TERM");
    second.wait_for_exit().await;

    assert!(exit.success(), "{exit:?}\n{}", first.logs());
    assert!(
        stop_time < Duration::from_secs(4),
        "took {stop_time:?} to stop"
    );
    let replies = telegram.sent_messages(ALICE);
    assert_eq!(replies.len(), 3, "{replies:#?}");
    for n in 0..3 {
        let question = format!("left over {n}");
        assert_eq!(
            replies.iter().filter(|r| r.contains(&question)).count(),
            1,
            "{replies:#?}"
        );
    }
}

/// The most intervals of `timings` that overlap at one instant.
fn most_at_once(timings: &[crate::support::fake_llm::Timing]) -> usize {
    let mut edges: Vec<(tokio::time::Instant, i32)> = timings
        .iter()
        .flat_map(|timing| [(timing.received_at, 1), (timing.answered_at, -1)])
        .collect();
    // An answer that ends as another request arrives is not counted twice.
    edges.sort_by_key(|&(at, change)| (at, change));
    let mut open = 0;
    let mut most = 0;
    for (_, change) in edges {
        open += change;
        most = most.max(open);
    }
    usize::try_from(most).unwrap_or(0)
}

#[tokio::test]
async fn no_more_turns_than_max_turns_in_flight_wait_for_the_model_at_once() {
    const PEOPLE: i64 = 12;
    let mut args = LIMITS_OFF.to_vec();
    args.extend(["--allow-all-users", "true", "--max-turns-in-flight", "3"]);
    let mut bot = TestBot::start_with_args(&args).await;
    bot.llm.set_default_delay(MODEL_TIME);

    for person in 0..PEOPLE {
        let id = 5_000 + person;
        bot.telegram.send_text(id, id, &format!("question of {id}"));
    }
    for person in 0..PEOPLE {
        let id = 5_000 + person;
        let replies = bot.wait_for_messages(id, 1).await;
        assert!(
            replies[0].contains(&format!("question of {id}")),
            "{replies:?}"
        );
    }
    bot.stop().await;

    let timings = bot.llm.take_timings();
    assert_eq!(timings.len(), 12, "one model request per question");
    let most = most_at_once(&timings);
    assert!(
        most <= 3,
        "{most} model requests at once, past MAX_TURNS_IN_FLIGHT=3"
    );
    assert!(
        most >= 2,
        "the slots were not used side by side: at most {most} at once"
    );
}
