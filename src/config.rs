//! One typed [`Config`] read from command-line flags and environment variables (clap with `env`).
//! Every duration is given in whole seconds so that tests can shrink any time window. A value out
//! of range stops the program at start with clap's message, which names the variable (each
//! flag's value name is its environment variable) and the accepted range.
//!
//! Secrets are held in [`crate::secret::Secret`], so `Debug` on a config never prints them.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::ids::UserId;
use crate::setting::Setting;
use crate::storage::{BackendKind, StoreOptions};

pub mod webapp;

/// The longest time window accepted anywhere: ten years, in seconds.
const MAX_WINDOW_SECS: u64 = 10 * 365 * 24 * 60 * 60;

/// Everything the storage layer and its background jobs need.
#[derive(Clone, Debug, Args)]
pub struct StorageConfig {
    /// Where the data lives: `sqlite://PATH` (one file, created with its directory if missing) or
    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (a server several replicas can share).
    #[arg(
        setting = "DATABASE_URL",
        default_value = "sqlite://data/telemem.db",
        value_parser = parse_database_url,
        global = true
    )]
    pub database_url: String,

    /// Largest size of the database file in MiB; past it the bot answers that its storage is full
    /// (as on a full disk) until the purge or /clear frees space. Unset: no limit.
    #[arg(setting = "DATABASE_MAX_SIZE_MB", global = true,
          value_parser = clap::value_parser!(u64).range(1..=16_000_000))]
    pub database_max_size_mb: Option<u64>,

    /// PostgreSQL: connections the pool keeps open at most.
    #[arg(setting = "DATABASE_POOL_SIZE", default_value_t = 10, global = true,
          value_parser = clap::value_parser!(u32).range(2..=500))]
    pub database_pool_size: u32,

    /// PostgreSQL: a statement running longer than this is cancelled by the server.
    #[arg(setting = "DATABASE_STATEMENT_TIMEOUT_SECS", default_value_t = 30, global = true,
          value_parser = clap::value_parser!(u64).range(1..=3_600))]
    pub database_statement_timeout_secs: u64,

    /// PostgreSQL with replicas: an update a replica took in and did not finish is taken over by
    /// another this long after the first stopped renewing its claim (it renews every third of it).
    #[arg(setting = "REPLICA_LEASE_SECS", default_value_t = 30, global = true,
          value_parser = clap::value_parser!(u64).range(2..=3_600))]
    pub replica_lease_secs: u64,

    /// MiB of message vectors kept in memory for the search by meaning, for the conversations
    /// searched most recently (0: none; every search reads the database).
    #[arg(setting = "VECTOR_CACHE_MB", default_value_t = 32, global = true,
          value_parser = clap::value_parser!(u64).range(0..=65_536))]
    pub vector_cache_mb: u64,

    /// Rows older than this are deleted by the purge job (default 30 days).
    #[arg(setting = "PURGE_AFTER_SECS", default_value_t = 30 * 24 * 60 * 60, global = true,
          value_parser = clap::value_parser!(u64).range(60..=MAX_WINDOW_SECS))]
    pub purge_after_secs: u64,

    /// Time between two runs of the purge job (default 24 hours).
    #[arg(setting = "PURGE_INTERVAL_SECS", default_value_t = 24 * 60 * 60, global = true,
          value_parser = clap::value_parser!(u64).range(1..=MAX_WINDOW_SECS))]
    pub purge_interval_secs: u64,

    /// Delay from start to the purge job's first run (default one minute).
    #[arg(setting = "PURGE_FIRST_RUN_SECS", default_value_t = 60, global = true,
          value_parser = clap::value_parser!(u64).range(0..=MAX_WINDOW_SECS))]
    pub purge_first_run_secs: u64,

    /// Rows deleted per purge transaction; small batches keep writers' waits short.
    #[arg(setting = "PURGE_BATCH_SIZE", default_value_t = 200, global = true,
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub purge_batch_size: u32,
}

impl StorageConfig {
    pub fn database_max_bytes(&self) -> Option<u64> {
        self.database_max_size_mb
            .map(|mib| mib.saturating_mul(1024 * 1024))
    }

