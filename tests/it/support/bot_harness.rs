//! Starts the real bot (the real dispatcher, handlers, conversation, storage and LLM client) in
//! this test process against a fake Telegram Bot API server and a fake LLM server on 127.0.0.1,
//! polling or taking updates by webhook, and waits for what it sends.

use std::sync::Arc;

use reqwest::StatusCode;
use telemem::app::App;
use telemem::clock::{Clock, SystemClock};
use telemem::storage::Store;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::bot_process::free_port;
use super::config::parse_config;
use super::database::TempDatabase;
use super::fake_llm::FakeLlm;
use super::fake_telegram::{FakeTelegram, called};
use super::waiting::PATIENCE;

/// Users on the test bot's allow list.
pub const ALICE: i64 = 111;
pub const BOB: i64 = 222;
pub const CAROL: i64 = 333;

/// A group chat with the users above.
pub const GROUP: i64 = -100_900;

/// The secret token Telegram sends with every webhook request to a bot from
/// [`TestBot::start_with_webhook`].
pub const WEBHOOK_SECRET: &str = "s3cret-Token_1";

pub struct TestBot {
    pub telegram: FakeTelegram,
    pub llm: FakeLlm,
    pub store: Store,
    pub database_url: String,
    /// The settings it was started with, on top of the defaults.
    args: Vec<String>,
    shutdown: CancellationToken,
    running: Option<JoinHandle<anyhow::Result<()>>>,
    _database: TempDatabase,
}

impl TestBot {
    /// A bot allowing ALICE, BOB and CAROL, not streaming, not throttled.
    pub async fn start() -> Self {
        Self::start_with_args(&[]).await
    }

    /// Like [`Self::start`], with `args` on top (later ones override earlier ones).
    pub async fn start_with_args(args: &[&str]) -> Self {
        Self::start_with_clock(args, Arc::new(SystemClock)).await
    }

    /// Like [`Self::start_with_args`], on `clock` (say a `ManualClock` at a chosen time of day).
    pub async fn start_with_clock(args: &[&str], clock: Arc<dyn Clock>) -> Self {
        // RUST_LOG=debug cargo test ... shows the bot's logs for a failing test.
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
        let telegram = FakeTelegram::start().await;
        let llm = FakeLlm::start().await;
        let database = TempDatabase::new();
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        let shutdown = CancellationToken::new();
        let running = run_bot(&telegram, &llm, &database.url, &args, clock, &shutdown).await;
        // A store of the test's own, so assertions still work after the bot closed its connections.
        let store = database.connect().await;
        Self {
            telegram,
            llm,
            store,
            database_url: database.url.clone(),
            args,
            shutdown,
            running: Some(running),
            _database: database,
        }
    }

    /// Stops the bot as [`Self::stop`] does, then starts it again on the same database, fakes and
    /// settings, on `clock`: a restart.
    pub async fn restart_with_clock(&mut self, clock: Arc<dyn Clock>) {
        self.stop().await;
        self.shutdown = CancellationToken::new();
        let running = run_bot(
            &self.telegram,
            &self.llm,
            &self.database_url,
            &self.args,
            clock,
            &self.shutdown,
        )
        .await;
        self.running = Some(running);
    }

    /// Another replica of this bot: the same database, fakes and settings, in this process,
    /// until the returned token is cancelled.
    pub async fn start_replica(&self) -> (CancellationToken, JoinHandle<anyhow::Result<()>>) {
        let shutdown = CancellationToken::new();
        let running = run_bot(
            &self.telegram,
            &self.llm,
            &self.database_url,
            &self.args,
            Arc::new(SystemClock),
            &shutdown,
        )
        .await;
        (shutdown, running)
    }

    /// A bot taking its updates by webhook with [`WEBHOOK_SECRET`] on a free port, once it has
    /// registered the webhook with Telegram; with the webhook's URL.
    pub async fn start_with_webhook() -> (Self, String) {
        let port = free_port();
        let http_addr = format!("127.0.0.1:{port}");
        let hook = format!("http://{http_addr}/telegram/hook");
        let bot = Self::start_with_args(&[
            "--http-addr",
            &http_addr,
            "--telegram-webhook-url",
            &hook,
            "--telegram-webhook-secret",
            WEBHOOK_SECRET,
        ])
        .await;
        bot.telegram
            .wait_for(|calls| called(calls, "setWebhook"), PATIENCE)
            .await;
        (bot, hook)
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
        self.telegram
            .wait_for_message(chat_id, |text| text.contains(needle), PATIENCE)
            .await
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

/// Builds the app on `database_url` with the test defaults and `args` on top, and runs it until
/// `shutdown`.
async fn run_bot(
    telegram: &FakeTelegram,
    llm: &FakeLlm,
    database_url: &str,
    args: &[String],
    clock: Arc<dyn Clock>,
    shutdown: &CancellationToken,
) -> JoinHandle<anyhow::Result<()>> {
    let allowed = format!("{ALICE},{BOB},{CAROL}");
    let llm_url = llm.base_url();
    let mut all_args = vec![
        "--database-url",
        database_url,
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
    ];
    all_args.extend(args.iter().map(String::as_str));
    let app = App::build_with(parse_config(&all_args), telegram.bot(), clock)
        .await
        .expect("build the app");
    tokio::spawn(app.run_until(shutdown.clone()))
}

/// Posts `update` (any bytes) to the webhook at `hook` as Telegram would, with `secret` as its
/// secret token (`None`: without one); returns the answer's status.
pub async fn post_to_webhook(hook: &str, secret: Option<&str>, update: Vec<u8>) -> StatusCode {
    let mut request = reqwest::Client::new()
        .post(hook)
        .header("Content-Type", "application/json")
        .body(update);
    if let Some(secret) = secret {
        request = request.header("X-Telegram-Bot-Api-Secret-Token", secret);
    }
    request.send().await.expect("post to the webhook").status()
}
