//! Specifications of the `telemem` command line, run as the real binary.

use std::io::Write;
use std::process::{Output, Stdio};
use std::time::Duration;

use telemem::commands::{self, Command as BotCommand};
use telemem::i18n::Lang;
use telemem::replies;
use telemem::storage::{ChatId, ConversationKey, Role, Store, UserId};
use teloxide::utils::command::BotCommands;

use crate::support::command_line::{
    InteractiveCommand, printed_by, run_telemem, stderr_of, telemem_command,
};
use crate::support::database::{TempDatabase, TestDb};
use crate::support::fake_llm::{Behaviour, FakeLlm};
use crate::support::times::DAY_MS;

#[tokio::test]
async fn migrate_creates_the_database_and_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("data").join("bot.db");
    let url = format!("sqlite://{}", path.display());

    let output = run_telemem(&url, &["migrate"], &[]);

    assert!(output.status.success(), "stderr: {}", stderr_of(&output));
    assert!(path.exists());
    let store = Store::connect(&url).await.unwrap();
    assert_eq!(store.database_totals().await.unwrap().messages, 0);
}

#[tokio::test]
async fn purge_dry_run_counts_and_purge_deletes_old_rows() {
    let db = TestDb::new().await;
    let now = chrono::Utc::now().timestamp_millis();
    let key = ConversationKey::new(ChatId(7), UserId(7));
    let old_session = db.session(key, now - 40 * DAY_MS).await;
    db.message(key, old_session, Role::User, "ancient", now - 40 * DAY_MS)
        .await;
    let new_session = db.session(key, now - DAY_MS).await;
    db.message(key, new_session, Role::User, "recent", now - DAY_MS)
        .await;

    let dry_run = run_telemem(&db.url, &["purge", "--dry-run"], &[]);
    let printed = printed_by(&dry_run);
    assert!(printed.contains("would delete"), "{printed}");
    assert!(printed.contains("1 messages, 1 sessions"), "{printed}");
    assert_eq!(db.store.all_messages(key).await.unwrap().len(), 2);

    let purge = run_telemem(&db.url, &["purge"], &[]);
    let printed = printed_by(&purge);
    assert!(printed.contains("deleted"), "{printed}");
    let remaining = db.store.all_messages(key).await.unwrap();
    assert_eq!(remaining.len(), 1);
    assert_eq!(remaining[0].content, "recent");
}

#[tokio::test]
async fn stats_show_totals_and_one_users_usage() {
    let db = TestDb::new().await;
    let now = chrono::Utc::now().timestamp_millis();
    let key = ConversationKey::new(ChatId(7), UserId(77));
    let session = db.session(key, now).await;
    db.message(key, session, Role::User, "hi", now).await;

    let totals = run_telemem(&db.url, &["stats"], &[]);
    let printed = printed_by(&totals);
    assert!(printed.contains("messages:       1"), "{printed}");

    let user = run_telemem(&db.url, &["stats", "--user", "77"], &[]);
    let printed = printed_by(&user);
    assert!(printed.contains("messages stored:      1"), "{printed}");
}

#[test]
fn an_invalid_setting_fails_at_start_naming_the_variable_and_its_range() {
    let database = TempDatabase::new();
    for (variable, value, range) in [
        ("SESSION_IDLE_SECS", "0", "1..="),
        ("HISTORY_MAX_MESSAGES", "100000", "1..=1000"),
        ("PURGE_AFTER_SECS", "soon", "PURGE_AFTER_SECS"),
        ("HISTORY_WINDOW_SECS", "-5", "HISTORY_WINDOW_SECS"),
        ("INCOGNITO_WINDOW_SECS", "7200", "0..=3600"),
        ("INCOGNITO_MAX_TURNS", "51", "0..=50"),
    ] {
        let output = run_telemem(&database.url, &["migrate"], &[(variable, value)]);

        assert!(!output.status.success(), "{variable}={value} was accepted");
        let message = stderr_of(&output);
        assert!(message.contains(variable), "{variable}: {message}");
        assert!(message.contains(range), "{variable}: {message}");
        assert!(!message.contains("panicked"), "{message}");
    }
}

#[test]
fn an_unusable_database_url_is_a_clear_error_not_a_panic() {
    let output = run_telemem("mysql://nope", &["migrate"], &[]);

    assert!(!output.status.success());
    let message = stderr_of(&output);
    assert!(message.contains("DATABASE_URL"), "{message}");
    assert!(!message.contains("panicked"), "{message}");
}

