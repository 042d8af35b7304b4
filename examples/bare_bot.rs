//! The bare bot telemem is held against: the simplest bot that remembers anything, in the shape
//! the usual Telegram LLM bot takes, on the same stack. teloxide's dispatcher; SQLite in WAL mode;
//! for each text message the message stored, the chat's last 30 messages of the last 24 hours
//! sent to the model in one call (`POST {LLM_BASE_URL}/chat/completions`), the answer stored and
//! sent. No summaries, no recall, no notes, no crash-safe intake, no limits, no rendering.
//!
//! A bot that remembers more should not be slower than this one: docs/PERFORMANCE.md compares
//! them under the load generator, in the same minutes.
//!
//! ```bash
//! cargo build --release --example bare_bot --example loadgen
//! target/release/examples/loadgen --bin target/release/examples/bare_bot --users 1000 --turns 5 --rate 0
//! ```

use std::str::FromStr;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use teloxide::prelude::*;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;
const HISTORY_MESSAGES: i64 = 30;

/// Where the model answers.
#[derive(Clone)]
struct Model {
    http: reqwest::Client,
    endpoint: Arc<str>,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    anyhow::ensure!(
        std::env::args().nth(1).as_deref() == Some("run"),
        "usage: bare_bot run (with TELOXIDE_TOKEN, TELOXIDE_API_URL, LLM_BASE_URL and DATABASE_URL set)"
    );
    let bot = Bot::from_env();
    let base_url = std::env::var("LLM_BASE_URL")?;
    let model = Model {
        http: reqwest::Client::new(),
        endpoint: format!("{}/chat/completions", base_url.trim_end_matches('/')).into(),
    };
    let options = SqliteConnectOptions::from_str(&std::env::var("DATABASE_URL")?)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal)
        .synchronous(SqliteSynchronous::Normal);
    let pool = SqlitePoolOptions::new()
        .max_connections(4)
        .connect_with(options)
        .await?;
    sqlx::query(
        "CREATE TABLE IF NOT EXISTS messages (
             id INTEGER PRIMARY KEY, chat_id INTEGER NOT NULL, role TEXT NOT NULL,
             content TEXT NOT NULL, created_at INTEGER NOT NULL)",
    )
    .execute(&pool)
    .await?;
    sqlx::query("CREATE INDEX IF NOT EXISTS messages_by_chat ON messages (chat_id, created_at)")
        .execute(&pool)
        .await?;

    let handler = Update::filter_message().endpoint(answer);
    let mut dispatcher = Dispatcher::builder(bot, handler)
        .dependencies(dptree::deps![pool, model])
        .build();
    // The load generator stops the bot with SIGTERM, which teloxide's own handler (Ctrl-C) leaves.
    let shutdown = dispatcher.shutdown_token();
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::spawn(async move {
        terminate.recv().await;
        if let Ok(stopped) = shutdown.shutdown() {
            stopped.await;
        }
    });
    dispatcher.dispatch().await;
    Ok(())
}

/// One turn: the message stored, the chat's recent history to the model, the answer stored and
/// sent.
async fn answer(bot: Bot, message: Message, pool: SqlitePool, model: Model) -> anyhow::Result<()> {
    let Some(text) = message.text() else {
        return Ok(());
    };
    let chat_id = message.chat.id.0;
    store(&pool, chat_id, "user", text).await?;
    let history: Vec<(String, String)> = sqlx::query_as(
        "SELECT role, content FROM (
             SELECT role, content, created_at, id FROM messages
             WHERE chat_id = ?1 AND created_at >= ?2
             ORDER BY created_at DESC, id DESC LIMIT ?3)
         ORDER BY created_at, id",
    )
    .bind(chat_id)
    .bind(now_ms() - DAY_MS)
    .bind(HISTORY_MESSAGES)
    .fetch_all(&pool)
    .await?;
    let messages: Vec<Value> = history
        .iter()
        .map(|(role, content)| json!({ "role": role, "content": content }))
        .collect();
    let response: Value = model
        .http
        .post(&*model.endpoint)
        .json(&json!({ "model": "bare", "messages": messages }))
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let reply = response["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    store(&pool, chat_id, "assistant", &reply).await?;
    bot.send_message(message.chat.id, reply).await?;
    Ok(())
}

async fn store(pool: &SqlitePool, chat_id: i64, role: &str, content: &str) -> anyhow::Result<()> {
    sqlx::query(
        "INSERT INTO messages (chat_id, role, content, created_at) VALUES (?1, ?2, ?3, ?4)",
    )
    .bind(chat_id)
    .bind(role)
    .bind(content)
    .bind(now_ms())
    .execute(pool)
    .await?;
    Ok(())
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as i64)
}
