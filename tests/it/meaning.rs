//! Specifications of recall by meaning: background embedding of messages and summaries, the
//! fusion with recall by words, the fall-back to words when the embedding server is slow or
//! failing, vectors deleted with their rows, a changed model, and isolation between people,
//! through the real pipeline (`ChatServices`) against the fake LLM and the fake embedding server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use telemem::app::ChatServices;
use telemem::clock::ManualClock;
use telemem::storage::ConversationKey;

use crate::support::config::parse_config;
use crate::support::database::{ALICE_KEY, BOB_KEY, TempDatabase};
use crate::support::fake_embeddings::FakeEmbeddings;
use crate::support::fake_llm::{FakeLlm, RecordedRequest};
use crate::support::times::{HOUR_MS, MIDNIGHT_MS, MINUTE_MS};

/// Turns of small talk that push a fact out of the raw history (`--history-max-messages 10`).
const FILLER_TURNS: usize = 8;

struct Pipeline {
    core: ChatServices,
    llm: FakeLlm,
    embeddings: FakeEmbeddings,
    clock: ManualClock,
    database: TempDatabase,
}

impl Pipeline {
    /// With recall by meaning (`with_embeddings`) or by words only.
    async fn start(with_embeddings: bool, extra: &[&str]) -> Self {
        let database = TempDatabase::new();
        let llm = FakeLlm::start().await;
        let embeddings = FakeEmbeddings::start().await;
        let core = build(
            &database,
            &llm,
            with_embeddings.then_some(&embeddings),
            extra,
            None,
        )
        .await;
        Self {
            clock: core.1,
            core: core.0,
            llm,
            embeddings,
            database,
        }
    }

    async fn say(&self, key: ConversationKey, text: &str) -> RecordedRequest {
        self.clock.advance_ms(MINUTE_MS);
        self.core
            .conversations
            .chat(key, text)
            .await
            .expect("chat turn");
        self.llm.last_request().expect("a model request")
    }

    /// What the background embedder does in one look.
    async fn embed(&self) {
        let embedder = self.core.embedder.as_ref().expect("an embedder");
        embedder.start().await.unwrap();
        embedder.embed_waiting().await.unwrap();
    }

    /// Small talk that shares no word with the facts of these tests.
    async fn small_talk(&self, key: ConversationKey) {
        for turn in 0..FILLER_TURNS {
            self.say(
                key,
                &format!("tell me a fun fact number {turn} about penguins"),
            )
            .await;
        }
    }
}

async fn build(
    database: &TempDatabase,
    llm: &FakeLlm,
    embeddings: Option<&FakeEmbeddings>,
    extra: &[&str],
    model: Option<&str>,
) -> (ChatServices, ManualClock) {
    let base_url = llm.base_url();
    let mut args = vec![
        "--database-url".to_owned(),
        database.url.clone(),
        "--llm-base-url".to_owned(),
        base_url,
        "--llm-max-retries".to_owned(),
        "0".to_owned(),
        "--history-max-messages".to_owned(),
        "10".to_owned(),
    ];
    if let Some(embeddings) = embeddings {
        args.extend([
            "--embedding-model".to_owned(),
            model.unwrap_or("fake-minilm").to_owned(),
            "--embedding-base-url".to_owned(),
            embeddings.base_url().to_owned(),
        ]);
    }
    args.extend(extra.iter().map(|arg| (*arg).to_owned()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let clock = ManualClock::starting_at(MIDNIGHT_MS + 9 * HOUR_MS);
    let core = ChatServices::build(&parse_config(&args), Arc::new(clock.clone()))
        .await
        .unwrap();
    (core, clock)
}

#[tokio::test]
async fn a_paraphrase_finds_the_fact_by_meaning_and_not_by_words() {
    for with_embeddings in [true, false] {
        let pipeline = Pipeline::start(with_embeddings, &[]).await;
        pipeline
            .say(
                ALICE_KEY,
                "My dermatologist is Dr. Okonkwo at the Lindenhof practice.",
            )
            .await;
        pipeline.small_talk(ALICE_KEY).await;
        if with_embeddings {
            pipeline.embed().await;
        }

        let request = pipeline
            .say(ALICE_KEY, "who is the skin doctor I see?")
            .await;

        assert_eq!(
            request.system_prompt().contains("Okonkwo"),
            with_embeddings,
            "with embeddings: {with_embeddings}\n{}",
            request.system_prompt()
        );
    }
}

#[tokio::test]
async fn messages_and_summaries_are_embedded_in_the_background_and_never_on_a_reply_path() {
    let pipeline = Pipeline::start(true, &["--session-idle-secs", "60"]).await;
    pipeline.say(ALICE_KEY, "hello there").await;
    pipeline
        .say(ALICE_KEY, "I need a plumber for the sink")
        .await;
    // A turn with nothing older than its raw history asks nothing of the embedding server, and
    // storing messages does not either.
    assert_eq!(pipeline.embeddings.requests(), 0);

    pipeline.embed().await;
    // Two messages and two replies.
    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        4
    );

    pipeline.clock.advance_ms(10 * MINUTE_MS);
    pipeline
        .core
        .summarizer
        .summarize_pending_once()
        .await
        .unwrap();
    pipeline.embed().await;
    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        5,
        "the session's summary has its vector too"
    );
    let requests = pipeline.embeddings.requests();
    pipeline.embed().await;
    assert_eq!(
        pipeline.embeddings.requests(),
        requests,
        "nothing is embedded twice"
    );
}