    /// How to open the database.
    pub fn store_options(&self) -> StoreOptions {
        StoreOptions {
            max_bytes: self.database_max_bytes(),
            pool_size: Some(self.database_pool_size),
            statement_timeout: Some(Duration::from_secs(self.database_statement_timeout_secs)),
            replica_lease: Some(self.replica_lease()),
            vector_cache_bytes: Some(
                usize::try_from(self.vector_cache_mb.saturating_mul(1024 * 1024))
                    .unwrap_or(usize::MAX),
            ),
        }
    }

    pub fn replica_lease(&self) -> Duration {
        Duration::from_secs(self.replica_lease_secs)
    }

    /// The database URL with its password masked, for messages and logs.
    pub fn database_url_for_display(&self) -> String {
        match self.database_password() {
            Some(password) => self.database_url.replacen(&password, "***", 1),
            None => self.database_url.clone(),
        }
    }

    /// The password in the database URL, if it has one (PostgreSQL).
    pub fn database_password(&self) -> Option<String> {
        let (_, rest) = self.database_url.split_once("://")?;
        let credentials = rest.split_once('@')?.0;
        let password = credentials.split_once(':')?.1;
        (!password.is_empty()).then(|| password.to_owned())
    }

    pub fn purge_after(&self) -> Duration {
        Duration::from_secs(self.purge_after_secs)
    }

    pub fn purge_interval(&self) -> Duration {
        Duration::from_secs(self.purge_interval_secs)
    }

    pub fn purge_first_run(&self) -> Duration {
        Duration::from_secs(self.purge_first_run_secs)
    }
}

/// How much of the stored history a chat turn sees.
#[derive(Clone, Debug, Args)]
pub struct HistoryConfig {
    /// Silence after which the next message starts a new session (default 30 minutes).
    #[arg(setting = "SESSION_IDLE_SECS", default_value_t = 30 * 60, global = true,
          value_parser = clap::value_parser!(u64).range(1..=MAX_WINDOW_SECS))]
    pub session_idle_secs: u64,

    /// Only messages younger than this are sent back to the model verbatim (default 24 hours).
    #[arg(setting = "HISTORY_WINDOW_SECS", default_value_t = 24 * 60 * 60, global = true,
          value_parser = clap::value_parser!(u64).range(1..=MAX_WINDOW_SECS))]
    pub history_window_secs: u64,

    /// At most this many of those messages are sent (default 30).
    #[arg(setting = "HISTORY_MAX_MESSAGES", default_value_t = 30, global = true,
          value_parser = clap::value_parser!(u32).range(1..=1_000))]
    pub history_max_messages: u32,
}

impl HistoryConfig {
    pub fn session_idle(&self) -> Duration {
        Duration::from_secs(self.session_idle_secs)
    }

    pub fn history_window(&self) -> Duration {
        Duration::from_secs(self.history_window_secs)
    }
}

/// What the memory beyond the raw history holds, and how the summarizer works.
#[derive(Clone, Debug, Args)]
pub struct MemoryConfig {
    /// Summaries of sessions older than this are no longer put into prompts (default 7 days).
    #[arg(setting = "SUMMARY_WINDOW_SECS", default_value_t = 7 * 24 * 60 * 60, global = true,
          value_parser = clap::value_parser!(u64).range(1..=MAX_WINDOW_SECS))]
    pub summary_window_secs: u64,

    /// How many of the latest session summaries a prompt carries (0 turns summaries off).
    #[arg(setting = "SUMMARY_COUNT", default_value_t = 3, global = true,
          value_parser = clap::value_parser!(u32).range(0..=20))]
    pub summary_count: u32,

    /// How many older messages relevant to the new one are recalled (0 turns recall off).
    #[arg(setting = "RECALL_LIMIT", default_value_t = 30, global = true,
          value_parser = clap::value_parser!(u32).range(0..=50))]
    pub recall_limit: u32,

    /// Token budget of the memory parts of a prompt (summaries, recalled and raw messages).
    #[arg(setting = "CONTEXT_TOKEN_BUDGET", default_value_t = 700, global = true,
          value_parser = clap::value_parser!(u32).range(100..=1_000_000))]
    pub context_token_budget: u32,

    /// Time between two looks of the summarizer for closed sessions.
    #[arg(setting = "SUMMARIZER_INTERVAL_SECS", default_value_t = 30, global = true,
          value_parser = clap::value_parser!(u64).range(1..=MAX_WINDOW_SECS))]
    pub summarizer_interval_secs: u64,

    /// Failed summary attempts before an extractive summary is stored instead.
    #[arg(setting = "SUMMARY_MAX_ATTEMPTS", default_value_t = 3, global = true,
          value_parser = clap::value_parser!(u32).range(1..=20))]
    pub summary_max_attempts: u32,

    /// Wait before the first retry of a failed summary; doubles with each failure.
    #[arg(setting = "SUMMARY_RETRY_SECS", default_value_t = 60, global = true,
          value_parser = clap::value_parser!(u64).range(0..=MAX_WINDOW_SECS))]
    pub summary_retry_secs: u64,

    /// In incognito, how long the process keeps a turn for the next prompts (default 5
    /// minutes); 0: each message stands alone.
    #[arg(setting = "INCOGNITO_WINDOW_SECS", default_value_t = 5 * 60, global = true,
          value_parser = clap::value_parser!(u64).range(0..=3_600))]
    pub incognito_window_secs: u64,

    /// In incognito, how many of the latest turns the process keeps for the next prompts.
    #[arg(setting = "INCOGNITO_MAX_TURNS", default_value_t = 5, global = true,
          value_parser = clap::value_parser!(u32).range(0..=50))]
    pub incognito_max_turns: u32,
}

