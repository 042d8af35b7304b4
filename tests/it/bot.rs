//! End-to-end specifications of the bot: real dispatcher and handlers, fake Telegram and LLM.

use std::sync::Arc;
use std::time::Duration;

use telemem::app::App;
use telemem::clock::SystemClock;
use telemem::storage::{ChatId, ConversationKey, Role, UserId};

use crate::support::bot_harness::{ALICE, BOB, CAROL, GROUP, TestBot};
use crate::support::config::parse_config;
use crate::support::database::TempDatabase;
use crate::support::fake_llm::{Behaviour, RecordedRequest};
use crate::support::fake_telegram::{FakeTelegram, Fault, called};
use crate::support::waiting::PATIENCE;

const STRANGER: i64 = 999;

#[tokio::test]
async fn two_users_chatting_at_once_get_their_own_replies_and_never_see_each_other() {
    let mut bot = TestBot::start().await;
    // The fake model answers "reply to: <the last user message>", so each reply shows whose
    // prompt it came from.
    bot.telegram
        .send_text(ALICE, ALICE, "Where is the Chemitek parcel?");
    bot.telegram
        .send_text(BOB, BOB, "My cat is called Whiskers.");
    let alice_replies = bot.wait_for_messages(ALICE, 1).await;
    let bob_replies = bot.wait_for_messages(BOB, 1).await;

    assert_eq!(alice_replies.len(), 1);
    assert!(
        alice_replies[0].contains("Where is the Chemitek parcel?"),
        "{alice_replies:?}"
    );
    assert!(!alice_replies[0].contains("Whiskers"), "{alice_replies:?}");
    assert_eq!(bob_replies.len(), 1);
    assert!(
        bob_replies[0].contains("Whiskers") && !bob_replies[0].contains("Chemitek"),
        "{bob_replies:?}"
    );

    bot.telegram
        .send_text(BOB, BOB, "What did I ask about a parcel?");
    bot.wait_for_messages(BOB, 2).await;
    let requests = bot.llm.requests();
    let bob_prompts: Vec<String> = requests
        .iter()
        .map(RecordedRequest::everything_sent)
        .filter(|p| p.contains("Whiskers"))
        .collect();
    assert!(!bob_prompts.is_empty());
    assert!(
        bob_prompts.iter().all(|p| !p.contains("Chemitek")),
        "Bob's prompt leaked Alice's message"
    );

    bot.stop().await;
    let alice_history = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    let roles: Vec<Role> = alice_history.iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::User, Role::Assistant]);
    assert_eq!(alice_history[1].content, alice_replies[0]);
}

