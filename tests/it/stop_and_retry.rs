//! Specifications of stopping an answer and asking again: the Stop button and `/cancel` while an
//! answer streams (end to end through the dispatcher, the fake model holding its stream open), and
//! `/retry` in the chat and in the history, down to the summaries.

use std::time::Duration;

use telemem::conversation::{Answer, RetryStart};
use telemem::i18n::Lang;
use telemem::replies;
use telemem::storage::{ChatId, ConversationKey, Role, UserId};
use tokio::time::{Instant, timeout};

use crate::support::bot_harness::{ALICE, BOB, GROUP, TestBot};
use crate::support::database::ALICE_KEY;
use crate::support::fake_llm::{Behaviour, HeldStream, RecordedRequest};
use crate::support::fake_telegram::{BotMessage, Call, FakeTelegram};
use crate::support::pipeline::Pipeline;
use crate::support::waiting::{PATIENCE, wait_for_model_requests};

/// How soon a stop must show: the model call is dropped at once, and the chat is edited as soon
/// as Telegram's limit of one edit a second allows.
const AT_ONCE: Duration = Duration::from_secs(3);

/// A story the fake model starts, then holds until released or stopped.
const STORY_START: [&str; 2] = ["Once upon ", "a time"];
const STORY_REST: &str = " there was an ending.";
const STORY_SO_FAR: &str = "Once upon a time";

fn stopped_story() -> String {
    format!("{STORY_SO_FAR} … {}", replies::STOPPED)
}

async fn streaming_bot() -> TestBot {
    TestBot::start_with_args(&["--stream-replies", "true"]).await
}

/// Waits until a message in `chat_id` shows `text` with a Stop button under it; returns it with
/// the button's data.
async fn wait_for_stop_button(
    telegram: &FakeTelegram,
    chat_id: i64,
    text: &str,
) -> (BotMessage, String) {
    telegram
        .wait_for_button(chat_id, text, &replies::stop_button(Lang::En), PATIENCE)
        .await
}

/// Waits, for [`AT_ONCE`] at most, until the model's held stream has lost its client.
async fn expect_disconnect_at_once(held: &HeldStream) {
    timeout(AT_ONCE, held.disconnect())
        .await
        .expect("the model call was dropped at once");
}

/// The answers of the history a request carried, in order.
fn assistant_turns(request: &RecordedRequest) -> Vec<String> {
    request.body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|message| message["role"] == "assistant")
        .filter_map(|message| message["content"].as_str().map(str::to_owned))
        .collect()
}

/// The short notices Telegram showed for button presses.
fn press_notices(calls: &[Call]) -> Vec<Option<String>> {
    calls
        .iter()
        .filter(|call| call.method == "answerCallbackQuery")
        .map(|call| call.params["text"].as_str().map(str::to_owned))
        .collect()
}

/// What the history of `key` holds, as (role, text).
async fn history(bot: &TestBot, key: ConversationKey) -> Vec<(Role, String)> {
    let messages = bot.store.all_messages(key).await.unwrap();
    messages
        .into_iter()
        .map(|message| (message.role, message.content))
        .collect()
}

#[tokio::test]
async fn the_stop_button_stops_a_streaming_answer_at_once_and_history_keeps_the_text_so_far() {
    let mut bot = streaming_bot().await;
    let held = bot.llm.hold_stream(&STORY_START, STORY_REST);
    bot.telegram.send_text(ALICE, ALICE, "Tell me a story");
    let (preview, stop) = wait_for_stop_button(&bot.telegram, ALICE, STORY_SO_FAR).await;

    let pressed_at = Instant::now();
    bot.telegram
        .press_button(ALICE, ALICE, preview.message_id, &stop);
    expect_disconnect_at_once(&held).await;
    bot.telegram
        .wait_for_message(ALICE, |text| text == stopped_story(), AT_ONCE)
        .await;
    assert!(pressed_at.elapsed() < AT_ONCE);

    let shown = bot.telegram.bot_messages(ALICE);
    assert_eq!(shown.len(), 1, "the preview became the answer: {shown:?}");
    assert_eq!(shown[0].message_id, preview.message_id);
    assert_eq!(shown[0].reply_markup, None, "the Stop button is gone");
    let calls = bot
        .telegram
        .wait_for(|calls| !press_notices(calls).is_empty(), PATIENCE)
        .await;
    assert_eq!(
        press_notices(&calls),
        [None],
        "a press that stops needs no notice"
    );

    bot.telegram.send_text(ALICE, ALICE, "Go on");
    bot.wait_for_text(ALICE, "Go on").await;
    let next_prompt = bot.llm.last_request().unwrap();
    assert_eq!(assistant_turns(&next_prompt), [stopped_story()]);
    bot.stop().await;
    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    assert_eq!(
        history(&bot, key).await[1],
        (Role::Assistant, stopped_story())
    );
    let unfinished = bot.store.unfinished_updates(0, i64::MAX).await.unwrap();
    assert!(
        unfinished.is_empty(),
        "every update is done: {unfinished:?}"
    );
}

