//! Specifications of recall by meaning: background embedding of messages, summaries and notes
//! (woken by what stores them), the fusion with recall by words, the fall-back to words when the
//! embedding server is slow or failing, vectors deleted with their rows, a changed model or role
//! setting, query and passage roles, and isolation between people, through the real pipeline
//! (`ChatServices`) against the fake LLM and the fake embedding server.

use std::sync::Arc;
use std::time::{Duration, Instant};

use telemem::app::ChatServices;
use telemem::clock::ManualClock;
use telemem::config::Config;
use telemem::memory::meaning::quantize;
use telemem::memory::notes::NoteText;
use telemem::storage::{ConversationKey, MemoryVector, Store, VectorSource};
use tokio_util::sync::CancellationToken;

use crate::support::config::parse_config;
use crate::support::database::{ALICE_KEY, BOB_KEY, TempDatabase};
use crate::support::fake_embeddings::{FakeEmbeddings, embed};
use crate::support::fake_llm::{Behaviour, FakeLlm, RecordedRequest};
use crate::support::times::{HOUR_MS, MIDNIGHT_MS, MINUTE_MS};
use crate::support::waiting::{PATIENCE, eventually};

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
    let config = configure(database, llm, embeddings, extra, model);
    let clock = ManualClock::starting_at(MIDNIGHT_MS + 9 * HOUR_MS);
    let core = ChatServices::build(&config, Arc::new(clock.clone()))
        .await
        .unwrap();
    (core, clock)
}

/// The configuration [`build`] builds with.
fn configure(
    database: &TempDatabase,
    llm: &FakeLlm,
    embeddings: Option<&FakeEmbeddings>,
    extra: &[&str],
    model: Option<&str>,
) -> Config {
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
    parse_config(&args)
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

/// Alice's notes nearest in meaning to `question` (embedded by the fake model), nearest first.
async fn nearest_notes(pipeline: &Pipeline, key: ConversationKey, question: &str) -> Vec<String> {
    pipeline
        .core
        .store
        .nearest_notes(key, &quantize(&embed(question)), 10)
        .await
        .unwrap()
        .into_iter()
        .map(|(note, _)| note.note)
        .collect()
}

/// Whether Alice's conversation comes to have `count` vectors within [`PATIENCE`].
async fn has_vectors(store: &Store, count: i64) -> bool {
    eventually(
        || async move { store.vector_count(ALICE_KEY).await.unwrap() == count },
        PATIENCE,
    )
    .await
}

async fn add_note(pipeline: &Pipeline, key: ConversationKey, text: &str) {
    let note = NoteText::parse(text).unwrap();
    pipeline
        .core
        .conversations
        .add_note(key, &note)
        .await
        .unwrap();
}

#[tokio::test]
async fn notes_are_embedded_found_by_meaning_and_only_among_their_owners() {
    let pipeline = Pipeline::start(true, &["--session-idle-secs", "60"]).await;
    pipeline.say(ALICE_KEY, "hello there").await;
    pipeline.clock.advance_ms(10 * MINUTE_MS);
    pipeline.llm.push(Behaviour::reply(
        "SUMMARY: Greetings.\nNOTES:\n- Her dermatologist is Dr. Okonkwo\n- Plays the cello",
    ));
    pipeline
        .core
        .summarizer
        .summarize_pending_once()
        .await
        .unwrap();
    add_note(
        &pipeline,
        ALICE_KEY,
        "The wifi password at the cabin is bluebird42",
    )
    .await;
    add_note(&pipeline, BOB_KEY, "My dermatologist is Dr. Weber").await;

    pipeline.embed().await;

    // Two messages, the summary and three notes; Bob's note alone.
    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        6
    );
    assert_eq!(pipeline.core.store.vector_count(BOB_KEY).await.unwrap(), 1);
    let found = nearest_notes(&pipeline, ALICE_KEY, "who is the skin doctor I see?").await;
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(found[0], "Her dermatologist is Dr. Okonkwo");
    let found = nearest_notes(&pipeline, ALICE_KEY, "how do I get online at the hut?").await;
    assert_eq!(found[0], "The wifi password at the cabin is bluebird42");
    assert_eq!(
        nearest_notes(&pipeline, BOB_KEY, "who is the skin doctor I see?").await,
        ["My dermatologist is Dr. Weber"]
    );
}