#[tokio::test]
async fn the_prompt_carries_the_persona_the_time_and_the_earlier_turns() {
    let mut bot = TestBot::start().await;
    bot.telegram
        .send_text(ALICE, ALICE, "/persona Answer like a pirate.");
    bot.wait_for_text(ALICE, "Persona saved").await;
    bot.telegram
        .send_text(ALICE, ALICE, "My order number is 4711.");
    bot.wait_for_messages(ALICE, 2).await;
    bot.telegram
        .send_text(ALICE, ALICE, "What was my order number?");
    bot.wait_for_messages(ALICE, 3).await;

    let requests = bot.llm.requests();
    let last = requests.last().expect("a model call");
    let system = last.system_prompt();
    assert_eq!(last.body["messages"][0]["role"], "system");
    assert!(system.contains("Answer like a pirate."), "{system}");
    assert!(system.contains("Current date and time:"), "{system}");
    let messages = last.body["messages"].as_array().unwrap();
    let contents: Vec<&str> = messages
        .iter()
        .skip(1)
        .map(|m| m["content"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(contents.len(), 3, "{contents:?}");
    assert!(contents[0].contains("My order number is 4711.") && contents[0].contains(" UTC] "));
    assert!(contents[2].contains("What was my order number?"));
    assert!(last.body["max_tokens"].as_u64().is_some());
    bot.stop().await;
}

#[tokio::test]
async fn a_stranger_gets_one_polite_refusal_and_nothing_is_stored_or_sent_to_the_model() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(STRANGER, STRANGER, "hello?");
    bot.telegram.send_text(STRANGER, STRANGER, "hello again?");
    bot.telegram.send_text(ALICE, ALICE, "ping");
    bot.wait_for_messages(ALICE, 1).await;
    let refusals = bot.wait_for_messages(STRANGER, 1).await;
    bot.stop().await;

    assert_eq!(refusals.len(), 1, "{refusals:?}");
    assert!(refusals[0].contains("private"), "{refusals:?}");
    assert_eq!(
        bot.llm.requests().len(),
        1,
        "only Alice's message reached the model"
    );
    assert!(
        bot.store
            .all_messages(ConversationKey::new(ChatId(STRANGER), UserId(STRANGER)))
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        bot.store.user_settings(UserId(STRANGER)).await.unwrap(),
        None
    );
}

#[tokio::test]
async fn the_bot_refuses_to_start_without_an_explicit_allow_list() {
    let telegram = FakeTelegram::start().await;
    let database = TempDatabase::new();
    let config = parse_config(&["--database-url", &database.url]);
    let result = App::build_with(config, telegram.bot(), Arc::new(SystemClock)).await;

    let error = result.err().expect("refused to start").to_string();
    assert!(
        error.contains("ALLOWED_USERS") && error.contains("ALLOW_ALL_USERS"),
        "{error}"
    );
}

#[tokio::test]
async fn a_message_over_the_size_limit_gets_a_clear_reply_instead_of_a_model_call() {
    let mut bot = TestBot::start_with_args(&["--max-message-chars", "100"]).await;
    bot.telegram.send_text(ALICE, ALICE, &"x".repeat(101));
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert!(
        replies[0].contains("101 characters") && replies[0].contains("at most 100"),
        "{replies:?}"
    );
    assert!(bot.llm.requests().is_empty());
}

#[tokio::test]
async fn a_failing_model_gets_a_polite_reply_and_the_users_message_stays_stored() {
    let mut bot = TestBot::start().await;
    for behaviour in [Behaviour::Status(500, None), Behaviour::Status(500, None)] {
        bot.llm.push(behaviour);
    }
    bot.telegram.send_text(ALICE, ALICE, "Are you there?");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert!(
        replies[0].contains("not answering right now"),
        "{replies:?}"
    );
    assert!(
        !replies[0].contains("500"),
        "no provider details for users: {replies:?}"
    );
    let history = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].content, "Are you there?");
}

#[tokio::test]
async fn a_rate_limited_model_is_retried_after_retry_after_and_then_answers() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::Status(429, Some(1)));
    bot.llm.push(Behaviour::reply("Here I am."));
    bot.telegram.send_text(ALICE, ALICE, "Hello?");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert_eq!(replies, ["Here I am."]);
}

#[tokio::test]
async fn a_model_that_never_answers_times_out_with_a_polite_reply() {
    let mut bot = TestBot::start_with_args(&["--llm-timeout-secs", "1"]).await;
    bot.llm.push(Behaviour::Hang);
    bot.telegram.send_text(ALICE, ALICE, "Hello?");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert!(
        replies[0].contains("not answering right now"),
        "{replies:?}"
    );
}

#[tokio::test]
async fn garbage_from_the_model_gets_a_polite_reply() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::Garbage);
    bot.llm.push(Behaviour::Garbage);
    bot.telegram.send_text(ALICE, ALICE, "Hello?");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert!(
        replies[0].contains("not answering right now"),
        "{replies:?}"
    );
}

