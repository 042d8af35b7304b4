//! End-to-end specifications of the admins' side, through the real dispatcher against the fake
//! Telegram and the fake LLM: `/allow`, `/block` and `/unblock` counting from the next message,
//! the alert about a stranger and its Allow button, `/users` and `/usage`, and the admin commands
//! not existing for anyone else.

use std::sync::Arc;

use serde_json::Value;
use telemem::clock::ManualClock;
use telemem::i18n::Lang;
use telemem::replies;
use telemem::storage::{ChatId, ConversationKey, Store, UserId};

use crate::support::bot_harness::{ALICE, BOB, GROUP, TestBot};
use crate::support::fake_telegram::{BOT_USERNAME, Call, called};
use crate::support::times::{HOUR_MS, MIDNIGHT_MS};
use crate::support::waiting::PATIENCE;

/// Admins (ADMIN_USERS) in the specs below.
const ADMIN: i64 = 777;
const OTHER_ADMIN: i64 = 778;
/// Not on the allow list.
const STRANGER: i64 = 999;

fn private(user: i64) -> ConversationKey {
    ConversationKey::new(ChatId(user), UserId(user))
}

/// The texts of the requests the model was asked, as sent.
fn asked(bot: &TestBot) -> Vec<String> {
    bot.llm
        .requests()
        .iter()
        .map(|request| request.everything_sent())
        .collect()
}

#[tokio::test]
async fn allow_and_block_take_effect_with_the_persons_next_message() {
    let admin = ADMIN.to_string();
    let mut bot = TestBot::start_with_args(&["--admin-users", &admin]).await;
    let telegram = &bot.telegram;
    telegram.send_text(STRANGER, STRANGER, "hello?");
    bot.wait_for_text(STRANGER, "private").await;
    telegram.send_text(ADMIN, ADMIN, &format!("/allow {STRANGER}"));
    bot.wait_for_text(ADMIN, "999 may use the bot now.").await;
    telegram.send_text(STRANGER, STRANGER, "hello again");
    bot.wait_for_text(STRANGER, "hello again").await;

    telegram.send_text(ADMIN, ADMIN, &format!("/block {ALICE}"));
    bot.wait_for_text(ADMIN, "111 is blocked now").await;
    telegram.send_text(ALICE, ALICE, "am I in?");
    bot.wait_for_text(ALICE, "private").await;
    telegram.send_text(ADMIN, ADMIN, &format!("/unblock {ALICE}"));
    bot.wait_for_text(ADMIN, "111 is no longer blocked").await;
    telegram.send_text(ALICE, ALICE, "and now?");
    bot.wait_for_text(ALICE, "and now?").await;
    bot.stop().await;

    let asked = asked(&bot);
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked[0].contains("hello again") && asked[1].contains("and now?"));
    let stranger: Vec<String> = bot
        .store
        .all_messages(private(STRANGER))
        .await
        .unwrap()
        .into_iter()
        .map(|message| message.content)
        .collect();
    assert_eq!(
        stranger.len(),
        2,
        "only what they sent once allowed, and its reply"
    );
    assert_eq!(stranger[0], "hello again");
    let alice = bot.store.all_messages(private(ALICE)).await.unwrap();
    assert!(alice.iter().all(|message| message.content != "am I in?"));
}

