//! Specifications of photos, voice notes, audio files, video notes and documents, end to end
//! through the real dispatcher: the fake Telegram serves `getFile` and the file downloads, the
//! fake LLM checks the pictures and the transcription forms of both dialects. A file becomes a
//! turn like text (memory keeps it as text), and every kind of bad input gets a polite reply,
//! stores nothing, and leaves the bot answering.

use telemem::storage::{ChatId, ConversationKey, Role, StoredMessage, UserId};

use crate::support::bot_harness::{ALICE, BOB, GROUP, TestBot};
use crate::support::bot_process::{BotProcess, Surroundings, free_port};
use crate::support::fake_llm::{Behaviour, RecordedRequest, Transcription, last_user_message};
use crate::support::fake_telegram::{Fault, TELEGRAM_DOWNLOAD_LIMIT, UserFile, called};
use crate::support::waiting::{PATIENCE, wait_for_model_requests};

/// A JPEG's first bytes, then `label`, so a test can tell which picture the model got.
fn jpeg(label: &str) -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0];
    bytes.extend_from_slice(label.as_bytes());
    bytes
}

fn png(label: &str) -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend_from_slice(label.as_bytes());
    bytes
}

/// A photo offered in three sizes: a thumbnail, the 1280-pixel one and a huge one.
fn photo_sizes() -> Vec<(u32, u32, Vec<u8>)> {
    vec![
        (90, 68, jpeg("thumbnail")),
        (1280, 960, jpeg("the 1280 one")),
        (2560, 1920, jpeg("huge")),
    ]
}

async fn history(bot: &TestBot, user: i64) -> Vec<StoredMessage> {
    bot.store
        .all_messages(ConversationKey::new(ChatId(user), UserId(user)))
        .await
        .expect("the history")
}

fn contents(messages: &[StoredMessage]) -> Vec<(Role, String)> {
    messages
        .iter()
        .map(|message| (message.role, message.content.clone()))
        .collect()
}

fn last_request(bot: &TestBot) -> RecordedRequest {
    bot.llm.last_request().expect("a model request")
}

#[tokio::test]
async fn a_photo_goes_to_the_vision_model_as_a_data_url_and_history_keeps_its_marker_and_caption() {
    let mut bot = TestBot::start_with_args(&["--vision-model", "llava"]).await;
    bot.telegram.send_photo_sizes(
        ALICE,
        ALICE,
        &photo_sizes(),
        Some("What breed is this dog?"),
    );
    let replies = bot.wait_for_messages(ALICE, 1).await;

    let request = last_request(&bot);
    assert_eq!(request.body["model"], "llava");
    assert_eq!(
        request.images(),
        [("image/jpeg".to_owned(), jpeg("the 1280 one"))]
    );
    let question = last_user_message(&request.body);
    assert!(
        question.ends_with("[photo] What breed is this dog?"),
        "{question}"
    );
    assert_eq!(bot.telegram.downloaded_files(), ["photos/photo-1-1.bin"]);
    assert!(
        replies[0].contains("[photo] What breed is this dog?"),
        "{replies:?}"
    );

    // The picture travels once: the next turn's history is text, and the usual model answers.
    bot.telegram
        .send_text(ALICE, ALICE, "And how big do they get?");
    bot.wait_for_messages(ALICE, 2).await;
    let next = last_request(&bot);
    bot.stop().await;
    assert!(next.images().is_empty());
    assert_eq!(next.body["model"], "llama3.2");
    assert!(
        next.everything_sent()
            .contains("[photo] What breed is this dog?")
    );
    let stored = contents(&history(&bot, ALICE).await);
    assert_eq!(
        stored[0],
        (Role::User, "[photo] What breed is this dog?".to_owned())
    );
    assert_eq!(stored[1], (Role::Assistant, replies[0].clone()));
}

