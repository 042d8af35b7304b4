//! Wires the running bot together and owns its lifetime: database (migrated), LLM client,
//! conversations, summarizer, Telegram intake and scheduler, background jobs; and shutdown on
//! SIGTERM or SIGINT: stop taking updates, let turns in flight finish within the grace period,
//! stop the jobs, close the database.

use std::sync::Arc;

use anyhow::Context;
use teloxide::Bot;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::access_list::{AccessList, ConfiguredAccess};
use crate::clock::{Clock, SystemClock};
use crate::config::Config;
use crate::conversation::{ConversationSettings, Conversations, ToolSettings};
use crate::jobs;
use crate::llm::LlmClient;
use crate::llm::embeddings::EmbeddingClient;
use crate::llm::transcription::TranscriptionClient;
use crate::memory::embedder::{Embedder, EmbedderWake, run_embedder_job};
use crate::memory::meaning::MeaningRecall;
use crate::memory::redact::Redactor;
use crate::memory::summarizer::Summarizer;
use crate::metrics::BackgroundJobs;
use crate::quota::QuotaSettings;
use crate::secret::Secret;
use crate::storage::{BackendKind, Store};
use crate::telegram::access::AccessPolicy;
use crate::telegram::connect::{ConnectError, connect};
use crate::telegram::intake::{
    Incoming, Intake, random_webhook_secret, run_polling, webhook_router,
};
use crate::telegram::scheduler::{Scheduler, SchedulerParts};
use crate::telegram::{self, TelegramBot};
use crate::tools::config::ToolsConfig;
use crate::tools::mcp::{McpConfig, McpServers, McpSettings};
use crate::webapp::WebAppParts;
use crate::webapp::limits::ApiLimitSettings;
use teloxide::payloads::SetWebhookSetters;
use teloxide::types::{AllowedUpdate, Me};

/// The Telegram-free services a chat needs, shared by the bot and `telemem chat`: the migrated
/// store, the conversations and the summarizer, all on one clock.
#[derive(Clone)]
pub struct ChatServices {
    pub store: Store,
    pub conversations: Conversations,
    pub summarizer: Summarizer,
    /// Gives messages, summaries and notes their vectors, when an embedding model is configured.
    pub embedder: Option<Embedder>,
    /// Wakes the embedder: the conversations and the summarizer signal it when they store text;
    /// anything else storing messages, summaries or notes (an import) should too.
    pub embedder_wake: EmbedderWake,
    pub clock: Arc<dyn Clock>,
    /// The background jobs these services run, as `/healthz` judges them: of this app alone,
    /// so that apps sharing a process (tests) do not see each other's stop.
    pub jobs: BackgroundJobs,
}

impl ChatServices {
    pub async fn build(config: &Config, clock: Arc<dyn Clock>) -> anyhow::Result<Self> {
        let store = Store::connect_with(
            &config.storage.database_url,
            &config.storage.store_options(),
        )
        .await?;
        store.migrate().await?;
        let llm = LlmClient::new(&config.llm).context("invalid LLM configuration")?;
        let redactor = Redactor::new(&config.redaction)?;
        let embeddings = EmbeddingClient::from_config(&config.embedding, &config.llm)
            .context("invalid embedding configuration")?;
        let embedder_wake = EmbedderWake::default();
        let mut conversations = Conversations::new(
            store.clone(),
            llm.clone(),
            clock.clone(),
            redactor.clone(),
            ConversationSettings {
                default_time_zone: config.tools.default_timezone,
                max_message_chars: config.telegram.max_message_chars as usize,
                ..ConversationSettings::from_config(&config.history, &config.memory)
            },
        )
        .with_quota(QuotaSettings::from_config(config))
        .with_embedder_wake(embedder_wake.clone());
        if config.tools.tools {
            let mcp = start_mcp_servers(&config.tools)?;
            conversations = conversations.with_tools(ToolSettings::from_config(&config.tools), mcp);
        }
        if let Some(client) = &embeddings {
            let meaning = MeaningRecall::new(client.clone(), &config.embedding);
            conversations = conversations.with_meaning(Arc::new(meaning));
        }
        match TranscriptionClient::from_config(&config.transcription, &config.llm)
            .context("invalid transcription configuration")?
        {
            Some(transcriber) => conversations = conversations.with_transcriber(transcriber),
            None => tracing::info!(
                "voice notes are not transcribed: set TRANSCRIPTION_BASE_URL to an \
                 OpenAI-compatible transcription server"
            ),
        }
        conversations = with_speech_and_pictures(conversations, config)?;
        let embedder = embeddings.map(|client| {
            Embedder::new(
                store.clone(),
                client,
                redactor.clone(),
                embedder_wake.clone(),
                config.embedding.look_interval(),
            )
        });
        let summarizer = Summarizer::new(
            store.clone(),
            llm,
            clock.clone(),
            redactor,
            &config.history,
            &config.memory,
        )
        .with_embedder_wake(embedder_wake.clone());
        Ok(Self {
            store,
            conversations,
            summarizer,
            embedder,
            embedder_wake,
            clock,
            jobs: BackgroundJobs::default(),
        })
    }