#[tokio::test]
async fn a_long_reply_is_split_into_messages_telegram_accepts_without_losing_text() {
    let mut bot = TestBot::start().await;
    let paragraphs: Vec<String> = (0..60)
        .map(|i| format!("Paragraph {i}: {}", "lorem ipsum dolor sit amet ".repeat(8)))
        .collect();
    let long_reply = paragraphs.join("\n\n");
    bot.llm.push(Behaviour::reply(&long_reply));
    bot.telegram
        .send_text(ALICE, ALICE, "Tell me a long story.");
    bot.wait_for_text(ALICE, "Paragraph 59").await;
    bot.stop().await;

    let parts = bot.telegram.sent_messages(ALICE);
    assert!(parts.len() >= 3, "{} parts", parts.len());
    assert!(
        parts
            .iter()
            .all(|part| part.encode_utf16().count() <= 4_096)
    );
    let joined: String = parts.concat();
    let squeeze = |text: &str| text.split_whitespace().collect::<String>();
    assert_eq!(squeeze(&joined), squeeze(&long_reply));
}

#[tokio::test]
async fn html_that_telegram_rejects_falls_back_to_plain_text() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::reply("**Bold** and `code`"));
    bot.telegram.fail_next(
        "sendMessage",
        Fault::BadRequest(
            "Bad Request: can't parse entities: Unsupported start tag \"b\" at byte offset 0"
                .to_owned(),
        ),
    );
    bot.telegram.send_text(ALICE, ALICE, "Format something");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert_eq!(replies, ["**Bold** and `code`"]);
    let sends: Vec<_> = bot
        .telegram
        .calls()
        .into_iter()
        .filter(|c| c.method == "sendMessage")
        .collect();
    assert_eq!(sends.len(), 2);
    assert_eq!(sends[0].params["parse_mode"], "HTML");
    assert!(
        sends[1]
            .params
            .get("parse_mode")
            .is_none_or(|mode| mode.is_null())
    );
}

#[tokio::test]
async fn markdown_from_the_model_is_rendered_as_telegram_html() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::reply(
        "**Bold**, _italic_ and <script> & `x < y`",
    ));
    bot.telegram.send_text(ALICE, ALICE, "Format something");
    bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    let message = &bot.telegram.bot_messages(ALICE)[0];
    assert_eq!(message.parse_mode.as_deref(), Some("HTML"));
    assert!(
        message.raw_text.contains("<b>Bold</b>"),
        "{}",
        message.raw_text
    );
    assert!(
        message.raw_text.contains("&lt;script&gt;"),
        "{}",
        message.raw_text
    );
    assert_eq!(message.text, "Bold, italic and <script> & x < y");
}

#[tokio::test]
async fn telegram_flood_control_is_waited_out_and_the_reply_still_arrives() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::reply("Delivered after waiting."));
    bot.telegram
        .fail_next("sendMessage", Fault::TooManyRequests { retry_after: 1 });
    bot.telegram.send_text(ALICE, ALICE, "Hi");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert_eq!(replies, ["Delivered after waiting."]);
}

#[tokio::test]
async fn a_streamed_reply_is_edited_in_place_no_more_than_once_a_second() {
    let mut bot = TestBot::start_with_args(&["--stream-replies", "true"]).await;
    let long_answer = "word ".repeat(400);
    // The model thinks for a moment before it streams: long enough for `typing` to show.
    bot.llm.push(Behaviour::delay(
        Duration::from_millis(700),
        Behaviour::reply(long_answer.trim()),
    ));
    bot.telegram.send_text(ALICE, ALICE, "Stream please");
    bot.wait_for_text(ALICE, "word ".repeat(399).trim()).await;
    bot.stop().await;

    let calls = bot.telegram.calls();
    assert!(
        calls
            .iter()
            .any(|c| c.method == "sendChatAction" && c.params["action"] == "typing")
    );
    let messages = bot.telegram.bot_messages(ALICE);
    assert_eq!(messages.len(), 1, "one message, edited in place");
    assert_eq!(messages[0].text.trim(), long_answer.trim());
}