#[tokio::test]
async fn a_block_wins_over_allow_all_users_but_never_reaches_an_admin() {
    let admins = format!("{ADMIN},{OTHER_ADMIN}");
    let args = ["--allow-all-users", "true", "--admin-users", &admins];
    let mut bot = TestBot::start_with_args(&args).await;
    let telegram = &bot.telegram;
    telegram.send_text(ADMIN, ADMIN, "/block 555");
    telegram.send_text(ADMIN, ADMIN, &format!("/block {ADMIN}"));
    telegram.send_text(ADMIN, ADMIN, &format!("/block {OTHER_ADMIN}"));
    let answers = bot.wait_for_messages(ADMIN, 3).await;
    telegram.send_text(555, 555, "let me in");
    bot.wait_for_text(555, "private").await;
    telegram.send_text(556, 556, "hi there");
    bot.wait_for_text(556, "hi there").await;
    telegram.send_text(OTHER_ADMIN, OTHER_ADMIN, "still here");
    bot.wait_for_text(OTHER_ADMIN, "still here").await;
    bot.stop().await;

    assert!(answers[0].contains("555 is blocked now"), "{answers:?}");
    assert_eq!(answers[1], "You cannot block yourself.");
    assert!(answers[2].contains("cannot be blocked"), "{answers:?}");
    let asked = asked(&bot);
    assert_eq!(asked.len(), 2, "{asked:?}");
    assert!(asked.iter().all(|sent| !sent.contains("let me in")));
}

/// The `setMyCommands` calls: the command names each registered, and the scope's chat, if any.
fn menus(calls: &[Call]) -> Vec<(Option<i64>, Vec<String>)> {
    calls
        .iter()
        .filter(|call| call.method == "setMyCommands")
        .map(|call| {
            let names = call.params["commands"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|command| command["command"].as_str().map(str::to_owned))
                .collect();
            (call.params["scope"]["chat_id"].as_i64(), names)
        })
        .collect()
}

#[tokio::test]
async fn for_everyone_else_the_admin_commands_do_not_exist() {
    let admin = ADMIN.to_string();
    let args = ["--admin-users", &admin, "--user-max-pending", "10"];
    let mut bot = TestBot::start_with_args(&args).await;
    let telegram = &bot.telegram;
    for text in [
        "/allow 999",
        "/users",
        "/usage",
        "/limit 222 off",
        "/nonsense",
        "/help",
    ] {
        telegram.send_text(ALICE, ALICE, text);
    }
    let replies = bot.wait_for_messages(ALICE, 6).await;
    telegram.send_text(ADMIN, ADMIN, "/help");
    let admin_help = bot.wait_for_messages(ADMIN, 1).await;
    telegram.send_text(STRANGER, STRANGER, "am I allowed now?");
    bot.wait_for_text(STRANGER, "private").await;
    let calls = telegram
        .wait_for(|calls| menus(calls).len() >= 2, PATIENCE)
        .await;
    bot.stop().await;

    let unknown = &replies[4];
    assert!(unknown.contains("don't know that command"), "{unknown}");
    for reply in &replies[..4] {
        assert_eq!(reply, unknown);
    }
    for command in ["/allow", "/block", "/unblock", "/limit", "/users", "/usage"] {
        assert!(!replies[5].contains(command), "{command} in {}", replies[5]);
        assert!(admin_help[0].contains(command), "{command} missing");
    }
    assert!(admin_help[0].contains("/stats"));
    assert!(asked(&bot).is_empty());
    assert_eq!(bot.store.token_limit(UserId(BOB)).await.unwrap(), None);
    let menus = menus(&calls);
    let everyone = menus.iter().find(|(chat, _)| chat.is_none()).unwrap();
    assert!(!everyone.1.iter().any(|name| name == "/allow"), "{menus:?}");
    let admins = menus.iter().find(|(chat, _)| *chat == Some(ADMIN)).unwrap();
    for name in [
        "/allow", "/block", "/unblock", "/limit", "/users", "/usage", "/stats",
    ] {
        assert!(admins.1.iter().any(|command| command == name), "{menus:?}");
    }
}

