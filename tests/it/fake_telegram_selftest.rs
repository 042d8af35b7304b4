//! The fake Bot API server, driven by a real teloxide `Bot`: if teloxide can talk to it and sees
//! Telegram's errors the way it would see the real ones, end-to-end tests built on it mean
//! something.

use std::time::Duration;

use teloxide::{
    ApiError, RequestError,
    prelude::*,
    types::{
        AllowedUpdate, BotCommand, CallbackQueryId, ChatAction, InlineKeyboardButton,
        InlineKeyboardMarkup, InputFile, MaybeInaccessibleMessage, MessageId, ParseMode,
        UpdateKind,
    },
};

use crate::support::fake_telegram::{BOT_USER_ID, BOT_USERNAME, Call, FakeTelegram, Fault};

const CHAT: i64 = 42;
const USER: i64 = 7;
const GROUP: i64 = -100;
const WAIT: Duration = Duration::from_secs(5);

fn message_of(update: &Update) -> &Message {
    match &update.kind {
        UpdateKind::Message(message) => message,
        other => panic!("expected a message update, got {other:?}"),
    }
}

fn count(calls: &[Call], method: &str) -> usize {
    calls.iter().filter(|call| call.method == method).count()
}

#[tokio::test]
async fn get_me_returns_the_test_bot() {
    let telegram = FakeTelegram::start().await;
    let bot = Bot::new(telegram.token()).set_api_url(telegram.api_url());

    let me = bot.get_me().await.expect("getMe succeeds");

    assert_eq!(me.user.id, UserId(BOT_USER_ID as u64));
    assert!(me.user.is_bot);
    assert_eq!(me.username(), BOT_USERNAME);
    assert_eq!(telegram.calls()[0].method, "getMe");
}

#[tokio::test]
async fn a_message_with_broken_html_is_refused_like_telegram_refuses_it() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();

    let error = bot
        .send_message(ChatId(CHAT), "<b>never closed")
        .parse_mode(ParseMode::Html)
        .await
        .expect_err("broken HTML is refused");

    match error {
        RequestError::Api(ApiError::CantParseEntities(description)) => assert_eq!(
            description,
            "Bad Request: can't parse entities: Can't find end tag corresponding to start tag \"b\""
        ),
        other => panic!("unexpected error {other:?}"),
    }
    assert!(telegram.sent_messages(CHAT).is_empty());
    assert!(!telegram.calls()[0].ok);
}

#[tokio::test]
async fn a_message_over_4096_utf16_units_after_parsing_is_too_long() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    // 2048 emoji are 4096 units; the tags around them do not count.
    let fits = format!("<b>{}</b>", "😀".repeat(2048));
    let too_long = format!("{}a", "😀".repeat(2048));

    bot.send_message(ChatId(CHAT), fits)
        .parse_mode(ParseMode::Html)
        .await
        .expect("exactly 4096 units fit");
    let error = bot
        .send_message(ChatId(CHAT), too_long)
        .await
        .expect_err("4097 units do not");

    assert!(matches!(
        error,
        RequestError::Api(ApiError::MessageIsTooLong)
    ));
}

#[tokio::test]
async fn a_sent_message_comes_back_as_a_message_from_the_bot_with_its_visible_text() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();

    let message = bot
        .send_message(ChatId(CHAT), "<b>hi</b> &amp; bye")
        .parse_mode(ParseMode::Html)
        .await
        .expect("valid HTML is accepted");

    assert_eq!(message.chat.id, ChatId(CHAT));
    assert!(message.chat.is_private());
    assert_eq!(message.text(), Some("hi & bye"));
    assert_eq!(
        message.from.as_ref().map(|user| user.id),
        Some(UserId(BOT_USER_ID as u64))
    );
    assert_eq!(telegram.sent_messages(CHAT), vec!["hi & bye"]);
    assert_eq!(
        telegram.bot_messages(CHAT)[0].raw_text,
        "<b>hi</b> &amp; bye"
    );
}