impl MemoryConfig {
    pub fn incognito_window(&self) -> Duration {
        Duration::from_secs(self.incognito_window_secs)
    }

    pub fn summary_window(&self) -> Duration {
        Duration::from_secs(self.summary_window_secs)
    }

    pub fn summarizer_interval(&self) -> Duration {
        Duration::from_secs(self.summarizer_interval_secs)
    }
}

/// What one person may use: tokens per UTC day and stored history.
#[derive(Clone, Debug, Args)]
pub struct QuotaConfig {
    /// Tokens one person may use per UTC day, in all their chats (the provider's reported usage,
    /// or the estimate when it reports none); past it their messages get a notice instead of a
    /// model call until midnight UTC. 0: no limit. ADMIN_USERS are exempt; an admin can change
    /// one person's limit with /limit.
    #[arg(setting = "USER_DAILY_TOKEN_LIMIT", default_value_t = 0, global = true,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000_000_000))]
    pub user_daily_token_limit: u64,

    /// Most text one person may keep stored, in MiB (the UTF-8 bytes of their messages, the
    /// replies to them, summaries and notes, in all their chats); past it their oldest sessions
    /// are deleted. 0: no limit.
    #[arg(setting = "USER_MAX_STORED_MB", default_value_t = 0, global = true,
          value_parser = clap::value_parser!(u64).range(0..=16_000_000))]
    pub user_max_stored_mb: u64,

    /// Pictures one person may have drawn per UTC day (/image and the `generate_image` tool);
    /// past it they are refused before the image server is asked. 0: no limit. ADMIN_USERS are
    /// exempt.
    #[arg(setting = "USER_DAILY_IMAGES", default_value_t = 0, global = true,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub user_daily_images: u64,

    /// Seconds of speech one person may be sent per UTC day (voice answers and /tts); past it
    /// they get text only. 0: no limit. ADMIN_USERS are exempt.
    #[arg(setting = "USER_DAILY_TTS_SECONDS", default_value_t = 0, global = true,
          value_parser = clap::value_parser!(u64).range(0..=100_000_000))]
    pub user_daily_tts_seconds: u64,
}

impl QuotaConfig {
    /// The daily token limit of people without one of their own; `None`: no limit.
    pub fn daily_token_limit(&self) -> Option<u64> {
        (self.user_daily_token_limit > 0).then_some(self.user_daily_token_limit)
    }

    /// Pictures a day per person; `None`: no limit.
    pub fn daily_images(&self) -> Option<u64> {
        (self.user_daily_images > 0).then_some(self.user_daily_images)
    }

    /// Seconds of speech a day per person; `None`: no limit.
    pub fn daily_speech_seconds(&self) -> Option<u64> {
        (self.user_daily_tts_seconds > 0).then_some(self.user_daily_tts_seconds)
    }