#[tokio::test]
async fn in_a_group_a_photo_is_for_the_bot_when_its_caption_mentions_it() {
    let mut bot = TestBot::start().await;
    let mention = format!(
        "@{} what plant is this?",
        crate::support::fake_telegram::BOT_USERNAME
    );
    bot.telegram.send_photo_sizes(
        GROUP,
        ALICE,
        &photo_sizes(),
        Some("holiday snaps, not for the bot"),
    );
    bot.telegram
        .send_photo_sizes(GROUP, ALICE, &photo_sizes(), Some(&mention));
    bot.wait_for_messages(GROUP, 1).await;
    bot.stop().await;

    let requests = bot.llm.requests();
    assert_eq!(requests.len(), 1, "only the photo for the bot is read");
    let question = last_user_message(&requests[0].body);
    assert!(
        question.ends_with("[photo] what plant is this?"),
        "{question}"
    );
    assert_eq!(bot.telegram.downloaded_files().len(), 1);
}

#[tokio::test]
async fn a_photo_reaches_anthropic_as_a_base64_image_block_before_its_text() {
    let mut bot = TestBot::start_with_args(&["--llm-provider", "anthropic"]).await;
    bot.telegram
        .send_photo_sizes(ALICE, ALICE, &photo_sizes(), None);
    bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    let request = last_request(&bot);
    assert_eq!(request.path, "/v1/messages");
    let content = &request.body["messages"][0]["content"];
    assert_eq!(content[0]["type"], "image");
    assert_eq!(content[0]["source"]["type"], "base64");
    assert_eq!(content[0]["source"]["media_type"], "image/jpeg");
    assert_eq!(content[1]["type"], "text");
    assert!(content[1]["text"].as_str().unwrap().ends_with("[photo]"));
    assert_eq!(
        request.images(),
        [("image/jpeg".to_owned(), jpeg("the 1280 one"))]
    );
}

#[tokio::test]
async fn a_picture_sent_as_a_file_is_a_photo_too() {
    let mut bot = TestBot::start().await;
    let screenshot = UserFile::new(png("screenshot")).named("screen.png", "image/png");
    bot.telegram
        .send_document(ALICE, ALICE, screenshot, Some("What does this error mean?"));
    bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    let request = last_request(&bot);
    assert_eq!(
        request.images(),
        [("image/png".to_owned(), png("screenshot"))]
    );
    let stored = history(&bot, ALICE).await;
    assert_eq!(stored[0].content, "[photo] What does this error mean?");
}

#[tokio::test]
async fn a_model_that_cannot_see_gets_a_polite_notice_and_the_caption_is_kept() {
    let mut bot = TestBot::start().await;
    bot.llm.refuse_images();
    bot.telegram.send_photo_sizes(
        ALICE,
        ALICE,
        &photo_sizes(),
        Some("Is this mushroom edible?"),
    );
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert!(
        replies[0].contains("cannot look at pictures"),
        "{replies:?}"
    );
    assert!(replies[0].contains("VISION_MODEL"), "{replies:?}");
    assert!(!replies[0].contains("400"), "{replies:?}");
    let stored = contents(&history(&bot, ALICE).await);
    assert_eq!(
        stored,
        [(Role::User, "[photo] Is this mushroom edible?".to_owned())]
    );
}

#[tokio::test]
async fn a_voice_note_is_transcribed_quoted_answered_and_found_in_a_later_sessions_prompt() {
    // Two raw messages only, so the voice note is recalled from memory, not carried verbatim.
    let mut bot = TestBot::start_with_args(&["--history-max-messages", "2"]).await;
    let words = "Remember to buy oat milk and sourdough bread tomorrow";
    bot.telegram.send_voice(ALICE, ALICE, UserFile::new(words));
    let replies = bot.wait_for_messages(ALICE, 1).await;

    let heard = format!("🎤 “{words}”");
    assert!(replies[0].starts_with(&heard), "{replies:?}");
    assert!(
        replies[0].contains(&format!("] [voice] {words}")),
        "{replies:?}"
    );
    let transcriptions = bot.llm.transcriptions();
    assert_eq!(transcriptions.len(), 1);
    assert_eq!(transcriptions[0].model, "whisper-1");
    assert_eq!(transcriptions[0].file_name.as_deref(), Some("voice.ogg"));
    assert_eq!(transcriptions[0].bytes, words.as_bytes());

    bot.telegram.send_text(ALICE, ALICE, "/reset");
    bot.wait_for_text(ALICE, "fresh session").await;
    bot.telegram.send_text(ALICE, ALICE, "Hello again!");
    bot.wait_for_messages(ALICE, 3).await;
    bot.telegram
        .send_text(ALICE, ALICE, "What did I tell you to buy?");
    bot.wait_for_messages(ALICE, 4).await;
    let later = last_request(&bot);
    bot.stop().await;

    let system = later.system_prompt();
    assert!(system.contains("oat milk and sourdough bread"), "{system}");
    let stored = history(&bot, ALICE).await;
    assert_eq!(stored[0].content, format!("[voice] {words}"));
    assert_ne!(stored[0].session_id, stored.last().unwrap().session_id);
    // What was heard is shown, not stored twice: the reply in the history is the model's own.
    assert!(!stored[1].content.contains('🎤'), "{:?}", stored[1].content);
}