#[tokio::test]
async fn a_queued_update_is_delivered_until_an_offset_confirms_it() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    let update_id = telegram.send_text(CHAT, USER, "hello bot");

    let first = bot.get_updates().timeout(0).await.expect("getUpdates");
    let again = bot.get_updates().timeout(0).await.expect("getUpdates");
    let confirmed = bot
        .get_updates()
        .offset(update_id as i32 + 1)
        .timeout(0)
        .await
        .expect("getUpdates");

    assert_eq!(first.len(), 1);
    assert_eq!(first[0].id.0 as i64, update_id);
    let message = message_of(&first[0]);
    assert_eq!(message.text(), Some("hello bot"));
    assert_eq!(message.chat.id, ChatId(CHAT));
    assert_eq!(
        message.from.as_ref().map(|user| user.id),
        Some(UserId(USER as u64))
    );
    assert_eq!(again.len(), 1, "unconfirmed updates are delivered again");
    assert!(confirmed.is_empty(), "confirmed updates are gone");
}

#[tokio::test]
async fn limit_and_allowed_updates_filter_what_get_updates_returns() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    telegram.send_text(CHAT, USER, "one");
    telegram.send_text(CHAT, USER, "two");
    let button = telegram.press_button(CHAT, USER, 999, "pressed");

    let limited = bot
        .get_updates()
        .limit(1)
        .timeout(0)
        .await
        .expect("getUpdates");
    let callbacks = bot
        .get_updates()
        .allowed_updates([AllowedUpdate::CallbackQuery])
        .timeout(0)
        .await
        .expect("getUpdates");

    assert_eq!(limited.len(), 1);
    assert_eq!(message_of(&limited[0]).text(), Some("one"));
    assert_eq!(callbacks.len(), 1);
    assert_eq!(callbacks[0].id.0 as i64, button);
    match &callbacks[0].kind {
        UpdateKind::CallbackQuery(query) => {
            assert_eq!(query.data.as_deref(), Some("pressed"));
            assert!(matches!(
                query.message,
                Some(MaybeInaccessibleMessage::Inaccessible(_))
            ));
        }
        other => panic!("expected a callback query, got {other:?}"),
    }
}

#[tokio::test]
async fn a_long_poll_is_answered_as_soon_as_an_update_arrives() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    let poll = tokio::spawn(async move { bot.get_updates().timeout(10).await });

    telegram
        .wait_for(|calls| count(calls, "getUpdates") == 1, WAIT)
        .await;
    telegram.send_text(CHAT, USER, "wake up");
    let updates = poll.await.expect("poll task").expect("getUpdates");

    assert_eq!(updates.len(), 1);
    assert_eq!(message_of(&updates[0]).text(), Some("wake up"));
}

#[tokio::test]
async fn a_long_poll_without_updates_ends_empty_after_its_timeout() {
    let telegram = FakeTelegram::start().await;

    let updates = telegram
        .bot()
        .get_updates()
        .timeout(1)
        .await
        .expect("getUpdates");

    assert!(updates.is_empty());
}

#[tokio::test]
async fn a_too_many_requests_fault_surfaces_as_retry_after_once() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    telegram.fail_next("sendMessage", Fault::TooManyRequests { retry_after: 1 });

    let error = bot
        .send_message(ChatId(CHAT), "first try")
        .await
        .expect_err("the fault is used");
    let retried = bot.send_message(ChatId(CHAT), "second try").await;

    assert!(matches!(error, RequestError::RetryAfter(seconds) if seconds.seconds() == 1));
    assert!(retried.is_ok());
    assert_eq!(telegram.sent_messages(CHAT), vec!["second try"]);
}

#[tokio::test]
async fn bad_request_and_dropped_connection_faults_reach_the_caller() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    telegram.fail_next(
        "SENDMESSAGE",
        Fault::BadRequest("Bad Request: chat not found".into()),
    );
    telegram.fail_next("sendMessage", Fault::DropConnection);

    let bad_request = bot.send_message(ChatId(CHAT), "a").await;
    let dropped = bot.send_message(ChatId(CHAT), "b").await;

    assert!(matches!(
        bad_request,
        Err(RequestError::Api(ApiError::ChatNotFound))
    ));
    assert!(matches!(dropped, Err(RequestError::Network(_))));
    assert!(telegram.sent_messages(CHAT).is_empty());
}