#[tokio::test]
async fn a_restart_carries_on_where_the_last_run_stopped_and_a_new_model_starts_over() {
    let database = TempDatabase::new();
    let llm = FakeLlm::start().await;
    let embeddings = FakeEmbeddings::start().await;
    let (core, _clock) = build(&database, &llm, Some(&embeddings), &[], None).await;
    core.conversations
        .chat(ALICE_KEY, "first message")
        .await
        .unwrap();
    let embedder = core.embedder.clone().unwrap();
    embedder.start().await.unwrap();
    embedder.embed_waiting().await.unwrap();
    core.conversations
        .chat(ALICE_KEY, "second message")
        .await
        .unwrap();
    core.store.close().await;
    drop(core);

    let (core, _clock) = build(&database, &llm, Some(&embeddings), &[], None).await;
    let texts_before = embeddings.texts().len();
    let embedder = core.embedder.clone().unwrap();
    embedder.start().await.unwrap();
    embedder.embed_waiting().await.unwrap();
    assert_eq!(core.store.vector_count(ALICE_KEY).await.unwrap(), 4);
    let embedded_now = embeddings.texts()[texts_before..].to_vec();
    assert_eq!(
        embedded_now.len(),
        2,
        "only what the last run had not embedded: {embedded_now:?}"
    );
    assert_eq!(embedded_now[0], "second message");
    core.store.close().await;
    drop(core);

    let (core, _clock) = build(
        &database,
        &llm,
        Some(&embeddings),
        &[],
        Some("another-model"),
    )
    .await;
    let texts_before = embeddings.texts().len();
    let embedder = core.embedder.clone().unwrap();
    embedder.start().await.unwrap();
    assert_eq!(core.store.vector_count(ALICE_KEY).await.unwrap(), 0);
    embedder.embed_waiting().await.unwrap();
    assert_eq!(core.store.vector_count(ALICE_KEY).await.unwrap(), 4);
    assert_eq!(
        embeddings.texts().len() - texts_before,
        4,
        "everything again"
    );
}

#[tokio::test]
async fn a_failing_or_slow_embedding_server_never_fails_or_holds_up_a_turn() {
    let pipeline = Pipeline::start(true, &["--embedding-timeout-ms", "200"]).await;
    pipeline
        .say(ALICE_KEY, "My dermatologist is Dr. Okonkwo.")
        .await;
    pipeline.small_talk(ALICE_KEY).await;
    pipeline.embed().await;

    pipeline.embeddings.set_failing_status(500);
    let request = pipeline
        .say(ALICE_KEY, "is my dermatologist open today?")
        .await;
    assert!(
        request.system_prompt().contains("Okonkwo"),
        "recall by words still works"
    );
    let embedder = pipeline.core.embedder.as_ref().unwrap();
    assert!(
        embedder.embed_waiting().await.is_err(),
        "the background job sees the failure"
    );

    // A slow server: the turn waits its timeout once, and the next turns do not wait at all.
    let pipeline = Pipeline::start(true, &["--embedding-timeout-ms", "200"]).await;
    pipeline
        .say(ALICE_KEY, "My dermatologist is Dr. Okonkwo.")
        .await;
    pipeline.small_talk(ALICE_KEY).await;
    pipeline.embed().await;
    pipeline.embeddings.set_delay(Duration::from_secs(5));
    let started = Instant::now();
    let request = pipeline
        .say(ALICE_KEY, "who is the skin doctor I see?")
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(!request.system_prompt().contains("Okonkwo"));
    let asked = pipeline.embeddings.requests();
    let started = Instant::now();
    pipeline
        .say(ALICE_KEY, "who is the skin doctor I see?")
        .await;
    assert!(
        started.elapsed() < Duration::from_millis(150),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        pipeline.embeddings.requests(),
        asked,
        "paused after the failure"
    );
}

