//! What a group sees and who is who: people posting as a channel or as an anonymous admin are
//! each their own identity, private material asked for in a group goes to the person's private
//! chat (or nowhere), only exact mentions of the bot count, commands for other bots are left
//! alone, and a long `/memory` arrives in messages Telegram accepts. End to end through the real
//! scheduler and handlers against the fake Telegram and LLM.

use telemem::storage::{ChatId, ConversationKey, NoteUpdate, UserId};

use crate::support::bot_harness::{ALICE, BOB, CAROL, GROUP, TestBot};
use crate::support::fake_telegram::{CHANNEL_BOT_ID, GROUP_ANONYMOUS_BOT_ID};
use crate::support::waiting::PATIENCE;

const CHANNEL_X: i64 = -100_701;
const CHANNEL_Y: i64 = -100_702;

/// The bot's fixed sentences, by a fragment that identifies each.
const ANSWERED_IN_PRIVATE: &str = "in our private chat";
const ASK_IN_PRIVATE: &str = "cannot write to you there";
const NO_PRIVATE_CHAT: &str = "has no private chat";

/// Waits for the /help answer in `chat_id`; returns every message there.
async fn wait_for_help(bot: &TestBot, chat_id: i64) -> Vec<String> {
    let is_help = |text: &str| text.contains("/persona") && !text.contains("don't know");
    bot.telegram
        .wait_for_message(chat_id, is_help, PATIENCE)
        .await
}

async fn stored(bot: &TestBot, chat_id: i64, identity: i64) -> usize {
    bot.store
        .all_messages(ConversationKey::new(ChatId(chat_id), UserId(identity)))
        .await
        .expect("read the history")
        .len()
}

#[tokio::test]
async fn posts_as_different_channels_or_anonymously_are_different_identities() {
    let mut bot = TestBot::start_with_args(&["--allow-all-users", "true"]).await;
    let telegram = &bot.telegram;
    telegram.send_group_text_as_chat(
        GROUP,
        CHANNEL_X,
        "@telemem_test_bot remember: the vault code is 4711",
    );
    bot.wait_for_messages(GROUP, 1).await;
    telegram.send_group_text_as_chat(
        GROUP,
        CHANNEL_Y,
        "@telemem_test_bot what is the vault code?",
    );
    bot.wait_for_messages(GROUP, 2).await;
    telegram.send_group_text_as_chat(GROUP, GROUP, "@telemem_test_bot and now?");
    bot.wait_for_messages(GROUP, 3).await;
    let requests = bot.llm.requests();
    assert_eq!(requests.len(), 3);
    assert!(
        !requests[1].everything_sent().contains("4711"),
        "channel Y was given channel X's secret"
    );
    assert!(
        !requests[2].everything_sent().contains("4711"),
        "the anonymous admins were given channel X's secret"
    );
    telegram.send_group_text_as_chat(GROUP, CHANNEL_X, "/stats");
    bot.wait_for_text(GROUP, NO_PRIVATE_CHAT).await;
    bot.stop().await;

    assert_eq!(stored(&bot, GROUP, CHANNEL_X).await, 2);
    assert_eq!(stored(&bot, GROUP, CHANNEL_Y).await, 2);
    assert_eq!(
        stored(&bot, GROUP, GROUP).await,
        2,
        "anonymous admins speak as the group"
    );
    assert_eq!(stored(&bot, GROUP, CHANNEL_BOT_ID).await, 0);
    assert_eq!(stored(&bot, GROUP, GROUP_ANONYMOUS_BOT_ID).await, 0);
    assert!(
        bot.telegram.sent_messages(CHANNEL_X).is_empty(),
        "a channel's private material is never posted into the channel"
    );
}

