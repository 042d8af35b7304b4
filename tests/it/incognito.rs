//! Specifications of incognito (`/incognito on|off`) end to end: what is stored (nothing of the
//! conversation, only token counts), what the model sees (the persona and the last incognito
//! turns, no memory), and that switching it off brings the stored memory back.

use std::sync::Arc;

use telemem::app::ChatServices;
use telemem::clock::{Clock, start_of_utc_day_ms};
use telemem::memory::summary::SUMMARY_PROMPT;
use telemem::storage::{ChatId, ConversationKey, Role, SearchTerm, UserId};

use crate::support::bot_harness::{ALICE, TestBot};
use crate::support::config::parse_config;
use crate::support::database::{ALICE_KEY, BOB_KEY, count_rows};
use crate::support::fake_embeddings::FakeEmbeddings;
use crate::support::fake_llm::{RecordedRequest, last_user_message};
use crate::support::fake_telegram::Fault;
use crate::support::pipeline::Pipeline;
use crate::support::waiting::{PATIENCE, eventually, wait_for_model_requests};

const ALICE_CHAT: ConversationKey = ConversationKey {
    chat_id: ChatId(ALICE),
    user_id: UserId(ALICE),
};

/// The request the model got for the message ending with `text`.
fn request_for(bot: &TestBot, text: &str) -> RecordedRequest {
    bot.llm
        .requests()
        .into_iter()
        .rev()
        .find(|request| last_user_message(&request.body).ends_with(text))
        .unwrap_or_else(|| panic!("no request for {text:?}"))
}

/// Sends the command `text` in Alice's private chat and waits for an answer containing
/// `expected`; returns the messages in the chat.
async fn say(bot: &TestBot, text: &str, expected: &str) -> Vec<String> {
    bot.telegram.send_text(ALICE, ALICE, text);
    bot.wait_for_text(ALICE, expected).await
}

/// Sends `text` in Alice's private chat and waits for the model's answer to it.
async fn chat(bot: &TestBot, text: &str) {
    bot.telegram.send_text(ALICE, ALICE, text);
    bot.telegram
        .wait_for_message(
            ALICE,
            |answer| answer.starts_with("reply to: ") && answer.ends_with(text),
            PATIENCE,
        )
        .await;
}

#[tokio::test]
async fn incognito_turns_leave_no_row_no_index_entry_no_summary_and_no_update_text() {
    let mut bot = TestBot::start_with_args(&[
        "--session-idle-secs",
        "1",
        "--summarizer-interval-secs",
        "1",
        "--stream-replies",
        "true",
    ])
    .await;
    chat(&bot, "Before incognito: my locker code is 4711").await;
    say(&bot, "/incognito on", "Incognito is on").await;
    chat(&bot, "zebra question one").await;
    chat(&bot, "zebra question two").await;
    say(&bot, "/incognito off", "Incognito is off").await;
    chat(&bot, "After incognito: lockers again").await;
    // The summarizer takes the oldest sessions first: once the last stored session has its
    // summary, any session from before had its turn.
    let store = bot.store.clone();
    let caught_up = eventually(
        || async {
            let summaries = store.recent_summaries(ALICE_CHAT, 0, 10).await.unwrap();
            summaries.len() == 2
        },
        PATIENCE,
    )
    .await;
    assert!(caught_up, "the summarizer caught up");
    bot.telegram.send_text(ALICE, ALICE, "/export");
    let telegram = &bot.telegram;
    telegram
        .wait_for(|_| !telegram.documents_in(ALICE).is_empty(), PATIENCE)
        .await;
    let url = bot.database_url.clone();
    let no_payload_left = eventually(
        || async {
            count_rows(
                &url,
                "SELECT count(*) FROM processed_updates WHERE payload IS NOT NULL",
            )
            .await
                == 0
        },
        PATIENCE,
    )
    .await;
    bot.stop().await;

    let messages = store.all_messages(ALICE_CHAT).await.unwrap();
    assert_eq!(messages.len(), 4, "{messages:#?}");
    assert!(
        messages
            .iter()
            .all(|message| !message.content.contains("zebra"))
    );
    let sessions_without_messages = "SELECT count(*) FROM sessions
                                     WHERE id NOT IN (SELECT session_id FROM messages)";
    assert_eq!(count_rows(&url, sessions_without_messages).await, 0);
    let found = store
        .search_messages(
            ALICE_CHAT,
            &[SearchTerm::Word("zebra".into())],
            i64::MAX,
            10,
        )
        .await
        .unwrap();
    assert!(found.is_empty(), "{found:?}");
    // Alice's words are indexed with her owner token in front, "o<user>c<chat>x"
    // (`storage::search_index`); ALICE is 111.
    let indexed = "SELECT count(*) FROM messages_fts WHERE messages_fts MATCH 'o111c111xzebra'";
    assert_eq!(count_rows(&url, indexed).await, 0);
    let stored = store
        .search_messages(
            ALICE_CHAT,
            &[SearchTerm::Word("locker".into())],
            i64::MAX,
            10,
        )
        .await
        .unwrap();
    assert!(!stored.is_empty(), "stored turns are indexed");
    let summaries = store.recent_summaries(ALICE_CHAT, 0, 10).await.unwrap();
    assert!(
        summaries
            .iter()
            .all(|summary| !summary.summary.contains("zebra"))
    );
    let summary_requests: Vec<RecordedRequest> = bot
        .llm
        .requests()
        .into_iter()
        .filter(|request| request.system_prompt() == SUMMARY_PROMPT)
        .collect();
    assert_eq!(summary_requests.len(), 2);
    assert!(
        summary_requests
            .iter()
            .all(|request| !request.everything_sent().contains("zebra"))
    );
    assert!(no_payload_left, "every update record dropped its payload");
    let export = String::from_utf8(bot.telegram.documents_in(ALICE)[0].bytes.clone()).unwrap();
    assert!(
        export.contains("locker code") && !export.contains("zebra"),
        "{export}"
    );
}

