//! Fault specifications: every failure of the model, Telegram or the database ends in a polite
//! reply or a clean retry, with no crash and no lost history.

use std::time::Duration;

use telemem::storage::{ChatId, ConversationKey, NewMessage, Store, UserId};

use crate::support::bot_harness::{ALICE, BOB, GROUP, TestBot};
use crate::support::database::message_in;
use crate::support::fake_llm::Behaviour;
use crate::support::fake_telegram::Fault;
use crate::support::waiting::PATIENCE;

#[tokio::test]
async fn a_truncated_stream_from_the_model_gets_a_polite_reply_and_no_partial_answer() {
    let mut bot =
        TestBot::start_with_args(&["--stream-replies", "true", "--llm-max-retries", "0"]).await;
    bot.llm.push(Behaviour::TruncatedStream(
        "This answer stops in the midd".to_owned(),
    ));
    bot.telegram.send_text(ALICE, ALICE, "Tell me something");
    let replies = bot.wait_for_text(ALICE, "not answering right now").await;
    bot.stop().await;

    assert_eq!(
        replies.len(),
        1,
        "the preview, if any, was replaced: {replies:?}"
    );
    let history = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    assert_eq!(history.len(), 1, "only the user's message is stored");
}

#[tokio::test]
async fn message_is_not_modified_from_telegram_is_not_an_error() {
    let mut bot = TestBot::start_with_args(&["--stream-replies", "true"]).await;
    let answer = "word ".repeat(300);
    bot.llm.push(Behaviour::reply(answer.trim()));
    // Telegram answers "not modified" when an edit changes nothing (a preview that did not grow).
    bot.telegram.fail_next(
        "editMessageText",
        Fault::BadRequest(
            "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message".to_owned(),
        ),
    );
    bot.telegram.send_text(ALICE, ALICE, "Stream please");
    bot.wait_for_text(ALICE, answer.trim()).await;
    bot.stop().await;

    let history = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    assert_eq!(history.len(), 2, "the turn completed");
}

#[tokio::test]
async fn a_dropped_connection_to_telegram_is_retried_and_the_reply_arrives() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::reply("Arrived anyway."));
    bot.telegram.fail_next("sendMessage", Fault::DropConnection);
    bot.telegram.send_text(ALICE, ALICE, "Hello?");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert_eq!(replies, ["Arrived anyway."]);
}

#[tokio::test]
async fn a_short_telegram_outage_delays_the_reply_but_does_not_lose_it() {
    let mut bot = TestBot::start().await;
    bot.llm.push(Behaviour::reply("Arrived after the outage."));
    // Three failed tries in a row: a few seconds without Telegram.
    for _ in 0..3 {
        bot.telegram.fail_next("sendMessage", Fault::DropConnection);
    }
    bot.telegram.send_text(ALICE, ALICE, "Hello?");
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert_eq!(replies, ["Arrived after the outage."]);
    let tries: Vec<bool> = bot
        .telegram
        .calls()
        .iter()
        .filter(|call| call.method == "sendMessage")
        .map(|call| call.ok)
        .collect();
    assert_eq!(
        tries,
        [false, false, false, true],
        "three failed tries, then the reply"
    );
    let unfinished = bot.store.unfinished_updates(0, i64::MAX).await.unwrap();
    assert!(unfinished.is_empty(), "{unfinished:?}");
}

#[tokio::test]
async fn a_database_busy_for_a_moment_only_delays_the_reply() {
    let mut bot = TestBot::start().await;
    // Another process holds the write lock for a second (shorter than the busy timeout).
    let mut blocker = <sqlx::SqliteConnection as sqlx::Connection>::connect(&bot.database_url)
        .await
        .unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut blocker)
        .await
        .unwrap();
    bot.telegram.send_text(ALICE, ALICE, "Are you there?");
    tokio::time::sleep(Duration::from_secs(1)).await;
    sqlx::query("COMMIT").execute(&mut blocker).await.unwrap();
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert!(replies[0].contains("Are you there?"), "{replies:?}");
}

