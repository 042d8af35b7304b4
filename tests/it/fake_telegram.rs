//! A fake Telegram Bot API server on 127.0.0.1 for end-to-end tests: point teloxide at
//! [`FakeTelegram::api_url`] (or `TELOXIDE_API_URL`) and the real bot code talks to it over HTTP.
//!
//! It speaks the part of the Bot API telemem uses, with Telegram's wording for the errors that
//! matter to us: HTML is parsed like Telegram does (see [`crate::telegram_html`]), texts over
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

use std::{
    collections::{HashMap, VecDeque},
    fmt::Write as _,
    net::SocketAddr,
    sync::{Arc, Mutex, MutexGuard},
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use axum::{
    Router,
    body::{Body, Bytes},
    extract::State as AxumState,
    http::{HeaderMap, StatusCode, Uri, header},
    response::{IntoResponse, Response},
};
use serde_json::{Map, Value, json};
use tokio::{sync::watch, task::JoinHandle, time::Instant};

use crate::telegram_html::{utf16_len, visible_text};

pub const BOT_TOKEN: &str = "123456:TEST-TOKEN";
pub const BOT_USER_ID: i64 = 1000;
pub const BOT_USERNAME: &str = "telemem_test_bot";
/// The sender Telegram puts in `from` of a message sent as a channel.
pub const CHANNEL_BOT_ID: i64 = 136_817_688;
/// The sender Telegram puts in `from` of a message sent by an anonymous group admin.
pub const GROUP_ANONYMOUS_BOT_ID: i64 = 1_087_968_824;
/// Telegram's answer when the bot writes to a person who never started it.
pub const CANT_INITIATE: &str = "Forbidden: bot can't initiate conversation with a user";

const MESSAGE_LIMIT: usize = 4096;
const CAPTION_LIMIT: usize = 1024;
/// Telegram's `getUpdates` returns at most this many updates.
const MAX_UPDATES_PER_POLL: usize = 100;
const NOT_MODIFIED: &str = "Bad Request: message is not modified: specified new message content \
                            and reply markup are exactly the same as a current content and reply \
                            markup of the message";

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

/// A call to keep waiting without an answer, chosen by its method and text.
#[derive(Clone, Debug, PartialEq)]
pub struct Hold {
    /// The method (any capitalisation).
    pub method: String,
    /// Only a call whose `text` parameter contains this is held.
    pub text_contains: String,
    /// Whether the call takes effect before it is held (Telegram did it, the bot never learns)
    /// or not at all.
    pub applied: bool,
}

/// The first time `getUpdates` handed one update to the bot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Handout {
    pub update_id: i64,
    pub at: Instant,
}

/// A canned failure for the next call of one method.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// 429 with `parameters.retry_after`, which teloxide turns into `RequestError::RetryAfter`.
    TooManyRequests { retry_after: u32 },
    /// 400 with this description.
    BadRequest(String),
    /// The connection is cut after the status line, so the client sees a network error.
    DropConnection,
    /// 200 with this body, which teloxide cannot read (say, not the shape the method returns).
    Unreadable(String),
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

/// A file the bot uploaded with `sendDocument`.
#[derive(Clone, Debug, PartialEq)]
pub struct SentDocument {
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
    state: Mutex<State>,
    /// Bumped after every change, so waiters (long polls, `wait_for`) re-check without polling.
    changes: watch::Sender<u64>,
}

#[derive(Default)]
struct State {
    calls: Vec<Call>,
    pending_updates: VecDeque<Value>,
    last_update_id: i64,
    handouts: Vec<Handout>,
    last_handed_out_id: i64,
    last_message_id: i64,
    bot_messages: Vec<BotMessage>,
    documents: Vec<SentDocument>,
    faults: HashMap<String, VecDeque<Fault>>,
    holds: Vec<Hold>,
    chats: HashMap<i64, Value>,
    allowed_updates: Option<Vec<String>>,
    webhook_url: String,
    /// Telegram cannot be reached: every call loses its connection.
    down: bool,
    /// Private chats of people who never started the bot: writing there is refused with 403.
    closed_private_chats: std::collections::HashSet<i64>,
}

impl Drop for FakeTelegram {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeTelegram {
    /// Binds a free port on 127.0.0.1 and serves on the current tokio runtime.
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
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
            .fallback(handle_request)
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