#[tokio::test]
async fn an_incognito_prompt_carries_the_persona_and_the_last_incognito_turns_but_no_memory() {
    let mut bot = TestBot::start_with_args(&["--incognito-max-turns", "2"]).await;
    say(&bot, "/persona Answer like a pirate.", "Persona saved").await;
    say(&bot, "/remember My locker code is 4711", "Noted").await;
    chat(&bot, "I like green tea.").await;
    say(&bot, "/incognito on", "Incognito is on").await;
    for text in ["zebra one", "zebra two", "zebra three", "zebra four"] {
        chat(&bot, text).await;
    }
    let stats = say(&bot, "/stats", "Your statistics").await;
    let memory = say(&bot, "/memory", "Notes I keep").await;

    let first = request_for(&bot, "zebra one");
    let fourth = request_for(&bot, "zebra four");
    for request in [&first, &fourth] {
        let system = request.system_prompt();
        assert!(system.contains("Answer like a pirate."), "{system}");
        assert!(!system.contains("<memory>"), "{system}");
        let sent = request.everything_sent();
        assert!(
            !sent.contains("4711") && !sent.contains("green tea"),
            "{sent}"
        );
    }
    let fourth_sent = fourth.everything_sent();
    assert!(
        fourth_sent.contains("zebra two")
            && fourth_sent.contains("reply to: ")
            && fourth_sent.contains("zebra three"),
        "the last incognito turns: {fourth_sent}"
    );
    assert!(
        !fourth_sent.contains("zebra one"),
        "at most two turns are kept"
    );
    assert!(
        stats.iter().any(|text| text.contains("Incognito: on")
            && text.contains("Messages stored: 2")
            && text.contains("Of today's tokens, in incognito:")),
        "{stats:?}"
    );
    assert!(
        memory
            .iter()
            .any(|text| text.starts_with("Incognito is on") && text.contains("4711")),
        "{memory:?}"
    );

    say(&bot, "/incognito off", "Incognito is off").await;
    chat(&bot, "zebra five").await;
    bot.stop().await;

    let after = request_for(&bot, "zebra five");
    let system = after.system_prompt();
    assert!(
        system.contains("<memory>") && system.contains("4711"),
        "{system}"
    );
    let sent = after.everything_sent();
    assert!(
        sent.contains("green tea"),
        "the stored history is back: {sent}"
    );
    assert!(
        !sent.contains("zebra four"),
        "the incognito turns are gone: {sent}"
    );
    let history = bot.store.all_messages(ALICE_CHAT).await.unwrap();
    assert_eq!(history.len(), 4, "{history:#?}");
    let asked: Vec<&str> = history
        .iter()
        .filter(|message| message.role == Role::User)
        .map(|message| message.content.as_str())
        .collect();
    assert_eq!(asked, ["I like green tea.", "zebra five"]);
}

