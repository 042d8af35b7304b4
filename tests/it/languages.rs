//! Specifications of the bot's languages, end to end through the real dispatcher: everything the
//! bot writes itself is in the sender's Telegram language (English for any other), the command
//! menu is registered once per language, and the prompts to the model stay English.

use telemem::commands::{self, Command as BotCommand};
use telemem::i18n::Lang;
use telemem::replies;
use telemem::storage::{ChatId, ConversationKey, UserId};
use teloxide::utils::command::BotCommands;

use crate::support::bot_harness::{ALICE, BOB, CAROL, GROUP, TestBot};
use crate::support::fake_llm::Behaviour;
use crate::support::fake_telegram::called;
use crate::support::pipeline::Pipeline;
use crate::support::waiting::PATIENCE;

const STRANGER: i64 = 999;

#[tokio::test]
async fn a_german_user_gets_help_and_notices_in_german_while_others_keep_english() {
    let mut bot = TestBot::start().await;
    bot.telegram.set_language(ALICE, Some("de-AT"));
    bot.telegram.send_text(ALICE, ALICE, "/help");
    let help = bot.wait_for_messages(ALICE, 1).await;
    bot.telegram.send_text(BOB, BOB, "/help");
    let english_help = bot.wait_for_messages(BOB, 1).await;
    bot.llm.push(Behaviour::Status(500, None));
    bot.llm.push(Behaviour::Status(500, None));
    bot.telegram.send_text(ALICE, ALICE, "Bist du da?");
    let replies = bot.wait_for_messages(ALICE, 2).await;
    bot.stop().await;

    assert_eq!(help[0], commands::help_text(Lang::De));
    assert!(
        help[0].starts_with("Ich bin ein KI-Assistent, der sich an unsere Gespräche erinnert."),
        "{}",
        help[0]
    );
    assert!(
        help[0].contains("/clear — Deinen gesamten Verlauf in diesem Chat löschen"),
        "{}",
        help[0]
    );
    assert_eq!(english_help[0], BotCommand::descriptions().to_string());
    assert_eq!(replies[1], replies::model_unavailable(Lang::De));
    assert!(replies[1].starts_with("Das Modell antwortet gerade nicht."));
    let settings = bot
        .store
        .user_settings(UserId(ALICE))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(settings.language_code.as_deref(), Some("de-AT"));
    let requests = bot.llm.requests();
    let system = requests.last().expect("a model call").system_prompt();
    assert!(
        system.starts_with("You are a helpful assistant"),
        "the prompt stays English: {system}"
    );
}

#[tokio::test]
async fn a_russian_user_gets_stats_and_the_greeting_in_russian_with_correct_plurals() {
    let mut bot = TestBot::start().await;
    bot.telegram.set_language(ALICE, Some("ru"));
    bot.telegram.send_text(ALICE, ALICE, "Привет!");
    bot.wait_for_messages(ALICE, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "/stats");
    bot.telegram.send_text(ALICE, ALICE, "/start");
    let replies = bot.wait_for_messages(ALICE, 3).await;
    bot.stop().await;

    let stats = &replies[1];
    assert!(stats.starts_with("Ваша статистика в этом чате"), "{stats}");
    assert!(stats.contains("Сообщений сохранено: 2"), "{stats}");
    assert!(stats.contains("Токенов всего:"), "{stats}");
    assert!(stats.contains("Текущая сессия: "), "{stats}");
    let start = &replies[2];
    assert!(
        start.starts_with("Привет! Я ИИ-ассистент с памятью."),
        "{start}"
    );
    // The defaults: a history window of 1 day, sessions of 30 minutes, a purge after 30 days.
    assert!(start.contains("не старше, чем 1 день"), "{start}");
    assert!(start.contains("дольше, чем 30 минут"), "{start}");
    assert!(start.contains("не дольше, чем 30 дней"), "{start}");
}