#[tokio::test]
async fn a_streamed_answer_to_a_voice_note_shows_what_was_heard_above_it_from_the_first_preview() {
    let mut bot = TestBot::start_with_args(&["--stream-replies", "true"]).await;
    bot.llm.push(Behaviour::chunks(
        &[
            (std::time::Duration::ZERO, "Sure, "),
            (std::time::Duration::from_millis(1_500), "noted."),
        ],
        false,
    ));
    bot.telegram
        .send_voice(ALICE, ALICE, UserFile::new("note the dentist on Monday"));
    let heard = "🎤 “note the dentist on Monday”";
    let preview = bot
        .telegram
        .wait_for_message(ALICE, |text| text.contains("Sure,"), PATIENCE)
        .await;
    let shown = bot
        .telegram
        .wait_for_message(ALICE, |text| text.ends_with("noted."), PATIENCE)
        .await;
    bot.stop().await;

    assert!(preview[0].starts_with(heard), "{preview:?}");
    assert_eq!(shown, [format!("{heard}\n\nSure, noted.")]);
}

#[tokio::test]
async fn anthropic_transcribes_at_the_configured_server_with_its_own_key_and_model() {
    let fake_transcriber = crate::support::fake_llm::FakeLlm::start().await;
    let url = fake_transcriber.base_url();
    let mut bot = TestBot::start_with_args(&[
        "--llm-provider",
        "anthropic",
        "--llm-api-key",
        "sk-ant-chat-key",
        "--transcription-base-url",
        &url,
        "--transcription-api-key",
        "tk-whisper",
        "--transcription-model",
        "whisper-large-v3",
    ])
    .await;
    bot.telegram
        .send_voice(ALICE, ALICE, UserFile::new("Book a table for four"));
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    let transcriptions = fake_transcriber.transcriptions();
    assert_eq!(transcriptions.len(), 1);
    assert_eq!(transcriptions[0].model, "whisper-large-v3");
    assert_eq!(
        transcriptions[0].authorization.as_deref(),
        Some("Bearer tk-whisper")
    );
    assert!(replies[0].contains("Book a table for four"), "{replies:?}");
    let request = last_request(&bot);
    assert_eq!(request.path, "/v1/messages");
    assert!(
        request
            .everything_sent()
            .contains("[voice] Book a table for four")
    );
}

#[tokio::test]
async fn anthropic_without_a_transcription_server_answers_voice_notes_politely_without_fetching() {
    let mut bot = TestBot::start_with_args(&["--llm-provider", "anthropic"]).await;
    bot.telegram
        .send_voice(ALICE, ALICE, UserFile::new("call mum"));
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    assert!(
        replies[0].contains("Voice notes are not set up"),
        "{replies:?}"
    );
    assert!(!called(&bot.telegram.calls(), "getFile"));
    assert!(bot.llm.requests().is_empty());
    assert!(history(&bot, ALICE).await.is_empty());
}

#[tokio::test]
async fn audio_files_and_video_notes_are_transcribed_like_voice_notes() {
    let mut bot = TestBot::start().await;
    let memo = UserFile::new("the meeting moved to Friday").named("memo.m4a", "audio/x-m4a");
    bot.telegram.send_audio(ALICE, ALICE, memo);
    bot.wait_for_messages(ALICE, 1).await;
    bot.telegram
        .send_video_note(ALICE, ALICE, UserFile::new("look at my new bike"));
    bot.wait_for_messages(ALICE, 2).await;
    bot.stop().await;

    let names: Vec<Option<String>> = bot
        .llm
        .transcriptions()
        .into_iter()
        .map(|request| request.file_name)
        .collect();
    assert_eq!(
        names,
        [
            Some("memo.m4a".to_owned()),
            Some("video_note.mp4".to_owned())
        ]
    );
    let stored = history(&bot, ALICE).await;
    assert_eq!(stored[0].content, "[audio] the meeting moved to Friday");
    assert_eq!(stored[2].content, "[video note] look at my new bike");
}

