//! The floor of the load test: the least a bot on this stack can do per turn, to measure what the
//! machine, the load generator and its fakes cost before telemem does anything of its own.
//!
//! It long-polls `getUpdates` through teloxide, and for each text message asks the model
//! (`POST {LLM_BASE_URL}/chat/completions` through reqwest, one message, no history) and sends the
//! answer with `sendMessage`. No memory, no dispatcher, no rendering, no logging. It is not a bot
//! anyone should run: it confirms an update to Telegram before answering it.
//!
//! With `FLOOR_STORAGE=true` it also makes telemem's storage calls of a turn through
//! [`telemem::storage::Store`] (database at `DATABASE_URL`): the poll's record, the turn-start
//! read, the user's message, the reply and its delivery record. `FLOOR_SKIP` leaves some out, by
//! name (`record,start,user,reply,delivered`), to see what each costs.
//!
//! ```bash
//! cargo build --release --example floor_bot
//! cargo run --release --example loadgen -- --bin target/release/examples/floor_bot --users 1000 --turns 5
//! cargo run --release --example loadgen -- --bin target/release/examples/floor_bot --users 1000 --turns 5 --env FLOOR_STORAGE=true
//! ```
//!
//! See docs/PERFORMANCE.md ("Where the time goes").

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use telemem::clock::{Clock, SystemClock};
use telemem::storage::{self, ConversationKey, NewMessage, Role, Store, TurnStartLimits};
use teloxide::prelude::*;
use teloxide::types::{AllowedUpdate, Message, UpdateKind};

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// The store and the storage steps to make.
struct Storage {
    store: Store,
    skipped: HashSet<String>,
}

impl Storage {
    fn makes(&self, step: &str) -> bool {
        !self.skipped.contains(step)
    }
}

