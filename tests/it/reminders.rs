//! Specifications of reminders and time zones through the real bot: the model sets a reminder
//! with `set_reminder`, read on the person's clock (`/timezone`), and it is sent in the chat it
//! was asked in at its time, once; one due while the bot was down is sent when it is back,
//! marked late; `/reminders` lists a person's own with buttons to cancel them; limits, past
//! times and `/clear`; and two replicas never send one reminder twice.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use telemem::clock::{Clock, ManualClock};
use telemem::storage::{ChatId, ConversationKey, NewReminder, UserId};

use crate::postgres_variants;
use crate::support::bot_harness::{ALICE, BOB, TestBot};
use crate::support::fake_llm::{Behaviour, RecordedRequest};
use crate::support::waiting::{PATIENCE, eventually};

const ALICE_CHAT: ConversationKey = ConversationKey::new(ChatId(ALICE), UserId(ALICE));

/// 2026-03-28 21:00 UTC, a Saturday evening, the night before Europe's clocks go forward.
const SATURDAY_EVENING_MS: i64 = 1_774_731_600_000;
const MINUTE_MS: i64 = 60_000;
const HOUR_MS: i64 = 60 * MINUTE_MS;

/// A bot on a manual clock at Saturday evening, looking for due reminders every second.
async fn bot_on(clock: &ManualClock) -> TestBot {
    TestBot::start_with_clock(&["--reminders-check-secs", "1"], Arc::new(clock.clone())).await
}

/// Alice sends `text`; returns the bot's answer.
async fn say(bot: &TestBot, text: &str) -> String {
    let before = bot.telegram.sent_messages(ALICE).len();
    bot.telegram.send_text(ALICE, ALICE, text);
    bot.wait_for_messages(ALICE, before + 1).await[before].clone()
}

/// The model sets a reminder `text` at `at`, then says "Done.".
async fn model_sets_reminder(bot: &TestBot, text: &str, at: &str) -> String {
    bot.llm.push(Behaviour::tool_calls(&[(
        "set_reminder",
        json!({"text": text, "at": at}),
    )]));
    bot.llm.push(Behaviour::reply("Done."));
    say(bot, &format!("remind me: {text}")).await;
    tool_result(&bot.llm.last_request().expect("a model call"))
}