#[tokio::test]
async fn cancel_sent_while_an_answer_streams_stops_it_without_waiting_in_the_queue() {
    let mut bot = streaming_bot().await;
    let held = bot.llm.hold_stream(&STORY_START, STORY_REST);
    bot.telegram.send_text(ALICE, ALICE, "Tell me a story");
    wait_for_stop_button(&bot.telegram, ALICE, STORY_SO_FAR).await;

    // The turn it stops holds Alice's queue until the model finishes, which it never does on
    // its own: a /cancel waiting in that queue would never be read.
    bot.telegram.send_text(ALICE, ALICE, "/cancel");
    expect_disconnect_at_once(&held).await;
    bot.telegram
        .wait_for_message(ALICE, |text| text == stopped_story(), AT_ONCE)
        .await;
    bot.stop().await;

    assert_eq!(
        bot.telegram.sent_messages(ALICE),
        [stopped_story()],
        "the stopped answer says it all"
    );
    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    assert_eq!(
        history(&bot, key).await,
        [
            (Role::User, "Tell me a story".to_owned()),
            (Role::Assistant, stopped_story())
        ]
    );
    assert_eq!(bot.llm.requests().len(), 1);
}

#[tokio::test]
async fn cancel_stops_only_the_running_answer_and_the_messages_sent_meanwhile_are_answered() {
    let mut bot = streaming_bot().await;
    let held = bot.llm.hold_stream(&STORY_START, STORY_REST);
    bot.telegram.send_text(ALICE, ALICE, "Tell me a story");
    wait_for_stop_button(&bot.telegram, ALICE, STORY_SO_FAR).await;
    bot.telegram.send_text(ALICE, ALICE, "And what is 2 + 2?");

    bot.telegram.send_text(ALICE, ALICE, "/cancel");
    expect_disconnect_at_once(&held).await;
    bot.wait_for_text(ALICE, "2 + 2").await;
    bot.stop().await;

    let shown = bot.telegram.sent_messages(ALICE);
    assert_eq!(shown.len(), 2, "{shown:?}");
    assert_eq!(shown[0], stopped_story());
    assert!(shown[1].starts_with("reply to:"), "{shown:?}");
}

#[tokio::test]
async fn another_members_press_on_the_stop_button_leaves_the_answer_running() {
    let mut bot = streaming_bot().await;
    let held = bot.llm.hold_stream(&STORY_START, STORY_REST);
    bot.telegram
        .send_group_text(GROUP, ALICE, "@telemem_test_bot tell me a story", false);
    let (preview, stop) = wait_for_stop_button(&bot.telegram, GROUP, STORY_SO_FAR).await;

    bot.telegram
        .press_button(GROUP, BOB, preview.message_id, &stop);
    let calls = bot
        .telegram
        .wait_for(|calls| !press_notices(calls).is_empty(), PATIENCE)
        .await;
    assert_eq!(
        press_notices(&calls),
        [Some(replies::stop_not_yours(Lang::En).to_owned())]
    );
    assert!(!held.client_disconnected(), "Bob's press stopped nothing");

    held.release();
    let whole = format!("{STORY_SO_FAR}{STORY_REST}");
    bot.telegram
        .wait_for_message(GROUP, |text| text == whole, PATIENCE)
        .await;
    bot.stop().await;
    assert!(!held.client_disconnected());
    assert_eq!(bot.telegram.bot_messages(GROUP)[0].reply_markup, None);
    let key = ConversationKey::new(ChatId(GROUP), UserId(ALICE));
    assert_eq!(history(&bot, key).await[1], (Role::Assistant, whole));
}