#[tokio::test]
async fn admin_commands_are_answered_only_in_private_chats() {
    let admin = ADMIN.to_string();
    let mut bot = TestBot::start_with_args(&["--admin-users", &admin]).await;
    let telegram = &bot.telegram;
    telegram.send_group_text(GROUP, ADMIN, "/users", false);
    bot.wait_for_text(GROUP, "only in a private chat").await;
    // Alice's admin command in the group is nobody's command: no answer, as for /nonsense.
    telegram.send_group_text(GROUP, ALICE, &format!("/users@{BOT_USERNAME}"), false);
    telegram.send_group_text(GROUP, ALICE, &format!("@{BOT_USERNAME} ping"), false);
    bot.wait_for_text(GROUP, "ping").await;
    bot.stop().await;

    let group = bot.telegram.sent_messages(GROUP);
    assert_eq!(group.len(), 2, "{group:?}");
    assert!(!group[0].contains("ALLOWED_USERS"), "{group:?}");
}

/// The callback data of button `index` of the message's inline keyboard.
fn button(markup: &Option<Value>, index: usize) -> String {
    markup.as_ref().expect("a keyboard")["inline_keyboard"][0][index]["callback_data"]
        .as_str()
        .expect("callback data")
        .to_owned()
}

#[tokio::test]
async fn every_admin_hears_once_about_a_stranger_and_the_allow_button_lets_them_in_at_once() {
    let admins = format!("{ADMIN},{OTHER_ADMIN}");
    let mut bot = TestBot::start_with_args(&["--admin-users", &admins]).await;
    let telegram = &bot.telegram;
    telegram.send_text(STRANGER, STRANGER, "hello?");
    telegram.send_text(STRANGER, STRANGER, "anyone there?");
    bot.wait_for_messages(ADMIN, 1).await;
    bot.wait_for_messages(OTHER_ADMIN, 1).await;
    let alert = telegram.bot_messages(ADMIN).remove(0);
    assert!(
        alert
            .text
            .contains("User 999 (@user999), id 999. I told them the bot is private"),
        "{}",
        alert.text
    );
    let buttons = alert.reply_markup.as_ref().unwrap()["inline_keyboard"][0].clone();
    assert_eq!(buttons[0]["text"], "Allow");
    assert_eq!(buttons[1]["text"], "Block");

    telegram.press_button(
        ADMIN,
        ADMIN,
        alert.message_id,
        &button(&alert.reply_markup, 0),
    );
    bot.wait_for_text(ADMIN, "Allowed by User 777 (id 777).")
        .await;
    telegram.send_text(STRANGER, STRANGER, "may I now?");
    bot.wait_for_text(STRANGER, "may I now?").await;
    bot.stop().await;

    assert_eq!(
        bot.telegram.sent_messages(ADMIN).len(),
        1,
        "one alert, edited"
    );
    assert_eq!(bot.telegram.sent_messages(OTHER_ADMIN).len(), 1);
    let edited = bot.telegram.bot_messages(ADMIN).remove(0);
    assert!(edited.reply_markup.is_none(), "the buttons are gone");
    let refusals = bot.telegram.sent_messages(STRANGER);
    assert_eq!(
        refusals.len(),
        2,
        "one refusal, then the answer: {refusals:?}"
    );
    let stored = bot.store.all_messages(private(STRANGER)).await.unwrap();
    assert_eq!(
        stored[0].content, "may I now?",
        "nothing from before is stored"
    );
    assert_eq!(asked(&bot).len(), 1);
}

#[tokio::test]
async fn the_block_button_shuts_a_stranger_out_and_a_non_admin_cannot_press_it() {
    let admin = ADMIN.to_string();
    let mut bot = TestBot::start_with_args(&["--admin-users", &admin]).await;
    let telegram = &bot.telegram;
    telegram.send_text(STRANGER, STRANGER, "hello?");
    bot.wait_for_messages(ADMIN, 1).await;
    let alert = telegram.bot_messages(ADMIN).remove(0);
    let block = button(&alert.reply_markup, 1);
    telegram.press_button(ADMIN, ALICE, alert.message_id, &block);
    telegram
        .wait_for(|calls| called(calls, "answerCallbackQuery"), PATIENCE)
        .await;
    telegram.press_button(ADMIN, ADMIN, alert.message_id, &block);
    bot.wait_for_text(ADMIN, "Blocked by User 777 (id 777).")
        .await;
    bot.stop().await;

    let rules = bot.store.access_rules().await.unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(
        (rules[0].user_id, rules[0].changed_by),
        (UserId(STRANGER), UserId(ADMIN))
    );
}