    /// The cap on one person's stored text, in bytes; `None`: no cap.
    pub fn max_stored_bytes(&self) -> Option<u64> {
        (self.user_max_stored_mb > 0).then(|| self.user_max_stored_mb.saturating_mul(1024 * 1024))
    }
}

/// Who may use the bot and how it talks to Telegram.
#[derive(Clone, Debug, Args)]
pub struct TelegramConfig {
    /// Telegram user ids allowed to chat with the bot, comma-separated; a channel's or group's id
    /// (negative) lets in posts made as that channel, or by that group's anonymous admins.
    #[arg(setting = "ALLOWED_USERS", value_delimiter = ',', value_parser = parse_user_id,
          global = true)]
    pub allowed_users: Vec<UserId>,

    /// Telegram user ids with administrator rights (always allowed, exempt from the per-user
    /// limits, and given the admin commands), comma-separated.
    #[arg(setting = "ADMIN_USERS", value_delimiter = ',', value_parser = parse_user_id,
          global = true)]
    pub admin_users: Vec<UserId>,

    /// Let every Telegram user chat with the bot. Required when ALLOWED_USERS is empty.
    #[arg(setting = "ALLOW_ALL_USERS", default_value_t = false,
          action = clap::ArgAction::Set, global = true)]
    pub allow_all_users: bool,

    /// Hold outgoing messages to Telegram's published rate limits (turn off only for a
    /// self-hosted Bot API server or for load tests).
    #[arg(setting = "TELEGRAM_THROTTLE", default_value_t = true,
          action = clap::ArgAction::Set, global = true)]
    pub throttle: bool,

    /// Stream replies by editing one message as the model writes.
    #[arg(setting = "STREAM_REPLIES", default_value_t = true,
          action = clap::ArgAction::Set, global = true)]
    pub stream_replies: bool,

    /// Public HTTPS URL Telegram should POST updates to (webhook mode, e.g. behind a reverse
    /// proxy). Unset: long polling. Needs HTTP_ADDR; the path of the URL is served there.
    #[arg(setting = "TELEGRAM_WEBHOOK_URL", global = true)]
    pub webhook_url: Option<reqwest::Url>,

    /// Secret Telegram must send with every webhook call (X-Telegram-Bot-Api-Secret-Token; 1-256
    /// of A-Z a-z 0-9 _ -). Unset: a random one is made at each start.
    #[arg(setting = "TELEGRAM_WEBHOOK_SECRET", hide_env_values = true, global = true,
          value_parser = parse_webhook_secret)]
    pub webhook_secret: Option<crate::secret::Secret>,

    /// Longest user message (in characters) sent to the model; longer ones get a polite reply.
    #[arg(setting = "MAX_MESSAGE_CHARS", default_value_t = 4_096, global = true,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_message_chars: u32,

    /// Most messages of one person waiting for an answer at once (the one being answered
    /// included); further ones get one notice and are not sent to the model. 0: no limit.
    /// ADMIN_USERS are exempt.
    #[arg(setting = "USER_MAX_PENDING", default_value_t = 5, global = true,
          value_parser = clap::value_parser!(u32).range(0..=10_000))]
    pub user_max_pending: u32,

    /// Most messages one person may send in a minute; further ones get one notice and are not
    /// sent to the model. 0: no limit. ADMIN_USERS are exempt.
    #[arg(setting = "USER_MESSAGES_PER_MINUTE", default_value_t = 20, global = true,
          value_parser = clap::value_parser!(u32).range(0..=100_000))]
    pub user_messages_per_minute: u32,

    /// Most updates handled at once. The model's latency is what keeps turns in flight, so this
    /// is how many answers a slow model may be writing at the same time; each turn in flight
    /// holds its prompt, a model request and a Telegram request. The default serves 1,500 model
    /// requests a minute at a five-second answer, more than most provider accounts allow.
    #[arg(setting = "MAX_TURNS_IN_FLIGHT", default_value_t = 128, global = true,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_turns_in_flight: u32,

    /// On SIGTERM, how long the turns in flight may take to finish before they are stopped (and
    /// handled again after the next start). The default fits Docker's 10-second stop timeout.
    #[arg(setting = "SHUTDOWN_GRACE_SECS", default_value_t = 8, global = true,
          value_parser = clap::value_parser!(u64).range(0..=3_600))]
    pub shutdown_grace_secs: u64,
}