#[tokio::test]
async fn cancel_with_nothing_running_gets_a_short_reply() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "/cancel");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert_eq!(replies, [replies::nothing_to_stop(Lang::En)]);
    assert!(bot.llm.requests().is_empty());
}

#[tokio::test]
async fn cancel_without_streaming_stops_the_model_call_and_says_the_answer_was_stopped() {
    let mut bot = TestBot::start().await;
    let held = bot.llm.hold_stream(&[], "An answer nobody waits for.");
    bot.telegram.send_text(ALICE, ALICE, "Think hard");
    wait_for_model_requests(&bot.llm, 1).await;

    bot.telegram.send_text(ALICE, ALICE, "/cancel");
    expect_disconnect_at_once(&held).await;
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert_eq!(replies, [replies::STOPPED]);
    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    assert_eq!(
        history(&bot, key).await[1],
        (Role::Assistant, replies::STOPPED.to_owned())
    );
}

#[tokio::test]
async fn retry_replaces_the_last_answer_in_the_chat_and_in_history() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::reply("The first answer."));
    bot.telegram.send_text(ALICE, ALICE, "Tell me a joke");
    let first = bot.wait_for_messages(ALICE, 1).await;
    let old = bot.telegram.bot_messages(ALICE)[0].clone();

    bot.llm.push(Behaviour::reply("A better answer."));
    bot.telegram.send_text(ALICE, ALICE, "/retry");
    bot.telegram
        .wait_for_message(ALICE, |text| text == "A better answer.", PATIENCE)
        .await;

    assert_eq!(first, ["The first answer."]);
    let shown = bot.telegram.bot_messages(ALICE);
    assert_eq!(shown.len(), 1, "edited in place: {shown:?}");
    assert_eq!(shown[0].message_id, old.message_id);
    assert!(bot.telegram.calls().iter().any(|call| {
        call.method == "editMessageText"
            && call.params["message_id"] == old.message_id
            && call.params["text"] == "A better answer."
    }));
    let retried = bot.llm.last_request().unwrap();
    assert!(retried.everything_sent().contains("Tell me a joke"));
    assert!(
        !retried.everything_sent().contains("The first answer."),
        "asked without the old answer"
    );

    bot.telegram.send_text(ALICE, ALICE, "And another?");
    bot.wait_for_text(ALICE, "And another?").await;
    assert_eq!(
        assistant_turns(&bot.llm.last_request().unwrap()),
        ["A better answer."]
    );
    bot.stop().await;
    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    let stored = bot.store.all_messages(key).await.unwrap();
    let contents: Vec<&str> = stored.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        contents[..3],
        ["Tell me a joke", "A better answer.", "And another?"]
    );
    // The fake model counts words: both answers' tokens were used.
    assert_eq!(stored[1].tokens_out, 6);
}

#[tokio::test]
async fn retry_after_other_messages_answers_below_and_marks_the_old_answer_as_replaced() {
    let mut bot = streaming_bot().await;
    bot.llm.push(Behaviour::reply("The first answer."));
    bot.telegram.send_text(ALICE, ALICE, "Tell me a joke");
    bot.wait_for_text(ALICE, "The first answer.").await;
    bot.telegram.send_text(ALICE, ALICE, "/stats");
    bot.wait_for_text(ALICE, "Your statistics").await;

    bot.llm.push(Behaviour::reply("A better answer."));
    bot.telegram.send_text(ALICE, ALICE, "/retry");
    bot.telegram
        .wait_for_message(ALICE, |text| text == "A better answer.", PATIENCE)
        .await;
    bot.telegram
        .wait_for_message(
            ALICE,
            |text| text == replies::replaced_by_newer(Lang::En),
            PATIENCE,
        )
        .await;
    bot.stop().await;

    let shown = bot.telegram.sent_messages(ALICE);
    assert_eq!(shown.len(), 3, "{shown:?}");
    assert_eq!(shown[0], replies::replaced_by_newer(Lang::En));
    assert!(shown[1].starts_with("Your statistics"));
    assert_eq!(shown[2], "A better answer.");
    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    assert_eq!(
        history(&bot, key).await,
        [
            (Role::User, "Tell me a joke".to_owned()),
            (Role::Assistant, "A better answer.".to_owned())
        ]
    );
}

