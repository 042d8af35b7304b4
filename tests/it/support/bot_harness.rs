//! Starts the real bot (the real dispatcher, handlers, conversation, storage and LLM client) in
//! this test process against a fake Telegram Bot API server and a fake LLM server on 127.0.0.1.

use std::sync::Arc;

use clap::Parser;
use telemem::app::App;
use telemem::clock::{Clock, ManualClock, SystemClock};
use telemem::config::Config;
use telemem::storage::Store;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::fake_llm::FakeLlm;
use super::fake_telegram::FakeTelegram;
use super::waiting::PATIENCE;

/// Users on the test bot's allow list.
pub const ALICE: i64 = 111;
pub const BOB: i64 = 222;
pub const CAROL: i64 = 333;

/// A group chat with the users above.
pub const GROUP_FOR_TESTS: i64 = -100_900;

#[derive(Parser)]
#[command(args_override_self = true)]
struct TestCli {
    #[command(flatten)]
    config: Config,
}

/// A configuration from command-line style arguments (later ones override earlier ones).
pub fn parse_config<S: AsRef<str>>(args: &[S]) -> Config {
    let args = std::iter::once("telemem").chain(args.iter().map(AsRef::as_ref));
    TestCli::try_parse_from(args)
        .expect("test configuration")
        .config
}

pub struct TestBot {
    pub telegram: FakeTelegram,
    pub llm: FakeLlm,
    pub store: Store,
    pub database_url: String,
    shutdown: CancellationToken,
    running: Option<JoinHandle<anyhow::Result<()>>>,
    _dir: tempfile::TempDir,
}

/// Options of one test bot.
#[derive(Default)]
pub struct TestBotOptions {
    pub args: Vec<String>,
    pub clock: Option<ManualClock>,
}

impl TestBot {
    /// A bot allowing ALICE, BOB and CAROL, not streaming, not throttled.
    pub async fn start() -> Self {
        Self::start_with(TestBotOptions::default()).await
    }

    pub async fn start_with_args(args: &[&str]) -> Self {
        Self::start_with(TestBotOptions {
            args: args.iter().map(|a| a.to_string()).collect(),
            clock: None,
        })
        .await
    }

    pub async fn start_with(options: TestBotOptions) -> Self {
        // RUST_LOG=debug cargo test ... shows the bot's logs for a failing test.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
        let telegram = FakeTelegram::start().await;
        let llm = FakeLlm::start().await;
        let dir = tempfile::tempdir().expect("temporary directory");
        let database_url = format!("sqlite://{}", dir.path().join("bot.db").display());
        let allowed = format!("{ALICE},{BOB},{CAROL}");
        let llm_url = llm.base_url();
        let mut args = vec![
            "telemem",
            "--database-url",
            &database_url,
            "--allowed-users",
            &allowed,
            "--llm-base-url",
            &llm_url,
            "--llm-timeout-secs",
            "5",
            "--llm-max-retries",
            "1",
            "--stream-replies",
            "false",
            "--telegram-throttle",
            "false",
            "--purge-first-run-secs",
            "3600",
        ]
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
        args.extend(options.args);
        let config = TestCli::try_parse_from(&args)
            .expect("test configuration")
            .config;
        let clock: Arc<dyn Clock> = match options.clock {
            Some(clock) => Arc::new(clock),
            None => Arc::new(SystemClock),
        };
        let app = App::build_with(config, telegram.bot(), clock)
            .await
            .expect("build the app");
        // A store of the test's own, so assertions still work after the bot closed its connections.
        let store = Store::connect(&database_url)
            .await
            .expect("open the bot's database");
        let shutdown = CancellationToken::new();
        let running = tokio::spawn(app.run_until(shutdown.clone()));
        Self {
            telegram,
            llm,
            store,
            database_url,
            shutdown,
            running: Some(running),
            _dir: dir,
        }
    }

    /// Waits until the bot has sent at least `count` messages in `chat_id` (after edits, the text
    /// users see), then returns them.
    pub async fn wait_for_messages(&self, chat_id: i64, count: usize) -> Vec<String> {
        let telegram = &self.telegram;
        telegram
            .wait_for(|_| telegram.sent_messages(chat_id).len() >= count, PATIENCE)
            .await;
        telegram.sent_messages(chat_id)
    }

    /// Waits until some message the bot sent in `chat_id` contains `needle`; returns all of them.
    pub async fn wait_for_text(&self, chat_id: i64, needle: &str) -> Vec<String> {
        let telegram = &self.telegram;
        telegram
            .wait_for(
                |_| {
                    telegram
                        .sent_messages(chat_id)
                        .iter()
                        .any(|text| text.contains(needle))
                },
                PATIENCE,
            )
            .await;
        telegram.sent_messages(chat_id)
    }

    /// Stops the bot the way SIGTERM does and waits for the turns in flight to finish.
    pub async fn stop(&mut self) {
        self.shutdown.cancel();
        if let Some(running) = self.running.take() {
            tokio::time::timeout(PATIENCE, running)
                .await
                .expect("the bot stops in time")
                .expect("the bot task")
                .expect("the bot ran without error");
        }
    }
}

impl Drop for TestBot {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