#[tokio::test]
async fn edits_replace_the_text_and_an_identical_edit_is_not_modified() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    let sent = bot
        .send_message(ChatId(CHAT), "draft")
        .await
        .expect("sendMessage");

    let edited = bot
        .edit_message_text(ChatId(CHAT), sent.id, "<i>final</i>")
        .parse_mode(ParseMode::Html)
        .await
        .expect("editMessageText");
    let unchanged = bot
        .edit_message_text(ChatId(CHAT), sent.id, "<i>final</i>")
        .parse_mode(ParseMode::Html)
        .await;
    let missing = bot
        .edit_message_text(ChatId(CHAT), MessageId(12345), "x")
        .await;

    assert_eq!(edited.text(), Some("final"));
    assert!(edited.edit_date().is_some());
    assert!(matches!(
        unchanged,
        Err(RequestError::Api(ApiError::MessageNotModified))
    ));
    assert!(matches!(
        missing,
        Err(RequestError::Api(ApiError::MessageToEditNotFound))
    ));
    assert_eq!(telegram.sent_messages(CHAT), vec!["final"]);
}

#[tokio::test]
async fn keyboards_can_be_edited_and_messages_deleted() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    let keep = bot.send_message(ChatId(CHAT), "keep").await.expect("send");
    let remove = bot
        .send_message(ChatId(CHAT), "remove")
        .await
        .expect("send");
    let keyboard = InlineKeyboardMarkup::new([[InlineKeyboardButton::callback("Yes", "yes")]]);

    let with_keyboard = bot
        .edit_message_reply_markup(ChatId(CHAT), keep.id)
        .reply_markup(keyboard)
        .await
        .expect("editMessageReplyMarkup");
    bot.delete_message(ChatId(CHAT), remove.id)
        .await
        .expect("deleteMessage");
    let deleted_again = bot.delete_message(ChatId(CHAT), remove.id).await;

    assert!(with_keyboard.reply_markup().is_some());
    assert!(matches!(
        deleted_again,
        Err(RequestError::Api(ApiError::MessageToDeleteNotFound))
    ));
    assert_eq!(telegram.sent_messages(CHAT), vec!["keep"]);
}

#[tokio::test]
async fn documents_are_uploaded_as_multipart_and_recorded() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();

    let message = bot
        .send_document(
            ChatId(CHAT),
            InputFile::memory(b"# notes\n".to_vec()).file_name("notes.md"),
        )
        .caption("<b>your</b> notes")
        .parse_mode(ParseMode::Html)
        .await
        .expect("sendDocument");

    let documents = telegram.sent_documents();
    assert_eq!(documents.len(), 1);
    assert_eq!(documents[0].chat_id, CHAT);
    assert_eq!(documents[0].file_name.as_deref(), Some("notes.md"));
    assert_eq!(documents[0].caption.as_deref(), Some("your notes"));
    assert_eq!(documents[0].bytes, b"# notes\n");
    assert_eq!(message.caption(), Some("your notes"));
    assert!(message.document().is_some());
}

#[tokio::test]
async fn command_menus_are_kept_per_language_like_telegram() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();

    bot.set_my_commands([BotCommand::new("start", "Say hello")])
        .await
        .expect("setMyCommands");
    bot.set_my_commands([BotCommand::new("start", "Hallo sagen")])
        .language_code("de")
        .await
        .expect("setMyCommands in German");
    bot.set_my_commands([BotCommand::new("start", "Sag Hallo")])
        .language_code("de")
        .await
        .expect("setMyCommands in German again");

    let menu = |description: &str| Some(vec![("start".to_owned(), description.to_owned())]);
    assert_eq!(telegram.command_menu(None), menu("Say hello"));
    assert_eq!(telegram.command_menu(Some("de")), menu("Sag Hallo"));
    assert_eq!(telegram.command_menu(Some("fr")), None);
    let languages: Vec<Option<String>> = telegram
        .calls()
        .into_iter()
        .map(|call| call.params["language_code"].as_str().map(str::to_owned))
        .collect();
    assert_eq!(
        languages,
        [None, Some("de".to_owned()), Some("de".to_owned())]
    );
}