#[tokio::test]
async fn a_retry_streams_into_the_old_answer_and_can_be_stopped_too() {
    let mut bot = streaming_bot().await;
    bot.llm.push(Behaviour::reply("The first answer."));
    bot.telegram.send_text(ALICE, ALICE, "Tell me a story");
    bot.wait_for_text(ALICE, "The first answer.").await;
    let old = bot.telegram.bot_messages(ALICE)[0].clone();

    let held = bot.llm.hold_stream(&STORY_START, STORY_REST);
    bot.telegram.send_text(ALICE, ALICE, "/retry");
    let (preview, stop) = wait_for_stop_button(&bot.telegram, ALICE, STORY_SO_FAR).await;
    assert_eq!(
        preview.message_id, old.message_id,
        "streams in the old answer"
    );
    bot.telegram
        .press_button(ALICE, ALICE, preview.message_id, &stop);
    expect_disconnect_at_once(&held).await;
    bot.telegram
        .wait_for_message(ALICE, |text| text == stopped_story(), AT_ONCE)
        .await;
    bot.stop().await;

    assert_eq!(bot.telegram.sent_messages(ALICE), [stopped_story()]);
    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    assert_eq!(
        history(&bot, key).await,
        [
            (Role::User, "Tell me a story".to_owned()),
            (Role::Assistant, stopped_story())
        ]
    );
}

#[tokio::test]
async fn a_retry_the_model_fails_leaves_the_old_answer_as_it_was() {
    let mut bot = streaming_bot().await;
    bot.llm.push(Behaviour::reply("The first answer."));
    bot.telegram.send_text(ALICE, ALICE, "Tell me a joke");
    bot.wait_for_text(ALICE, "The first answer.").await;

    // The harness allows one retry of a failed call.
    bot.llm.push(Behaviour::Status(500, None));
    bot.llm.push(Behaviour::Status(500, None));
    bot.telegram.send_text(ALICE, ALICE, "/retry");
    bot.wait_for_text(ALICE, "not answering right now").await;
    bot.stop().await;

    let shown = bot.telegram.sent_messages(ALICE);
    assert_eq!(shown[0], "The first answer.", "{shown:?}");
    assert_eq!(shown.len(), 2, "{shown:?}");
    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    assert_eq!(
        history(&bot, key).await[1],
        (Role::Assistant, "The first answer.".to_owned())
    );
}

#[tokio::test]
async fn retry_with_nothing_to_retry_gets_a_short_reply() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "/retry");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert_eq!(replies, [replies::nothing_to_retry(Lang::En)]);
    assert!(bot.llm.requests().is_empty());
}

#[tokio::test]
async fn a_retry_answers_a_message_whose_answer_failed() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::Status(500, None));
    bot.llm.push(Behaviour::Status(500, None));
    bot.telegram.send_text(ALICE, ALICE, "Are you there?");
    bot.wait_for_text(ALICE, "not answering right now").await;

    bot.llm.push(Behaviour::reply("Yes, back now."));
    bot.telegram.send_text(ALICE, ALICE, "/retry");
    bot.wait_for_text(ALICE, "Yes, back now.").await;
    bot.stop().await;

    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    assert_eq!(
        history(&bot, key).await,
        [
            (Role::User, "Are you there?".to_owned()),
            (Role::Assistant, "Yes, back now.".to_owned())
        ]
    );
}

/// A retry through the pipeline, as `telemem chat` runs one.
async fn retry_now(pipeline: &Pipeline, key: ConversationKey) -> String {
    let conversations = &pipeline.core.conversations;
    let RetryStart::Ready(retry) = conversations.begin_retry(key).await.unwrap() else {
        panic!("nothing to retry");
    };
    let running = conversations.start_running(key, None);
    let answer = conversations
        .ask_until_stopped(&retry.turn, None, &running)
        .await
        .unwrap();
    let Answer::Complete(completion) = answer else {
        panic!("stopped: {answer:?}");
    };
    conversations
        .finish_retry(&retry, &completion, None)
        .await
        .unwrap();
    completion.text
}