#[tokio::test]
async fn in_a_group_the_bot_answers_only_when_mentioned_or_replied_to_and_keeps_members_apart() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_group_text(
        GROUP,
        ALICE,
        "just chatting with Bob, my PIN is 1234",
        false,
    );
    bot.telegram.send_group_text(
        GROUP,
        ALICE,
        "@telemem_test_bot what is the capital of France?",
        false,
    );
    bot.wait_for_messages(GROUP, 1).await;
    bot.telegram
        .send_group_text(GROUP, BOB, "thanks, and of Italy?", true);
    bot.wait_for_messages(GROUP, 2).await;
    bot.stop().await;

    let requests = bot.llm.requests();
    assert_eq!(requests.len(), 2, "the unaddressed message was ignored");
    assert!(
        requests
            .iter()
            .all(|r| !r.everything_sent().contains("PIN is 1234"))
    );
    assert!(
        !requests[0].everything_sent().contains("@telemem_test_bot"),
        "the mention is removed from the prompt"
    );
    assert!(
        !requests[1].everything_sent().contains("capital of France"),
        "Bob never sees Alice's question"
    );
    let replies = bot
        .telegram
        .calls()
        .into_iter()
        .filter(|c| c.method == "sendMessage")
        .collect::<Vec<_>>();
    assert!(
        replies
            .iter()
            .all(|c| c.params["reply_parameters"]["message_id"].is_number()),
        "replies quote the asker"
    );
    let alice = bot
        .store
        .all_messages(ConversationKey::new(ChatId(GROUP), UserId(ALICE)))
        .await
        .unwrap();
    let bob = bot
        .store
        .all_messages(ConversationKey::new(ChatId(GROUP), UserId(BOB)))
        .await
        .unwrap();
    assert_eq!((alice.len(), bob.len()), (2, 2));
}

#[tokio::test]
async fn messages_of_one_chat_are_handled_strictly_in_order() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::delay(
        Duration::from_millis(400),
        Behaviour::reply("first answer"),
    ));
    bot.llm.push(Behaviour::reply("second answer"));
    bot.llm.push(Behaviour::reply("third answer"));
    bot.telegram.send_text(ALICE, ALICE, "one");
    bot.telegram.send_text(ALICE, ALICE, "two");
    bot.telegram.send_text(ALICE, ALICE, "three");
    let replies = bot.wait_for_messages(ALICE, 3).await;
    bot.stop().await;

    assert_eq!(replies, ["first answer", "second answer", "third answer"]);
    let history = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    let contents: Vec<&str> = history.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        contents,
        [
            "one",
            "first answer",
            "two",
            "second answer",
            "three",
            "third answer"
        ]
    );
}

#[tokio::test]
async fn start_and_help_explain_the_bot_and_its_commands() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "/start");
    bot.telegram.send_text(ALICE, ALICE, "/help");
    bot.telegram.send_text(ALICE, ALICE, "/nonsense");
    let replies = bot.wait_for_messages(ALICE, 3).await;
    bot.stop().await;

    assert!(
        replies[0].contains("1 day") && replies[0].contains("30 days"),
        "{}",
        replies[0]
    );
    for command in [
        "/persona",
        "/model",
        "/stats",
        "/memory",
        "/remember",
        "/forget",
        "/incognito",
        "/reset",
        "/clear",
        "/export",
        "/cancel",
        "/retry",
        "/voice",
        "/tts",
        "/image",
    ] {
        assert!(replies[1].contains(command), "help lacks {command}");
    }
    assert!(
        replies[2].contains("don't know that command"),
        "{}",
        replies[2]
    );
    let registered = bot
        .telegram
        .calls()
        .into_iter()
        .find(|c| c.method == "setMyCommands")
        .expect("commands registered");
    assert!(
        registered.params["commands"]
            .as_array()
            .is_some_and(|c| c.len() == 21)
    );
    assert!(bot.llm.requests().is_empty());
}