#[tokio::test]
async fn a_text_document_goes_into_the_prompt_and_its_name_caption_and_start_are_stored() {
    let mut bot = TestBot::start().await;
    let list =
        UserFile::new("# Groceries\n- oat milk\n- rye bread\n").named("list.md", "text/markdown");
    bot.telegram
        .send_document(ALICE, ALICE, list, Some("Sort this by aisle"));
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    let question = last_user_message(&last_request(&bot).body);
    assert!(
        question.contains("[document: list.md] Sort this by aisle"),
        "{question}"
    );
    assert!(question.contains("- rye bread"), "{question}");
    assert!(
        !replies[0].contains("📄"),
        "a whole document needs no note: {replies:?}"
    );
    let stored = history(&bot, ALICE).await;
    assert_eq!(
        stored[0].content,
        "[document: list.md] Sort this by aisle\n\n# Groceries\n- oat milk\n- rye bread"
    );
}

#[tokio::test]
async fn a_long_document_is_cut_to_its_token_budget_with_a_visible_marker() {
    let mut bot = TestBot::start_with_args(&["--document-token-budget", "200"]).await;
    let text = format!(
        "{} THE-LAST-LINE",
        "lorem ipsum dolor sit amet ".repeat(400)
    );
    let file = UserFile::new(text.clone()).named("essay.txt", "text/plain");
    bot.telegram.send_document(ALICE, ALICE, file, None);
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    let question = last_user_message(&last_request(&bot).body);
    assert!(
        question.contains("[… cut here: the remaining"),
        "{question}"
    );
    assert!(!question.contains("THE-LAST-LINE"));
    assert!(question.len() < 1_500, "{} bytes", question.len());
    assert!(
        replies[0].starts_with("📄 The document is long: I read its first"),
        "{replies:?}"
    );
    let stored = history(&bot, ALICE).await;
    assert!(
        stored[0]
            .content
            .starts_with("[document: essay.txt]\n\nlorem ipsum")
    );
    assert!(stored[0].content.len() < 700, "{}", stored[0].content.len());
}

#[tokio::test]
async fn a_pdf_documents_text_goes_into_the_prompt() {
    let mut bot = TestBot::start().await;
    let pdf = include_bytes!("../data/invoice.pdf").to_vec();
    let file = UserFile::new(pdf).named("invoice.pdf", "application/pdf");
    bot.telegram
        .send_document(ALICE, ALICE, file, Some("Who is this invoice for?"));
    bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;

    let question = last_user_message(&last_request(&bot).body);
    assert!(question.contains("Invoice 4711 for Chemitek"), "{question}");
}

#[tokio::test]
async fn files_over_telegrams_limit_or_the_document_limit_are_refused_before_any_download() {
    let mut bot = TestBot::start_with_args(&["--document-max-bytes", "100"]).await;
    let huge = UserFile::new("x").reporting_size(TELEGRAM_DOWNLOAD_LIMIT + 1);
    bot.telegram.send_voice(ALICE, ALICE, huge);
    let replies = bot.wait_for_messages(ALICE, 1).await;
    assert!(replies[0].contains("up to 20 MB"), "{replies:?}");

    let long = UserFile::new("y".repeat(101)).named("notes.txt", "text/plain");
    bot.telegram.send_document(ALICE, ALICE, long, None);
    let replies = bot.wait_for_messages(ALICE, 2).await;
    assert!(
        replies[1].contains("larger than the 100 bytes"),
        "{replies:?}"
    );

    let poster = UserFile::new(png("poster"))
        .named("poster.png", "image/png")
        .reporting_size(6 * 1024 * 1024);
    bot.telegram.send_document(ALICE, ALICE, poster, None);
    let replies = bot.wait_for_messages(ALICE, 3).await;
    assert!(replies[2].contains("send it as a photo"), "{replies:?}");
    bot.stop().await;

    let calls = bot.telegram.calls();
    assert!(!called(&calls, "getFile") && !called(&calls, "downloadFile"));
    assert!(bot.llm.requests().is_empty() && bot.llm.transcriptions().is_empty());
    assert!(history(&bot, ALICE).await.is_empty());
}