#[tokio::test]
async fn with_an_allow_list_a_post_as_a_channel_is_refused_once_and_nothing_is_stored() {
    let mut bot = TestBot::start().await;
    bot.telegram
        .send_group_text_as_chat(GROUP, CHANNEL_X, "@telemem_test_bot hello");
    bot.telegram
        .send_group_text_as_chat(GROUP, CHANNEL_X, "@telemem_test_bot hello again");
    bot.wait_for_text(GROUP, "sent as a channel").await;
    // Alice's answer comes after the channel's posts were handled: the intake hands updates on
    // in order.
    bot.telegram
        .send_group_text(GROUP, ALICE, "@telemem_test_bot hi", false);
    bot.wait_for_messages(GROUP, 2).await;
    bot.stop().await;

    assert_eq!(bot.telegram.sent_messages(GROUP).len(), 2, "refused once");
    assert_eq!(bot.llm.requests().len(), 1, "only Alice reached the model");
    assert_eq!(stored(&bot, GROUP, CHANNEL_X).await, 0);
    assert_eq!(stored(&bot, GROUP, CHANNEL_BOT_ID).await, 0);
}

#[tokio::test]
async fn a_channel_on_the_allow_list_is_answered_under_its_own_identity() {
    let allowed = format!("{ALICE},{BOB},{CAROL},{CHANNEL_X}");
    let mut bot = TestBot::start_with_args(&["--allowed-users", &allowed]).await;
    bot.telegram
        .send_group_text_as_chat(GROUP, CHANNEL_X, "@telemem_test_bot hello from X");
    let replies = bot.wait_for_messages(GROUP, 1).await;
    bot.stop().await;

    assert!(replies[0].contains("hello from X"), "{replies:?}");
    assert_eq!(stored(&bot, GROUP, CHANNEL_X).await, 2);
    assert_eq!(stored(&bot, GROUP, CHANNEL_BOT_ID).await, 0);
}

#[tokio::test]
async fn private_material_asked_for_in_a_group_goes_to_the_private_chat() {
    let mut bot = TestBot::start().await;
    let telegram = &bot.telegram;
    telegram.send_text(ALICE, ALICE, "/persona Speak like Captain Nemo.");
    bot.wait_for_messages(ALICE, 1).await;
    telegram.send_group_text(GROUP, ALICE, "@telemem_test_bot my secret plan", false);
    bot.wait_for_messages(GROUP, 1).await;
    for command in ["/persona", "/stats", "/memory", "/export"] {
        telegram.send_group_text(GROUP, ALICE, command, false);
    }
    bot.wait_for_messages(GROUP, 5).await;
    telegram
        .wait_for(|_| telegram.documents_in(ALICE).len() == 1, PATIENCE)
        .await;
    bot.wait_for_messages(ALICE, 4).await;
    bot.stop().await;

    let group = bot.telegram.sent_messages(GROUP);
    assert!(
        group[1..]
            .iter()
            .all(|text| text.contains(ANSWERED_IN_PRIVATE)),
        "{group:?}"
    );
    assert!(group.iter().all(|text| !text.contains("Nemo")), "{group:?}");
    assert!(bot.telegram.documents_in(GROUP).is_empty());
    let private = bot.telegram.sent_messages(ALICE);
    assert!(private[1].contains("Captain Nemo"), "{private:?}");
    assert!(
        private[1].contains(&format!("Test group {GROUP}")),
        "names the group: {private:?}"
    );
    assert!(private[2].contains("Messages stored: 2"), "{private:?}");
    assert!(private[3].contains("no notes"), "{private:?}");
    let export = &bot.telegram.documents_in(ALICE)[0];
    assert!(String::from_utf8_lossy(&export.bytes).contains("my secret plan"));
}