/// What one turn needs.
struct Turn {
    bot: Bot,
    http: reqwest::Client,
    endpoint: Arc<str>,
    storage: Option<Arc<Storage>>,
    message: Message,
    update_id: i64,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    anyhow::ensure!(
        std::env::args().nth(1).as_deref() == Some("run"),
        "usage: floor_bot run (with TELOXIDE_TOKEN, TELOXIDE_API_URL and LLM_BASE_URL set)"
    );
    let bot = Bot::from_env();
    let base_url = std::env::var("LLM_BASE_URL")?;
    let endpoint: Arc<str> = format!("{}/chat/completions", base_url.trim_end_matches('/')).into();
    let http = reqwest::Client::new();
    let storage = if std::env::var("FLOOR_STORAGE").as_deref() == Ok("true") {
        let store = Store::connect(&std::env::var("DATABASE_URL")?).await?;
        store.migrate().await?;
        let skipped = std::env::var("FLOOR_SKIP").unwrap_or_default();
        let skipped = skipped.split(',').map(str::to_owned).collect();
        Some(Arc::new(Storage { store, skipped }))
    } else {
        None
    };

    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut offset = 0_i32;
    loop {
        let poll = bot
            .get_updates()
            .offset(offset)
            .timeout(10)
            .allowed_updates([AllowedUpdate::Message]);
        let updates = tokio::select! {
            _ = terminate.recv() => return Ok(()),
            updates = poll.send() => updates,
        };
        let updates = match updates {
            Ok(updates) => updates,
            Err(error) => {
                eprintln!("getUpdates failed: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        if let Some(storage) = storage.as_ref().filter(|storage| storage.makes("record")) {
            let batch: Vec<(i64, String)> = updates
                .iter()
                .map(|update| Ok((i64::from(update.id.0), serde_json::to_string(update)?)))
                .collect::<anyhow::Result<_>>()?;
            if let Err(error) = storage
                .store
                .record_updates(&batch, SystemClock.now_ms())
                .await
            {
                eprintln!("recording a poll failed: {error}");
                continue;
            }
        }
        for update in updates {
            offset = offset.max(update.id.0 as i32 + 1);
            let UpdateKind::Message(message) = update.kind else {
                continue;
            };
            let turn = Turn {
                bot: bot.clone(),
                http: http.clone(),
                endpoint: endpoint.clone(),
                storage: storage.clone(),
                message,
                update_id: i64::from(update.id.0),
            };
            tokio::spawn(async move {
                if let Err(error) = answer(turn).await {
                    eprintln!("a turn failed: {error:#}");
                }
            });
        }
    }
}

/// One turn: the model's answer to the message, sent to its chat, with the storage calls asked
/// for around it.
async fn answer(turn: Turn) -> anyhow::Result<()> {
    let Some(text) = turn.message.text() else {
        return Ok(());
    };
    let chat = turn.message.chat.id;
    let storage = turn.storage.as_deref();
    let stored_question = match storage {
        Some(storage) => Some(store_question(storage, &turn.message, text).await?),
        None => None,
    };
    let reply = ask(&turn.http, &turn.endpoint, text).await?;
    let stored_reply = match (storage, stored_question) {
        (Some(storage), Some((key, session_id))) if storage.makes("reply") => {
            let reply = new_message(key, session_id, Role::Assistant, &reply, None);
            Some(
                storage
                    .store
                    .add_reply(&reply, Some(turn.update_id))
                    .await?,
            )
        }
        _ => None,
    };
    let sent = turn.bot.send_message(chat, reply).await?;
    if let (Some(storage), Some(reply_id)) = (storage, stored_reply)
        && storage.makes("delivered")
    {
        let sent_id = i64::from(sent.id.0);
        storage
            .store
            .set_telegram_message_id(reply_id, sent_id)
            .await?;
    }
    Ok(())
}

/// The turn-start read and the user's message; returns the conversation and its session.
async fn store_question(
    storage: &Storage,
    message: &Message,
    text: &str,
) -> anyhow::Result<(ConversationKey, i64)> {
    let user_id = message
        .from
        .as_ref()
        .map_or(storage::UserId(0), |user| user.id.into());
    let key = ConversationKey::new(message.chat.id.into(), user_id);
    let now = SystemClock.now_ms();
    let open_session_id = if storage.makes("start") {
        let limits = TurnStartLimits {
            summaries_since_ms: now - 7 * DAY_MS,
            summary_count: 3,
            history_since_ms: now - DAY_MS,
            history_max_messages: 30,
        };
        let start = storage.store.turn_start(key, limits).await?;
        start.open_session.map(|open| open.id)
    } else {
        storage.store.open_session(key).await?.map(|open| open.id)
    };
    let session_id = match open_session_id {
        Some(id) => id,
        None => storage.store.start_session(key, now).await?.0.id,
    };
    if storage.makes("user") {
        let telegram_message_id = Some(i64::from(message.id.0));
        let question = new_message(key, session_id, Role::User, text, telegram_message_id);
        storage.store.add_user_message_once(&question).await?;
    }
    Ok((key, session_id))
}

fn new_message(
    key: ConversationKey,
    session_id: i64,
    role: Role,
    content: &str,
    telegram_message_id: Option<i64>,
) -> NewMessage<'_> {
    NewMessage {
        key,
        session_id,
        role,
        content,
        created_at_ms: SystemClock.now_ms(),
        tokens_in: 0,
        tokens_out: 0,
        telegram_message_id,
    }
}

/// The model's answer to `text`.
async fn ask(http: &reqwest::Client, endpoint: &str, text: &str) -> anyhow::Result<String> {
    let request = json!({"model": "floor", "messages": [{"role": "user", "content": text}]});
    let response: Value = http
        .post(endpoint)
        .json(&request)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    let reply = response["choices"][0]["message"]["content"]
        .as_str()
        .ok_or_else(|| anyhow::anyhow!("the model's answer has no text"))?;
    Ok(reply.to_owned())
}