#[tokio::test]
async fn a_retried_answer_replaces_the_old_one_in_the_summary_of_its_session() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline
        .llm
        .push(Behaviour::reply("Your flight is LH 100."));
    pipeline.say(ALICE_KEY, "Which flight am I on?").await;
    pipeline
        .core
        .conversations
        .reset_session(ALICE_KEY)
        .await
        .unwrap();
    pipeline
        .llm
        .push(Behaviour::reply("SUMMARY: Was told the flight is LH 100."));
    assert_eq!(pipeline.summarize().await.summarized, 1);

    pipeline
        .llm
        .push(Behaviour::reply("Your flight is LH 400."));
    retry_now(&pipeline, ALICE_KEY).await;

    assert_eq!(
        pipeline.summary_of(ALICE_KEY).await,
        None,
        "the summary of the old answer is gone"
    );
    pipeline
        .llm
        .push(Behaviour::reply("SUMMARY: Was told the flight is LH 400."));
    assert_eq!(pipeline.summarize().await.summarized, 1);
    let summarized = pipeline.last_model_request().everything_sent();
    assert!(summarized.contains("LH 400"), "{summarized}");
    assert!(!summarized.contains("LH 100"), "{summarized}");
    assert_eq!(
        pipeline.summary_of(ALICE_KEY).await.as_deref(),
        Some("Was told the flight is LH 400.")
    );
}

#[tokio::test]
async fn a_retry_is_asked_with_the_history_up_to_the_last_message_only() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline.llm.push(Behaviour::reply("Hello Alice."));
    pipeline.say(ALICE_KEY, "My name is Alice.").await;
    pipeline.llm.push(Behaviour::reply("You are 30."));
    let first_ask = pipeline.say(ALICE_KEY, "How old am I?").await;

    pipeline
        .llm
        .push(Behaviour::reply("I do not know your age."));
    retry_now(&pipeline, ALICE_KEY).await;

    let retried = pipeline.last_model_request();
    assert_eq!(assistant_turns(&retried), ["Hello Alice."]);
    assert_eq!(
        retried.body["messages"], first_ask.body["messages"],
        "the same prompt as the first time"
    );
}

#[tokio::test]
async fn a_retry_waits_for_the_running_turn_of_its_conversation() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline.say(ALICE_KEY, "Hello").await;
    let conversations = &pipeline.core.conversations;

    let running = conversations.start_running(ALICE_KEY, None);
    let while_running = conversations.begin_retry(ALICE_KEY).await.unwrap();
    drop(running);
    let after = conversations.begin_retry(ALICE_KEY).await.unwrap();

    assert!(matches!(while_running, RetryStart::StillRunning));
    assert!(matches!(after, RetryStart::Ready(_)));
}

crate::postgres_variants!(
    the_stop_button_stops_a_streaming_answer_at_once_and_history_keeps_the_text_so_far,
    cancel_sent_while_an_answer_streams_stops_it_without_waiting_in_the_queue,
    cancel_stops_only_the_running_answer_and_the_messages_sent_meanwhile_are_answered,
    another_members_press_on_the_stop_button_leaves_the_answer_running,
    cancel_with_nothing_running_gets_a_short_reply,
    cancel_without_streaming_stops_the_model_call_and_says_the_answer_was_stopped,
    retry_replaces_the_last_answer_in_the_chat_and_in_history,
    retry_after_other_messages_answers_below_and_marks_the_old_answer_as_replaced,
    a_retry_streams_into_the_old_answer_and_can_be_stopped_too,
    a_retry_the_model_fails_leaves_the_old_answer_as_it_was,
    retry_with_nothing_to_retry_gets_a_short_reply,
    a_retry_answers_a_message_whose_answer_failed,
    a_retried_answer_replaces_the_old_one_in_the_summary_of_its_session,
    a_retry_is_asked_with_the_history_up_to_the_last_message_only,
    a_retry_waits_for_the_running_turn_of_its_conversation,
);