#[tokio::test]
async fn a_changed_note_is_embedded_again_and_a_deleted_one_takes_its_vector_along() {
    let pipeline = Pipeline::start(true, &[]).await;
    add_note(&pipeline, ALICE_KEY, "My dermatologist is Dr. Okonkwo").await;
    add_note(&pipeline, ALICE_KEY, "Plays the cello").await;
    pipeline.embed().await;
    let old = pipeline.core.store.notes(ALICE_KEY).await.unwrap()[0].clone();

    let note = NoteText::parse("My dentist is Dr. Lind").unwrap();
    pipeline
        .core
        .conversations
        .replace_note(ALICE_KEY, 1, &note)
        .await
        .unwrap();
    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        1,
        "the old text's vector is gone"
    );
    // A vector computed from the old text while it changed is not stored for the new one.
    let late = MemoryVector {
        source: VectorSource::Note,
        source_id: old.id,
        text: old.note,
        vector: quantize(&embed("My dermatologist is Dr. Okonkwo")),
    };
    pipeline
        .core
        .store
        .store_vectors(&[late], None)
        .await
        .unwrap();
    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        1
    );
    pipeline.embed().await;
    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        2
    );
    assert_eq!(
        nearest_notes(&pipeline, ALICE_KEY, "which dentist do I see?").await[0],
        "My dentist is Dr. Lind"
    );
    assert!(
        pipeline
            .embeddings
            .texts()
            .contains(&"My dentist is Dr. Lind".to_owned())
    );

    pipeline
        .core
        .conversations
        .forget_note(ALICE_KEY, 1)
        .await
        .unwrap();
    assert_eq!(
        pipeline.core.store.vector_count(ALICE_KEY).await.unwrap(),
        1
    );
    assert_eq!(
        nearest_notes(&pipeline, ALICE_KEY, "which dentist do I see?").await,
        ["Plays the cello"]
    );
}

#[tokio::test]
async fn what_is_stored_is_embedded_at_once_without_waiting_for_the_look_interval() {
    let database = TempDatabase::new();
    let llm = FakeLlm::start().await;
    let embeddings = FakeEmbeddings::start().await;
    let extra = [
        "--embedding-look-interval-secs",
        "3600",
        "--session-idle-secs",
        "60",
    ];
    let config = configure(&database, &llm, Some(&embeddings), &extra, None);
    let clock = ManualClock::starting_at(MIDNIGHT_MS + 9 * HOUR_MS);
    let core = ChatServices::build(&config, Arc::new(clock.clone()))
        .await
        .unwrap();
    core.conversations
        .chat(ALICE_KEY, "hello there")
        .await
        .unwrap();
    let shutdown = CancellationToken::new();
    let jobs = core.spawn_jobs(&config, &shutdown);
    assert!(
        has_vectors(&core.store, 2).await,
        "the first look, at the start"
    );

    core.conversations
        .chat(ALICE_KEY, "I need a plumber for the sink")
        .await
        .unwrap();
    assert!(
        has_vectors(&core.store, 4).await,
        "the new message and its reply"
    );
    let note = NoteText::parse("Plays the cello").unwrap();
    core.conversations.add_note(ALICE_KEY, &note).await.unwrap();
    assert!(has_vectors(&core.store, 5).await, "the note");
    clock.advance_ms(10 * MINUTE_MS);
    core.summarizer.summarize_pending_once().await.unwrap();
    assert!(has_vectors(&core.store, 6).await, "the summary");

    shutdown.cancel();
    telemem::app::join_jobs(jobs).await;
}

