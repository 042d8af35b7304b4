//! A fake Telegram Bot API server on 127.0.0.1 for end-to-end tests: point teloxide at
//! [`FakeTelegram::api_url`] (or `TELOXIDE_API_URL`) and the real bot code talks to it over HTTP.
//!
//! It speaks the part of the Bot API telemem uses, with Telegram's wording for the errors that
//! matter to us: HTML is parsed like Telegram does (see [`super::telegram_html`]), texts over
//! 4096 UTF-16 units are refused, edits with nothing new are refused. Tests enqueue incoming
//! updates with the `send_*`/`press_button` builders, inject failures with
//! [`FakeTelegram::fail_next`], and await what the bot did with [`FakeTelegram::wait_for`].
//! [`FakeTelegram::hold_next`] keeps one chosen call waiting for ever, applied or not, so a test
//! can kill the bot at that very moment: while Telegram has not yet done what the bot asked, or
//! after Telegram did it but before the bot heard back.
//!
//! For load runs (`loadgen.rs`) every call carries the moment it arrived, the moment each update
//! was first handed out by `getUpdates` is kept ([`FakeTelegram::take_handouts`]), and a driver
//! follows the bot with [`FakeTelegram::changes`] and drains the record as it goes
//! ([`FakeTelegram::take_calls`]), so the fake's memory stays bounded however long the run.
//!
//! Simplifications, on purpose: every chat exists (a negative id is a group, a positive one a
//! private chat unless an update said otherwise); one message-id counter serves all chats;
//! `editMessageText` counts as "not modified" only when the raw text, parse mode and keyboard are
//! all unchanged; parse modes other than HTML are not checked.
//!
//! Files users send are kept with their bytes: `getFile` describes them and the Bot API's file
//! download (`/file/bot<token>/<path>`, recorded as a `downloadFile` call) serves them.
//!
//! This file owns the server's handle and what tests read back from it (the calls, the bot's
//! messages and documents). The rest is in parts: `updates.rs` builds the updates users send,
//! `files.rs` the files they send,
//! `server.rs` is the HTTP side (routing a request to its method, long polls, the answers'
//! shapes), `methods.rs` carries out the Bot API methods, `state.rs` is the recorded chat state
//! they work on, `faults.rs` scripts what goes wrong, and `inline.rs` is inline mode (queries,
//! choosing a result, the posted messages the bot edits by their id).

mod faults;
mod files;
mod inline;
mod methods;
mod server;
mod state;
mod updates;
mod webhook;

pub use faults::{Fault, Hold};
#[allow(unused_imports)]
pub use inline::ChosenResult;
// The examples that compile this fake send no files.
#[allow(unused_imports)]
pub use files::{TELEGRAM_DOWNLOAD_LIMIT, UserFile};
#[allow(unused_imports)]
pub use server::{Upload, parse_body};

use std::{
    fmt::Write as _,
    net::SocketAddr,
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use axum::Router;
use serde_json::Value;
use tokio::{sync::watch, task::JoinHandle, time::Instant};

use state::State;

pub const BOT_TOKEN: &str = "123456:TEST-TOKEN";
pub const BOT_USER_ID: i64 = 1000;
pub const BOT_USERNAME: &str = "telemem_test_bot";
/// The sender Telegram puts in `from` of a message sent as a channel.
pub const CHANNEL_BOT_ID: i64 = 136_817_688;
/// The sender Telegram puts in `from` of a message sent by an anonymous group admin.
pub const GROUP_ANONYMOUS_BOT_ID: i64 = 1_087_968_824;
/// Telegram's answer when the bot writes to a person who never started it.
pub const CANT_INITIATE: &str = "Forbidden: bot can't initiate conversation with a user";

/// One request the bot made, with its parameters (multipart fields as strings, uploaded files
/// as `{"file_name": …, "size": …}`).
#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The method in Telegram's camelCase spelling (teloxide sends `SendMessage`).
    pub method: String,
    pub params: Value,
    /// Whether the fake answered `"ok": true`.
    pub ok: bool,
    /// When the request reached the fake.
    pub at: Instant,
    /// Whether the fake keeps the call waiting without an answer ([`FakeTelegram::hold_next`]).
    pub held: bool,
}

/// Whether `calls` hold a call of `method` (in Telegram's camelCase spelling).
pub fn called(calls: &[Call], method: &str) -> bool {
    calls.iter().any(|call| call.method == method)
}

/// The first time `getUpdates` (or a webhook call) handed one update to the bot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handout {
    pub update_id: i64,
    pub at: Instant,
}