#[tokio::test]
async fn housekeeping_methods_answer_like_telegram() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    let webhook: reqwest::Url = "https://example.com/hook".parse().expect("url");

    bot.send_chat_action(ChatId(CHAT), ChatAction::Typing)
        .await
        .expect("sendChatAction");
    bot.set_my_commands([BotCommand::new("start", "Say hello")])
        .await
        .expect("setMyCommands");
    bot.delete_my_commands().await.expect("deleteMyCommands");
    bot.answer_callback_query(CallbackQueryId::from("callback-1"))
        .await
        .expect("answerCallbackQuery");
    bot.set_webhook(webhook.clone()).await.expect("setWebhook");
    let with_hook = bot.get_webhook_info().await.expect("getWebhookInfo");
    bot.delete_webhook().await.expect("deleteWebhook");
    let without_hook = bot.get_webhook_info().await.expect("getWebhookInfo");

    assert_eq!(with_hook.url, Some(webhook));
    assert_eq!(without_hook.url, None);
    let methods: Vec<String> = telegram
        .calls()
        .into_iter()
        .map(|call| call.method)
        .collect();
    assert_eq!(
        methods,
        [
            "sendChatAction",
            "setMyCommands",
            "deleteMyCommands",
            "answerCallbackQuery",
            "setWebhook",
            "getWebhookInfo",
            "deleteWebhook",
            "getWebhookInfo",
        ]
    );
}

#[tokio::test]
async fn unknown_methods_and_wrong_tokens_are_refused() {
    let telegram = FakeTelegram::start().await;
    let client = reqwest::Client::new();
    let base = telegram.api_url();

    let unknown = client
        .post(format!("{base}bot{}/sendTelepathy", telegram.token()))
        .json(&serde_json::json!({}))
        .send()
        .await
        .expect("request");
    let unknown_status = unknown.status().as_u16();
    let unknown_body: serde_json::Value = unknown.json().await.expect("json body");
    let wrong_token = client
        .post(format!("{base}bot1:WRONG/getMe"))
        .send()
        .await
        .expect("request");

    assert_eq!(unknown_status, 404);
    assert_eq!(
        unknown_body,
        serde_json::json!({ "ok": false, "error_code": 404, "description": "Not Found" })
    );
    assert_eq!(wrong_token.status().as_u16(), 401);
}

#[tokio::test]
async fn every_update_builder_deserializes_into_the_matching_teloxide_update() {
    let telegram = FakeTelegram::start().await;
    let bot = telegram.bot();
    let from_bot = bot
        .send_message(ChatId(GROUP), "I am the bot")
        .await
        .expect("sendMessage");
    telegram.send_text(CHAT, USER, "/start now");
    telegram.send_group_text(GROUP, USER, "replying", true);
    telegram.send_sticker(CHAT, USER, "👍");
    telegram.send_photo(CHAT, USER, Some("a photo"));
    telegram.press_button(GROUP, USER, from_bot.id.0.into(), "choice");

    let updates = bot.get_updates().timeout(0).await.expect("getUpdates");

    assert_eq!(updates.len(), 5);
    let command = message_of(&updates[0]);
    assert!(
        command
            .entities()
            .is_some_and(|entities| !entities.is_empty())
    );
    let reply = message_of(&updates[1]);
    assert!(reply.chat.is_group());
    let replied_to = reply.reply_to_message().expect("a reply");
    assert_eq!(replied_to.id, from_bot.id);
    assert!(replied_to.from.as_ref().is_some_and(|user| user.is_bot));
    let sticker = message_of(&updates[2]).sticker().expect("a sticker");
    assert_eq!(sticker.emoji.as_deref(), Some("👍"));
    let photo = message_of(&updates[3]);
    assert!(photo.photo().is_some());
    assert_eq!(photo.caption(), Some("a photo"));
    match &updates[4].kind {
        UpdateKind::CallbackQuery(query) => {
            assert_eq!(query.data.as_deref(), Some("choice"));
            let message = query.regular_message().expect("the bot's message");
            assert_eq!(message.id, from_bot.id);
        }
        other => panic!("expected a callback query, got {other:?}"),
    }
}

#[tokio::test]
#[should_panic(expected = "condition not met")]
async fn wait_for_panics_with_the_calls_when_the_condition_never_holds() {
    let telegram = FakeTelegram::start().await;

    telegram
        .wait_for(
            |calls| count(calls, "sendMessage") > 0,
            Duration::from_millis(50),
        )
        .await;
}