#[tokio::test]
async fn empty_and_broken_files_get_a_clear_reply_store_nothing_and_the_bot_goes_on() {
    let mut bot = TestBot::start().await;
    let cases: Vec<(UserFile, &str)> = vec![
        (UserFile::new(""), "file is empty"),
        (
            UserFile::new("not a picture").named("cat.jpg", "image/jpeg"),
            "could not open that picture",
        ),
        (
            UserFile::new(b"{\"a\": \xff\xfe}".to_vec()).named("data.json", "application/json"),
            "could not read that file as text",
        ),
        (
            UserFile::new("%PDF-1.4 torn off").named("scan.pdf", "application/pdf"),
            "could not read that PDF",
        ),
    ];
    for (index, (file, expected)) in cases.into_iter().enumerate() {
        if index == 0 {
            bot.telegram.send_voice(ALICE, ALICE, file);
        } else {
            bot.telegram.send_document(ALICE, ALICE, file, None);
        }
        let replies = bot.wait_for_messages(ALICE, index + 1).await;
        assert!(replies[index].contains(expected), "{replies:?}");
    }
    bot.telegram.send_text(ALICE, ALICE, "Still there?");
    let replies = bot.wait_for_messages(ALICE, 5).await;
    bot.stop().await;

    assert!(replies[4].contains("reply to: "), "{replies:?}");
    let stored = contents(&history(&bot, ALICE).await);
    assert_eq!(stored.len(), 2, "only the text turn: {stored:?}");
    assert!(bot.llm.transcriptions().is_empty());
}

#[tokio::test]
async fn a_failing_refusing_hanging_or_absent_transcription_server_gets_a_polite_reply() {
    let mut bot = TestBot::start_with_args(&["--media-timeout-secs", "1"]).await;
    let outcomes = [
        (Transcription::Status(500), "not answering right now"),
        (
            Transcription::Status(400),
            "could not make out that recording",
        ),
        (Transcription::Hang, "took too long"),
        (
            Transcription::Text("   ".to_owned()),
            "could not hear any words",
        ),
    ];
    for (index, (behaviour, expected)) in outcomes.into_iter().enumerate() {
        bot.llm.push_transcription(behaviour);
        bot.telegram
            .send_voice(ALICE, ALICE, UserFile::new("some words"));
        let replies = bot.wait_for_messages(ALICE, index + 1).await;
        assert!(replies[index].contains(expected), "{replies:?}");
    }
    bot.telegram.send_text(ALICE, ALICE, "Fine, I'll type.");
    let replies = bot.wait_for_messages(ALICE, 5).await;
    bot.stop().await;
    assert!(replies[4].contains("reply to: "), "{replies:?}");
    assert_eq!(history(&bot, ALICE).await.len(), 2);

    let nobody = format!("http://127.0.0.1:{}/v1", free_port());
    let mut bot = TestBot::start_with_args(&["--transcription-base-url", &nobody]).await;
    bot.telegram
        .send_voice(ALICE, ALICE, UserFile::new("some words"));
    let replies = bot.wait_for_messages(ALICE, 1).await;
    bot.stop().await;
    assert!(
        replies[0].contains("not answering right now"),
        "{replies:?}"
    );
    assert!(history(&bot, ALICE).await.is_empty());
}

#[tokio::test]
async fn stickers_archives_and_other_files_get_the_short_reply_without_a_download() {
    let mut bot = TestBot::start().await;
    bot.telegram.send_sticker(ALICE, ALICE, "😀");
    let archive = UserFile::new("PK\x03\x04").named("backup.zip", "application/zip");
    bot.telegram.send_document(ALICE, ALICE, archive, None);
    let replies = bot.wait_for_messages(ALICE, 2).await;
    bot.stop().await;

    assert!(
        replies
            .iter()
            .all(|reply| reply.contains("can't read this kind")),
        "{replies:?}"
    );
    assert!(!called(&bot.telegram.calls(), "getFile"));
    assert!(bot.llm.requests().is_empty());
}