#[test]
fn an_unreachable_postgres_server_is_a_clear_error_naming_it_without_the_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://telemem:pw-in-url-42@127.0.0.1:{port}/telemem");

    let output = run_telemem(&url, &["migrate"], &[]);

    assert!(!output.status.success());
    let message = stderr_of(&output);
    assert!(
        message.contains(&format!(
            "cannot connect to PostgreSQL at 127.0.0.1:{port}/telemem"
        )),
        "{message}"
    );
    assert!(!message.contains("pw-in-url-42"), "{message}");
    assert!(!message.contains("panicked"), "{message}");
}

/// `telemem chat --user 7` on `db_url` against `llm`, with `input` typed in: its output once the
/// input ends. Run off the test's runtime, so the fake LLM on it keeps answering.
async fn chat(db_url: &str, llm: &FakeLlm, input: &str) -> Output {
    chat_with(db_url, llm, &[], &[], input).await
}

/// [`chat`] with `extra_env` set for the chat.
async fn chat_with_env(
    db_url: &str,
    llm: &FakeLlm,
    input: &str,
    extra_env: &[(&str, &str)],
) -> Output {
    chat_with(db_url, llm, &[], extra_env, input).await
}

/// [`chat`] with `extra` arguments after `--user 7` and `extra_env` set for the chat.
async fn chat_with(
    db_url: &str,
    llm: &FakeLlm,
    extra: &[&str],
    extra_env: &[(&str, &str)],
    input: &str,
) -> Output {
    let llm_url = llm.base_url();
    let mut args = vec!["chat", "--user", "7"];
    args.extend_from_slice(extra);
    let mut env = vec![("LLM_BASE_URL", llm_url.as_str())];
    env.extend_from_slice(extra_env);
    let mut command = telemem_command(db_url, &args, &env);
    command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let input = input.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().expect("run the telemem binary");
        let mut stdin = child.stdin.take().expect("the chat's standard input");
        stdin
            .write_all(input.as_bytes())
            .expect("type into the chat");
        drop(stdin);
        child.wait_with_output().expect("wait for the chat to end")
    })
    .await
    .unwrap()
}

/// The chat's answers in what it `printed`, one per line typed, without the prompt that precedes
/// each.
fn answers(printed: &str) -> Vec<String> {
    printed
        .split("\n> ")
        .skip(1)
        .map(|answer| answer.trim_end().to_owned())
        .filter(|answer| !answer.is_empty())
        .collect()
}

#[tokio::test]
async fn chat_answers_commands_with_the_sentences_telegram_uses() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.push(Behaviour::reply("It is on its way."));

    let output = chat(
        &db.url,
        &llm,
        "/reset\nWhere is my parcel?\n/reset\n/help\n/forget two\n/forget 3\n/quit\n",
    )
    .await;

    assert_eq!(
        answers(&printed_by(&output)),
        [
            replies::reset_nothing_open(Lang::En),
            "It is on its way.".to_owned(),
            replies::reset_done(Lang::En),
            BotCommand::descriptions().to_string(),
            replies::forget_usage(Lang::En),
            replies::no_such_note(Lang::En, "3"),
        ]
    );
    let history = db
        .store
        .all_messages(ConversationKey::new(ChatId(7), UserId(7)))
        .await;
    assert_eq!(
        history.unwrap().len(),
        2,
        "the turn is stored like the bot's"
    );
}

#[tokio::test]
async fn chat_shows_private_material_and_saves_the_persona_like_a_private_chat() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;

    let output = chat(
        &db.url,
        &llm,
        "/persona\n/persona Be terse.\n/persona\n/memory\n/stats\n/persona reset\n",
    )
    .await;

    let answers = answers(&printed_by(&output));
    assert_eq!(answers.len(), 6, "{answers:#?}");
    assert_eq!(answers[0], replies::persona_none(Lang::En));
    assert_eq!(answers[1], replies::persona_set(Lang::En, "Be terse."));
    assert_eq!(answers[2], replies::persona_current(Lang::En, "Be terse."));
    assert!(
        answers[3].starts_with("I keep no notes about you"),
        "{}",
        answers[3]
    );
    assert!(
        answers[4].starts_with("Your statistics in this chat"),
        "{}",
        answers[4]
    );
    assert_eq!(answers[5], replies::persona_reset(Lang::En));
    assert!(llm.requests().is_empty(), "commands never reach the model");
}

