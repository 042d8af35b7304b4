//! The real memory pipeline without Telegram: `ChatServices` (conversations, summarizer, store) on a
//! temporary database, with a manual clock and the fake LLM, for specifications that drive
//! turns and summaries directly and read what the model was sent.

use std::sync::Arc;

use telemem::app::ChatServices;
use telemem::clock::ManualClock;
use telemem::memory::summarizer::SummarizerReport;
use telemem::storage::ConversationKey;

use super::config::parse_config;
use super::database::TempDatabase;
use super::fake_llm::{FakeLlm, RecordedRequest};
use super::times::{HOUR_MS, MIDNIGHT_MS};

/// A key as a person might paste it into a chat: redaction must mask it for the model.
pub const PASTED_API_KEY: &str = "sk-proj-Abcdefghijklmnop1234567890QRSTuv";

pub struct Pipeline {
    pub core: ChatServices,
    pub llm: FakeLlm,
    pub clock: ManualClock,
    database: TempDatabase,
}

impl Pipeline {
    /// A pipeline whose model is not retried and whose summaries are retried after a minute,
    /// with `extra` settings on top; its clock starts at 09:00 on the tests' midnight.
    pub async fn start(extra: &[&str]) -> Self {
        let llm = FakeLlm::start().await;
        let database = TempDatabase::new();
        let base_url = llm.base_url();
        let mut args = vec![
            "--database-url",
            &database.url,
            "--llm-base-url",
            &base_url,
            "--llm-max-retries",
            "0",
            "--llm-timeout-secs",
            "5",
            "--summary-retry-secs",
            "60",
        ];
        args.extend_from_slice(extra);
        let clock = ManualClock::starting_at(MIDNIGHT_MS + 9 * HOUR_MS);
        let core = ChatServices::build(&parse_config(&args), Arc::new(clock.clone()))
            .await
            .expect("build the core");
        Self {
            core,
            llm,
            clock,
            database,
        }
    }

    pub fn database_url(&self) -> &str {
        &self.database.url
    }

    /// One whole chat turn; returns the request the model got.
    pub async fn say(&self, key: ConversationKey, text: &str) -> RecordedRequest {
        self.core
            .conversations
            .chat(key, text)
            .await
            .expect("chat turn");
        self.last_model_request()
    }

    /// The latest request the model received.
    pub fn last_model_request(&self) -> RecordedRequest {
        self.llm.last_request().expect("a model request")
    }

    /// One look of the summarizer.
    pub async fn summarize(&self) -> SummarizerReport {
        self.core
            .summarizer
            .summarize_pending_once()
            .await
            .expect("summarizer look")
    }

    /// The latest summary of `key`'s conversation, if any.
    pub async fn summary_of(&self, key: ConversationKey) -> Option<String> {
        let summaries = self.core.store.recent_summaries(key, 0, 5).await.unwrap();
        summaries.last().map(|summary| summary.summary.clone())
    }

    pub async fn notes_of(&self, key: ConversationKey) -> Vec<String> {
        let notes = self.core.store.notes(key).await.unwrap();
        notes.into_iter().map(|note| note.note).collect()
    }
}