#[tokio::test]
async fn files_count_towards_the_per_minute_limit_like_text() {
    let mut bot = TestBot::start_with_args(&["--user-messages-per-minute", "1"]).await;
    bot.telegram.send_text(ALICE, ALICE, "first");
    bot.wait_for_messages(ALICE, 1).await;
    bot.telegram
        .send_voice(ALICE, ALICE, UserFile::new("second, spoken"));
    let replies = bot.wait_for_messages(ALICE, 2).await;
    // Another person is not held back by Alice's limit.
    bot.telegram
        .send_voice(BOB, BOB, UserFile::new("hello from Bob"));
    bot.wait_for_messages(BOB, 1).await;
    bot.stop().await;

    assert!(
        replies[1].contains("more than 1 messages in a minute"),
        "{replies:?}"
    );
    let heard: Vec<Vec<u8>> = bot
        .llm
        .transcriptions()
        .into_iter()
        .map(|t| t.bytes)
        .collect();
    assert_eq!(heard, [b"hello from Bob".to_vec()]);
}

#[tokio::test]
async fn a_transcription_url_that_is_not_http_stops_the_start_naming_the_variable() {
    let telegram = crate::support::fake_telegram::FakeTelegram::start().await;
    let database = crate::support::database::TempDatabase::new();
    let config = crate::support::config::parse_config(&[
        "--database-url",
        &database.url,
        "--allowed-users",
        "111",
        "--transcription-base-url",
        "ftp://127.0.0.1/v1",
    ]);
    let clock = std::sync::Arc::new(telemem::clock::SystemClock);
    let result = telemem::app::App::build_with(config, telegram.bot(), clock).await;

    let error = format!("{:#}", result.err().expect("refused to start"));
    assert!(error.contains("TRANSCRIPTION_BASE_URL"), "{error}");
}

#[tokio::test]
async fn a_voice_turn_resumed_after_a_crash_uses_the_stored_transcript_without_fetching_again() {
    let around = Surroundings::start().await;
    around.llm.push(Behaviour::Hang);
    let mut bot: BotProcess = around.spawn_bot(&[("STREAM_REPLIES", "false")]);
    around
        .telegram
        .send_voice(ALICE, ALICE, UserFile::new("Water the plants on Sunday"));
    // The model is asked only once the transcript is stored as the person's message.
    wait_for_model_requests(&around.llm, 1).await;
    bot.signal("KILL");
    bot.wait_for_exit().await;

    let mut bot = around.spawn_bot(&[("STREAM_REPLIES", "false")]);
    let shown = around
        .telegram
        .wait_for_message(ALICE, |text| text.contains("reply to:"), PATIENCE)
        .await;
    bot.signal("TERM");
    bot.wait_for_exit().await;

    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(
        shown[0].starts_with("🎤 “Water the plants on Sunday”"),
        "{shown:?}"
    );
    assert_eq!(around.telegram.downloaded_files().len(), 1);
    assert_eq!(around.llm.transcriptions().len(), 1);
    let logs = bot.logs();
    assert!(
        logs.contains("using the transcript stored before a restart"),
        "{logs}"
    );
}

#[tokio::test]
async fn a_failed_download_is_answered_politely_and_never_logs_the_token() {
    let around = Surroundings::start().await;
    around
        .telegram
        .fail_next("downloadFile", Fault::DropConnection);
    let mut bot = around.spawn_bot(&[]);
    around
        .telegram
        .send_voice(ALICE, ALICE, UserFile::new("pick up the keys"));
    let shown = around
        .telegram
        .wait_for_message(
            ALICE,
            |text| text.contains("could not fetch your file"),
            PATIENCE,
        )
        .await;
    bot.signal("TERM");
    bot.wait_for_exit().await;

    assert_eq!(shown.len(), 1, "{shown:?}");
    let logs = bot.logs();
    assert!(
        logs.contains("downloading a file from Telegram failed"),
        "{logs}"
    );
    assert!(
        !logs.contains(around.telegram.token()),
        "the token leaked: {logs}"
    );
    assert!(
        !logs.contains("/file/bot"),
        "a download URL was logged: {logs}"
    );
}