    /// Starts the background jobs (purge, summarizer and, with an embedding model, the
    /// embedder); they stop when `shutdown` is cancelled.
    /// [`Self::jobs`] follows them, for `/healthz`.
    pub fn spawn_jobs(
        &self,
        config: &Config,
        shutdown: &CancellationToken,
    ) -> Vec<(&'static str, tokio::task::JoinHandle<()>)> {
        let watched = self.jobs.clone();
        let leading = jobs::lead_background_jobs(self.store.clone(), shutdown.clone());
        let (purge_reports, _) = watch::channel(None);
        let (store, clock, storage) = (
            self.store.clone(),
            self.clock.clone(),
            config.storage.clone(),
        );
        let purge = jobs::while_leading(leading.clone(), shutdown.clone(), move |stop| {
            jobs::run_purge_job(
                store.clone(),
                clock.clone(),
                storage.clone(),
                purge_reports.clone(),
                stop,
            )
        });
        let (summarizer, interval) = (self.summarizer.clone(), config.memory.summarizer_interval());
        let summarizer = jobs::while_leading(leading.clone(), shutdown.clone(), move |stop| {
            jobs::run_summarizer_job(summarizer.clone(), interval, stop)
        });
        let mut handles = vec![
            ("purge", jobs::spawn_watched(&watched, "purge", purge)),
            (
                "summarizer",
                jobs::spawn_watched(&watched, "summarizer", summarizer),
            ),
        ];
        if let Some(embedder) = &self.embedder {
            let embedder = embedder.clone();
            let embedder = jobs::while_leading(leading, shutdown.clone(), move |stop| {
                run_embedder_job(embedder.clone(), stop)
            });
            handles.push((
                "embedder",
                jobs::spawn_watched(&watched, "embedder", embedder),
            ));
        }
        handles
    }
}

/// Starts keeping the MCP servers of `MCP_CONFIG` connected, in the background; a file that
/// cannot be read or is not a valid configuration stops the start, naming what is wrong.
fn start_mcp_servers(config: &ToolsConfig) -> anyhow::Result<McpServers> {
    let Some(path) = &config.mcp_config else {
        return Ok(McpServers::none());
    };
    let servers = McpConfig::from_file(path).with_context(|| {
        format!(
            "MCP_CONFIG {} is not a usable MCP configuration",
            path.display()
        )
    })?;
    let settings = McpSettings {
        call_timeout: config.tool_timeout(),
        max_result_chars: config.tool_result_max_chars as usize,
        start_wait: std::time::Duration::from_secs(config.mcp_start_wait_secs),
        ..McpSettings::default()
    };
    Ok(McpServers::start(servers, settings))
}