#[tokio::test]
async fn persona_can_be_shown_set_limited_and_reset() {
    // Six commands at once: more than the default USER_MAX_PENDING.
    let mut bot = TestBot::start_with_args(&["--user-max-pending", "10"]).await;
    let too_long = format!("/persona {}", "a".repeat(1_001));
    for text in [
        "/persona",
        "/persona Be terse.",
        "/persona",
        too_long.as_str(),
        "/persona reset",
        "/persona",
    ] {
        bot.telegram.send_text(ALICE, ALICE, text);
    }
    let replies = bot.wait_for_messages(ALICE, 6).await;
    bot.stop().await;

    assert!(replies[0].contains("no persona"), "{}", replies[0]);
    assert!(replies[1].contains("Persona saved") && replies[1].contains("Be terse."));
    assert!(replies[2].contains("Be terse."));
    assert!(
        replies[3].contains("1001 characters") && replies[3].contains("1000"),
        "{}",
        replies[3]
    );
    assert!(replies[4].contains("reset"));
    assert!(replies[5].contains("no persona"));
}

#[tokio::test]
async fn stats_report_messages_context_tokens_and_session() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "hello");
    bot.wait_for_messages(ALICE, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "/stats");
    let replies = bot.wait_for_messages(ALICE, 2).await;
    bot.stop().await;

    let stats = &replies[1];
    assert!(stats.contains("Messages stored: 2"), "{stats}");
    assert!(
        stats.contains("Messages in the current context: 2"),
        "{stats}"
    );
    assert!(
        stats.contains("Tokens today:") && !stats.contains("Tokens today: 0"),
        "{stats}"
    );
    assert!(
        stats.contains("Current session:") && !stats.contains("none open"),
        "{stats}"
    );
}

#[tokio::test]
async fn reset_starts_a_new_session_but_keeps_history() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "before");
    bot.wait_for_messages(ALICE, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "/reset");
    bot.wait_for_text(ALICE, "fresh session").await;
    bot.telegram.send_text(ALICE, ALICE, "after");
    bot.wait_for_messages(ALICE, 3).await;
    bot.stop().await;

    let history = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    assert_eq!(history.len(), 4);
    assert_ne!(history[0].session_id, history[2].session_id);
}

#[tokio::test]
async fn clear_asks_first_only_the_asker_can_confirm_and_the_persona_stays() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "/persona Be terse.");
    bot.telegram
        .send_text(ALICE, ALICE, "remember the Chemitek parcel");
    bot.wait_for_messages(ALICE, 2).await;
    bot.telegram.send_text(ALICE, ALICE, "/clear");
    bot.wait_for_text(ALICE, "cannot be undone").await;
    let confirmation = bot.telegram.bot_messages(ALICE).into_iter().last().unwrap();
    assert!(confirmation.reply_markup.is_some());
    let yes = confirmation.reply_markup.as_ref().unwrap()["inline_keyboard"][0][0]["callback_data"]
        .as_str()
        .unwrap()
        .to_owned();

    bot.telegram
        .press_button(ALICE, BOB, confirmation.message_id, &yes);
    let telegram = &bot.telegram;
    telegram
        .wait_for(|calls| called(calls, "answerCallbackQuery"), PATIENCE)
        .await;
    assert_eq!(
        bot.store
            .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
            .await
            .unwrap()
            .len(),
        2,
        "Bob cannot clear"
    );

    bot.telegram
        .press_button(ALICE, ALICE, confirmation.message_id, &yes);
    bot.wait_for_text(ALICE, "Deleted 2 messages").await;
    bot.stop().await;

    assert!(
        bot.store
            .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
            .await
            .unwrap()
            .is_empty()
    );
    let persona = bot
        .store
        .user_settings(UserId(ALICE))
        .await
        .unwrap()
        .unwrap()
        .persona;
    assert_eq!(persona.as_deref(), Some("Be terse."));
}