#[tokio::test]
async fn vectors_are_deleted_with_their_rows() {
    let pipeline = Pipeline::start(true, &["--session-idle-secs", "60"]).await;
    pipeline
        .say(ALICE_KEY, "I need a plumber for the sink")
        .await;
    pipeline.say(BOB_KEY, "I need a plumber too").await;
    pipeline.clock.advance_ms(10 * MINUTE_MS);
    pipeline
        .core
        .summarizer
        .summarize_pending_once()
        .await
        .unwrap();
    pipeline.embed().await;
    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        3
    );

    pipeline.core.conversations.clear(ALICE_KEY).await.unwrap();

    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        0
    );
    assert_eq!(pipeline.core.store.vector_count(BOB_KEY).await.unwrap(), 3);

    // The purge of old rows takes their vectors along.
    pipeline.clock.advance_ms(400 * 24 * HOUR_MS);
    let config = parse_config(&[
        "--database-url",
        &pipeline.database.url,
        "--purge-after-secs",
        "60",
    ]);
    telemem::jobs::purge_once(&pipeline.core.store, &pipeline.clock, &config.storage)
        .await
        .unwrap();
    assert_eq!(pipeline.core.store.vector_count(BOB_KEY).await.unwrap(), 0);
}

#[tokio::test]
async fn recall_by_meaning_never_crosses_to_another_person() {
    let pipeline = Pipeline::start(true, &[]).await;
    pipeline
        .say(ALICE_KEY, "My dermatologist is Dr. Okonkwo.")
        .await;
    pipeline.small_talk(ALICE_KEY).await;
    pipeline.small_talk(BOB_KEY).await;
    pipeline.embed().await;

    let request = pipeline.say(BOB_KEY, "who is the skin doctor I see?").await;

    assert!(!request.body.to_string().contains("Okonkwo"));
    let request = pipeline
        .say(ALICE_KEY, "who is the skin doctor I see?")
        .await;
    assert!(request.body.to_string().contains("Okonkwo"));
}

#[tokio::test]
async fn a_changed_fact_comes_first_and_is_marked_as_the_newer() {
    let pipeline = Pipeline::start(true, &[]).await;
    pipeline.say(ALICE_KEY, "My address is Elm Street 5.").await;
    pipeline.small_talk(ALICE_KEY).await;
    pipeline.clock.advance_ms(24 * HOUR_MS);
    pipeline
        .say(ALICE_KEY, "I moved, my new address is Oak Avenue 12.")
        .await;
    pipeline.small_talk(ALICE_KEY).await;
    pipeline.embed().await;

    let system = pipeline
        .say(ALICE_KEY, "where do I live now?")
        .await
        .system_prompt();

    let new = system
        .find("Oak Avenue 12")
        .expect("the new address is recalled");
    let old = system.find("Elm Street 5").expect("the old one too, dated");
    assert!(new < old, "newest first:\n{system}");
    assert!(system.contains("newest first"), "{system}");
    assert!(system.contains("the newer one is current"), "{system}");
}

#[tokio::test]
async fn secrets_are_masked_before_texts_go_to_the_embedding_server() {
    let pipeline = Pipeline::start(true, &[]).await;
    let key = "sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6";
    pipeline
        .say(ALICE_KEY, &format!("my OpenAI key is {key}"))
        .await;
    pipeline.small_talk(ALICE_KEY).await;
    pipeline.embed().await;
    pipeline
        .say(ALICE_KEY, &format!("is {key} still valid?"))
        .await;

    let texts = pipeline.embeddings.texts();
    assert!(
        texts.iter().any(|text| text.contains("OpenAI key")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|text| text.contains(key)), "{texts:?}");
}

crate::postgres_variants!(
    a_paraphrase_finds_the_fact_by_meaning_and_not_by_words,
    messages_and_summaries_are_embedded_in_the_background_and_never_on_a_reply_path,
    a_restart_carries_on_where_the_last_run_stopped_and_a_new_model_starts_over,
    a_failing_or_slow_embedding_server_never_fails_or_holds_up_a_turn,
    vectors_are_deleted_with_their_rows,
    recall_by_meaning_never_crosses_to_another_person,
    a_changed_fact_comes_first_and_is_marked_as_the_newer,
    secrets_are_masked_before_texts_go_to_the_embedding_server,
);