#[tokio::test]
async fn a_full_database_gets_a_clear_reply_and_the_bot_recovers_when_space_returns() {
    let mut bot = TestBot::start_with_args(&[
        "--database-max-size-mb",
        "1",
        "--max-message-chars",
        "100000",
    ])
    .await;
    // Fill the file past its cap from outside the bot (as other data would fill a disk).
    let filler = Store::connect(&bot.database_url).await.unwrap();
    let key = ConversationKey::new(ChatId(BOB), UserId(BOB));
    let (session, _) = filler.start_session(key, 0).await.unwrap();
    let big = "x".repeat(100_000);
    for index in 0..12 {
        filler
            .add_message(&NewMessage {
                created_at_ms: index,
                ..message_in(key, session.id, &big)
            })
            .await
            .unwrap();
    }
    // A long message needs new pages, which the full file cannot give.
    bot.telegram.send_text(
        ALICE,
        ALICE,
        &format!("Is there room? {}", "y".repeat(50_000)),
    );
    let replies = bot.wait_for_text(ALICE, "storage is full").await;
    assert_eq!(replies.len(), 1);

    filler.clear_conversation(key).await.unwrap();
    bot.llm.push(Behaviour::reply("Stored it."));
    bot.telegram
        .send_text(ALICE, ALICE, &format!("And now? {}", "z".repeat(50_000)));
    let replies = bot.wait_for_messages(ALICE, 2).await;
    bot.stop().await;

    assert_eq!(replies[1], "Stored it.");
    let history = bot
        .store
        .all_messages(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    assert!(history.iter().any(|m| m.content.starts_with("And now?")));
}

#[tokio::test]
async fn in_a_shared_group_no_command_shows_one_member_anothers_data() {
    let mut bot = TestBot::start().await;
    bot.telegram
        .send_group_text(GROUP, ALICE, "@telemem_test_bot my bank PIN is 4321", false);
    bot.wait_for_messages(GROUP, 1).await;
    bot.telegram.send_group_text(GROUP, BOB, "/stats", false);
    bot.telegram.send_group_text(GROUP, BOB, "/memory", false);
    bot.telegram
        .send_group_text(GROUP, BOB, "/export json", false);
    bot.telegram.send_group_text(
        GROUP,
        BOB,
        "@telemem_test_bot what is Alice's bank PIN?",
        false,
    );
    bot.wait_for_messages(GROUP, 4).await;
    let telegram = &bot.telegram;
    telegram
        .wait_for(
            |_| !telegram.sent_documents().is_empty() || telegram.sent_messages(GROUP).len() >= 5,
            PATIENCE,
        )
        .await;
    bot.stop().await;

    let replies = bot.telegram.sent_messages(GROUP);
    // Bob's statistics and memory go to his private chat.
    let private = bot.telegram.sent_messages(BOB);
    for reply in replies[1..].iter().chain(&private) {
        assert!(!reply.contains("4321"), "Bob saw Alice's PIN: {reply}");
    }
    let stats = private
        .iter()
        .find(|r| r.contains("Messages stored"))
        .expect("Bob's stats");
    assert!(
        stats.contains("Messages stored: 0"),
        "Bob has stored nothing yet: {stats}"
    );
    for document in bot.telegram.sent_documents() {
        assert!(!String::from_utf8_lossy(&document.bytes).contains("4321"));
    }
    let requests = bot.llm.requests();
    assert!(
        requests
            .last()
            .is_some_and(|r| !r.everything_sent().contains("4321")),
        "Bob's prompt never carries Alice's text"
    );
}

crate::postgres_variants!(
    a_truncated_stream_from_the_model_gets_a_polite_reply_and_no_partial_answer,
    message_is_not_modified_from_telegram_is_not_an_error,
    a_dropped_connection_to_telegram_is_retried_and_the_reply_arrives,
    a_short_telegram_outage_delays_the_reply_but_does_not_lose_it,
    in_a_shared_group_no_command_shows_one_member_anothers_data,
);
