//! End-to-end specifications of inline mode (`@bot question` in any chat), through the real
//! dispatcher against the fake Telegram and the fake LLM: the one personal result an allowed
//! person is offered, nothing for strangers, and the chosen result answered in the message it
//! posted as a turn of the person's private chat, refusals and failures included.

use std::sync::Arc;

use serde_json::Value;
use telemem::clock::ManualClock;
use telemem::i18n::Lang;
use telemem::replies;
use telemem::storage::{ChatId, ConversationKey, Role, UserId};

use crate::support::bot_harness::{ALICE, TestBot};
use crate::support::bot_process::Surroundings;
use crate::support::fake_llm::Behaviour;
use crate::support::fake_telegram::{BotMessage, FakeTelegram, Hold};
use crate::support::times::{HOUR_MS, MIDNIGHT_MS};
use crate::support::waiting::{PATIENCE, wait_for_model_requests};

const STRANGER: i64 = 999;

fn private(user: i64) -> ConversationKey {
    ConversationKey::new(ChatId(user), UserId(user))
}

/// Sends `@bot <query>` from `user` and returns the bot's `answerInlineQuery` parameters, with
/// the query's update id.
async fn ask_inline(telegram: &FakeTelegram, user: i64, query: &str) -> (i64, Value) {
    let update_id = telegram.send_inline_query(user, query);
    let query_id = format!("inline-{update_id}");
    let answered = || {
        telegram
            .inline_answers()
            .into_iter()
            .find(|(answered, _)| *answered == query_id)
            .map(|(_, params)| params)
    };
    telegram.wait_for(|_| answered().is_some(), PATIENCE).await;
    (update_id, answered().expect("the answer"))
}

/// Asks `question` inline as `user` and chooses the result; returns the posted message's id.
async fn ask_and_choose(bot: &TestBot, user: i64, question: &str) -> String {
    choose(&bot.telegram, user, question).await
}

/// [`ask_and_choose`] on `telegram`.
async fn choose(telegram: &FakeTelegram, user: i64, question: &str) -> String {
    let (query_update, _) = ask_inline(telegram, user, question).await;
    let chosen = telegram.choose_inline_result(user, query_update);
    chosen
        .inline_message_id
        .expect("the result carries a keyboard, so Telegram names the posted message")
}

/// Waits until the inline message `id` satisfies `wanted`, then returns it.
async fn wait_for_inline(
    telegram: &FakeTelegram,
    id: &str,
    wanted: impl Fn(&BotMessage) -> bool,
) -> BotMessage {
    let matches = || {
        telegram
            .inline_message(id)
            .filter(|message| wanted(message))
    };
    telegram.wait_for(|_| matches().is_some(), PATIENCE).await;
    matches().expect("the inline message")
}

#[tokio::test]
async fn an_allowed_persons_inline_query_gets_one_personal_uncached_article_with_buttons() {
    let mut bot = TestBot::start().await;

    let (_, answer) = ask_inline(&bot.telegram, ALICE, "What is a parcel locker?").await;
    bot.stop().await;

    let results = answer["results"].as_array().expect("results");
    assert_eq!(results.len(), 1, "{answer}");
    let article = &results[0];
    assert_eq!(article["type"], "article");
    assert_eq!(article["description"], "What is a parcel locker?");
    assert!(
        article["title"].as_str().unwrap().contains("Ask"),
        "{article}"
    );
    let posted = article["input_message_content"]["message_text"]
        .as_str()
        .unwrap();
    assert!(posted.contains("What is a parcel locker?"), "{posted}");
    let keyboard = article["reply_markup"]["inline_keyboard"]
        .as_array()
        .expect("an inline keyboard");
    assert!(!keyboard.is_empty(), "{article}");
    assert_eq!(answer["is_personal"], true);
    assert_eq!(answer["cache_time"], 0);
    assert!(bot.llm.requests().is_empty(), "offering asks no model");
}

#[tokio::test]
async fn a_strangers_inline_query_and_an_empty_one_get_no_result_and_nothing_is_stored_or_asked() {
    let mut bot = TestBot::start().await;

    let (_, strangers) = ask_inline(&bot.telegram, STRANGER, "tell me a secret").await;
    let (_, empty) = ask_inline(&bot.telegram, ALICE, "   ").await;
    bot.stop().await;

    assert_eq!(strangers["results"], serde_json::json!([]), "{strangers}");
    assert_eq!(empty["results"], serde_json::json!([]), "{empty}");
    assert!(bot.llm.requests().is_empty());
    assert!(
        bot.store
            .all_messages(private(STRANGER))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        bot.store.user_settings(UserId(STRANGER)).await.unwrap(),
        None,
        "nothing of the stranger's is stored"
    );
    assert!(
        bot.telegram.sent_messages(STRANGER).is_empty(),
        "and no refusal is sent"
    );
}

