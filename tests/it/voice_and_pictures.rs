//! Specifications of voice answers, `/tts`, `/voice`, `/image` and the `generate_image` tool, end
//! to end through the real dispatcher against fake speech and image servers (both answer shapes
//! each: bytes and base64 JSON, base64 and a URL), and once against a real local speech server
//! (espeak-ng and opusenc) where the machine has them. A voice note is checked by its header and
//! its length; a failing server never takes the text answer away; the daily limits refuse before
//! any call, on both backends.

use serde_json::json;
use telemem::llm::speech::read_opus;

use crate::postgres_variants;
use crate::support::bot_harness::{ALICE, BOB, TestBot};
use crate::support::fake_llm::Behaviour;
use crate::support::fake_media::{Answer, EspeakSpeech, FakeMedia, SPEECH_MS_PER_CHAR, fake_png};
use crate::support::fake_telegram::{SentDocument, UserFile};
use crate::support::waiting::PATIENCE;

/// A bot whose speech and image servers are `media`, with `args` on top.
async fn start_with(media: &FakeMedia, args: &[&str]) -> TestBot {
    let url = media.base_url();
    let mut all = vec!["--tts-base-url", &url, "--image-base-url", &url];
    all.extend_from_slice(args);
    TestBot::start_with_args(&all).await
}

async fn wait_for_voices(bot: &TestBot, chat_id: i64, count: usize) -> Vec<SentDocument> {
    let telegram = &bot.telegram;
    telegram
        .wait_for(|_| telegram.voices_in(chat_id).len() >= count, PATIENCE)
        .await;
    telegram.voices_in(chat_id)
}

async fn wait_for_photos(bot: &TestBot, chat_id: i64, count: usize) -> Vec<SentDocument> {
    let telegram = &bot.telegram;
    telegram
        .wait_for(|_| telegram.photos_in(chat_id).len() >= count, PATIENCE)
        .await;
    telegram.photos_in(chat_id)
}

/// Alice sends `text` and waits for one more message from the bot; returns it.
async fn say(bot: &TestBot, text: &str) -> String {
    let before = bot.telegram.sent_messages(ALICE).len();
    bot.telegram.send_text(ALICE, ALICE, text);
    bot.wait_for_messages(ALICE, before + 1).await[before].clone()
}

/// Checks `voice` is Opus in OGG of `duration_ms`, sent with its length in whole seconds.
fn assert_opus_voice_note(voice: &SentDocument, duration_ms: u64) {
    assert!(voice.bytes.starts_with(b"OggS"), "an OGG file");
    assert!(
        voice.bytes.windows(8).any(|window| window == b"OpusHead"),
        "an Opus stream"
    );
    let audio = read_opus(voice.bytes.clone()).expect("readable Opus in OGG");
    assert_eq!(audio.duration_ms, duration_ms);
    assert_eq!(voice.duration, Some(duration_ms.div_ceil(1_000) as i64));
}

#[tokio::test]
async fn tts_reads_text_aloud_as_an_ogg_opus_voice_note_of_its_length_in_both_answer_shapes() {
    for shape in [Answer::Plain, Answer::Wrapped] {
        let media = FakeMedia::start(shape.clone()).await;
        let mut bot = start_with(&media, &[]).await;

        bot.telegram
            .send_text(ALICE, ALICE, "/tts **Hello** there, friend.");
        let voices = wait_for_voices(&bot, ALICE, 1).await;
        bot.stop().await;

        let read = "Hello there, friend.";
        assert_opus_voice_note(&voices[0], read.len() as u64 * SPEECH_MS_PER_CHAR);
        let requests = media.requests();
        assert_eq!(
            requests,
            [json!({"model": "tts-1", "input": read, "voice": "alloy", "response_format": "opus"})],
            "{shape:?}"
        );
    }
}

#[tokio::test]
async fn a_voice_note_is_answered_in_text_and_aloud_under_voice_auto_and_in_text_after_voice_off() {
    let media = FakeMedia::start(Answer::Plain).await;
    let mut bot = start_with(&media, &[]).await;

    bot.telegram.send_voice(
        ALICE,
        ALICE,
        UserFile::new("What is the capital of France?"),
    );
    let answers = bot.wait_for_messages(ALICE, 1).await;
    let voices = wait_for_voices(&bot, ALICE, 1).await;
    assert!(answers[0].contains("capital of France"), "{answers:?}");
    assert_eq!(voices.len(), 1);
    assert_eq!(media.requests().len(), 1);

    // A written message under auto is answered in writing only.
    say(&bot, "And of Spain?").await;
    assert!(say(&bot, "/voice off").await.contains("off (text only)"));
    bot.telegram
        .send_voice(ALICE, ALICE, UserFile::new("And of Italy?"));
    bot.wait_for_text(ALICE, "And of Italy?").await;
    // Answered in order: once this is answered, the voice note's turn has ended.
    say(&bot, "Thanks").await;
    bot.stop().await;
    assert_eq!(bot.telegram.voices_in(ALICE).len(), 1);
    assert_eq!(media.requests().len(), 1);
}