#[tokio::test]
async fn chat_lists_the_models_and_asks_the_one_chosen_with_model() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    let models = [("LLM_MODEL", "main-model"), ("LLM_MODELS", "small-model")];

    let output = chat_with_env(
        &db.url,
        &llm,
        "/model\n/model small-model\nhello\n/stats\n",
        &models,
    )
    .await;

    let answers = answers(&printed_by(&output));
    assert_eq!(answers.len(), 4, "{answers:#?}");
    assert_eq!(
        answers[0],
        format!(
            "main-model answers you.\n\n{}\n  ✓ main-model\n  small-model",
            replies::model_choose_by_name(Lang::En)
        )
    );
    assert_eq!(answers[1], replies::model_chosen(Lang::En, "small-model"));
    let request = llm.last_request().expect("the turn asked the model");
    assert_eq!(request.body["model"], "small-model");
    assert!(answers[3].contains("Model: small-model"), "{}", answers[3]);
}

#[tokio::test]
async fn chat_keeps_nothing_in_incognito() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;

    let output = chat(
        &db.url,
        &llm,
        "/incognito on\nmy secret\n/incognito\n/incognito off\nkept\n",
    )
    .await;

    let answers = answers(&printed_by(&output));
    assert_eq!(answers.len(), 5, "{answers:#?}");
    assert_eq!(
        answers[0],
        replies::incognito_switched(Lang::En, true, true)
    );
    assert_eq!(answers[2], replies::incognito_state(Lang::En, true));
    assert_eq!(
        answers[3],
        replies::incognito_switched(Lang::En, false, true)
    );
    let history = db
        .store
        .all_messages(ConversationKey::new(ChatId(7), UserId(7)))
        .await;
    let history = history.unwrap();
    assert_eq!(history.len(), 2, "{history:#?}");
    assert_eq!(history[0].content, "kept");
}

#[test]
fn an_empty_entry_in_llm_models_stops_the_start_naming_the_variable() {
    let database = TempDatabase::new();

    let output = run_telemem(&database.url, &["migrate"], &[("LLM_MODELS", "a,,b")]);

    assert!(!output.status.success());
    let message = stderr_of(&output);
    assert!(
        message.contains("LLM_MODELS") && message.contains("empty model name"),
        "{message}"
    );
}

#[tokio::test]
async fn chat_explains_the_commands_a_terminal_cannot_carry_out_and_refuses_unknown_ones() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    let key = ConversationKey::new(ChatId(7), UserId(7));
    let now = chrono::Utc::now().timestamp_millis();
    let session = db.session(key, now).await;
    db.message(key, session, Role::User, "kept", now).await;

    let output = chat(
        &db.url,
        &llm,
        "/clear\n/export json\n/context hello\n/stats@other_bot\n",
    )
    .await;

    let unknown = replies::unknown_command(Lang::En, &BotCommand::descriptions().to_string());
    assert_eq!(
        answers(&printed_by(&output)),
        [
            replies::terminal_cannot_clear(Lang::En),
            replies::terminal_cannot_export(Lang::En),
            unknown.clone(),
            unknown,
        ]
    );
    assert_eq!(
        db.store.all_messages(key).await.unwrap().len(),
        1,
        "nothing deleted"
    );
    assert!(llm.requests().is_empty(), "commands never reach the model");
}

#[tokio::test]
async fn chat_retries_the_last_answer_and_keeps_only_the_new_one() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.push(Behaviour::reply("The first answer."));
    llm.push(Behaviour::reply("A better answer."));

    let output = chat(
        &db.url,
        &llm,
        "/retry\nTell me a joke\n/retry\n/cancel\n/quit\n",
    )
    .await;

    assert_eq!(
        answers(&printed_by(&output)),
        [
            replies::nothing_to_retry(Lang::En),
            "The first answer.".to_owned(),
            "A better answer.".to_owned(),
            replies::terminal_nothing_to_stop(Lang::En),
        ]
    );
    let history = db
        .store
        .all_messages(ConversationKey::new(ChatId(7), UserId(7)))
        .await;
    let contents: Vec<String> = history.unwrap().into_iter().map(|m| m.content).collect();
    assert_eq!(contents, ["Tell me a joke", "A better answer."]);
    assert!(
        !llm.last_request()
            .unwrap()
            .everything_sent()
            .contains("The first answer."),
        "asked again without the old answer"
    );
}

