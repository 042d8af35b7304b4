//! Specifications of the notes a person writes themselves: `/remember` to add one, `/remember
//! <n> <text>` to change one, `/forget` to remove it, through the bot; and the summarizer, whose
//! complete list of notes never drops or rewrites one of theirs.

use telemem::clock::Clock;
use telemem::conversation::NoteAddition;
use telemem::i18n::Lang;
use telemem::memory::notes::{MAX_NOTES_BY_HAND, NoteText};
use telemem::replies;
use telemem::storage::{ChatId, ConversationKey, EarlierValue, UserId};

use crate::support::bot_harness::{ALICE, TestBot};
use crate::support::database::ALICE_KEY;
use crate::support::fake_llm::Behaviour;
use crate::support::pipeline::Pipeline;
use crate::support::times::{HOUR_MS, MIDNIGHT_MS};

/// Sends `command` in Alice's private chat and returns the bot's answer to it.
async fn answer(bot: &TestBot, command: &str) -> String {
    let before = bot.telegram.sent_messages(ALICE).len();
    bot.telegram.send_text(ALICE, ALICE, command);
    let messages = bot.wait_for_messages(ALICE, before + 1).await;
    messages[before].clone()
}

#[tokio::test]
async fn remember_adds_a_note_memory_lists_it_an_edit_replaces_it_and_forget_removes_it() {
    let mut bot = TestBot::start().await;

    let noted = answer(&bot, "/remember I am vegetarian").await;
    let listed = answer(&bot, "/memory").await;
    let changed = answer(&bot, "/remember 1 I eat fish now").await;
    let listed_after_the_change = answer(&bot, "/memory").await;
    bot.telegram.send_text(ALICE, ALICE, "What should I cook?");
    bot.wait_for_text(ALICE, "reply to:").await;
    let forgotten = answer(&bot, "/forget 1").await;
    let listed_at_the_end = answer(&bot, "/memory").await;
    bot.stop().await;

    assert_eq!(noted, replies::remembered(Lang::En, "I am vegetarian"));
    assert!(
        listed.contains("1. I am vegetarian (added by you")
            && listed.contains("/remember <number> <new text>"),
        "{listed}"
    );
    assert_eq!(
        changed,
        replies::note_replaced(Lang::En, 1, "I am vegetarian", "I eat fish now")
    );
    assert!(
        listed_after_the_change.contains("1. I eat fish now (added by you")
            && listed_after_the_change.contains("before: I am vegetarian (until "),
        "what the note said before stays visible: {listed_after_the_change}"
    );
    let system = bot
        .llm
        .last_request()
        .expect("a model call")
        .system_prompt();
    assert!(
        system.contains("- I eat fish now (since ")
            && system.contains("; before: I am vegetarian, from "),
        "{system}"
    );
    assert_eq!(forgotten, replies::forgot(Lang::En, "I eat fish now"));
    assert!(
        listed_at_the_end.contains("no notes"),
        "{listed_at_the_end}"
    );
}

#[tokio::test]
async fn remember_answers_an_empty_or_too_long_note_and_a_bare_number_politely() {
    let mut bot = TestBot::start().await;
    let too_long = format!("/remember {}", "x".repeat(201));

    let empty = answer(&bot, "/remember").await;
    let bare_number = answer(&bot, "/remember 3").await;
    let long = answer(&bot, &too_long).await;
    let not_a_note_number = answer(&bot, "/remember 3 cats live with me").await;
    bot.stop().await;

    assert_eq!(empty, replies::remember_usage(Lang::En));
    assert_eq!(bare_number, replies::remember_usage(Lang::En));
    assert_eq!(long, replies::note_too_long(Lang::En, 201, 200));
    assert_eq!(
        not_a_note_number,
        replies::remembered(Lang::En, "3 cats live with me"),
        "a number that is no note's is part of the text"
    );
    let notes = bot
        .store
        .notes(ConversationKey::new(ChatId(ALICE), UserId(ALICE)))
        .await
        .unwrap();
    assert_eq!(notes.len(), 1);
    assert!(notes[0].added_by_hand);
}