#[tokio::test]
async fn voice_on_reads_every_answer_aloud_in_parts_the_server_takes() {
    let media = FakeMedia::start(Answer::Plain).await;
    let mut bot = start_with(&media, &["--tts-max-input-chars", "100"]).await;
    say(&bot, "/voice on").await;
    let long = "This sentence is here to be read. ".repeat(5);
    bot.llm.push(Behaviour::reply(&long));

    say(&bot, "Tell me something long").await;
    let voices = wait_for_voices(&bot, ALICE, 3).await;
    bot.stop().await;

    let inputs: Vec<String> = media
        .requests()
        .iter()
        .map(|request| request["input"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(inputs.len(), 3, "{inputs:?}");
    assert!(inputs.iter().all(|input| input.chars().count() <= 100));
    assert_eq!(inputs.join(" "), long.trim());
    assert_eq!(voices.len(), 3);
}

#[tokio::test]
async fn a_failing_or_silent_speech_server_leaves_the_text_answer() {
    for fault in [Answer::Status(500), Answer::Hang] {
        let media = FakeMedia::start(fault.clone()).await;
        let mut bot = start_with(&media, &["--tts-timeout-secs", "1"]).await;

        bot.telegram
            .send_voice(ALICE, ALICE, UserFile::new("Is anyone there?"));
        let answers = bot.wait_for_messages(ALICE, 1).await;
        let tts = say(&bot, "/tts hello").await;
        bot.stop().await;

        assert!(
            answers[0].contains("Is anyone there?"),
            "{fault:?}: {answers:?}"
        );
        assert!(
            tts.contains("could not read that aloud"),
            "{fault:?}: {tts}"
        );
        assert!(bot.telegram.voices_in(ALICE).is_empty());
        assert_eq!(media.requests().len(), 2, "{fault:?}");
    }
}

#[tokio::test]
async fn tts_without_text_or_with_too_much_gets_a_clear_answer_and_no_call() {
    let media = FakeMedia::start(Answer::Plain).await;
    let mut bot = start_with(&media, &["--tts-max-text-chars", "100"]).await;

    let empty = say(&bot, "/tts").await;
    let long = say(&bot, &format!("/tts {}", "word ".repeat(40))).await;
    bot.stop().await;

    assert!(empty.contains("/tts <text>"), "{empty}");
    assert!(
        long.contains("199 characters") && long.contains("100"),
        "{long}"
    );
    assert!(media.requests().is_empty());
}

#[tokio::test]
async fn image_sends_a_photo_with_its_description_and_the_next_prompt_knows_what_was_drawn() {
    for shape in [Answer::Plain, Answer::Wrapped] {
        let media = FakeMedia::start(shape.clone()).await;
        let mut bot = start_with(&media, &[]).await;

        bot.telegram.send_text(ALICE, ALICE, "/image a red fox");
        let photos = wait_for_photos(&bot, ALICE, 1).await;
        say(&bot, "Make the last one darker, in words").await;
        let next = bot.llm.last_request().expect("a model request");
        bot.stop().await;

        assert_eq!(photos[0].caption.as_deref(), Some("a red fox"), "{shape:?}");
        assert_eq!(photos[0].bytes, fake_png());
        assert_eq!(
            media.requests(),
            [
                json!({"model": "dall-e-3", "prompt": "a red fox", "n": 1, "size": "1024x1024",
                    "quality": "standard", "response_format": "b64_json"})
            ]
        );
        let sent = next.everything_sent();
        assert!(sent.contains("[drew: a red fox]"), "{sent}");
    }
}

#[tokio::test]
async fn a_refusal_by_the_image_servers_safety_system_shows_its_reason() {
    let reason = "Your request was rejected as a result of our safety system.";
    let media = FakeMedia::start(Answer::Unsafe(reason.to_owned())).await;
    let mut bot = start_with(&media, &[]).await;

    let answer = say(&bot, "/image something forbidden").await;
    bot.stop().await;

    assert!(answer.contains("declined to draw that"), "{answer}");
    assert!(answer.contains(reason), "{answer}");
    assert!(bot.telegram.photos_in(ALICE).is_empty());
}

#[tokio::test]
async fn an_image_server_that_times_out_or_fails_gets_a_clear_answer() {
    let media = FakeMedia::start(Answer::Hang).await;
    let mut bot = start_with(&media, &["--image-timeout-secs", "1"]).await;

    let slow = say(&bot, "/image a slow snail").await;
    media.answer(Answer::Status(503));
    let broken = say(&bot, "/image a broken vase").await;
    bot.stop().await;

    assert!(slow.contains("took too long"), "{slow}");
    assert!(broken.contains("could not draw that"), "{broken}");
}

#[tokio::test]
async fn an_empty_or_overlong_description_gets_a_clear_answer_and_no_call() {
    let media = FakeMedia::start(Answer::Plain).await;
    let mut bot = start_with(&media, &["--image-max-description-chars", "20"]).await;

    let empty = say(&bot, "/image").await;
    let long = say(&bot, "/image a fox, a hare and a hedgehog at tea").await;
    bot.stop().await;

    assert!(empty.contains("/image <description>"), "{empty}");
    assert!(
        long.contains("35 characters") && long.contains("20"),
        "{long}"
    );
    assert!(media.requests().is_empty());
}

#[tokio::test]
async fn past_the_daily_pictures_a_request_is_refused_without_a_call_and_admins_are_exempt() {
    let media = FakeMedia::start(Answer::Plain).await;
    let admin = BOB.to_string();
    let args = ["--user-daily-images", "1", "--admin-users", admin.as_str()];
    let mut bot = start_with(&media, &args).await;

    bot.telegram.send_text(ALICE, ALICE, "/image a fox");
    wait_for_photos(&bot, ALICE, 1).await;
    let refused = say(&bot, "/image a cat").await;
    let stats = say(&bot, "/stats").await;
    for animal in ["an owl", "a bat"] {
        bot.telegram
            .send_text(BOB, BOB, &format!("/image {animal}"));
    }
    wait_for_photos(&bot, BOB, 2).await;
    bot.stop().await;

    assert!(refused.contains("today's 1 pictures"), "{refused}");
    assert!(stats.contains("Pictures today: 1 of 1"), "{stats}");
    let prompts: Vec<_> = media
        .requests()
        .iter()
        .map(|r| r["prompt"].clone())
        .collect();
    assert_eq!(prompts, [json!("a fox"), json!("an owl"), json!("a bat")]);
}

#[tokio::test]
async fn past_the_daily_seconds_of_speech_tts_is_refused_without_a_call() {
    let media = FakeMedia::start(Answer::Plain).await;
    let mut bot = start_with(&media, &["--user-daily-tts-seconds", "2"]).await;

    bot.telegram.send_text(ALICE, ALICE, "/tts hello there");
    wait_for_voices(&bot, ALICE, 1).await;
    let refused = say(&bot, "/tts once more").await;
    let stats = say(&bot, "/stats").await;
    bot.stop().await;

    assert!(refused.contains("today's 2 seconds of speech"), "{refused}");
    assert!(stats.contains("Speech today: 2 s of 2 s"), "{stats}");
    assert_eq!(media.requests().len(), 1);
}

postgres_variants!(
    past_the_daily_pictures_a_request_is_refused_without_a_call_and_admins_are_exempt,
    past_the_daily_seconds_of_speech_tts_is_refused_without_a_call,
);

#[tokio::test]
async fn the_model_draws_with_generate_image_and_the_photo_follows_its_answer() {
    let media = FakeMedia::start(Answer::Plain).await;
    let mut bot = start_with(&media, &["--user-daily-images", "1"]).await;
    bot.llm.push(Behaviour::ToolCalls {
        text: String::new(),
        calls: vec![(
            "generate_image".to_owned(),
            json!({"description": "a blue whale, watercolour"}),
        )],
    });
    bot.llm.push(Behaviour::reply("Here is your whale."));

    let answer = say(&bot, "Draw me a whale").await;
    let photos = wait_for_photos(&bot, ALICE, 1).await;
    let requests = bot.llm.requests();
    // The one picture of the day is drawn: the next turn is not offered the tool.
    say(&bot, "Another one?").await;
    let after = bot.llm.last_request().expect("a model request");
    bot.stop().await;

    assert_eq!(answer, "Here is your whale.");
    assert_eq!(
        photos[0].caption.as_deref(),
        Some("a blue whale, watercolour")
    );
    let offered = requests[0].body["tools"].to_string();
    assert!(offered.contains("generate_image"), "{offered}");
    let result = requests[1].everything_sent();
    assert!(
        result.contains("[drew: a blue whale, watercolour]"),
        "{result}"
    );
    assert!(!after.body["tools"].to_string().contains("generate_image"));
    assert_eq!(media.requests().len(), 1);
}

/// A picture the model drew is made and counted even when the turn then fails: it comes with the
/// failure's notice, not with some later answer.
#[tokio::test]
async fn a_picture_drawn_before_the_model_failed_comes_with_the_notice() {
    let media = FakeMedia::start(Answer::Plain).await;
    let mut bot = start_with(&media, &[]).await;
    bot.llm.push(Behaviour::ToolCalls {
        text: String::new(),
        calls: vec![(
            "generate_image".to_owned(),
            json!({"description": "a red fox in the snow"}),
        )],
    });
    // Failing on every retry the client makes.
    for _ in 0..6 {
        bot.llm.push(Behaviour::Status(500, None));
    }

    let answer = say(&bot, "Draw me a fox").await;
    let photos = wait_for_photos(&bot, ALICE, 1).await;
    bot.stop().await;

    assert_eq!(
        answer,
        telemem::replies::model_unavailable(telemem::i18n::Lang::En)
    );
    assert_eq!(photos[0].caption.as_deref(), Some("a red fox in the snow"));
}

#[tokio::test]
async fn strangers_get_neither_pictures_nor_speech() {
    let media = FakeMedia::start(Answer::Plain).await;
    let mut bot = start_with(&media, &[]).await;
    let stranger = 987_654;

    bot.telegram.send_text(stranger, stranger, "/image a fox");
    bot.telegram.send_text(stranger, stranger, "/tts hello");
    bot.wait_for_messages(stranger, 1).await;
    say(&bot, "Hello").await;
    bot.stop().await;

    assert!(media.requests().is_empty());
    assert!(bot.telegram.photos_in(stranger).is_empty());
    assert!(bot.telegram.voices_in(stranger).is_empty());
}

#[tokio::test]
async fn a_real_local_speech_server_makes_a_playable_voice_note() {
    let Some(espeak) = EspeakSpeech::start().await else {
        return;
    };
    let url = espeak.base_url();
    let mut bot = TestBot::start_with_args(&["--tts-base-url", &url]).await;

    bot.telegram.send_text(
        ALICE,
        ALICE,
        "/tts Good morning. The weather is fine today.",
    );
    let voices = wait_for_voices(&bot, ALICE, 1).await;
    bot.stop().await;

    let audio = read_opus(voices[0].bytes.clone()).expect("Opus in OGG from opusenc");
    assert!(
        (1_000..10_000).contains(&audio.duration_ms),
        "{} ms",
        audio.duration_ms
    );
    assert_eq!(voices[0].duration, Some(audio.whole_seconds() as i64));
}

/// What a voice answer adds to a turn, for docs/PERFORMANCE.md: voice notes answered under
/// `/voice auto` against the real local speech server (the fake one where espeak-ng is missing),
/// each timed from the voice note to its text answer and from the text answer to its voice note.
/// `cargo test --test it voice_answer_timing -- --nocapture` prints the figures.
#[tokio::test]
async fn voice_answer_timing_every_voice_note_gets_its_voice_answer_after_its_text() {
    const TURNS: usize = 30;
    let answer = "The capital of France is Paris. It lies on the Seine, with about two million \
                  people in the city and twelve million around it. It is known for the Eiffel \
                  Tower, the Louvre and its cafés.";
    let espeak = EspeakSpeech::start().await;
    let fake = FakeMedia::start(Answer::Plain).await;
    let (server, url) = match &espeak {
        Some(espeak) => ("espeak-ng + opusenc", espeak.base_url()),
        None => ("the fake speech server", fake.base_url()),
    };
    let args = ["--tts-base-url", &url, "--user-messages-per-minute", "0"];
    let mut bot = TestBot::start_with_args(&args).await;
    let mut text_ms = Vec::new();
    let mut added_ms = Vec::new();
    for turn in 0..TURNS {
        bot.llm.push(Behaviour::reply(answer));
        let sent = std::time::Instant::now();
        bot.telegram
            .send_voice(ALICE, ALICE, UserFile::new(format!("Question {turn}?")));
        bot.wait_for_messages(ALICE, turn + 1).await;
        let text_at = sent.elapsed();
        wait_for_voices(&bot, ALICE, turn + 1).await;
        text_ms.push(text_at.as_secs_f64() * 1_000.0);
        added_ms.push((sent.elapsed() - text_at).as_secs_f64() * 1_000.0);
    }
    bot.stop().await;

    assert_eq!(bot.telegram.voices_in(ALICE).len(), TURNS);
    let percentile = |values: &mut Vec<f64>, share: f64| {
        values.sort_by(f64::total_cmp);
        let rank = ((share * values.len() as f64).ceil() as usize).clamp(1, values.len());
        values[rank - 1]
    };
    println!(
        "voice answers, {TURNS} voice notes of a {}-character answer, {server}: text answer \
         p50 {:.1} / p99 {:.1} ms; the voice answer adds p50 {:.1} / p99 {:.1} ms",
        answer.chars().count(),
        percentile(&mut text_ms, 0.5),
        percentile(&mut text_ms, 0.99),
        percentile(&mut added_ms, 0.5),
        percentile(&mut added_ms, 0.99),
    );
}