#[tokio::test]
async fn when_the_bot_cannot_write_in_private_the_group_is_told_to_ask_there() {
    let mut bot = TestBot::start().await;
    bot.telegram.close_private_chat(BOB);
    let telegram = &bot.telegram;
    telegram.send_group_text(GROUP, BOB, "/persona Whisper about the xylophone.", false);
    telegram.send_group_text(GROUP, BOB, "/persona", false);
    telegram.send_group_text(GROUP, BOB, "/export", false);
    telegram.send_group_text(GROUP, BOB, "@telemem_test_bot hi", false);
    bot.wait_for_messages(GROUP, 4).await;
    telegram.send_group_text(GROUP, BOB, "/export", false);
    bot.wait_for_messages(GROUP, 5).await;
    bot.stop().await;

    let group = bot.telegram.sent_messages(GROUP);
    assert!(group[0].contains("Persona saved"), "{group:?}");
    assert!(group[1].contains(ASK_IN_PRIVATE), "{group:?}");
    assert!(group[2].contains(ASK_IN_PRIVATE), "{group:?}");
    assert!(group[4].contains(ASK_IN_PRIVATE), "{group:?}");
    assert!(
        group.iter().all(|text| !text.contains("xylophone")),
        "{group:?}"
    );
    assert!(bot.telegram.sent_documents().is_empty());
}

#[tokio::test]
async fn only_an_exact_mention_of_the_bot_counts() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_group_text(
        GROUP,
        CAROL,
        "@telemem_test_bot_fan what do you think of @TeleMem_Test_Bots?",
        false,
    );
    bot.telegram
        .send_group_text(GROUP, CAROL, "what does @TELEMEM_TEST_BOT say?", false);
    bot.wait_for_messages(GROUP, 1).await;
    bot.stop().await;

    let requests = bot.llm.requests();
    assert_eq!(requests.len(), 1, "the longer usernames are not the bot");
    assert!(requests[0].everything_sent().contains("what does  say?"));
    assert_eq!(stored(&bot, GROUP, CAROL).await, 2);
}

#[tokio::test]
async fn a_command_for_another_bot_gets_no_answer_and_nothing_is_stored() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_text(ALICE, ALICE, "/stats@other_bot");
    bot.telegram.send_text(ALICE, ALICE, "/help");
    bot.telegram
        .send_group_text(GROUP, ALICE, "/memory@other_bot", true);
    bot.telegram
        .send_group_text(GROUP, ALICE, "/help@telemem_test_bot", false);
    // Each chat's /help is handled after the command before it (one queue per person), so
    // anything the bot said about that command is there by then.
    let private = wait_for_help(&bot, ALICE).await;
    let group = wait_for_help(&bot, GROUP).await;
    bot.stop().await;

    assert_eq!(private.len(), 1, "{private:?}");
    assert_eq!(group.len(), 1, "{group:?}");
    assert!(bot.llm.requests().is_empty());
    assert_eq!(stored(&bot, ALICE, ALICE).await, 0);
    assert_eq!(stored(&bot, GROUP, ALICE).await, 0);
}

#[tokio::test]
async fn a_memory_listing_longer_than_one_message_arrives_in_several() {
    let mut bot = TestBot::start().await;
    let key = ConversationKey::new(ChatId(ALICE), UserId(ALICE));
    bot.telegram.send_text(ALICE, ALICE, "hello");
    bot.wait_for_messages(ALICE, 1).await;
    let session = bot
        .store
        .open_session(key)
        .await
        .expect("read the session")
        .expect("an open session");
    let notes = (1..=30)
        .map(|number| {
            NoteUpdate::new(format!(
                "Note {number:02}: {}",
                "a fact worth keeping. ".repeat(8)
            ))
        })
        .collect::<Vec<_>>();
    bot.store
        .replace_notes(
            key,
            &notes,
            session.id,
            session.started_at_ms,
            session.started_at_ms,
        )
        .await
        .expect("store the notes");
    bot.telegram.send_text(ALICE, ALICE, "/memory");
    bot.telegram.send_text(ALICE, ALICE, "/help");
    let messages = bot.wait_for_text(ALICE, "/export").await;
    bot.stop().await;

    let listing = &messages[1..messages.len() - 1];
    assert!(listing.len() >= 2, "{} messages", listing.len());
    let joined = listing.concat();
    for note in notes.iter().map(|note| note.note.as_str()) {
        assert!(joined.contains(note.trim()), "{note} is missing");
    }
}