/// Waits for the background jobs to stop after their shutdown token was cancelled.
pub async fn join_jobs(jobs: Vec<(&'static str, tokio::task::JoinHandle<()>)>) {
    for (name, job) in jobs {
        if let Err(error) = job.await {
            tracing::error!(error = ?error, job = name, "a background job ended abnormally");
        }
    }
}

/// The bot, ready to run.
pub struct App {
    config: Config,
    services: ChatServices,
    bot: Bot,
}

impl App {
    /// Builds the app for production: the bot from `TELOXIDE_TOKEN` (and `TELOXIDE_API_URL`,
    /// as teloxide users expect), the system clock.
    pub async fn build(config: Config) -> anyhow::Result<Self> {
        config.telegram.check_access_is_explicit()?;
        if std::env::var("TELOXIDE_TOKEN")
            .map(|token| token.trim().is_empty())
            .unwrap_or(true)
        {
            anyhow::bail!("TELOXIDE_TOKEN is not set: put your bot token from @BotFather in it");
        }
        Self::build_with(config, Bot::from_env(), Arc::new(SystemClock)).await
    }

    /// Builds the app around a given bot and clock (tests point the bot at a fake server).
    pub async fn build_with(
        config: Config,
        bot: Bot,
        clock: Arc<dyn Clock>,
    ) -> anyhow::Result<Self> {
        config.telegram.check_access_is_explicit()?;
        let services = ChatServices::build(&config, clock).await?;
        Ok(Self {
            config,
            services,
            bot,
        })
    }

    pub fn services(&self) -> &ChatServices {
        &self.services
    }

    /// Runs until `shutdown` is cancelled (or SIGTERM/SIGINT, see [`App::run`]).
    pub async fn run_until(self, shutdown: CancellationToken) -> anyhow::Result<()> {
        let bot = if self.config.telegram.throttle {
            TelegramBot::throttled(self.bot.clone())
        } else {
            TelegramBot::direct(self.bot.clone())
        };
        self.run_with(bot, shutdown).await
    }

    /// Starts the HTTP server and the jobs, reaches Telegram (retrying while it cannot be
    /// reached), takes updates by polling or webhook and handles them until `shutdown`, then
    /// stops everything in order.
    async fn run_with(self, bot: TelegramBot, shutdown: CancellationToken) -> anyhow::Result<()> {
        let config = &self.config;
        if config.telegram.webhook_url.is_some() && config.http.http_addr.is_none() {
            anyhow::bail!(
                "TELEGRAM_WEBHOOK_URL needs HTTP_ADDR: the address the webhook is served on"
            );
        }
        if config.webapp.public_url.is_some() && config.http.http_addr.is_none() {
            anyhow::bail!("PUBLIC_URL needs HTTP_ADDR: the address the Mini App is served on");
        }
        let background = CancellationToken::new();
        let mut jobs = self.services.spawn_jobs(config, &background);
        let access_list = Arc::new(
            AccessList::load(
                ConfiguredAccess::from_config(&config.telegram),
                self.services.store.clone(),
                self.services.clock.clone(),
            )
            .await?,
        );
        // Replicas share the database: what an admin decides through another one counts here
        // too. (On SQLite one process makes every change itself.)
        if self.services.store.kind() == BackendKind::Postgres {
            let freshness = crate::access_list::keep_admin_decisions_fresh(
                access_list.clone(),
                self.services.conversations.quota().clone(),
                background.clone(),
            );
            jobs.push(("admin decisions", tokio::spawn(freshness)));
        }
        let access = Arc::new(AccessPolicy::new(access_list.clone()));
        let (intake, updates) = Intake::new(
            self.services.store.clone(),
            self.services.clock.clone(),
            access.clone(),
        );
        let webhook = Webhook::from_config(config)?;
        let webhook_routes = match &webhook {
            Some(webhook) => {
                webhook_router(webhook.url.path(), intake.clone(), webhook.secret.clone())
            }
            None => axum::Router::new(),
        };
        let mini_app = crate::webapp::router(WebAppParts {
            conversations: self.services.conversations.clone(),
            access: access_list,
            bot_token: self.bot.token().to_owned(),
            max_age: config.webapp.max_age(),
            limits: ApiLimitSettings::from_config(&config.webapp),
            clock: self.services.clock.clone(),
            bot: Some(bot.clone()),
        });
        let http = crate::http::start(
            &config.http,
            self.services.store.clone(),
            self.services.clock.clone(),
            webhook_routes.merge(mini_app),
            self.services.jobs.clone(),
            background.clone(),
        )
        .await?;
        let background_services = BackgroundServices {
            jobs,
            http,
            background,
        };

        let incoming = IncomingUpdates {
            access,
            intake,
            updates,
            webhook,
        };
        let served = self.serve_telegram(bot, incoming, &shutdown).await;
        background_services.stop(&self.services.store).await;
        self.services.conversations.stop_tools().await;
        tracing::info!("telemem stopped");
        served
    }

    /// Reaches Telegram, starts taking updates and handles them until `shutdown`.
    async fn serve_telegram(
        &self,
        bot: TelegramBot,
        incoming: IncomingUpdates,
        shutdown: &CancellationToken,
    ) -> anyhow::Result<()> {
        let me = match connect(&bot, &public_api_url(&self.bot), shutdown).await {
            Ok(me) => me,
            Err(ConnectError::Stopped) => return Ok(()),
            Err(error) => return Err(error.into()),
        };
        crate::metrics::telegram_contact_at(self.services.clock.now_ms());
        // The command menu is not needed to serve: registering it beside the start saves a round
        // trip to Telegram before the first poll.
        let menu_bot = bot.clone();
        let admins = incoming.access.list().admins();
        let conversations = self.services.conversations.clone();
        let app_url = self.config.webapp.app_url();
        tokio::spawn(async move {
            let registered = telegram::register_commands(&menu_bot, &admins, &conversations);
            if let Err(error) = registered.await {
                tracing::warn!(error = %error, "could not register the command menu with Telegram");
            }
            if let Some(app_url) = app_url
                && let Err(error) = telegram::mini_app::set_menu_button(&menu_bot, &app_url).await
            {
                tracing::warn!(error = %error, "could not set the Mini App's menu button");
            }
        });
        let IncomingUpdates {
            access,
            intake,
            updates,
            webhook,
        } = incoming;
        let scheduler = self.scheduler(bot.clone(), me, access, intake.clone());
        // Running before the replay, which may hand over more updates than the channel holds.
        let stop = shutdown.child_token();
        let scheduling = tokio::spawn(scheduler.run(updates, stop.clone()));
        // Replicas share the database: keep this one's claims, take over a stopped one's updates.
        let take_over = (self.services.store.kind() == BackendKind::Postgres).then(|| {
            let (intake, stop, lease) = (
                intake.clone(),
                stop.clone(),
                self.config.storage.replica_lease(),
            );
            tokio::spawn(async move { intake.take_over_abandoned(lease, stop).await })
        });
        let reminders = tokio::spawn(telegram::reminders::deliver_reminders(
            bot.clone(),
            self.services.conversations.clone(),
            self.config.tools.reminders_check_interval(),
            self.config.storage.replica_lease(),
            stop.clone(),
        ));
        let poller = match take_updates(bot, intake, webhook.as_ref(), &stop).await {
            Ok(poller) => poller,
            Err(error) => {
                stop.cancel();
                let _ = scheduling.await;
                let _ = reminders.await;
                return Err(error);
            }
        };
        tracing::info!(
            mode = if poller.is_some() {
                "long polling"
            } else {
                "webhook"
            },
            "telemem is running"
        );
        stop.cancelled().await;
        tracing::info!("shutting down: no new updates; finishing the turns in flight");
        if let Err(error) = scheduling.await {
            tracing::error!(error = ?error, "the scheduler ended abnormally");
        }
        if let Some(poller) = poller {
            let _ = poller.await;
        }
        if let Some(take_over) = take_over {
            let _ = take_over.await;
        }
        let _ = reminders.await;
        Ok(())
    }

    /// The scheduler over the handler tree, with everything the handlers need.
    fn scheduler(
        &self,
        bot: TelegramBot,
        me: Me,
        access: Arc<AccessPolicy>,
        intake: Intake,
    ) -> Scheduler {
        let config = &self.config;
        Scheduler::new(SchedulerParts {
            bot: bot.clone(),
            handler: telegram::schema(),
            dependencies: telegram::dependencies(
                bot,
                me.clone(),
                self.services.conversations.clone(),
                access.clone(),
                intake.clone(),
                config,
            ),
            intake,
            access,
            me,
            clock: self.services.clock.clone(),
            settings: telegram::scheduler_settings(config),
        })
    }

    /// Runs until SIGTERM (as sent by `docker stop`) or SIGINT (Ctrl-C).
    pub async fn run(self) -> anyhow::Result<()> {
        let shutdown = CancellationToken::new();
        tokio::spawn(cancel_on_signal(shutdown.clone()));
        self.run_until(shutdown).await
    }
}

/// Webhook mode's URL and the secret Telegram must present.
struct Webhook {
    url: reqwest::Url,
    secret: Secret,
}

impl Webhook {
    /// Webhook mode's settings, with a fresh secret when none is configured; `None` for long
    /// polling.
    fn from_config(config: &Config) -> anyhow::Result<Option<Self>> {
        let Some(url) = &config.telegram.webhook_url else {
            return Ok(None);
        };
        let secret = match config.telegram.webhook_secret.clone() {
            Some(secret) => secret,
            None => random_webhook_secret()?,
        };
        Ok(Some(Self {
            url: url.clone(),
            secret,
        }))
    }
}

/// How updates come in: who may use the bot, the intake with the channel on which it hands
/// updates to the scheduler, and the webhook when Telegram calls one.
struct IncomingUpdates {
    access: Arc<AccessPolicy>,
    intake: Intake,
    updates: tokio::sync::mpsc::Receiver<Incoming>,
    webhook: Option<Webhook>,
}

/// Starts taking updates: by long polling, in a task of its own (returned); or, with a webhook,
/// whose route is already served, by handing over the last run's unfinished updates and then
/// registering the webhook with Telegram.
async fn take_updates(
    bot: TelegramBot,
    intake: Intake,
    webhook: Option<&Webhook>,
    stop: &CancellationToken,
) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    match webhook {
        Some(webhook) => {
            intake.replay_unfinished_logged().await;
            register_webhook(&bot, &webhook.url, &webhook.secret).await?;
            Ok(None)
        }
        None => Ok(Some(tokio::spawn(run_polling(bot, intake, stop.clone())))),
    }
}