#[tokio::test]
async fn export_sends_only_the_users_own_history_as_markdown_or_json() {
    let mut bot = TestBot::start().await;
    bot.telegram
        .send_group_text(GROUP, BOB, "@telemem_test_bot Bob's secret plan", false);
    bot.wait_for_messages(GROUP, 1).await;
    bot.telegram
        .send_group_text(GROUP, CAROL, "@telemem_test_bot Carol's question", false);
    bot.wait_for_messages(GROUP, 2).await;
    bot.telegram.send_group_text(GROUP, CAROL, "/export", false);
    bot.telegram
        .send_group_text(GROUP, CAROL, "/export json", false);
    let telegram = &bot.telegram;
    telegram
        .wait_for(|_| telegram.sent_documents().len() >= 2, PATIENCE)
        .await;
    bot.stop().await;

    let documents = bot.telegram.sent_documents();
    let markdown = String::from_utf8(documents[0].bytes.clone()).unwrap();
    assert_eq!(
        documents[0].file_name.as_deref(),
        Some("telemem-history.md")
    );
    assert!(markdown.contains("Carol's question"));
    assert!(
        !markdown.contains("secret plan"),
        "Carol's export leaked Bob's message"
    );
    let json: serde_json::Value = serde_json::from_slice(&documents[1].bytes).unwrap();
    assert_eq!(
        documents[1].file_name.as_deref(),
        Some("telemem-history.json")
    );
    let messages = json["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2);
    assert!(messages.iter().all(|m| m["user_id"] == CAROL));
    assert_eq!(json["reminders"], serde_json::json!([]));
}

#[tokio::test]
async fn memory_lists_notes_and_summaries_and_forget_explains_its_usage() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "/memory");
    bot.telegram.send_text(ALICE, ALICE, "/forget");
    bot.telegram.send_text(ALICE, ALICE, "/forget 3");
    let replies = bot.wait_for_messages(ALICE, 3).await;
    bot.stop().await;

    assert!(
        replies[0].contains("no notes") && replies[0].contains("No session summaries"),
        "{}",
        replies[0]
    );
    assert!(replies[1].contains("/forget 2"), "{}", replies[1]);
    assert!(replies[2].contains("no note number 3"), "{}", replies[2]);
}

crate::postgres_variants!(
    two_users_chatting_at_once_get_their_own_replies_and_never_see_each_other,
    the_prompt_carries_the_persona_the_time_and_the_earlier_turns,
    a_stranger_gets_one_polite_refusal_and_nothing_is_stored_or_sent_to_the_model,
    the_bot_refuses_to_start_without_an_explicit_allow_list,
    a_message_over_the_size_limit_gets_a_clear_reply_instead_of_a_model_call,
    a_failing_model_gets_a_polite_reply_and_the_users_message_stays_stored,
    a_rate_limited_model_is_retried_after_retry_after_and_then_answers,
    a_model_that_never_answers_times_out_with_a_polite_reply,
    garbage_from_the_model_gets_a_polite_reply,
    a_long_reply_is_split_into_messages_telegram_accepts_without_losing_text,
    html_that_telegram_rejects_falls_back_to_plain_text,
    markdown_from_the_model_is_rendered_as_telegram_html,
    telegram_flood_control_is_waited_out_and_the_reply_still_arrives,
    a_streamed_reply_is_edited_in_place_no_more_than_once_a_second,
    in_a_group_the_bot_answers_only_when_mentioned_or_replied_to_and_keeps_members_apart,
    messages_of_one_chat_are_handled_strictly_in_order,
    start_and_help_explain_the_bot_and_its_commands,
    persona_can_be_shown_set_limited_and_reset,
    stats_report_messages_context_tokens_and_session,
    reset_starts_a_new_session_but_keeps_history,
    clear_asks_first_only_the_asker_can_confirm_and_the_persona_stays,
    export_sends_only_the_users_own_history_as_markdown_or_json,
    memory_lists_notes_and_summaries_and_forget_explains_its_usage,
);