#[tokio::test]
async fn a_chosen_result_streams_its_answer_into_the_posted_message_with_the_private_chats_memory_and_stores_it_there()
 {
    let mut bot = TestBot::start_with_args(&["--stream-replies", "true"]).await;
    bot.telegram
        .send_text(ALICE, ALICE, "/remember I live in Lisbon");
    bot.wait_for_messages(ALICE, 1).await;
    let held = bot
        .llm
        .hold_stream(&["Take the tram"], " to the locker at the station.");

    let id = ask_and_choose(&bot, ALICE, "How do I get to my parcel?").await;
    let streaming = wait_for_inline(&bot.telegram, &id, |message| {
        message.text.contains("Take the tram")
    })
    .await;
    held.release();
    let answered = wait_for_inline(&bot.telegram, &id, |message| {
        message.text.contains("at the station.")
    })
    .await;
    bot.stop().await;

    assert!(
        streaming
            .buttons()
            .iter()
            .any(|(label, data)| label.contains("Stop") && data.starts_with("stop:")),
        "the streamed answer has its Stop button: {streaming:?}"
    );
    assert_eq!(
        answered.text,
        "❓ How do I get to my parcel?\n\nTake the tram to the locker at the station."
    );
    assert_eq!(
        answered.reply_markup, None,
        "the final edit drops the button"
    );
    let system = bot
        .llm
        .last_request()
        .expect("a model call")
        .system_prompt();
    assert!(system.contains("I live in Lisbon"), "{system}");
    let history = bot.store.all_messages(private(ALICE)).await.unwrap();
    let exchange: Vec<(Role, &str)> = history
        .iter()
        .map(|message| (message.role, message.content.as_str()))
        .collect();
    assert_eq!(
        exchange,
        [
            (Role::User, "How do I get to my parcel?"),
            (
                Role::Assistant,
                "Take the tram to the locker at the station."
            ),
        ]
    );
    assert!(
        bot.telegram.sent_messages(ALICE).len() == 1,
        "nothing more is sent in the private chat"
    );
}

#[tokio::test]
async fn past_the_daily_token_limit_a_chosen_result_shows_the_limit_and_reaches_no_model() {
    let evening = Arc::new(ManualClock::starting_at(MIDNIGHT_MS + 20 * HOUR_MS));
    let mut bot = TestBot::start_with_clock(&["--user-daily-token-limit", "10"], evening).await;
    bot.telegram
        .send_text(ALICE, ALICE, "what is a parcel locker?");
    bot.wait_for_messages(ALICE, 1).await;

    let id = ask_and_choose(&bot, ALICE, "and where is mine?").await;
    let refused = wait_for_inline(&bot.telegram, &id, |message| message.edited).await;
    bot.stop().await;

    assert!(
        refused.text.contains("used your 10 tokens for today"),
        "{refused:?}"
    );
    assert_eq!(bot.llm.requests().len(), 1, "only the private message");
    let history = bot.store.all_messages(private(ALICE)).await.unwrap();
    assert!(
        history
            .iter()
            .all(|message| !message.content.contains("where is mine")),
        "the refused question is not stored"
    );
}

#[tokio::test]
async fn a_failing_model_gives_the_polite_failure_in_the_posted_message_in_the_persons_language() {
    let mut bot = TestBot::start().await;
    bot.telegram.set_language(ALICE, Some("de"));
    bot.llm.push(Behaviour::Status(500, None));
    bot.llm.push(Behaviour::Status(500, None));

    let id = ask_and_choose(&bot, ALICE, "Wo ist mein Paket?").await;
    wait_for_model_requests(&bot.llm, 2).await;
    let failed = wait_for_inline(&bot.telegram, &id, |message| message.edited).await;
    // The bot goes on answering after the failure.
    bot.telegram.send_text(ALICE, ALICE, "noch da?");
    bot.wait_for_text(ALICE, "noch da?").await;
    bot.stop().await;

    assert_eq!(
        failed.text,
        format!(
            "❓ Wo ist mein Paket?\n\n{}",
            replies::model_unavailable(Lang::De)
        )
    );
}