/// What runs beside the Telegram side and stops after it: the jobs and the HTTP server.
struct BackgroundServices {
    jobs: Vec<(&'static str, tokio::task::JoinHandle<()>)>,
    http: Option<tokio::task::JoinHandle<anyhow::Result<()>>>,
    background: CancellationToken,
}

impl BackgroundServices {
    /// Stops the jobs and the HTTP server, then closes the database once the writes already
    /// handed to the store are done.
    async fn stop(self, store: &Store) {
        self.background.cancel();
        join_jobs(self.jobs).await;
        if let Some(http) = self.http {
            match http.await {
                Ok(Err(error)) => tracing::error!(error = ?error, "the HTTP server failed"),
                Err(error) => tracing::error!(error = ?error, "the HTTP server ended abnormally"),
                Ok(Ok(())) => {}
            }
        }
        store.close().await;
    }
}

/// The Bot API's URL as it may be logged: teloxide puts the token in each request's path, not
/// here, but a URL can still carry a user name and password.
fn public_api_url(bot: &Bot) -> String {
    let mut url = bot.api_url();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.to_string()
}

/// Registers the webhook with Telegram, with its secret token.
async fn register_webhook(
    bot: &TelegramBot,
    url: &reqwest::Url,
    secret: &Secret,
) -> anyhow::Result<()> {
    bot.set_webhook(url.clone())
        .secret_token(secret.expose().to_owned())
        .allowed_updates([
            AllowedUpdate::Message,
            AllowedUpdate::CallbackQuery,
            AllowedUpdate::InlineQuery,
            AllowedUpdate::ChosenInlineResult,
        ])
        .await
        .context("Telegram refused the webhook (setWebhook)")?;
    tracing::info!(path = url.path(), "webhook registered");
    Ok(())
}

/// Cancels `shutdown` on SIGTERM (what `docker stop` sends) or SIGINT (Ctrl-C).
pub async fn cancel_on_signal(shutdown: CancellationToken) {
    let interrupt = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut terminate =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(terminate) => terminate,
                Err(error) => {
                    tracing::error!(error = ?error, "cannot listen for SIGTERM");
                    let _ = interrupt.await;
                    shutdown.cancel();
                    return;
                }
            };
        tokio::select! {
            _ = interrupt => tracing::info!("received SIGINT"),
            _ = terminate.recv() => tracing::info!("received SIGTERM"),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = interrupt.await;
    }
    shutdown.cancel();
}

/// `conversations` reading answers aloud and drawing pictures where their servers are set.
fn with_speech_and_pictures(
    mut conversations: Conversations,
    config: &Config,
) -> anyhow::Result<Conversations> {
    let speech = crate::llm::speech::SpeechClient::from_config(&config.speech, &config.llm)
        .context("invalid speech configuration")?;
    match speech {
        Some(speech) => conversations = conversations.with_speech(speech),
        None => tracing::info!("answers are not read aloud: TTS_BASE_URL is not set"),
    }
    let images = crate::llm::images::ImageClient::from_config(&config.images, &config.llm)
        .context("invalid image configuration")?;
    match images {
        Some(images) => conversations = conversations.with_images(images),
        None => tracing::info!("pictures are not drawn: IMAGE_BASE_URL is not set"),
    }
    Ok(conversations)
}
