//! One chat turn, whatever front end it comes through, runs one sequence
//! (`Conversations::take_turn`): these specifications drive it with a front end that records
//! what it is asked to do, and check the invariants every front end relies on: refusals and the
//! daily limit before anything is stored or fetched, the person's message stored before the
//! model is asked, the reply stored before it is delivered, the carrying message recorded.

use std::sync::{Arc, Mutex};

use telemem::conversation::{
    Asked, PreparedInput, ReplyRecord, TurnEnd, TurnFrontEnd, TurnInput, TurnRequest,
};
use telemem::i18n::Lang;
use telemem::replies;
use telemem::storage::{ChatId, ConversationKey, Role, Store, UserId};
use tokio::sync::watch;

use crate::support::fake_llm::Behaviour;
use crate::support::pipeline::Pipeline;

const KEY: ConversationKey = ConversationKey::new(ChatId(5), UserId(5));

/// A front end that records each thing it is asked to do, and what the history held then.
struct RecordingFrontEnd {
    store: Store,
    events: Arc<Mutex<Vec<String>>>,
    carried_by: Option<i64>,
}

impl RecordingFrontEnd {
    fn new(store: &Store) -> Self {
        Self {
            store: store.clone(),
            events: Arc::default(),
            carried_by: Some(4242),
        }
    }

    fn log(&self, event: String) {
        self.events.lock().unwrap().push(event);
    }

    fn events(&self) -> Vec<String> {
        self.events.lock().unwrap().clone()
    }

    /// The history as a list of "user: …" / "assistant: …".
    async fn history(&self) -> Vec<String> {
        history_of(&self.store).await
    }
}

async fn history_of(store: &Store) -> Vec<String> {
    store
        .all_messages(KEY)
        .await
        .unwrap()
        .into_iter()
        .map(|message| {
            let who = if message.role == Role::User {
                "user"
            } else {
                "assistant"
            };
            format!("{who}: {}", message.content)
        })
        .collect()
}

impl TurnFrontEnd for RecordingFrontEnd {
    fn streams(&self) -> bool {
        false
    }

    async fn prepare_input(&mut self) -> Result<PreparedInput, String> {
        let history = self.history().await;
        self.log(format!("prepare with history {history:?}"));
        Ok(PreparedInput {
            input: TurnInput::text("[photo] a cat"),
            header: "_(seen)_\n".to_owned(),
        })
    }

    async fn show_progress(&mut self, mut progress: watch::Receiver<String>) {
        let history = self.history().await;
        self.log(format!("progress with history {history:?}"));
        while progress.changed().await.is_ok() {}
    }

    async fn notice(&mut self, notice: &str) -> anyhow::Result<()> {
        self.log(format!("notice {notice}"));
        Ok(())
    }

    async fn deliver(
        &mut self,
        markdown: &str,
        record: ReplyRecord,
    ) -> anyhow::Result<Option<i64>> {
        let history = self.history().await;
        let stored = matches!(record, ReplyRecord::Stored { .. });
        self.log(format!(
            "deliver {markdown:?} stored={stored} with history {history:?}"
        ));
        Ok(self.carried_by)
    }
}

/// One turn of `text` through a recording front end; returns how it ended.
async fn take_text(pipeline: &Pipeline, text: &str) -> TurnEnd {
    let mut front = RecordingFrontEnd::new(&pipeline.core.store);
    pipeline
        .core
        .conversations
        .take_turn(request(Asked::Text(text.to_owned())), &mut front)
        .await
        .unwrap()
}

fn request(asked: Asked) -> TurnRequest {
    TurnRequest {
        key: KEY,
        asked,
        lang: Lang::En,
        is_admin: false,
        update_id: None,
        telegram_message_id: None,
    }
}

#[tokio::test]
async fn the_message_is_stored_before_the_model_is_asked_and_the_reply_before_it_is_delivered() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline.llm.push(Behaviour::reply("Hello back."));
    let mut front = RecordingFrontEnd::new(&pipeline.core.store);

    let end = pipeline
        .core
        .conversations
        .take_turn(request(Asked::Text("Hello".to_owned())), &mut front)
        .await
        .unwrap();

    assert_eq!(end, TurnEnd::Recorded, "the carrying message was recorded");
    assert_eq!(
        front.events(),
        [
            r#"progress with history ["user: Hello"]"#.to_owned(),
            r#"deliver "Hello back." stored=true with history ["user: Hello", "assistant: Hello back."]"#
                .to_owned(),
        ]
    );
}