impl TelegramConfig {
    pub fn shutdown_grace(&self) -> Duration {
        Duration::from_secs(self.shutdown_grace_secs)
    }

    /// Refuses a configuration that would open the bot to everyone by accident.
    pub fn check_access_is_explicit(&self) -> anyhow::Result<()> {
        if self.allowed_users.is_empty() && self.admin_users.is_empty() && !self.allow_all_users {
            anyhow::bail!(
                "no allowed users: set ALLOWED_USERS to a comma-separated list of Telegram user ids, \
                 or set ALLOW_ALL_USERS=true to let anyone use the bot"
            );
        }
        Ok(())
    }
}

fn parse_webhook_secret(value: &str) -> Result<crate::secret::Secret, String> {
    let valid = (1..=256).contains(&value.len())
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if valid {
        Ok(crate::secret::Secret::new(value))
    } else {
        Err("expected 1 to 256 characters of A-Z, a-z, 0-9, _ and -".to_owned())
    }
}

fn parse_user_id(value: &str) -> Result<UserId, String> {
    value
        .trim()
        .parse::<UserId>()
        .ok()
        .filter(|id| id.0 != 0)
        .ok_or_else(|| {
            format!(
                "`{value}` is not a Telegram id (a whole number: a user's, or a channel's or \
                 group's such as -1001234567890)"
            )
        })
}

/// The operations endpoint: `/healthz` and `/metrics` over HTTP (see [`crate::http`]).
#[derive(Clone, Debug, Args)]
pub struct HttpConfig {
    /// Address of the HTTP server for /healthz and /metrics, e.g. 127.0.0.1:8080. Unset: no
    /// server (the Docker image sets 0.0.0.0:8080).
    #[arg(setting = "HTTP_ADDR", global = true)]
    pub http_addr: Option<SocketAddr>,

    /// /healthz reports unhealthy after this long without a successful contact with Telegram
    /// (counted from start until the first contact).
    #[arg(setting = "HEALTH_MAX_SILENCE_SECS", default_value_t = 120, global = true,
          value_parser = clap::value_parser!(u64).range(5..=86_400))]
    pub health_max_silence_secs: u64,
}

impl HttpConfig {
    pub fn health_max_silence(&self) -> Duration {
        Duration::from_secs(self.health_max_silence_secs)
    }
}

/// Photos, voice notes and documents: which model looks at pictures, how much of a document is
/// read, and how long fetching and transcribing a file may take.
#[derive(Clone, Debug, Args)]
pub struct MediaConfig {
    /// Model for turns that carry a picture (a vision model such as `llava` or `gpt-4o-mini`).
    /// Unset: the person's model.
    #[arg(setting = "VISION_MODEL", global = true)]
    pub vision_model: Option<String>,

    /// Largest document (text, Markdown, CSV, JSON, code, PDF) read, in bytes; larger ones get a
    /// polite reply. Telegram lets bots download 20 MB at most.
    #[arg(setting = "DOCUMENT_MAX_BYTES", default_value_t = 1_048_576, global = true,
          value_parser = clap::value_parser!(u64).range(1..=MAX_TELEGRAM_DOWNLOAD_BYTES))]
    pub document_max_bytes: u64,

    /// Tokens of a document's text that go into the prompt; the rest is cut, with a marker
    /// saying so.
    #[arg(setting = "DOCUMENT_TOKEN_BUDGET", default_value_t = 3_000, global = true,
          value_parser = clap::value_parser!(u32).range(100..=1_000_000))]
    pub document_token_budget: u32,

    /// Time for fetching a file from Telegram and, for a voice note, transcribing it; the model
    /// call has its own LLM_TIMEOUT_SECS.
    #[arg(setting = "MEDIA_TIMEOUT_SECS", default_value_t = 60, global = true,
          value_parser = clap::value_parser!(u64).range(1..=3_600))]
    pub media_timeout_secs: u64,
}

/// Telegram's limit on files a bot may download: 20 MB.
pub const MAX_TELEGRAM_DOWNLOAD_BYTES: u64 = 20 * 1024 * 1024;