/// Tokens and user messages stored for `key`'s conversation.
async fn use_of(store: &Store, key: ConversationKey) -> (u64, usize) {
    let messages = store.all_messages(key).await.unwrap();
    let tokens = messages
        .iter()
        .map(|message| (message.tokens_in + message.tokens_out) as u64)
        .sum();
    let sent = messages
        .iter()
        .filter(|message| message.role == telemem::storage::Role::User)
        .count();
    (tokens, sent)
}

#[tokio::test]
async fn users_and_usage_show_access_and_use_to_admins_and_nothing_to_anyone_else() {
    let admin = ADMIN.to_string();
    let args = ["--admin-users", &admin, "--user-daily-token-limit", "50000"];
    let clock = Arc::new(ManualClock::starting_at(MIDNIGHT_MS + 20 * HOUR_MS));
    let mut bot = TestBot::start_with_clock(&args, clock).await;
    let telegram = &bot.telegram;
    telegram.send_text(ALICE, ALICE, "hello");
    bot.wait_for_messages(ALICE, 1).await;
    telegram.send_text(BOB, BOB, "hi");
    telegram.send_text(BOB, BOB, "hi again");
    bot.wait_for_messages(BOB, 2).await;
    for command in ["/allow 666", "/block 555", "/users", "/usage", "/usage 222"] {
        telegram.send_text(ADMIN, ADMIN, command);
    }
    let answers = bot.wait_for_messages(ADMIN, 5).await;
    telegram.send_text(ALICE, ALICE, "/users");
    telegram.send_text(ALICE, ALICE, "/usage 222");
    let alice = bot.wait_for_messages(ALICE, 3).await;
    bot.stop().await;

    let (alice_tokens, alice_sent) = use_of(&bot.store, private(ALICE)).await;
    let (bob_tokens, bob_sent) = use_of(&bot.store, private(BOB)).await;
    assert_eq!((alice_sent, bob_sent), (1, 2));
    let users = &answers[2];
    for line in [
        "Admins: 777".to_owned(),
        "ALLOWED_USERS: 111, 222, 333".to_owned(),
        "Allowed by admins:\n• 666 (by 777, 2026-11-30 20:00 UTC)".to_owned(),
        "Blocked:\n• 555 (by 777, 2026-11-30 20:00 UTC)".to_owned(),
        format!(
            "• 111: 1 message, {} tokens",
            replies::thousands(Lang::En, alice_tokens)
        ),
        format!(
            "• 222: 2 messages, {} tokens",
            replies::thousands(Lang::En, bob_tokens)
        ),
    ] {
        assert!(users.contains(&line), "{line:?} not in {users}");
    }
    let usage = &answers[3];
    for person in [(111, alice_tokens), (222, bob_tokens)] {
        let line = format!(
            "• {}: {1} · {1}",
            person.0,
            replies::thousands(Lang::En, person.1)
        );
        assert!(usage.contains(&line), "{line:?} not in {usage}");
    }
    assert_eq!(
        answers[4],
        format!(
            "Usage of 222\nTokens today: {0} of 50,000\nLast 30 days: {0} tokens, 2 messages\n\
             Limit: 50,000 tokens a day (USER_DAILY_TOKEN_LIMIT)",
            replies::thousands(Lang::En, bob_tokens)
        )
    );
    for reply in &alice[1..] {
        assert!(reply.contains("don't know that command"), "{reply}");
        assert!(
            !reply.contains("222:") && !reply.contains("Usage of"),
            "{reply}"
        );
    }
}