#[tokio::test]
async fn a_prepared_message_is_fetched_after_the_checks_and_its_header_shows_but_is_not_stored() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline.llm.push(Behaviour::reply("A cat indeed."));
    let mut front = RecordingFrontEnd::new(&pipeline.core.store);

    pipeline
        .core
        .conversations
        .take_turn(request(Asked::Prepared), &mut front)
        .await
        .unwrap();

    let events = front.events();
    assert_eq!(events[0], "prepare with history []");
    assert!(
        events[2].starts_with(r#"deliver "_(seen)_\nA cat indeed." stored=true"#),
        "{events:?}"
    );
    assert_eq!(
        front.history().await,
        ["user: [photo] a cat", "assistant: A cat indeed."]
    );
}

#[tokio::test]
async fn past_the_daily_limit_nothing_is_fetched_stored_or_asked_for_a_message_or_a_retry() {
    let pipeline = Pipeline::start(&["--user-daily-token-limit", "10"]).await;
    pipeline.llm.push(Behaviour::reply(
        "An answer long enough to use up ten tokens of the day.",
    ));
    let conversations = &pipeline.core.conversations;
    take_text(&pipeline, "Tell me a joke").await;
    let history_before = history_of(&pipeline.core.store).await;
    let requests_before = pipeline.llm.requests().len();

    for asked in [
        Asked::Text("Another one".to_owned()),
        Asked::Prepared,
        Asked::Retry,
    ] {
        let mut front = RecordingFrontEnd::new(&pipeline.core.store);
        let end = conversations
            .take_turn(request(asked.clone()), &mut front)
            .await
            .unwrap();
        assert_eq!(end, TurnEnd::Answered);
        let events = front.events();
        assert_eq!(events.len(), 1, "{asked:?}: {events:?}");
        assert!(
            events[0].starts_with("notice You have used your 10 tokens for today"),
            "{asked:?}: {events:?}"
        );
    }
    assert_eq!(history_of(&pipeline.core.store).await, history_before);
    assert_eq!(
        pipeline.llm.requests().len(),
        requests_before,
        "no model call"
    );
}

#[tokio::test]
async fn an_empty_or_overlong_message_is_refused_in_every_front_end_before_anything_is_stored() {
    let pipeline = Pipeline::start(&["--max-message-chars", "20"]).await;
    let conversations = &pipeline.core.conversations;
    let long = "x".repeat(21);

    for (text, notice) in [
        ("   ", replies::empty_message(Lang::En)),
        (long.as_str(), replies::message_too_long(Lang::En, 21, 20)),
    ] {
        let mut front = RecordingFrontEnd::new(&pipeline.core.store);
        let end = conversations
            .take_turn(request(Asked::Text(text.to_owned())), &mut front)
            .await
            .unwrap();
        assert_eq!(end, TurnEnd::Answered);
        assert_eq!(front.events(), [format!("notice {notice}")]);
    }
    assert!(history_of(&pipeline.core.store).await.is_empty());
    assert!(pipeline.llm.requests().is_empty());
}

#[tokio::test]
async fn a_model_that_fails_leaves_the_message_stored_and_answers_with_a_notice() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline.llm.push(Behaviour::Status(500, None));
    let mut front = RecordingFrontEnd::new(&pipeline.core.store);

    let end = pipeline
        .core
        .conversations
        .take_turn(
            request(Asked::Text("Are you there?".to_owned())),
            &mut front,
        )
        .await
        .unwrap();

    assert_eq!(end, TurnEnd::Answered);
    assert_eq!(
        front.events().last().unwrap(),
        &format!("notice {}", replies::model_unavailable(Lang::En))
    );
    assert_eq!(front.history().await, ["user: Are you there?"]);
}

#[tokio::test]
async fn a_retry_replaces_the_answer_in_the_history_before_the_new_one_is_delivered() {
    let pipeline = Pipeline::start(&[]).await;
    pipeline.llm.push(Behaviour::reply("The first answer."));
    pipeline.llm.push(Behaviour::reply("A better answer."));
    let conversations = &pipeline.core.conversations;
    take_text(&pipeline, "Tell me a joke").await;

    let mut retry = RecordingFrontEnd::new(&pipeline.core.store);
    retry.carried_by = None;
    let end = conversations
        .take_turn(request(Asked::Retry), &mut retry)
        .await
        .unwrap();

    assert_eq!(end, TurnEnd::Answered, "no carrying message to record");
    assert_eq!(
        retry.events().last().unwrap(),
        r#"deliver "A better answer." stored=true with history ["user: Tell me a joke", "assistant: A better answer."]"#
    );
}