#[tokio::test]
async fn stop_under_the_posted_message_stops_the_answer_where_it_got() {
    let mut bot = TestBot::start_with_args(&["--stream-replies", "true"]).await;
    let _held = bot
        .llm
        .hold_stream(&["Take the tram"], " and never arrive.");

    let id = ask_and_choose(&bot, ALICE, "How do I get there?").await;
    let streaming = wait_for_inline(&bot.telegram, &id, |message| {
        message.text.contains("Take the tram")
    })
    .await;
    let (_, stop) = streaming
        .buttons()
        .into_iter()
        .find(|(_, data)| data.starts_with("stop:"))
        .expect("a Stop button");
    bot.telegram.press_inline_button(ALICE, &id, &stop);
    let stopped = wait_for_inline(&bot.telegram, &id, |message| {
        message.text.contains(replies::STOPPED)
    })
    .await;
    bot.stop().await;

    assert!(!stopped.text.contains("never arrive"), "{stopped:?}");
    assert_eq!(stopped.reply_markup, None);
    let history = bot.store.all_messages(private(ALICE)).await.unwrap();
    assert_eq!(history.len(), 2, "the question and the stopped answer");
    assert!(
        history[1].content.starts_with("Take the tram")
            && history[1].content.contains(replies::STOPPED),
        "{history:?}"
    );
}

#[tokio::test]
async fn in_incognito_a_chosen_result_is_answered_and_nothing_is_stored() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "/incognito on");
    bot.wait_for_messages(ALICE, 1).await;

    let id = ask_and_choose(&bot, ALICE, "My secret plan is ready?").await;
    let answered = wait_for_inline(&bot.telegram, &id, |message| message.edited).await;
    bot.stop().await;

    assert!(
        answered.text.contains("reply to:") && answered.reply_markup.is_none(),
        "{answered:?}"
    );
    assert!(
        bot.store
            .all_messages(private(ALICE))
            .await
            .unwrap()
            .is_empty(),
        "nothing of the incognito turn is stored"
    );
}

#[tokio::test]
async fn a_chosen_result_past_the_per_minute_limit_shows_the_limit_in_the_posted_message() {
    let mut bot = TestBot::start_with_args(&["--user-messages-per-minute", "1"]).await;
    bot.telegram.send_text(ALICE, ALICE, "first message");
    bot.wait_for_messages(ALICE, 1).await;

    let id = ask_and_choose(&bot, ALICE, "one more?").await;
    let refused = wait_for_inline(&bot.telegram, &id, |message| message.edited).await;
    bot.stop().await;

    assert_eq!(
        refused.text,
        format!(
            "❓ one more?\n\n{}",
            replies::too_many_per_minute(Lang::En, 1)
        )
    );
    assert_eq!(bot.llm.requests().len(), 1, "only the private message");
}

#[tokio::test]
async fn killed_with_the_answer_stored_but_not_shown_the_restart_shows_it_without_asking_again() {
    let around = Surroundings::start().await;
    around
        .llm
        .push(Behaviour::reply("The parcel waits at the station."));
    let mut bot = around.spawn_bot(&[]);
    around.telegram.hold_next(Hold {
        method: "editMessageText".to_owned(),
        text_contains: "waits at the station".to_owned(),
        applied: false,
    });

    let id = choose(&around.telegram, ALICE, "Where is my parcel?").await;
    around
        .telegram
        .wait_for(|calls| calls.iter().any(|call| call.held), PATIENCE)
        .await;
    bot.signal("KILL");
    bot.wait_for_exit().await;
    let mut restarted = around.spawn_bot(&[]);
    let shown = wait_for_inline(&around.telegram, &id, |message| {
        message.text.contains("waits at the station")
    })
    .await;
    restarted.signal("TERM");
    assert!(restarted.wait_for_exit().await.success());

    assert_eq!(
        shown.text,
        "❓ Where is my parcel?\n\nThe parcel waits at the station."
    );
    assert_eq!(
        around.llm.requests().len(),
        1,
        "the model is not asked again"
    );
    let store = around.store().await;
    let unfinished = store.unfinished_updates(0, i64::MAX).await.unwrap();
    assert!(unfinished.is_empty(), "left unfinished: {unfinished:?}");
    assert_eq!(store.all_messages(private(ALICE)).await.unwrap().len(), 2);
    let logs = format!("{}{}", bot.logs(), restarted.logs());
    assert!(
        !logs.contains("Where is my parcel") && !logs.contains("waits at the station"),
        "the logs name ids, never the question or the answer"
    );
}
