//! Specifications of choosing the model: `/model` and its buttons end to end (real dispatcher,
//! fake Telegram and LLM), what the model is then asked with, and summaries staying with
//! `LLM_MODEL`.

use telemem::i18n::Lang;
use telemem::replies;
use telemem::storage::UserId;

use crate::support::bot_harness::{ALICE, BOB, CAROL, GROUP, TestBot};
use crate::support::database::ALICE_KEY;
use crate::support::fake_llm::{Behaviour, RecordedRequest};
use crate::support::fake_telegram::BotMessage;
use crate::support::pipeline::Pipeline;
use crate::support::times::HOUR_MS;
use crate::support::waiting::{PATIENCE, wait_for_model_requests};

/// `LLM_MODEL` and `LLM_MODELS` of the bots below: the default is listed last, so the list is
/// shown in the operator's order.
const MODELS: [&str; 4] = [
    "--llm-model",
    "main-model",
    "--llm-models",
    "small-model, big-model,main-model",
];

async fn bot_with_models() -> TestBot {
    TestBot::start_with_args(&MODELS).await
}

fn model_of(request: &RecordedRequest) -> String {
    request.body["model"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The model the bot asked for `text` (the last request whose last message ends with it).
fn model_asked_for(bot: &TestBot, text: &str) -> String {
    let request = bot
        .llm
        .requests()
        .into_iter()
        .rev()
        .find(|request| crate::support::fake_llm::last_user_message(&request.body).ends_with(text))
        .unwrap_or_else(|| panic!("no request for {text:?}"));
    model_of(&request)
}

/// The latest bot message in `chat_id` with buttons: the `/model` menu.
fn menu(bot: &TestBot, chat_id: i64) -> BotMessage {
    bot.telegram
        .bot_messages(chat_id)
        .into_iter()
        .rev()
        .find(|message| !message.buttons().is_empty())
        .expect("a menu with buttons")
}

fn labels(message: &BotMessage) -> Vec<String> {
    message
        .buttons()
        .into_iter()
        .map(|(label, _)| label)
        .collect()
}

/// The callback data of `message`'s button whose label ends with `model`.
fn button_for(message: &BotMessage, model: &str) -> String {
    message
        .buttons()
        .into_iter()
        .find(|(label, _)| label.ends_with(model))
        .map(|(_, data)| data)
        .unwrap_or_else(|| panic!("no button for {model}"))
}

async fn wait_for_menu_marking(bot: &TestBot, chat_id: i64, marked: &str) -> BotMessage {
    let wanted = replies::model_label(marked, true);
    let telegram = &bot.telegram;
    telegram
        .wait_for(|_| labels(&menu(bot, chat_id)).contains(&wanted), PATIENCE)
        .await;
    menu(bot, chat_id)
}

#[tokio::test]
async fn model_shows_the_models_as_buttons_with_the_current_one_marked_and_a_press_chooses() {
    let mut bot = bot_with_models().await;
    bot.telegram.send_text(ALICE, ALICE, "/model");
    bot.wait_for_text(ALICE, &replies::model_choose_with_buttons(Lang::En))
        .await;
    let offered = menu(&bot, ALICE);
    assert_eq!(
        labels(&offered),
        ["small-model", "big-model", "✓ main-model"]
    );
    assert!(offered.text.starts_with("main-model answers you."));

    let small = button_for(&offered, "small-model");
    assert!(small.len() <= 64, "{small}");
    bot.telegram
        .press_button(ALICE, ALICE, offered.message_id, &small);
    let edited = wait_for_menu_marking(&bot, ALICE, "small-model").await;
    assert_eq!(edited.message_id, offered.message_id, "the menu is edited");
    assert_eq!(
        labels(&edited),
        ["✓ small-model", "big-model", "main-model"]
    );
    assert!(
        edited
            .text
            .starts_with(&replies::model_chosen(Lang::En, "small-model"))
    );

    bot.telegram
        .send_text(ALICE, ALICE, "hello with the small one");
    bot.telegram.send_text(BOB, BOB, "hello from Bob");
    bot.wait_for_text(ALICE, "reply to:").await;
    bot.wait_for_text(BOB, "reply to:").await;
    bot.telegram.send_text(ALICE, ALICE, "/stats");
    let stats = bot.wait_for_text(ALICE, "Model:").await;
    bot.stop().await;

    assert_eq!(
        model_asked_for(&bot, "hello with the small one"),
        "small-model"
    );
    assert_eq!(model_asked_for(&bot, "hello from Bob"), "main-model");
    assert!(
        stats.iter().any(|text| text.contains("Model: small-model")),
        "{stats:?}"
    );
}

#[tokio::test]
async fn in_a_group_only_the_asker_can_choose_and_the_choice_holds_in_all_their_chats() {
    let mut bot = bot_with_models().await;
    bot.telegram.send_group_text(GROUP, BOB, "/model", false);
    bot.wait_for_text(GROUP, &replies::model_choose_with_buttons(Lang::En))
        .await;
    let offered = menu(&bot, GROUP);
    let big = button_for(&offered, "big-model");

    bot.telegram
        .press_button(GROUP, CAROL, offered.message_id, &big);
    let calls = bot
        .telegram
        .wait_for(
            |calls| {
                calls.iter().any(|call| {
                    call.method == "answerCallbackQuery"
                        && call.params["text"] == replies::model_menu_not_yours(Lang::En)
                })
            },
            PATIENCE,
        )
        .await;
    assert!(!calls.iter().any(|call| call.method == "editMessageText"));
    let carols = bot.store.user_settings(UserId(CAROL)).await.unwrap();
    assert_eq!(
        carols.and_then(|settings| settings.model),
        None,
        "another member's press chooses nothing"
    );

    bot.telegram
        .press_button(GROUP, BOB, offered.message_id, &big);
    wait_for_menu_marking(&bot, GROUP, "big-model").await;
    bot.telegram.send_text(BOB, BOB, "private question");
    bot.wait_for_text(BOB, "reply to:").await;
    bot.stop().await;

    assert_eq!(model_asked_for(&bot, "private question"), "big-model");
}

#[tokio::test]
async fn model_with_an_unknown_name_gets_the_list_again_and_a_known_name_chooses_it() {
    let mut bot = bot_with_models().await;
    bot.telegram.send_text(ALICE, ALICE, "/model gpt-9");
    bot.wait_for_text(ALICE, "gpt-9").await;
    let offered = menu(&bot, ALICE);
    assert!(
        offered
            .text
            .starts_with(&replies::model_unknown(Lang::En, "gpt-9")),
        "{}",
        offered.text
    );
    assert_eq!(
        labels(&offered),
        ["small-model", "big-model", "✓ main-model"]
    );

    // A phone capitalizes the first letter.
    bot.telegram.send_text(ALICE, ALICE, "/model Big-model");
    bot.wait_for_text(ALICE, &replies::model_chosen(Lang::En, "big-model"))
        .await;
    bot.telegram.send_text(ALICE, ALICE, "which model now?");
    bot.wait_for_text(ALICE, "reply to: ").await;
    bot.stop().await;

    assert_eq!(model_asked_for(&bot, "which model now?"), "big-model");
}

#[tokio::test]
async fn a_chosen_model_no_longer_offered_falls_back_to_the_default_and_model_says_so() {
    let mut bot = bot_with_models().await;
    let now = chrono::Utc::now().timestamp_millis();
    bot.store
        .set_setting(
            UserId(ALICE),
            telemem::storage::Setting::Model,
            Some("retired-model"),
            now,
        )
        .await
        .unwrap();

    bot.telegram.send_text(ALICE, ALICE, "/model");
    bot.wait_for_text(ALICE, "no longer offered").await;
    let offered = menu(&bot, ALICE);
    bot.telegram.send_text(ALICE, ALICE, "still there?");
    bot.wait_for_text(ALICE, "reply to: ").await;
    bot.stop().await;

    assert!(offered.text.contains("retired-model"), "{}", offered.text);
    assert_eq!(
        labels(&offered),
        ["small-model", "big-model", "✓ main-model"]
    );
    assert_eq!(model_asked_for(&bot, "still there?"), "main-model");
}

#[tokio::test]
async fn a_button_of_a_list_that_has_changed_since_shows_the_list_again() {
    let mut bot = bot_with_models().await;
    bot.telegram.send_text(ALICE, ALICE, "/model");
    bot.wait_for_text(ALICE, &replies::model_choose_with_buttons(Lang::En))
        .await;
    let offered = menu(&bot, ALICE);
    // What a button of an earlier list says once another model holds its place.
    let stale = format!("model:0:00000000:{ALICE}");

    bot.telegram
        .press_button(ALICE, ALICE, offered.message_id, &stale);
    bot.wait_for_text(ALICE, &replies::model_menu_out_of_date(Lang::En))
        .await;
    bot.stop().await;

    let settings = bot.store.user_settings(UserId(ALICE)).await.unwrap();
    assert_eq!(settings.and_then(|settings| settings.model), None);
    assert_eq!(
        labels(&menu(&bot, ALICE)),
        ["small-model", "big-model", "✓ main-model"]
    );
}

#[tokio::test]
async fn summaries_keep_llm_model_whatever_model_the_person_chose() {
    let pipeline = Pipeline::start(&MODELS).await;
    let chosen = pipeline
        .core
        .conversations
        .choose_model(ALICE_KEY.user_id, "small-model")
        .await
        .unwrap();
    assert_eq!(chosen.as_deref(), Some("small-model"));
    let turn = pipeline.say(ALICE_KEY, "Where is my parcel?").await;
    pipeline.clock.advance_ms(2 * HOUR_MS);
    pipeline
        .llm
        .push(Behaviour::reply("SUMMARY: Asked about a parcel."));

    let report = pipeline.summarize().await;

    assert_eq!(report.summarized, 1);
    wait_for_model_requests(&pipeline.llm, 2).await;
    assert_eq!(model_of(&turn), "small-model");
    assert_eq!(model_of(&pipeline.last_model_request()), "main-model");
}