/// A retry asks the model like any turn: past the daily token limit, `/retry` in the terminal is
/// refused as in Telegram, and the stored answer stays.
#[tokio::test]
async fn chat_refuses_a_retry_past_the_daily_limit_and_keeps_the_answer() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.push(Behaviour::reply(
        "An answer long enough to use up ten tokens of the day.",
    ));

    let output = chat_with_env(
        &db.url,
        &llm,
        "Tell me a joke\n/retry\n/quit\n",
        &[("USER_DAILY_TOKEN_LIMIT", "10")],
    )
    .await;

    let printed = answers(&printed_by(&output));
    assert_eq!(printed.len(), 2, "{printed:?}");
    assert_eq!(
        printed[0],
        "An answer long enough to use up ten tokens of the day."
    );
    assert!(
        printed[1].starts_with("You have used your 10 tokens for today"),
        "{}",
        printed[1]
    );
    assert_eq!(llm.requests().len(), 1, "the retry reached no model");
    let history = db
        .store
        .all_messages(ConversationKey::new(ChatId(7), UserId(7)))
        .await;
    let contents: Vec<String> = history.unwrap().into_iter().map(|m| m.content).collect();
    assert_eq!(
        contents,
        [
            "Tell me a joke",
            "An answer long enough to use up ten tokens of the day."
        ]
    );
}

#[tokio::test]
async fn ctrl_c_in_chat_stops_the_answer_being_written_and_the_chat_goes_on() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    let held = llm.hold_stream(&["Once upon ", "a time"], " there was an ending.");
    let llm_url = llm.base_url();
    let command = telemem_command(
        &db.url,
        &["chat", "--user", "7"],
        &[("LLM_BASE_URL", &llm_url)],
    );
    let mut chat = InteractiveCommand::start(command);

    chat.type_line("Tell me a story");
    chat.wait_for_output("Once upon a time").await;
    chat.signal("INT");
    tokio::time::timeout(Duration::from_secs(3), held.disconnect())
        .await
        .expect("the model call was dropped at once");
    let stopped = format!("Once upon a time … {}", replies::STOPPED);
    chat.wait_for_output(&stopped).await;
    chat.type_line("/stats");
    chat.wait_for_output("Your statistics").await;
    let (status, printed) = chat.finish().await;

    assert!(status.success(), "{status:?}: {printed}");
    let history = db
        .store
        .all_messages(ConversationKey::new(ChatId(7), UserId(7)))
        .await;
    let contents: Vec<String> = history.unwrap().into_iter().map(|m| m.content).collect();
    assert_eq!(contents, ["Tell me a story".to_owned(), stopped]);
}

#[tokio::test]
async fn chat_writes_in_the_language_it_is_given_and_keeps_the_prompt_english() {
    let db = TestDb::new().await;
    let llm = FakeLlm::start().await;
    llm.push(Behaviour::reply("Es ist unterwegs."));

    let output = chat_with(
        &db.url,
        &llm,
        &["--language", "de"],
        &[],
        "/reset\nWo ist mein Paket?\n/help\n/forget zwei\n/quit\n",
    )
    .await;

    let printed = printed_by(&output);
    assert!(
        printed.starts_with(&replies::terminal_welcome(Lang::De, 7, 7)),
        "{printed}"
    );
    assert_eq!(
        answers(&printed),
        [
            replies::reset_nothing_open(Lang::De),
            "Es ist unterwegs.".to_owned(),
            commands::help_text(Lang::De),
            replies::forget_usage(Lang::De),
        ]
    );
    assert!(
        answers(&printed)[2].contains("/persona — Zeigen oder festlegen"),
        "{printed}"
    );
    let requests = llm.requests();
    let system = requests[0].system_prompt();
    let english_prompt = telemem::conversation::ConversationSettings::DEFAULT_PROMPT;
    let first_line = english_prompt.lines().next().unwrap_or_default();
    assert!(system.contains(first_line), "{system}");
}

#[test]
fn chat_refuses_a_language_it_does_not_speak_naming_the_ones_it_does() {
    let database = TempDatabase::new();

    let output = run_telemem(
        &database.url,
        &["chat", "--user", "7", "--language", "ja"],
        &[],
    );

    assert!(!output.status.success());
    let message = stderr_of(&output);
    assert!(message.contains("--language"), "{message}");
    assert!(
        message.contains("unknown language \"ja\": the bot speaks en, de, es, fr, ru"),
        "{message}"
    );
}