/// A message the bot sent, as it stands after edits.
#[derive(Clone, Debug, PartialEq)]
pub struct BotMessage {
    pub chat_id: i64,
    pub message_id: i64,
    /// What the user sees: the text after HTML parsing.
    pub text: String,
    /// The text exactly as the bot sent it.
    pub raw_text: String,
    pub parse_mode: Option<String>,
    pub reply_markup: Option<Value>,
    pub edited: bool,
}

impl BotMessage {
    /// The inline buttons under the message, as (text, callback data), row by row.
    pub fn buttons(&self) -> Vec<(String, String)> {
        let Some(markup) = &self.reply_markup else {
            return Vec::new();
        };
        markup["inline_keyboard"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_array)
            .flatten()
            .map(|button| {
                let field = |name: &str| button[name].as_str().unwrap_or_default().to_owned();
                (field("text"), field("callback_data"))
            })
            .collect()
    }
}

/// A file the bot uploaded with `sendDocument`, `sendVoice` or `sendPhoto`.
#[derive(Clone, Debug, PartialEq)]
pub struct SentDocument {
    /// `document`, `voice` or `photo`.
    pub kind: &'static str,
    /// A voice note's length in seconds, as the bot gave it.
    pub duration: Option<i64>,
    pub chat_id: i64,
    pub file_name: Option<String>,
    pub caption: Option<String>,
    pub bytes: Vec<u8>,
}

pub struct FakeTelegram {
    shared: Arc<Shared>,
    address: SocketAddr,
    server: JoinHandle<()>,
}

struct Shared {
    pub(super) state: Mutex<State>,
    /// Bumped after every change, so waiters (long polls, `wait_for`) re-check without polling.
    pub(super) changes: watch::Sender<u64>,
}

impl Drop for FakeTelegram {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeTelegram {
    /// Binds a free port on 127.0.0.1 and serves on the current tokio runtime.
    pub async fn start() -> Self {
        Self::start_on(std::net::Ipv4Addr::LOCALHOST.into()).await
    }