    /// A private-chat text message from `user_id`; returns its update id.
    pub fn send_text(&self, chat_id: i64, user_id: i64, text: &str) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.register_chat(chat_id, private_chat(chat_id));
            let mut message = state.user_message(chat, user_id);
            add_text(&mut message, text);
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// An update built by `build` from its update id, as it is: say, one teloxide cannot read.
    pub fn send_raw_update(&self, build: impl FnOnce(i64) -> Value) -> i64 {
        self.enqueue(|_, update_id| build(update_id))
    }

    /// A group message; with `reply_to_bot` it replies to the bot's latest message there.
    pub fn send_group_text(
        &self,
        chat_id: i64,
        user_id: i64,
        text: &str,
        reply_to_bot: bool,
    ) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.register_chat(chat_id, group_chat(chat_id));
            let mut message = state.user_message(chat.clone(), user_id);
            add_text(&mut message, text);
            if reply_to_bot {
                let replied = state
                    .bot_messages
                    .iter()
                    .rev()
                    .find(|sent| sent.chat_id == chat_id)
                    .map(|sent| state.bot_message_json(sent));
                // Without an earlier bot message, reply to one from before the test began.
                let replied = replied.unwrap_or_else(|| {
                    json!({
                        "message_id": 0, "date": unix_now(), "chat": chat,
                        "from": bot_user(), "text": "an earlier message"
                    })
                });
                message["reply_to_message"] = replied;
            }
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// A group message sent as the chat `sender_chat_id`: a channel, or (when it is the group
    /// itself) an anonymous admin of the group. `from` is Telegram's placeholder for either.
    pub fn send_group_text_as_chat(&self, chat_id: i64, sender_chat_id: i64, text: &str) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.register_chat(chat_id, group_chat(chat_id));
            let (placeholder, sender_chat) = if sender_chat_id == chat_id {
                (GROUP_ANONYMOUS_BOT_ID, chat.clone())
            } else {
                (CHANNEL_BOT_ID, channel_chat(sender_chat_id))
            };
            let mut message = state.user_message(chat, placeholder);
            message["from"] = json!({
                "id": placeholder, "is_bot": true, "first_name": "Placeholder",
                "username": if sender_chat_id == chat_id { "GroupAnonymousBot" } else { "Channel_Bot" }
            });
            message["sender_chat"] = sender_chat;
            add_text(&mut message, text);
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// Makes `user_id`'s private chat one the bot may not write to (they never pressed Start):
    /// `sendMessage` and `sendDocument` there get Telegram's 403.
    pub fn close_private_chat(&self, user_id: i64) {
        self.shared.lock().closed_private_chats.insert(user_id);
    }

    /// The documents the bot sent into `chat_id`.
    pub fn documents_in(&self, chat_id: i64) -> Vec<SentDocument> {
        self.sent_documents()
            .into_iter()
            .filter(|document| document.chat_id == chat_id)
            .collect()
    }

    /// A sticker message with the given emoji.
    pub fn send_sticker(&self, chat_id: i64, user_id: i64, emoji: &str) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.chat(chat_id);
            let mut message = state.user_message(chat, user_id);
            message["sticker"] = json!({
                "file_id": format!("sticker-{update_id}"),
                "file_unique_id": format!("usticker-{update_id}"),
                "type": "regular", "width": 512, "height": 512,
                "is_animated": false, "is_video": false, "emoji": emoji
            });
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// A photo message, with an optional caption.
    pub fn send_photo(&self, chat_id: i64, user_id: i64, caption: Option<&str>) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.chat(chat_id);
            let mut message = state.user_message(chat, user_id);
            message["photo"] = json!([{
                "file_id": format!("photo-{update_id}"),
                "file_unique_id": format!("uphoto-{update_id}"),
                "width": 640, "height": 480, "file_size": 12345
            }]);
            if let Some(caption) = caption {
                message["caption"] = json!(caption);
            }
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// A press on an inline-keyboard button of bot message `message_id`.
    pub fn press_button(&self, chat_id: i64, user_id: i64, message_id: i64, data: &str) -> i64 {
        self.enqueue(|state, update_id| {
            let message = state
                .bot_messages
                .iter()
                .find(|sent| sent.chat_id == chat_id && sent.message_id == message_id)
                .map(|sent| state.bot_message_json(sent))
                // Telegram's shape for a message the bot can no longer access.
                .unwrap_or_else(
                    || json!({ "chat": state.chat(chat_id), "message_id": message_id, "date": 0 }),
                );
            json!({
                "update_id": update_id,
                "callback_query": {
                    "id": format!("callback-{update_id}"),
                    "from": user(user_id),
                    "message": message,
                    "chat_instance": format!("instance-{chat_id}"),
                    "data": data
                }
            })
        })
    }