impl MediaConfig {
    /// The vision model, unless unset or empty.
    pub fn vision_model(&self) -> Option<&str> {
        crate::llm::model_name(self.vision_model.as_deref())
    }

    pub fn media_timeout(&self) -> Duration {
        Duration::from_secs(self.media_timeout_secs)
    }
}

/// How log lines look.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    #[default]
    Pretty,
    Json,
}

/// The whole configuration.
#[derive(Clone, Debug, Args)]
pub struct Config {
    #[command(flatten)]
    pub storage: StorageConfig,

    #[command(flatten)]
    pub history: HistoryConfig,

    #[command(flatten)]
    pub memory: MemoryConfig,

    #[command(flatten)]
    pub redaction: RedactionConfig,

    #[command(flatten)]
    pub telegram: TelegramConfig,

    #[command(flatten)]
    pub quota: QuotaConfig,

    #[command(flatten)]
    pub llm: crate::llm::LlmConfig,

    #[command(flatten)]
    pub embedding: crate::llm::embeddings::EmbeddingConfig,

    #[command(flatten)]
    pub transcription: crate::llm::transcription::TranscriptionConfig,

    #[command(flatten)]
    pub speech: crate::llm::speech::SpeechConfig,

    #[command(flatten)]
    pub images: crate::llm::images::ImageConfig,

    #[command(flatten)]
    pub media: MediaConfig,

    #[command(flatten)]
    pub http: HttpConfig,

    #[command(flatten)]
    pub tools: crate::tools::config::ToolsConfig,

    #[command(flatten)]
    pub webapp: webapp::WebAppConfig,

    /// Log line format; the level is set with RUST_LOG (default `info`).
    #[arg(setting = "LOG_FORMAT", value_enum, default_value_t = LogFormat::Pretty, global = true)]
    pub log_format: LogFormat,
}

/// Accepts the URLs of the two backends: SQLite and PostgreSQL.
fn parse_database_url(value: &str) -> Result<String, String> {
    if BackendKind::of_url(value).is_some() {
        Ok(value.to_owned())
    } else {
        Err(
            "expected an SQLite URL such as sqlite://data/telemem.db, or a PostgreSQL URL such as \
             postgres://telemem:PASSWORD@localhost:5432/telemem"
                .to_owned(),
        )
    }
}

impl Config {
    /// Every secret value the process knows (the bot token from `TELOXIDE_TOKEN`, every API
    /// key, the webhook's secret, the database password), for masking in logs.
    pub fn secrets(&self) -> Vec<String> {
        let token = std::env::var("TELOXIDE_TOKEN").ok();
        let api_key = self.llm.api_key.as_ref().map(|key| key.expose().to_owned());
        let side_keys = [
            self.telegram.webhook_secret.as_ref(),
            self.embedding.server.api_key.as_ref(),
            self.transcription.server.api_key.as_ref(),
            self.speech.server.api_key.as_ref(),
            self.images.server.api_key.as_ref(),
        ]
        .into_iter()
        .flatten()
        .map(|key| key.expose().to_owned());
        token
            .into_iter()
            .chain(api_key)
            .chain(side_keys)
            .chain(self.storage.database_password())
            .filter(|secret| !secret.is_empty())
            .collect()
    }
}

/// Extra patterns to mask, on top of the defaults.
///
/// The default patterns (API keys, Telegram bot tokens, passwords in URLs, long hex secrets,
/// GitHub tokens, AWS access key ids, `Bearer` tokens and PEM private keys) are always on; these
/// only add to them.
#[derive(Clone, Debug, Args)]
pub struct RedactionConfig {
    /// Extra regular expression to mask in stored text before it reaches the model (Rust `regex`
    /// syntax); repeat the flag, or put one per line in the variable. The built-in patterns
    /// (API keys, bot tokens, URL passwords, private keys...) are always on. If a pattern has a
    /// capture group, only the first group is masked (`password=(\S+)` keeps `password=`).
    #[arg(
        long = "redact-pattern",
        env = "REDACT_PATTERNS",
        value_name = "REDACT_PATTERNS",
        value_delimiter = '\n',
        global = true
    )]
    pub extra_patterns: Vec<String>,
}

/// Converts a duration to whole milliseconds, the unit of every stored time.
pub fn duration_ms(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