    /// Binds a free port on `ip`: containers on a Docker network reach the host at its bridge's
    /// address, not at 127.0.0.1.
    pub async fn start_on(ip: std::net::IpAddr) -> Self {
        let listener = tokio::net::TcpListener::bind((ip, 0))
            .await
            .expect("bind the fake Telegram server");
        let address = listener
            .local_addr()
            .expect("local address of the listener");
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changes: watch::Sender::new(0),
        });
        let app = Router::new()
            .fallback(server::handle_request)
            .with_state(Arc::clone(&shared));
        let server = tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("the fake Telegram server stopped");
        });
        Self {
            shared,
            address,
            server,
        }
    }

    /// The base URL to give teloxide (`Bot::set_api_url` or `TELOXIDE_API_URL`).
    pub fn api_url(&self) -> reqwest::Url {
        format!("http://{}/", self.address)
            .parse()
            .expect("a socket address makes a valid URL")
    }

    pub fn token(&self) -> &'static str {
        BOT_TOKEN
    }

    /// A real teloxide bot talking to this server.
    pub fn bot(&self) -> teloxide::Bot {
        teloxide::Bot::new(self.token()).set_api_url(self.api_url())
    }

    /// Every call the bot made so far, in arrival order.
    pub fn calls(&self) -> Vec<Call> {
        self.shared.lock().calls.clone()
    }

    /// Removes and returns the calls recorded so far; a load run takes them as it goes, so the
    /// record stays small.
    pub fn take_calls(&self) -> Vec<Call> {
        std::mem::take(&mut self.shared.lock().calls)
    }

    /// Removes and returns when each update was first handed to the bot, in hand-out order.
    pub fn take_handouts(&self) -> Vec<Handout> {
        std::mem::take(&mut self.shared.lock().handouts)
    }

    /// Changes after every call and every enqueued update: a driver awaits `changed()` on it
    /// instead of polling.
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.shared.changes.subscribe()
    }

    /// The visible text of each bot message in `chat_id` that still exists, after edits, in
    /// the order they were sent.
    pub fn sent_messages(&self, chat_id: i64) -> Vec<String> {
        self.bot_messages(chat_id)
            .into_iter()
            .map(|message| message.text)
            .collect()
    }

    /// Like [`Self::sent_messages`] with everything known about each message.
    pub fn bot_messages(&self, chat_id: i64) -> Vec<BotMessage> {
        self.shared
            .lock()
            .bot_messages
            .iter()
            .filter(|message| message.chat_id == chat_id)
            .cloned()
            .collect()
    }

    pub fn sent_documents(&self) -> Vec<SentDocument> {
        self.shared.lock().documents.clone()
    }

    /// The documents the bot sent into `chat_id`.
    pub fn documents_in(&self, chat_id: i64) -> Vec<SentDocument> {
        self.files_in(chat_id, "document")
    }

    /// The voice notes the bot sent into `chat_id`.
    pub fn voices_in(&self, chat_id: i64) -> Vec<SentDocument> {
        self.files_in(chat_id, "voice")
    }

    /// The photos the bot sent into `chat_id`.
    pub fn photos_in(&self, chat_id: i64) -> Vec<SentDocument> {
        self.files_in(chat_id, "photo")
    }

    fn files_in(&self, chat_id: i64, kind: &str) -> Vec<SentDocument> {
        self.sent_documents()
            .into_iter()
            .filter(|file| file.chat_id == chat_id && file.kind == kind)
            .collect()
    }

    /// The command menu the bot set for `language` (a `language_code`; `None`: the menu of every
    /// language without its own) as (command, description) pairs; `None` if it set none.
    pub fn command_menu(&self, language: Option<&str>) -> Option<Vec<(String, String)>> {
        self.menu_of(None, language)
    }

    /// The command menu the bot set for the private chat `chat_id` alone (a `chat` scope), for
    /// every language; `None` if it set none.
    pub fn chat_command_menu(&self, chat_id: i64) -> Option<Vec<(String, String)>> {
        self.menu_of(Some(chat_id), None)
    }

    fn menu_of(
        &self,
        chat_id: Option<i64>,
        language: Option<&str>,
    ) -> Option<Vec<(String, String)>> {
        let state = self.shared.lock();
        let menu = state
            .command_menus
            .get(&(chat_id, language.map(str::to_owned)))?;
        let entries = menu.as_array().cloned().unwrap_or_default();
        Some(
            entries
                .iter()
                .map(|entry| {
                    let text = |field: &str| entry[field].as_str().unwrap_or_default().to_owned();
                    (text("command"), text("description"))
                })
                .collect(),
        )
    }

    /// Resolves with the calls as soon as `predicate` holds for them; panics with every call
    /// made so far if it does not within `timeout`.
    pub async fn wait_for(
        &self,
        mut predicate: impl FnMut(&[Call]) -> bool,
        timeout: Duration,
    ) -> Vec<Call> {
        let deadline = Instant::now() + timeout;
        let mut changes = self.shared.changes.subscribe();
        loop {
            changes.borrow_and_update();
            let calls = self.calls();
            if predicate(&calls) {
                return calls;
            }
            if tokio::time::timeout_at(deadline, changes.changed())
                .await
                .is_err()
            {
                panic!(
                    "fake Telegram: condition not met within {timeout:?}; calls so far:\n{}",
                    dump(&calls)
                );
            }
        }
    }

    /// Waits until a message the bot has on show in `chat_id` contains `text` and has a button
    /// labelled `label`; returns the message and the button's callback data. Panics like
    /// [`Self::wait_for`] after `timeout`.
    pub async fn wait_for_button(
        &self,
        chat_id: i64,
        text: &str,
        label: &str,
        timeout: Duration,
    ) -> (BotMessage, String) {
        let with_button = || {
            self.bot_messages(chat_id).into_iter().find_map(|message| {
                let data = message
                    .buttons()
                    .into_iter()
                    .find(|(shown, _)| shown == label)
                    .map(|(_, data)| data)?;
                message.text.contains(text).then_some((message, data))
            })
        };
        self.wait_for(|_| with_button().is_some(), timeout).await;
        with_button().expect("the message with its button")
    }

    /// Waits until some message the bot has on show in `chat_id` (the text users see) is
    /// `wanted`, then returns them all; panics like [`Self::wait_for`] after `timeout`.
    pub async fn wait_for_message(
        &self,
        chat_id: i64,
        wanted: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> Vec<String> {
        self.wait_for(
            |_| self.sent_messages(chat_id).iter().any(|text| wanted(text)),
            timeout,
        )
        .await;
        self.sent_messages(chat_id)
    }
}

fn dump(calls: &[Call]) -> String {
    let mut out = String::new();
    for (index, call) in calls.iter().enumerate() {
        let outcome = if call.ok { "ok" } else { "failed" };
        let _ = writeln!(
            out,
            "  {index}: {} [{outcome}] {}",
            call.method, call.params
        );
    }
    if out.is_empty() {
        out.push_str("  (none)\n");
    }
    out
}

impl Shared {
    pub(super) fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test thread may poison the lock; the state is still fine to read.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn notify(&self) {
        self.changes.send_modify(|version| *version += 1);
    }
}