/// With recall by meaning, on the real pipeline: a bot's background embedder would be a job of
/// the whole test process, which the other bots' health checks watch.
#[tokio::test]
async fn incognito_turns_give_the_embedder_nothing_and_send_it_no_text() {
    let embeddings = FakeEmbeddings::start().await;
    let pipeline = Pipeline::start(&[
        "--embedding-model",
        "fake-minilm",
        "--embedding-base-url",
        embeddings.base_url(),
        "--history-max-messages",
        "2",
    ])
    .await;
    let conversations = &pipeline.core.conversations;
    pipeline.say(ALICE_KEY, "My locker code is 4711").await;
    pipeline.say(ALICE_KEY, "I like green tea").await;
    conversations.set_incognito(ALICE_KEY, true).await.unwrap();
    // Past the raw history's two messages: a stored turn would recall, by meaning too.
    pipeline
        .say(ALICE_KEY, "zebra: what was my locker code?")
        .await;
    pipeline.say(ALICE_KEY, "zebra: and my tea?").await;
    conversations.set_incognito(ALICE_KEY, false).await.unwrap();
    pipeline.say(ALICE_KEY, "what was my locker code?").await;

    let embedder = pipeline.core.embedder.as_ref().expect("an embedder");
    embedder.start().await.unwrap();
    let report = embedder.embed_waiting().await.unwrap();

    assert_eq!(report.messages, 6, "the three stored turns");
    let store = &pipeline.core.store;
    assert_eq!(store.vector_count(ALICE_KEY).await.unwrap(), 6);
    let embedded = embeddings.texts();
    assert!(embedded.iter().any(|text| text.contains("locker code")));
    assert!(
        embedded.iter().all(|text| !text.contains("zebra")),
        "{embedded:?}"
    );
}

#[tokio::test]
async fn an_incognito_reply_telegram_refuses_leaves_no_text_in_the_update_records() {
    let mut bot = TestBot::start().await;
    say(&bot, "/incognito on", "Incognito is on").await;
    let refusal = Fault::BadRequest("Bad Request: chat not found".to_owned());
    bot.telegram.fail_next("sendMessage", refusal);

    bot.telegram
        .send_text(ALICE, ALICE, "zebra never delivered");
    wait_for_model_requests(&bot.llm, 1).await;
    let url = bot.database_url.clone();
    let no_payload_left = eventually(
        || async {
            count_rows(
                &url,
                "SELECT count(*) FROM processed_updates WHERE payload IS NOT NULL",
            )
            .await
                == 0
        },
        PATIENCE,
    )
    .await;
    bot.stop().await;

    assert!(
        no_payload_left,
        "the undeliverable reply's update kept its text"
    );
    assert!(bot.store.all_messages(ALICE_CHAT).await.unwrap().is_empty());
}

#[tokio::test]
async fn the_switch_is_kept_per_person_and_chat_across_a_restart_and_only_tokens_are_counted() {
    let pipeline = Pipeline::start(&[]).await;
    let changed = pipeline
        .core
        .conversations
        .set_incognito(ALICE_KEY, true)
        .await
        .unwrap();
    assert!(changed);
    pipeline.core.store.close().await;

    // Another process on the same database, as after a restart.
    let config = parse_config(&[
        "--database-url",
        pipeline.database_url(),
        "--llm-base-url",
        &pipeline.llm.base_url(),
    ]);
    let restarted = ChatServices::build(&config, Arc::new(pipeline.clock.clone()))
        .await
        .unwrap();
    let conversations = &restarted.conversations;
    let alice_in_a_group = ConversationKey::new(ChatId(-100), ALICE_KEY.user_id);
    assert!(conversations.incognito(ALICE_KEY).await.unwrap());
    assert!(!conversations.incognito(alice_in_a_group).await.unwrap());
    assert!(!conversations.incognito(BOB_KEY).await.unwrap());

    conversations
        .chat(ALICE_KEY, "nothing to keep")
        .await
        .unwrap();
    conversations.chat(BOB_KEY, "keep this").await.unwrap();

    let store = &restarted.store;
    assert!(store.all_messages(ALICE_KEY).await.unwrap().is_empty());
    assert_eq!(store.all_messages(BOB_KEY).await.unwrap().len(), 2);
    let today = start_of_utc_day_ms(pipeline.clock.now_ms());
    assert!(
        store
            .incognito_tokens(ALICE_KEY.user_id, today)
            .await
            .unwrap()
            > 0
    );
    assert_eq!(
        store
            .incognito_tokens(BOB_KEY.user_id, today)
            .await
            .unwrap(),
        0
    );
    let usage = store.user_stats(ALICE_KEY.user_id, 0, today).await.unwrap();
    assert!(
        usage.tokens_today > 0,
        "the person's usage counts them: {usage:?}"
    );
    assert_eq!(usage.messages_total, 0);
}

crate::postgres_variants!(
    the_switch_is_kept_per_person_and_chat_across_a_restart_and_only_tokens_are_counted,
    an_incognito_prompt_carries_the_persona_and_the_last_incognito_turns_but_no_memory,
    incognito_turns_give_the_embedder_nothing_and_send_it_no_text,
    an_incognito_reply_telegram_refuses_leaves_no_text_in_the_update_records,
);