#[tokio::test]
async fn a_conversation_holds_a_bounded_number_of_notes_by_hand() {
    let pipeline = Pipeline::start(&[]).await;
    let conversations = &pipeline.core.conversations;
    for index in 0..MAX_NOTES_BY_HAND {
        let note = NoteText::parse(&format!("fact number {index}")).unwrap();
        let added = conversations.add_note(ALICE_KEY, &note).await.unwrap();
        assert_eq!(added, NoteAddition::Added);
    }

    let one_more = NoteText::parse("one fact too many").unwrap();
    let again = NoteText::parse("fact number 3").unwrap();

    assert_eq!(
        conversations.add_note(ALICE_KEY, &one_more).await.unwrap(),
        NoteAddition::TooMany
    );
    assert_eq!(
        conversations.add_note(ALICE_KEY, &again).await.unwrap(),
        NoteAddition::AlreadyKept
    );
    assert_eq!(pipeline.notes_of(ALICE_KEY).await.len(), MAX_NOTES_BY_HAND);
}

#[tokio::test]
async fn the_summarizer_keeps_a_note_added_by_hand_and_updates_only_its_own() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline
        .say(ALICE_KEY, "I work at Chemitek and like short answers.")
        .await;
    pipeline.clock.advance_ms(HOUR_MS);
    pipeline.llm.push(Behaviour::reply(
        "SUMMARY: Intro.\nNOTES:\n- Works at Chemitek\n- Likes short answers",
    ));
    pipeline.summarize().await;
    let by_hand = NoteText::parse("My daughter is called Mia").unwrap();
    pipeline
        .core
        .conversations
        .add_note(ALICE_KEY, &by_hand)
        .await
        .unwrap();

    pipeline.say(ALICE_KEY, "I moved to Acme.").await;
    pipeline.clock.advance_ms(HOUR_MS);
    // The model's complete, updated list: it knows nothing of Mia.
    pipeline.llm.push(Behaviour::reply(
        "SUMMARY: Changed jobs.\nNOTES:\n- Works at Acme\n- Likes short answers",
    ));
    pipeline.summarize().await;

    let summary_request = pipeline.last_model_request().everything_sent();
    assert!(
        summary_request.contains("Works at Chemitek") && !summary_request.contains("Mia"),
        "the summarizer updates its own notes only: {summary_request}"
    );
    assert_eq!(
        pipeline.notes_of(ALICE_KEY).await,
        [
            "Works at Acme",
            "Likes short answers",
            "My daughter is called Mia"
        ],
        "the changed note takes the place of the one it replaced"
    );
    let notes = pipeline.core.store.notes(ALICE_KEY).await.unwrap();
    let work = &notes[0];
    assert_eq!(
        work.earlier,
        [EarlierValue {
            note: "Works at Chemitek".to_owned(),
            from_ms: Some(MIDNIGHT_MS + 9 * HOUR_MS),
            until_ms: MIDNIGHT_MS + 10 * HOUR_MS,
        }],
        "the fact changed in the session of 10:00, not when the summarizer ran"
    );
    assert_eq!(work.valid_from_ms, MIDNIGHT_MS + 10 * HOUR_MS);
    let mia = notes.iter().find(|note| note.note.contains("Mia")).unwrap();
    assert!(mia.added_by_hand);
    assert_eq!(
        mia.confirmed_at_ms,
        pipeline.clock.now_ms(),
        "a summary confirms the person's notes too, so the purge keeps them while they talk"
    );
}

crate::postgres_variants!(
    a_conversation_holds_a_bounded_number_of_notes_by_hand,
    the_summarizer_keeps_a_note_added_by_hand_and_updates_only_its_own,
    remember_adds_a_note_memory_lists_it_an_edit_replaces_it_and_forget_removes_it,
    remember_answers_an_empty_or_too_long_note_and_a_bare_number_politely,
);