#[tokio::test]
async fn a_language_the_bot_does_not_speak_or_none_gets_english() {
    let mut bot = TestBot::start().await;
    bot.telegram.set_language(ALICE, Some("ja"));
    bot.telegram.set_language(BOB, None);
    bot.telegram.send_text(ALICE, ALICE, "/help");
    bot.telegram.send_text(BOB, BOB, "/reset");
    let alice = bot.wait_for_messages(ALICE, 1).await;
    let bob = bot.wait_for_messages(BOB, 1).await;
    bot.stop().await;

    assert_eq!(alice[0], BotCommand::descriptions().to_string());
    assert_eq!(bob[0], replies::reset_nothing_open(Lang::En));
    let alice_settings = bot
        .store
        .user_settings(UserId(ALICE))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(alice_settings.language_code.as_deref(), Some("ja"));
    assert_eq!(
        bot.store
            .user_settings(UserId(BOB))
            .await
            .unwrap()
            .and_then(|settings| settings.language_code),
        None
    );
}

#[tokio::test]
async fn the_command_menu_is_registered_in_english_and_in_every_language() {
    let mut bot = TestBot::start().await;
    let telegram = &bot.telegram;
    let registered = |calls: &[crate::support::fake_telegram::Call]| {
        calls
            .iter()
            .filter(|call| call.method == "setMyCommands")
            .count()
            == 1 + Lang::ALL.len()
    };
    telegram.wait_for(registered, PATIENCE).await;
    bot.stop().await;

    let english: Vec<(String, String)> = BotCommand::bot_commands()
        .into_iter()
        .map(|command| (command.command, command.description))
        .collect();
    assert_eq!(bot.telegram.command_menu(None), Some(english.clone()));
    assert_eq!(bot.telegram.command_menu(Some("en")), Some(english));
    let german = bot
        .telegram
        .command_menu(Some("de"))
        .expect("a German menu");
    assert!(german.contains(&(
        "/forget".to_owned(),
        "Eine Notiz vergessen: /forget <Nummer aus /memory>.".to_owned()
    )));
    assert_eq!(german.len(), BotCommand::bot_commands().len());
    for lang in Lang::ALL {
        let menu = bot.telegram.command_menu(Some(lang.code()));
        let expected: Vec<(String, String)> = commands::described_commands(lang)
            .into_iter()
            .map(|command| (command.command, command.description))
            .collect();
        assert_eq!(menu, Some(expected), "{}", lang.code());
    }
    let first = bot
        .telegram
        .calls()
        .into_iter()
        .find(|call| call.method == "setMyCommands")
        .expect("a menu");
    assert!(
        first.params.get("language_code").is_none(),
        "the default menu comes first"
    );
}

#[tokio::test]
async fn the_flood_notice_and_the_refusal_are_in_the_senders_language() {
    let mut bot = TestBot::start_with_args(&["--user-messages-per-minute", "1"]).await;
    bot.telegram.set_language(ALICE, Some("de"));
    bot.telegram.set_language(STRANGER, Some("fr-FR"));
    bot.telegram.send_text(ALICE, ALICE, "eins");
    bot.wait_for_messages(ALICE, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "zwei");
    let alice = bot.wait_for_messages(ALICE, 2).await;
    bot.telegram.send_text(STRANGER, STRANGER, "bonjour ?");
    let stranger = bot.wait_for_messages(STRANGER, 1).await;
    bot.stop().await;

    assert_eq!(alice[1], replies::too_many_per_minute(Lang::De, 1));
    assert!(
        alice[1].starts_with("Das sind mehr als 1 Nachricht in einer Minute"),
        "{}",
        alice[1]
    );
    assert_eq!(stranger[0], replies::not_allowed(Lang::Fr));
    assert!(stranger[0].starts_with("Désolé, ce bot est privé"));
    assert_eq!(
        bot.store.user_settings(UserId(STRANGER)).await.unwrap(),
        None,
        "nothing is stored for a stranger, not even the language"
    );
}