    /// Makes the next call of `method` (any capitalisation) fail with `fault`; faults for the
    /// same method are used in the order they were queued.
    pub fn fail_next(&self, method: &str, fault: Fault) {
        self.shared
            .lock()
            .faults
            .entry(method.to_ascii_lowercase())
            .or_default()
            .push_back(fault);
    }

    /// Takes Telegram off the network (`true`) or brings it back: while down, every call's
    /// connection is cut (the bot sees a network error) and waiting long polls end empty.
    /// Users can still write; their messages are handed out once Telegram is back.
    pub fn set_down(&self, down: bool) {
        self.shared.lock().down = down;
        self.shared.notify();
    }

    /// Keeps the next call that matches `hold` waiting for ever (until the fake stops); one call
    /// per hold.
    pub fn hold_next(&self, hold: Hold) {
        self.shared.lock().holds.push(hold);
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

    /// Takes the queued updates out, as Telegram does when it pushes them to a webhook instead
    /// of handing them to `getUpdates`.
    pub fn take_pending_updates(&self) -> Vec<Value> {
        self.shared.lock().pending_updates.drain(..).collect()
    }

    fn enqueue(&self, build: impl FnOnce(&mut State, i64) -> Value) -> i64 {
        let update_id = {
            let mut state = self.shared.lock();
            state.last_update_id += 1;
            let update_id = state.last_update_id;
            let update = build(&mut state, update_id);
            state.pending_updates.push_back(update);
            update_id
        };
        self.shared.notify();
        update_id
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
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panicking test thread may poison the lock; the state is still fine to read.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn notify(&self) {
        self.changes.send_modify(|version| *version += 1);
    }
}

// ---------------------------------------------------------------------------------------------
// Request handling
// ---------------------------------------------------------------------------------------------

/// What the fake answers to one call.
enum Reply {
    Ok(Value),
    Error {
        code: u16,
        description: String,
        parameters: Option<Value>,
    },
    DropConnection,
    /// A 200 answer with this body as it is.
    Raw(String),
    /// `getUpdates` with nothing to return yet: wait up to `timeout` for updates.
    Poll {
        timeout: Duration,
        limit: usize,
    },
}

impl Reply {
    fn bad_request(description: impl Into<String>) -> Self {
        Self::Error {
            code: 400,
            description: description.into(),
            parameters: None,
        }
    }
}

/// A file part of a multipart request.
struct Upload {
    field: String,
    file_name: Option<String>,
    bytes: Vec<u8>,
}

async fn handle_request(
    AxumState(shared): AxumState<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let at = Instant::now();
    let segments: Vec<&str> = uri
        .path()
        .split('/')
        .filter(|segment| !segment.is_empty())
        .collect();
    if shared.lock().down {
        return dropped_connection();
    }
    let [token_segment, method] = segments[..] else {
        return error_response(404, "Not Found", None);
    };
    if token_segment.strip_prefix("bot") != Some(BOT_TOKEN) {
        return error_response(401, "Unauthorized", None);
    }
    let (params, uploads) = match parse_body(&headers, &body) {
        Ok(parsed) => parsed,
        Err(description) => return error_response(400, &description, None),
    };
    let method = canonical_method(method);

    let (reply, held) = {
        let mut state = shared.lock();
        let hold = state.take_hold(&method, &params);
        let reply = if hold.as_ref().is_some_and(|hold| !hold.applied) {
            // Never sent: the call is held before it takes effect.
            Reply::bad_request("held before it took effect")
        } else {
            match state.take_fault(&method) {
                Some(fault) => fault_reply(fault),
                None => state.apply(&method, &params, uploads),
            }
        };
        let ok = matches!(reply, Reply::Ok(_) | Reply::Poll { .. });
        let held = hold.is_some();
        state.calls.push(Call {
            method,
            params,
            ok,
            at,
            held,
        });
        (reply, held)
    };
    shared.notify();
    if held {
        return std::future::pending().await;
    }

    match reply {
        Reply::Ok(result) => ok_response(result),
        Reply::Error {
            code,
            description,
            parameters,
        } => error_response(code, &description, parameters),
        Reply::DropConnection => dropped_connection(),
        Reply::Raw(body) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/json")],
            body,
        )
            .into_response(),
        Reply::Poll { timeout, limit } => ok_response(long_poll(&shared, timeout, limit).await),
    }
}

/// Waits until updates are pending or `timeout` passes, like Telegram's long polling.
async fn long_poll(shared: &Shared, timeout: Duration, limit: usize) -> Value {
    let deadline = Instant::now() + timeout;
    let mut changes = shared.changes.subscribe();
    loop {
        changes.borrow_and_update();
        let updates = {
            let mut state = shared.lock();
            if state.down {
                return json!([]);
            }
            state.hand_out(limit)
        };
        if !updates.is_empty() {
            return Value::Array(updates);
        }
        if tokio::time::timeout_at(deadline, changes.changed())
            .await
            .is_err()
        {
            return json!([]);
        }
    }
}

/// Telegram's method names are case-insensitive; teloxide sends `SendMessage`, humans write
/// `sendMessage`. Calls are recorded in the latter spelling.
fn canonical_method(method: &str) -> String {
    let mut chars = method.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

fn fault_reply(fault: Fault) -> Reply {
    match fault {
        Fault::TooManyRequests { retry_after } => Reply::Error {
            code: 429,
            description: format!("Too Many Requests: retry after {retry_after}"),
            parameters: Some(json!({ "retry_after": retry_after })),
        },
        Fault::BadRequest(description) => Reply::bad_request(description),
        Fault::DropConnection => Reply::DropConnection,
        Fault::Unreadable(body) => Reply::Raw(body),
    }
}

fn ok_response(result: Value) -> Response {
    json_response(200, json!({ "ok": true, "result": result }))
}

fn error_response(code: u16, description: &str, parameters: Option<Value>) -> Response {
    let mut body = json!({ "ok": false, "error_code": code, "description": description });
    if let Some(parameters) = parameters {
        body["parameters"] = parameters;
    }
    json_response(code, body)
}

fn json_response(code: u16, body: Value) -> Response {
    let status = StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}

/// Sends the status line, then fails the body, so hyper cuts the connection mid-response.
fn dropped_connection() -> Response {
    let failing = futures_util::stream::once(async {
        Err::<Bytes, _>(std::io::Error::other(
            "fake Telegram dropped the connection",
        ))
    });
    Response::new(Body::from_stream(failing))
}

fn parse_body(headers: &HeaderMap, body: &[u8]) -> Result<(Value, Vec<Upload>), String> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("");
    if content_type.starts_with("multipart/form-data") {
        let boundary = content_type
            .split(';')
            .find_map(|param| param.trim().strip_prefix("boundary="))
            .map(|boundary| boundary.trim_matches('"'))
            .ok_or("Bad Request: multipart boundary is missing")?;
        return Ok(parse_multipart(boundary, body));
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok((json!({}), Vec::new()));
    }
    let params: Value = serde_json::from_slice(body)
        .map_err(|error| format!("Bad Request: request body is not JSON: {error}"))?;
    Ok((params, Vec::new()))
}

/// A small `multipart/form-data` reader: enough for teloxide's uploads, and it keeps axum's
/// `multipart` feature (and its extra crates) out of the build for one test helper.
fn parse_multipart(boundary: &str, body: &[u8]) -> (Value, Vec<Upload>) {
    let delimiter = format!("--{boundary}");
    let mut fields = Map::new();
    let mut uploads = Vec::new();
    let mut rest = body;
    while let Some(start) = find(rest, delimiter.as_bytes()) {
        rest = &rest[start + delimiter.len()..];
        if rest.starts_with(b"--") {
            break;
        }
        let Some(end) = find(rest, delimiter.as_bytes()) else {
            break;
        };
        let part = rest[..end].strip_prefix(b"\r\n").unwrap_or(&rest[..end]);
        let part = part.strip_suffix(b"\r\n").unwrap_or(part);
        let Some(header_end) = find(part, b"\r\n\r\n") else {
            continue;
        };
        let part_headers = String::from_utf8_lossy(&part[..header_end]);
        let content = &part[header_end + 4..];
        let Some(name) = disposition_param(&part_headers, "name") else {
            continue;
        };
        match disposition_param(&part_headers, "filename") {
            Some(file_name) => {
                fields.insert(
                    name.clone(),
                    json!({ "file_name": file_name, "size": content.len() }),
                );
                uploads.push(Upload {
                    field: name,
                    file_name: Some(file_name),
                    bytes: content.to_vec(),
                });
            }
            None => {
                fields.insert(name, json!(String::from_utf8_lossy(content)));
            }
        }
    }
    (Value::Object(fields), uploads)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// `name="value"` from the part's `Content-Disposition` header.
fn disposition_param(headers: &str, param: &str) -> Option<String> {
    let disposition = headers.lines().find(|line| {
        line.to_ascii_lowercase()
            .starts_with("content-disposition:")
    })?;
    disposition.split(';').find_map(|item| {
        let (key, value) = item.trim().split_once('=')?;
        (key == param).then(|| value.trim_matches('"').to_owned())
    })
}

// ---------------------------------------------------------------------------------------------
// The Bot API methods
// ---------------------------------------------------------------------------------------------

impl State {
    /// The first hold that matches this call, taken out of the list.
    fn take_hold(&mut self, method: &str, params: &Value) -> Option<Hold> {
        let text = params["text"].as_str().unwrap_or_default();
        let index = self.holds.iter().position(|hold| {
            hold.method.eq_ignore_ascii_case(method) && text.contains(&hold.text_contains)
        })?;
        Some(self.holds.remove(index))
    }

    fn take_fault(&mut self, method: &str) -> Option<Fault> {
        self.faults
            .get_mut(&method.to_ascii_lowercase())
            .and_then(VecDeque::pop_front)
    }

    fn apply(&mut self, method: &str, params: &Value, uploads: Vec<Upload>) -> Reply {
        match method.to_ascii_lowercase().as_str() {
            "getme" => Reply::Ok(json!({
                "id": BOT_USER_ID, "is_bot": true, "first_name": "Telemem Test",
                "username": BOT_USERNAME, "can_join_groups": true,
                "can_read_all_group_messages": false, "supports_inline_queries": false,
                "can_connect_to_business": false, "has_main_web_app": false
            })),
            "getupdates" => self.get_updates(params),
            "sendmessage" => self.send_message(params),
            "editmessagetext" => self.edit_message_text(params),
            "editmessagereplymarkup" => self.edit_message_reply_markup(params),
            "deletemessage" => self.delete_message(params),
            "senddocument" => self.send_document(params, uploads),
            "sendchataction" => match chat_id_param(params) {
                Ok(_) => Reply::Ok(json!(true)),
                Err(reply) => reply,
            },
            "setmycommands" | "deletemycommands" | "answercallbackquery" => Reply::Ok(json!(true)),
            "setwebhook" => {
                self.webhook_url = params["url"].as_str().unwrap_or_default().to_owned();
                Reply::Ok(json!(true))
            }
            "deletewebhook" => {
                self.webhook_url.clear();
                Reply::Ok(json!(true))
            }
            "getwebhookinfo" => Reply::Ok(json!({
                "url": self.webhook_url,
                "has_custom_certificate": false,
                "pending_update_count": self.pending_updates.len()
            })),
            _ => Reply::Error {
                code: 404,
                description: "Not Found".to_owned(),
                parameters: None,
            },
        }
    }

    /// Confirms (drops) updates below `offset`, remembers `allowed_updates`, then either
    /// answers at once or long-polls.
    fn get_updates(&mut self, params: &Value) -> Reply {
        if let Some(offset) = integer_param(params, "offset")
            && offset > 0
        {
            self.pending_updates
                .retain(|update| update["update_id"].as_i64().unwrap_or(0) >= offset);
        }
        if let Some(allowed) = params["allowed_updates"].as_array() {
            let kinds = allowed
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            self.allowed_updates = Some(kinds);
        }
        let limit = integer_param(params, "limit")
            .and_then(|limit| usize::try_from(limit).ok())
            .filter(|limit| (1..=MAX_UPDATES_PER_POLL).contains(limit))
            .unwrap_or(MAX_UPDATES_PER_POLL);
        let seconds = integer_param(params, "timeout")
            .and_then(|seconds| u64::try_from(seconds).ok())
            .unwrap_or(0);
        Reply::Poll {
            timeout: Duration::from_secs(seconds),
            limit,
        }
    }

    /// The updates for one `getUpdates` answer, noting when each was handed out the first time.
    fn hand_out(&mut self, limit: usize) -> Vec<Value> {
        let updates = self.deliverable_updates(limit);
        let at = Instant::now();
        for update in &updates {
            let update_id = update["update_id"].as_i64().unwrap_or(0);
            // Update ids grow, so an id not above the last one handed out is a redelivery.
            if update_id > self.last_handed_out_id {
                self.last_handed_out_id = update_id;
                self.handouts.push(Handout { update_id, at });
            }
        }
        updates
    }

    /// Pending updates the bot asked for, oldest first; they stay pending until confirmed.
    fn deliverable_updates(&self, limit: usize) -> Vec<Value> {
        self.pending_updates
            .iter()
            .filter(|update| self.is_allowed(update))
            .take(limit)
            .cloned()
            .collect()
    }

    fn is_allowed(&self, update: &Value) -> bool {
        match &self.allowed_updates {
            Some(kinds) if !kinds.is_empty() => kinds.iter().any(|kind| update.get(kind).is_some()),
            _ => true,
        }
    }

    fn send_message(&mut self, params: &Value) -> Reply {
        let chat_id = match self.writable_chat(params) {
            Ok(chat_id) => chat_id,
            Err(reply) => return reply,
        };
        let raw_text = params["text"].as_str().unwrap_or_default().to_owned();
        let parse_mode = params["parse_mode"].as_str().map(str::to_owned);
        let text = match checked_text(&raw_text, parse_mode.as_deref(), MESSAGE_LIMIT) {
            Ok(text) => text,
            Err(TextProblem::TooLong) => {
                return Reply::bad_request("Bad Request: message is too long");
            }
            Err(TextProblem::Invalid(description)) => return Reply::bad_request(description),
        };
        self.last_message_id += 1;
        let message = BotMessage {
            chat_id,
            message_id: self.last_message_id,
            text,
            raw_text,
            parse_mode,
            reply_markup: inline_keyboard(params),
            edited: false,
        };
        let json = self.bot_message_json(&message);
        self.bot_messages.push(message);
        Reply::Ok(json)
    }

    fn edit_message_text(&mut self, params: &Value) -> Reply {
        let raw_text = params["text"].as_str().unwrap_or_default().to_owned();
        let parse_mode = params["parse_mode"].as_str().map(str::to_owned);
        let text = match checked_text(&raw_text, parse_mode.as_deref(), MESSAGE_LIMIT) {
            Ok(text) => text,
            // Telegram words this one differently for edits.
            Err(TextProblem::TooLong) => {
                return Reply::bad_request("Bad Request: MESSAGE_TOO_LONG");
            }
            Err(TextProblem::Invalid(description)) => return Reply::bad_request(description),
        };
        let reply_markup = inline_keyboard(params);
        let index = match self.find_bot_message(params, "Bad Request: message to edit not found") {
            Ok(index) => index,
            Err(reply) => return reply,
        };
        let message = &mut self.bot_messages[index];
        if message.raw_text == raw_text
            && message.parse_mode == parse_mode
            && message.reply_markup == reply_markup
        {
            return Reply::bad_request(NOT_MODIFIED);
        }
        message.text = text;
        message.raw_text = raw_text;
        message.parse_mode = parse_mode;
        message.reply_markup = reply_markup;
        message.edited = true;
        let message = message.clone();
        Reply::Ok(self.bot_message_json(&message))
    }

    fn edit_message_reply_markup(&mut self, params: &Value) -> Reply {
        let reply_markup = inline_keyboard(params);
        let index = match self.find_bot_message(params, "Bad Request: message to edit not found") {
            Ok(index) => index,
            Err(reply) => return reply,
        };
        let message = &mut self.bot_messages[index];
        if message.reply_markup == reply_markup {
            return Reply::bad_request(NOT_MODIFIED);
        }
        message.reply_markup = reply_markup;
        message.edited = true;
        let message = message.clone();
        Reply::Ok(self.bot_message_json(&message))
    }

    fn delete_message(&mut self, params: &Value) -> Reply {
        match self.find_bot_message(params, "Bad Request: message to delete not found") {
            Ok(index) => {
                self.bot_messages.remove(index);
                Reply::Ok(json!(true))
            }
            Err(reply) => reply,
        }
    }

    fn send_document(&mut self, params: &Value, uploads: Vec<Upload>) -> Reply {
        let chat_id = match self.writable_chat(params) {
            Ok(chat_id) => chat_id,
            Err(reply) => return reply,
        };
        // teloxide names the upload's part in `document` as `attach://<part name>`.
        let Some(reference) = params["document"].as_str() else {
            return Reply::bad_request("Bad Request: there is no document in the request");
        };
        let upload = reference
            .strip_prefix("attach://")
            .and_then(|field| uploads.into_iter().find(|upload| upload.field == field));
        let (file_name, bytes) = match upload {
            Some(upload) => (upload.file_name, upload.bytes),
            None => (None, Vec::new()),
        };
        let parse_mode = params["parse_mode"].as_str();
        let caption = match params["caption"].as_str() {
            Some(raw) => match checked_text(raw, parse_mode, CAPTION_LIMIT) {
                Ok(caption) => Some(caption),
                Err(TextProblem::TooLong) => {
                    return Reply::bad_request("Bad Request: message caption is too long");
                }
                Err(TextProblem::Invalid(description)) => return Reply::bad_request(description),
            },
            None => None,
        };
        self.last_message_id += 1;
        let mut message = json!({
            "message_id": self.last_message_id,
            "date": unix_now(),
            "chat": self.chat(chat_id),
            "from": bot_user(),
            "document": {
                "file_id": format!("document-{}", self.last_message_id),
                "file_unique_id": format!("udocument-{}", self.last_message_id),
                "file_size": bytes.len()
            }
        });
        if let Some(file_name) = &file_name {
            message["document"]["file_name"] = json!(file_name);
        }
        if let Some(caption) = &caption {
            message["caption"] = json!(caption);
        }
        self.documents.push(SentDocument {
            chat_id,
            file_name,
            caption,
            bytes,
        });
        Reply::Ok(message)
    }

    /// The chat a message is sent to, or Telegram's 403 for a private chat the bot may not use.
    fn writable_chat(&self, params: &Value) -> Result<i64, Reply> {
        let chat_id = chat_id_param(params)?;
        if self.closed_private_chats.contains(&chat_id) {
            return Err(Reply::Error {
                code: 403,
                description: CANT_INITIATE.to_owned(),
                parameters: None,
            });
        }
        Ok(chat_id)
    }

    fn find_bot_message(&self, params: &Value, not_found: &str) -> Result<usize, Reply> {
        let chat_id = chat_id_param(params)?;
        let message_id = integer_param(params, "message_id").ok_or_else(|| {
            Reply::bad_request("Bad Request: message identifier is not specified")
        })?;
        self.bot_messages
            .iter()
            .position(|message| message.chat_id == chat_id && message.message_id == message_id)
            .ok_or_else(|| Reply::bad_request(not_found))
    }

    fn register_chat(&mut self, chat_id: i64, chat: Value) -> Value {
        self.chats.insert(chat_id, chat.clone());
        chat
    }

    fn chat(&self, chat_id: i64) -> Value {
        self.chats.get(&chat_id).cloned().unwrap_or_else(|| {
            if chat_id < 0 {
                group_chat(chat_id)
            } else {
                private_chat(chat_id)
            }
        })
    }

    fn user_message(&mut self, chat: Value, user_id: i64) -> Value {
        self.last_message_id += 1;
        json!({
            "message_id": self.last_message_id,
            "date": unix_now(),
            "chat": chat,
            "from": user(user_id)
        })
    }

    fn bot_message_json(&self, message: &BotMessage) -> Value {
        let mut json = json!({
            "message_id": message.message_id,
            "date": unix_now(),
            "chat": self.chat(message.chat_id),
            "from": bot_user(),
            "text": message.text
        });
        if message.edited {
            json["edit_date"] = json!(unix_now());
        }
        if let Some(markup) = &message.reply_markup {
            json["reply_markup"] = markup.clone();
        }
        json
    }
}

enum TextProblem {
    TooLong,
    Invalid(String),
}

/// The visible text of a message text or caption, checked the way Telegram checks it.
fn checked_text(raw: &str, parse_mode: Option<&str>, limit: usize) -> Result<String, TextProblem> {
    let text = match parse_mode {
        Some(mode) if mode.eq_ignore_ascii_case("html") => {
            visible_text(raw).map_err(TextProblem::Invalid)?
        }
        _ => raw.to_owned(),
    };
    if text.trim().is_empty() {
        return Err(TextProblem::Invalid(
            "Bad Request: message text is empty".to_owned(),
        ));
    }
    if utf16_len(&text) > limit {
        return Err(TextProblem::TooLong);
    }
    Ok(text)
}

/// Telegram only echoes inline keyboards back in the returned message.
fn inline_keyboard(params: &Value) -> Option<Value> {
    let markup = match &params["reply_markup"] {
        // Multipart requests carry the markup as a JSON string.
        Value::String(encoded) => serde_json::from_str(encoded).ok()?,
        other => other.clone(),
    };
    markup.get("inline_keyboard").is_some().then_some(markup)
}

/// An integer parameter, given as a JSON number or (in multipart requests) a string.
fn integer_param(params: &Value, name: &str) -> Option<i64> {
    match &params[name] {
        Value::Number(number) => number.as_i64(),
        Value::String(text) => text.parse().ok(),
        _ => None,
    }
}

fn chat_id_param(params: &Value) -> Result<i64, Reply> {
    integer_param(params, "chat_id")
        .ok_or_else(|| Reply::bad_request("Bad Request: chat not found"))
}

fn add_text(message: &mut Value, text: &str) {
    message["text"] = json!(text);
    let mut entities = Vec::new();
    // Telegram marks a leading command so clients (and teloxide's filters) can see it.
    if text.starts_with('/') {
        let command = text.split_whitespace().next().unwrap_or(text);
        entities.push(json!({ "type": "bot_command", "offset": 0, "length": utf16_len(command) }));
    }
    entities.extend(mention_entities(text));
    if !entities.is_empty() {
        message["entities"] = Value::Array(entities);
    }
}

/// A `mention` entity for each `@username` in the text, as Telegram marks them: `@` not right
/// after a letter, digit or underscore, then 5 to 32 of those (`/cmd@bot` is part of a command).
fn mention_entities(text: &str) -> Vec<Value> {
    let is_word = |ch: char| ch.is_ascii_alphanumeric() || ch == '_';
    let mut entities = Vec::new();
    let mut previous: Option<char> = None;
    for (start, ch) in text.char_indices() {
        let after_word = previous.is_some_and(|p| is_word(p) || p == '/');
        previous = Some(ch);
        if ch != '@' || after_word {
            continue;
        }
        let name_length = text[start + 1..]
            .chars()
            .take_while(|&c| is_word(c))
            .count();
        if (5..=32).contains(&name_length) {
            entities.push(json!({
                "type": "mention",
                "offset": utf16_len(&text[..start]),
                "length": 1 + name_length
            }));
        }
    }
    entities
}

fn user(user_id: i64) -> Value {
    json!({
        "id": user_id, "is_bot": false, "first_name": format!("User {user_id}"),
        "username": format!("user{user_id}"), "language_code": "en"
    })
}

fn bot_user() -> Value {
    json!({
        "id": BOT_USER_ID, "is_bot": true, "first_name": "Telemem Test", "username": BOT_USERNAME
    })
}

fn private_chat(chat_id: i64) -> Value {
    json!({
        "id": chat_id, "type": "private", "first_name": format!("User {chat_id}"),
        "username": format!("user{chat_id}")
    })
}

fn channel_chat(chat_id: i64) -> Value {
    json!({ "id": chat_id, "type": "channel", "title": format!("Channel {chat_id}") })
}

fn group_chat(chat_id: i64) -> Value {
    json!({ "id": chat_id, "type": "group", "title": format!("Test group {chat_id}") })
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}