/// The first tool result a request carries back, in the OpenAI dialect.
fn tool_result(request: &RecordedRequest) -> String {
    request.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|message| message["role"] == "tool")
        .and_then(|message| message["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The bot's messages to Alice that are reminders.
fn reminders_sent(bot: &TestBot, chat: i64) -> Vec<String> {
    bot.telegram
        .sent_messages(chat)
        .into_iter()
        .filter(|text| text.starts_with('⏰'))
        .collect()
}

#[tokio::test]
async fn a_reminder_is_sent_at_the_persons_local_time_once_even_across_a_daylight_saving_change() {
    let clock = ManualClock::starting_at(SATURDAY_EVENING_MS);
    let mut bot = bot_on(&clock).await;
    say(&bot, "/timezone europe/berlin").await;

    // Tomorrow at 9 in Berlin is 09:00 CEST (+02:00), but the model copied today's +01:00.
    let result = model_sets_reminder(&bot, "call Anna", "2026-03-29T09:00:00+01:00").await;
    let system = bot.llm.requests()[0].system_prompt();
    let listed = say(&bot, "/reminders").await;
    clock.advance_ms(9 * HOUR_MS + 59 * MINUTE_MS); // 2026-03-29 06:59 UTC: 08:59 in Berlin
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let early = reminders_sent(&bot, ALICE);
    clock.advance_ms(MINUTE_MS); // 09:00 in Berlin
    bot.telegram
        .wait_for_message(ALICE, |text| text.starts_with('⏰'), PATIENCE)
        .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let sent = reminders_sent(&bot, ALICE);
    let listed_after = say(&bot, "/reminders").await;
    bot.stop().await;

    assert!(
        result.contains("Sun 29 Mar 2026 09:00 CEST") && result.contains("time of day was kept"),
        "{result}"
    );
    assert!(
        system.contains("for the person (time zone Europe/Berlin) it is Sat 28 Mar 2026 22:00 CET"),
        "{system}"
    );
    assert!(
        listed.contains("1. Sun 29 Mar 2026 09:00 CEST — call Anna"),
        "{listed}"
    );
    assert!(early.is_empty(), "not before its time: {early:?}");
    assert_eq!(sent, ["⏰ Reminder: call Anna"]);
    assert!(listed_after.contains("no reminders"), "{listed_after}");
}

#[tokio::test]
async fn a_reminder_due_while_the_bot_was_down_is_sent_when_it_is_back_marked_late() {
    let clock = ManualClock::starting_at(SATURDAY_EVENING_MS);
    let mut bot = bot_on(&clock).await;
    model_sets_reminder(&bot, "take the cake out", "2026-03-28T21:30:00Z").await;
    bot.stop().await;

    clock.advance_ms(3 * HOUR_MS);
    bot.restart_with_clock(Arc::new(clock.clone())).await;
    bot.telegram
        .wait_for_message(ALICE, |text| text.starts_with('⏰'), PATIENCE)
        .await;
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let sent = reminders_sent(&bot, ALICE);
    bot.stop().await;

    assert_eq!(
        sent,
        ["⏰ Reminder (due Sat 28 Mar 2026 21:30 UTC; I was offline then): take the cake out"]
    );
}

#[tokio::test]
async fn the_cancel_button_cancels_only_the_persons_own_reminder() {
    let clock = ManualClock::starting_at(SATURDAY_EVENING_MS);
    let mut bot = bot_on(&clock).await;
    model_sets_reminder(&bot, "water the plants", "2026-03-28T22:00:00Z").await;
    say(&bot, "/reminders").await;
    let list = bot.telegram.bot_messages(ALICE).pop().expect("the list");
    let (label, data) = list.buttons().pop().expect("a cancel button");
    let list_message = list.message_id;
    assert_eq!(label, "✖ Cancel 1");

    bot.telegram.press_button(ALICE, BOB, list_message, &data);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after_bobs_press = bot
        .store
        .pending_reminders(UserId(ALICE))
        .await
        .expect("read");
    bot.telegram.press_button(ALICE, ALICE, list_message, &data);
    let store = bot.store.clone();
    eventually(
        || async {
            store
                .pending_reminders(UserId(ALICE))
                .await
                .expect("read")
                .is_empty()
        },
        PATIENCE,
    )
    .await;
    clock.advance_ms(2 * HOUR_MS);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let sent = reminders_sent(&bot, ALICE);
    bot.stop().await;

    assert_eq!(
        after_bobs_press.len(),
        1,
        "Bob cannot cancel Alice's reminder"
    );
    assert!(
        sent.is_empty(),
        "a cancelled reminder is not sent: {sent:?}"
    );
}

#[tokio::test]
async fn a_time_in_the_past_or_past_the_limit_is_refused_to_the_model() {
    let clock = ManualClock::starting_at(SATURDAY_EVENING_MS);
    let mut bot =
        TestBot::start_with_clock(&["--reminders-max-per-user", "1"], Arc::new(clock.clone()))
            .await;

    let past = model_sets_reminder(&bot, "yesterday's thing", "2026-03-27T09:00:00Z").await;
    let first = model_sets_reminder(&bot, "first", "2026-03-29T09:00:00Z").await;
    let second = model_sets_reminder(&bot, "second", "2026-03-29T10:00:00Z").await;
    let pending = bot
        .store
        .pending_reminders(UserId(ALICE))
        .await
        .expect("read");
    bot.stop().await;

    assert!(
        past.contains("in the past") && past.contains("error=\"true\""),
        "{past}"
    );
    assert!(first.contains("reminder set for"), "{first}");
    assert!(second.contains("the most allowed"), "{second}");
    assert_eq!(pending.len(), 1);
}

#[tokio::test]
async fn timezone_shows_sets_refuses_an_unknown_zone_and_resets() {
    let clock = ManualClock::starting_at(SATURDAY_EVENING_MS);
    let mut bot = bot_on(&clock).await;

    let unset = say(&bot, "/timezone").await;
    let set = say(&bot, "/timezone America/New York").await;
    let shown = say(&bot, "/timezone").await;
    let unknown = say(&bot, "/timezone Mars/Olympus").await;
    let reset = say(&bot, "/timezone reset").await;
    bot.stop().await;

    assert!(
        unset.contains("You have not set a time zone, so I use UTC"),
        "{unset}"
    );
    assert!(
        set.contains("America/New_York") && set.contains("Sat 28 Mar 2026 17:00 EDT"),
        "{set}"
    );
    assert!(
        shown.starts_with("Your time zone is America/New_York"),
        "{shown}"
    );
    assert!(unknown.contains("“Mars/Olympus”"), "{unknown}");
    assert!(reset.contains("I use UTC again"), "{reset}");
}

#[tokio::test]
async fn the_model_is_told_to_ask_for_an_unknown_time_zone_and_can_set_it() {
    let clock = ManualClock::starting_at(SATURDAY_EVENING_MS);
    let mut bot = bot_on(&clock).await;
    bot.llm.push(Behaviour::tool_calls(&[(
        "set_timezone",
        json!({"zone": "Europe/Paris"}),
    )]));
    bot.llm.push(Behaviour::reply("Got it."));

    say(&bot, "I live in Paris").await;
    let first = bot.llm.requests()[0].system_prompt();
    let result = tool_result(&bot.llm.last_request().expect("a model call"));
    say(&bot, "Thanks").await;
    let later = bot
        .llm
        .last_request()
        .expect("a model call")
        .system_prompt();
    let shown = say(&bot, "/timezone").await;
    bot.stop().await;

    assert!(
        first.contains("has not told you their time zone"),
        "{first}"
    );
    assert!(result.contains("time zone set to Europe/Paris"), "{result}");
    assert!(
        !later.contains("has not told you their time zone"),
        "{later}"
    );
    assert!(
        shown.starts_with("Your time zone is Europe/Paris"),
        "{shown}"
    );
}

#[tokio::test]
async fn export_carries_the_conversations_reminders_in_json_and_markdown() {
    let clock = ManualClock::starting_at(SATURDAY_EVENING_MS);
    let mut bot = bot_on(&clock).await;
    model_sets_reminder(&bot, "buy bread", "2026-03-29T10:00:00Z").await;
    bot.telegram.send_text(ALICE, ALICE, "/export json");
    bot.telegram.send_text(ALICE, ALICE, "/export");
    let telegram = &bot.telegram;
    telegram
        .wait_for(|_| telegram.sent_documents().len() >= 2, PATIENCE)
        .await;
    bot.stop().await;

    let documents = bot.telegram.sent_documents();
    let json: serde_json::Value = serde_json::from_slice(&documents[0].bytes).expect("JSON");
    let markdown = String::from_utf8(documents[1].bytes.clone()).expect("UTF-8");
    assert_eq!(json["reminders"][0]["text"], "buy bread");
    assert_eq!(json["reminders"][0]["state"], "pending");
    assert_eq!(json["messages"].as_array().map(Vec::len), Some(2));
    assert!(
        markdown.contains("## Reminders\n\n- ⏳ 2026-03-29 10:00 UTC — buy bread"),
        "{markdown}"
    );
}

#[tokio::test]
async fn clear_removes_the_conversations_reminders() {
    let clock = ManualClock::starting_at(SATURDAY_EVENING_MS);
    let mut bot = bot_on(&clock).await;
    model_sets_reminder(&bot, "feed the cat", "2026-03-28T22:00:00Z").await;
    bot.store
        .clear_conversation(ALICE_CHAT)
        .await
        .expect("clear");
    clock.advance_ms(2 * HOUR_MS);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let sent = reminders_sent(&bot, ALICE);
    bot.stop().await;

    assert!(sent.is_empty(), "{sent:?}");
}

/// Two replicas share one PostgreSQL database; forty reminders fall due at once.
fn two_replicas_send_each_due_reminder_once() {
    tokio::runtime::Runtime::new()
        .expect("a runtime")
        .block_on(async {
            let mut bot = TestBot::start_with_args(&["--reminders-check-secs", "1"]).await;
            let (second, second_running) = bot.start_replica().await;
            let now_ms = telemem::clock::SystemClock.now_ms();
            for number in 0..40 {
                let text = format!("reminder {number}");
                let reminder = NewReminder {
                    key: ALICE_CHAT,
                    text: &text,
                    due_at_ms: now_ms + 1_000,
                    created_at_ms: now_ms,
                };
                bot.store.add_reminder(&reminder, 100).await.expect("add");
            }
            let telegram = &bot.telegram;
            telegram
                .wait_for(|_| reminders_sent_in(telegram, ALICE) >= 40, PATIENCE)
                .await;
            tokio::time::sleep(Duration::from_secs(2)).await;
            let mut sent = reminders_sent(&bot, ALICE);
            second.cancel();
            let _ = second_running.await;
            bot.stop().await;

            sent.sort();
            let mut expected: Vec<String> = (0..40)
                .map(|number| format!("⏰ Reminder: reminder {number}"))
                .collect();
            expected.sort();
            assert_eq!(sent, expected);
        });
}

fn reminders_sent_in(telegram: &crate::support::fake_telegram::FakeTelegram, chat: i64) -> usize {
    telegram
        .sent_messages(chat)
        .iter()
        .filter(|text| text.starts_with('⏰'))
        .count()
}

#[test]
fn two_replicas_on_postgres_send_each_due_reminder_once() {
    crate::support::database::on_postgres(two_replicas_send_each_due_reminder_once);
}

postgres_variants!(a_reminder_due_while_the_bot_was_down_is_sent_when_it_is_back_marked_late);