#[tokio::test]
async fn clear_asks_with_buttons_in_the_users_language_and_answers_the_press_in_it() {
    let mut bot = TestBot::start().await;
    bot.telegram.set_language(CAROL, Some("es"));
    bot.telegram
        .send_text(CAROL, CAROL, "Recuerda el paquete de Chemitek");
    bot.wait_for_messages(CAROL, 1).await;
    bot.telegram.send_text(CAROL, CAROL, "/clear");
    bot.wait_for_text(CAROL, "no se puede deshacer").await;
    let confirmation = bot.telegram.bot_messages(CAROL).into_iter().last().unwrap();
    let keyboard = &confirmation.reply_markup.as_ref().expect("buttons")["inline_keyboard"][0];
    let yes = keyboard[0]["callback_data"].as_str().unwrap().to_owned();

    bot.telegram
        .press_button(CAROL, CAROL, confirmation.message_id, &yes);
    let telegram = &bot.telegram;
    telegram
        .wait_for(|calls| called(calls, "editMessageText"), PATIENCE)
        .await;
    let shown = bot.telegram.sent_messages(CAROL);
    bot.stop().await;

    assert_eq!(confirmation.text, replies::clear_confirm(Lang::Es));
    assert_eq!(keyboard[0]["text"], "Sí, bórralo");
    assert_eq!(keyboard[1]["text"], "Cancelar");
    assert_eq!(
        shown.last().map(String::as_str),
        Some("Se han borrado 2 mensajes de 1 sesión. Ya no recuerdo nada de este chat.")
    );
    assert!(
        bot.store
            .all_messages(ConversationKey::new(ChatId(CAROL), UserId(CAROL)))
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn private_material_asked_for_in_a_group_comes_in_the_askers_language() {
    let mut bot = TestBot::start().await;
    let telegram = &bot.telegram;
    telegram.set_language(BOB, Some("de"));
    telegram.send_group_text(GROUP, BOB, "@telemem_test_bot Mein geheimer Plan", false);
    bot.wait_for_messages(GROUP, 1).await;
    telegram.send_group_text(GROUP, BOB, "/stats", false);
    telegram.send_group_text(GROUP, BOB, "/export", false);
    bot.wait_for_messages(GROUP, 3).await;
    telegram
        .wait_for(|_| telegram.documents_in(BOB).len() == 1, PATIENCE)
        .await;
    bot.stop().await;

    let group = bot.telegram.sent_messages(GROUP);
    for notice in &group[1..] {
        assert_eq!(notice, &replies::answered_in_private(Lang::De));
    }
    let private = bot.telegram.sent_messages(BOB);
    assert!(
        private[0].starts_with(&format!(
            "Du hast in der Gruppe „Test group {GROUP}“ gefragt:"
        )),
        "{private:?}"
    );
    assert!(
        private[0].contains("Gespeicherte Nachrichten: 2"),
        "{private:?}"
    );
    let export = &bot.telegram.documents_in(BOB)[0];
    assert_eq!(
        export.caption.as_deref(),
        Some(format!("Dein Verlauf in der Gruppe „Test group {GROUP}“.").as_str())
    );
    let document = String::from_utf8_lossy(&export.bytes);
    assert!(document.starts_with("# telemem-Verlauf\n"), "{document}");
    assert!(document.contains("\n## Du — "), "{document}");
    assert!(document.contains("\n## Bot — "), "{document}");
}

#[tokio::test]
async fn the_recorded_language_serves_what_the_bot_sends_outside_an_answer() {
    let pipeline = Pipeline::start(&[]).await;
    let conversations = &pipeline.core.conversations;
    assert_eq!(
        conversations.language(UserId(ALICE)).await.unwrap(),
        Lang::En
    );

    conversations
        .record_language(UserId(ALICE), Some("ru-RU"))
        .await;
    assert_eq!(
        conversations.language(UserId(ALICE)).await.unwrap(),
        Lang::Ru
    );
    conversations.record_language(UserId(ALICE), None).await;
    assert_eq!(
        conversations.language(UserId(ALICE)).await.unwrap(),
        Lang::Ru,
        "an update without a code keeps the recorded one"
    );

    // An unchanged code is not written again: with the row gone behind the process's back, the
    // same code leaves it gone, and only a new one is written.
    pipeline
        .core
        .store
        .clear_user_settings(UserId(ALICE))
        .await
        .unwrap();
    conversations
        .record_language(UserId(ALICE), Some("ru-RU"))
        .await;
    assert_eq!(
        pipeline
            .core
            .store
            .user_settings(UserId(ALICE))
            .await
            .unwrap(),
        None
    );
    conversations
        .record_language(UserId(ALICE), Some("es"))
        .await;
    assert_eq!(
        conversations.language(UserId(ALICE)).await.unwrap(),
        Lang::Es
    );
}

/// An admin (ADMIN_USERS) in the specs below.
const ADMIN: i64 = 777;

#[tokio::test]
async fn a_german_user_gets_the_model_menu_and_the_choice_in_german() {
    let args = [
        "--llm-model",
        "main-model",
        "--llm-models",
        "small-model,main-model",
    ];
    let mut bot = TestBot::start_with_args(&args).await;
    bot.telegram.set_language(ALICE, Some("de"));
    bot.telegram.send_text(ALICE, ALICE, "/model");
    bot.wait_for_text(ALICE, &replies::model_choose_with_buttons(Lang::De))
        .await;
    let menu = bot.telegram.bot_messages(ALICE).remove(0);
    let small = menu
        .buttons()
        .into_iter()
        .find(|(label, _)| label == "small-model")
        .map(|(_, data)| data)
        .expect("a button for small-model");
    bot.telegram
        .press_button(ALICE, ALICE, menu.message_id, &small);
    bot.wait_for_text(ALICE, &replies::model_chosen(Lang::De, "small-model"))
        .await;
    bot.stop().await;

    assert_eq!(
        menu.text,
        "Dir antwortet main-model.\n\nTippe auf ein Modell, um es zu wählen (oder schreib /model <Name>):"
    );
    let labels: Vec<String> = menu.buttons().into_iter().map(|(label, _)| label).collect();
    assert_eq!(
        labels,
        ["small-model", "✓ main-model"],
        "names stay as offered"
    );
    let edited = bot.telegram.bot_messages(ALICE).remove(0);
    assert!(
        edited
            .text
            .starts_with("Ab jetzt antwortet dir small-model, in all unseren Chats."),
        "{}",
        edited.text
    );
}

#[tokio::test]
async fn a_russian_user_past_the_daily_limit_is_refused_in_russian() {
    use std::sync::Arc;

    use telemem::clock::ManualClock;

    use crate::support::times::{HOUR_MS, MIDNIGHT_MS};

    let evening = Arc::new(ManualClock::starting_at(MIDNIGHT_MS + 20 * HOUR_MS));
    let args = ["--user-daily-token-limit", "10"];
    let mut bot = TestBot::start_with_clock(&args, evening).await;
    bot.telegram.set_language(ALICE, Some("ru-RU"));
    bot.telegram
        .send_text(ALICE, ALICE, "what is a parcel, and where is mine?");
    bot.wait_for_messages(ALICE, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "and now?");
    let answers = bot.wait_for_messages(ALICE, 2).await;
    bot.stop().await;

    let refusal = &answers[1];
    assert!(
        refusal.starts_with("Вы израсходовали свой дневной лимит токенов (10; использовано "),
        "{refusal}"
    );
    assert!(
        refusal.contains("Лимит обнулится в 2026-12-01 00:00 UTC (через 4 часа)"),
        "{refusal}"
    );
    assert_eq!(
        bot.llm.requests().len(),
        1,
        "the refused message reached no model"
    );
}

#[tokio::test]
async fn a_french_user_switches_incognito_on_in_french() {
    let mut bot = TestBot::start().await;
    bot.telegram.set_language(ALICE, Some("fr"));
    bot.telegram.send_text(ALICE, ALICE, "/incognito on");
    let switched = bot.wait_for_messages(ALICE, 1).await;
    bot.telegram.send_text(ALICE, ALICE, "/incognito");
    let state = bot.wait_for_messages(ALICE, 2).await;
    bot.stop().await;

    assert_eq!(
        switched[0],
        replies::incognito_switched(Lang::Fr, true, true)
    );
    assert!(
        switched[0].starts_with("Mode incognito activé. Désormais, je ne stocke rien"),
        "{}",
        switched[0]
    );
    assert_eq!(state[1], replies::incognito_state(Lang::Fr, true));
}

#[tokio::test]
async fn a_spanish_user_gets_the_stop_button_in_spanish_and_the_mark_is_a_sign() {
    let mut bot = TestBot::start_with_args(&["--stream-replies", "true"]).await;
    bot.telegram.set_language(ALICE, Some("es-MX"));
    let held = bot
        .llm
        .hold_stream(&["Había una ", "vez"], " y colorín colorado.");
    bot.telegram.send_text(ALICE, ALICE, "Cuéntame un cuento");
    let (preview, stop) = bot
        .telegram
        .wait_for_button(ALICE, "Había una vez", "⏹ Detener", PATIENCE)
        .await;
    bot.telegram
        .press_button(ALICE, ALICE, preview.message_id, &stop);
    tokio::time::timeout(PATIENCE, held.disconnect())
        .await
        .expect("the model call was dropped");
    let stopped = format!("Había una vez … {}", replies::STOPPED);
    bot.telegram
        .wait_for_message(ALICE, |text| text == stopped, PATIENCE)
        .await;
    bot.stop().await;

    assert_eq!(replies::stop_button(Lang::Es), "⏹ Detener");
    assert_eq!(replies::STOPPED, "⏹");
}

#[tokio::test]
async fn a_german_admin_gets_the_stranger_alert_and_its_buttons_in_german() {
    let admin = ADMIN.to_string();
    let mut bot = TestBot::start_with_args(&["--admin-users", &admin]).await;
    bot.telegram.set_language(ADMIN, Some("de"));
    bot.telegram.send_text(ADMIN, ADMIN, "/users");
    let users = bot.wait_for_messages(ADMIN, 1).await;
    bot.telegram.send_text(STRANGER, STRANGER, "hallo?");
    let shown = bot.wait_for_messages(ADMIN, 2).await;
    let alert = bot.telegram.bot_messages(ADMIN).remove(1);
    let allow = alert.buttons().remove(0).1;
    bot.telegram
        .press_button(ADMIN, ADMIN, alert.message_id, &allow);
    bot.wait_for_text(ADMIN, "Zugelassen von User 777 (ID 777).")
        .await;
    bot.stop().await;

    assert!(users[0].starts_with("Admins: 777\n"), "{}", users[0]);
    assert!(
        users[0].contains("Von Admins zugelassen: niemand"),
        "{}",
        users[0]
    );
    assert_eq!(
        shown[1],
        replies::stranger_alert(Lang::De, "User 999", Some("user999"), UserId(STRANGER))
    );
    assert!(
        shown[1]
            .starts_with("Jemand, der nicht auf der Zulassungsliste steht, hat mir geschrieben"),
        "{}",
        shown[1]
    );
    let labels: Vec<String> = alert
        .buttons()
        .into_iter()
        .map(|(label, _)| label)
        .collect();
    assert_eq!(labels, ["Zulassen", "Sperren"]);
}

#[tokio::test]
async fn an_admins_help_and_menu_carry_the_admin_commands_in_their_language() {
    let admin = ADMIN.to_string();
    let mut bot = TestBot::start_with_args(&["--admin-users", &admin]).await;
    bot.telegram.set_language(ADMIN, Some("ru"));
    bot.telegram.send_text(ADMIN, ADMIN, "/help");
    let help = bot.wait_for_messages(ADMIN, 1).await;
    bot.telegram
        .wait_for(
            |_| bot.telegram.chat_command_menu(ADMIN).is_some(),
            PATIENCE,
        )
        .await;
    bot.stop().await;

    assert_eq!(help[0], commands::admin::help_for_admins(Lang::Ru));
    assert!(
        help[0].contains("Команды администратора (их видят только администраторы):"),
        "{}",
        help[0]
    );
    assert!(
        help[0].contains("/allow — Разрешить человеку"),
        "{}",
        help[0]
    );
    // Registered at start, before the admin wrote: in English, with the admin commands.
    let menu = bot.telegram.chat_command_menu(ADMIN).unwrap();
    let names: Vec<&str> = menu
        .iter()
        .map(|(name, _)| name.trim_start_matches('/'))
        .collect();
    assert!(
        names.contains(&"model") && names.contains(&"usage"),
        "{names:?}"
    );
    assert_eq!(
        bot.telegram.command_menu(None).unwrap().len(),
        21,
        "everyone's menu"
    );
}