#[tokio::test]
async fn an_e5_model_gets_query_and_passage_prefixes_and_a_changed_role_setting_embeds_again() {
    let database = TempDatabase::new();
    let llm = FakeLlm::start().await;
    let embeddings = FakeEmbeddings::start().await;
    let e5 = Some("multilingual-e5-small");
    let (core, _clock) = build(&database, &llm, Some(&embeddings), &[], e5).await;
    core.conversations
        .chat(ALICE_KEY, "My dermatologist is Dr. Okonkwo.")
        .await
        .unwrap();
    let embedder = core.embedder.clone().unwrap();
    embedder.start().await.unwrap();
    embedder.embed_waiting().await.unwrap();
    for turn in 0..FILLER_TURNS {
        core.conversations
            .chat(
                ALICE_KEY,
                &format!("a fun fact number {turn} about penguins"),
            )
            .await
            .unwrap();
    }
    core.conversations
        .chat(ALICE_KEY, "who is the skin doctor I see?")
        .await
        .unwrap();

    let texts = embeddings.texts();
    assert!(
        texts.contains(&"passage: My dermatologist is Dr. Okonkwo.".to_owned()),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"query: who is the skin doctor I see?".to_owned()),
        "{texts:?}"
    );
    assert!(
        embeddings
            .models()
            .iter()
            .all(|model| model == "multilingual-e5-small")
    );
    core.store.close().await;
    drop(core);

    // A server that picks the role by the model's name adds the prefixes itself. (The floor is
    // set, so that no calibration shares the requests counted below.)
    let passage_model = [
        "--embedding-passage-model",
        "multilingual-e5-small-passage",
        "--embedding-min-similarity",
        "0.2",
    ];
    let (core, _clock) = build(&database, &llm, Some(&embeddings), &passage_model, e5).await;
    let (texts_before, models_before) = (embeddings.texts().len(), embeddings.models().len());
    let embedder = core.embedder.clone().unwrap();
    embedder.start().await.unwrap();
    assert_eq!(
        core.store.vector_count(ALICE_KEY).await.unwrap(),
        0,
        "vectors of another role setting are not comparable"
    );
    embedder.embed_waiting().await.unwrap();
    let texts = embeddings.texts()[texts_before..].to_vec();
    assert!(
        texts.contains(&"My dermatologist is Dr. Okonkwo.".to_owned()),
        "{texts:?}"
    );
    assert!(
        embeddings.models()[models_before..]
            .iter()
            .all(|model| model == "multilingual-e5-small-passage")
    );
    let asked = embeddings.models().len();
    core.conversations
        .chat(ALICE_KEY, "who is the skin doctor I see?")
        .await
        .unwrap();
    assert_eq!(embeddings.models()[asked..], ["multilingual-e5-small"]);
    assert_eq!(
        embeddings.texts().last().map(String::as_str),
        Some("who is the skin doctor I see?")
    );
}

#[tokio::test]
async fn an_unset_floor_is_calibrated_once_with_questions_as_queries_and_answers_as_passages() {
    let database = TempDatabase::new();
    let llm = FakeLlm::start().await;
    let embeddings = FakeEmbeddings::start().await;
    let (core, _clock) = build(
        &database,
        &llm,
        Some(&embeddings),
        &[],
        Some("multilingual-e5-small"),
    )
    .await;
    core.conversations
        .chat(ALICE_KEY, "My dermatologist is Dr. Okonkwo.")
        .await
        .unwrap();
    for turn in 0..FILLER_TURNS {
        core.conversations
            .chat(
                ALICE_KEY,
                &format!("a fun fact number {turn} about penguins"),
            )
            .await
            .unwrap();
    }
    for _ in 0..2 {
        core.conversations
            .chat(ALICE_KEY, "who is the skin doctor I see?")
            .await
            .unwrap();
    }

    let texts = embeddings.texts();
    let asked = |text: &str| texts.iter().filter(|sent| *sent == text).count();
    assert_eq!(asked("query: Where do I work?"), 1, "{texts:?}");
    assert_eq!(
        asked("passage: Ich arbeite als Ingenieurin bei Siemens in München."),
        1,
        "{texts:?}"
    );
    assert_eq!(
        asked("query: who is the skin doctor I see?"),
        2,
        "{texts:?}"
    );
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
    notes_are_embedded_found_by_meaning_and_only_among_their_owners,
    a_changed_note_is_embedded_again_and_a_deleted_one_takes_its_vector_along,
    what_is_stored_is_embedded_at_once_without_waiting_for_the_look_interval,
    an_e5_model_gets_query_and_passage_prefixes_and_a_changed_role_setting_embeds_again,
);
