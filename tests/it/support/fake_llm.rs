//! A fake LLM server on 127.0.0.1 that speaks both dialects the client supports: OpenAI
//! `POST /v1/chat/completions` and Anthropic `POST /v1/messages`, plain or streamed (the request's
//! `"stream": true` decides). Any test that needs an LLM starts one with [`FakeLlm::start`] and
//! points `LLM_BASE_URL` at [`FakeLlm::base_url`].
//!
//! Each request takes the next scripted [`Behaviour`] from a queue ([`FakeLlm::push`]); when the
//! queue is empty the server answers with the [`Responder`] set by [`FakeLlm::set_responder`], or
//! without one `reply to: <last user message>`, so end-to-end tests with many users need no
//! script at all. Every request is recorded ([`FakeLlm::requests`], [`FakeLlm::last_request`]) so
//! tests can assert on the prompt, the model and the headers that were sent, and counted as it
//! arrives ([`FakeLlm::wait_for_requests`]) so a test can act while the model works; a load run turns that
//! off ([`FakeLlm::keep_requests`]) and reads only how long each answer took
//! ([`FakeLlm::take_timings`]).
//!
//! A streamed reply can also be held open by the test ([`FakeLlm::hold_stream`]): its first
//! pieces go out, then it waits, sending only keep-alive comments as real servers do, until the
//! test releases the rest or the client hangs up, which it records ([`HeldStream`]).
//!
//! Pictures are checked as a provider checks them: an OpenAI-style `image_url` part must hold a
//! `data:image/…;base64,` URL and an Anthropic-style `image` block a base64 source, in a format
//! models read, with data that decodes; anything else is refused with 400. A fake of a model that
//! cannot see ([`FakeLlm::refuse_images`]) refuses every request with a picture, as such models
//! do. [`RecordedRequest::images`] gives back the pictures a request carried, in either dialect.
//!
//! It also serves the OpenAI-compatible transcription endpoint `POST /v1/audio/transcriptions`,
//! which must be a multipart form with a `model` field and a `file` part (else 400). Unless a
//! scripted [`Transcription`] says otherwise, it "hears" the file's bytes as UTF-8 text, so a test
//! writes the words of a voice note into the file it sends. Each request is recorded
//! ([`FakeLlm::transcriptions`]).
//!
//! Replies report usage as word counts: input = words of the system prompt and all messages,
//! output = words of the reply. Streams are shaped like real servers' streams: OpenAI-style ones
//! start with a role-only chunk, carry a `: ping` comment and an empty delta, split the text over
//! several chunks, one of them cut mid-line (and mid-character if it holds non-ASCII text) across
//! two TCP writes, report no usage and end with `data: [DONE]`. Anthropic-style ones send
//! `message_start` (input usage), `ping`, `content_block_delta`s, `message_delta` (output usage)
//! and `message_stop`.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures_util::StreamExt;
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// Pause between two pieces of a stream, so each piece is its own TCP write, like tokens that
/// arrive one after another.
const PIECE_INTERVAL: Duration = Duration::from_millis(5);

/// What the server does with one request.
#[derive(Clone, Debug)]
pub enum Behaviour {
    /// Answer with this text (plain or streamed, as the request asked).
    Reply(String),
    /// Wait, then do the inner behaviour.
    Delay(Duration, Box<Behaviour>),
    /// Fail with this HTTP status, optionally with `Retry-After: <seconds>`. The error body
    /// echoes the caller's API key, as some real providers echo (parts of) a bad key, so tests
    /// can prove the client never passes bodies on.
    Status(u16, Option<u64>),
    /// Answer 200 with invalid JSON (or, for a stream, an event whose data is invalid JSON).
    Garbage,
    /// Start a stream with this text and end it without the end marker; a plain request gets a
    /// JSON body cut in half.
    TruncatedStream(String),
    /// Never answer.
    Hang,
    /// Stream these pieces of text, each after its pause, then end the stream; with `stall`,
    /// stop after the last piece without ending it, like a model that hangs mid-answer. A plain
    /// request gets the whole text after all the pauses (with `stall`, nothing ever).
    Chunks {
        chunks: Vec<(Duration, String)>,
        stall: bool,
    },
    /// Stream `first` (each piece a delta of its own), then hold the stream open until `held` is
    /// released, then send `rest` and end it. A plain request gets the whole text once released.
    Held {
        first: Vec<String>,
        rest: String,
        held: HeldStream,
    },
    /// Ask for these tools (name and arguments), after `text` if it is not empty: streamed as
    /// the dialect streams tool calls (the arguments in two pieces), or whole in a plain reply.
    ToolCalls {
        text: String,
        calls: Vec<(String, Value)>,
    },
    /// Fail with this HTTP status and this error message in the body.
    Refuse(u16, String),
}

impl Behaviour {
    pub fn reply(text: &str) -> Self {
        Self::Reply(text.to_owned())
    }

    pub fn delay(duration: Duration, then: Behaviour) -> Self {
        Self::Delay(duration, Box::new(then))
    }

    /// [`Behaviour::ToolCalls`] without text before the calls.
    pub fn tool_calls(calls: &[(&str, Value)]) -> Self {
        Self::ToolCalls {
            text: String::new(),
            calls: calls
                .iter()
                .map(|(name, arguments)| ((*name).to_owned(), arguments.clone()))
                .collect(),
        }
    }

    /// [`Behaviour::Chunks`] from `(pause, text)` pairs.
    pub fn chunks(chunks: &[(Duration, &str)], stall: bool) -> Self {
        Self::Chunks {
            chunks: chunks
                .iter()
                .map(|(pause, text)| (*pause, (*text).to_owned()))
                .collect(),
            stall,
        }
    }
}

/// The test's handle on a reply held open ([`Behaviour::Held`]); cheap to clone.
#[derive(Clone, Debug)]
pub struct HeldStream {
    released: watch::Sender<bool>,
    disconnected: watch::Sender<bool>,
}

/// How often a held reply sends a keep-alive. Writing is also how the server learns that the
/// client hung up.
const KEEP_ALIVE_INTERVAL: Duration = Duration::from_millis(50);

impl HeldStream {
    fn new() -> Self {
        Self {
            released: watch::Sender::new(false),
            disconnected: watch::Sender::new(false),
        }
    }

    /// Lets the rest of the reply follow.
    pub fn release(&self) {
        self.released.send_replace(true);
    }

    /// Whether the client hung up before the reply was complete.
    pub fn client_disconnected(&self) -> bool {
        *self.disconnected.borrow()
    }

    /// Resolves once the client has hung up before the reply was complete.
    pub fn disconnect(&self) -> impl Future<Output = ()> + use<> {
        let mut disconnected = self.disconnected.subscribe();
        async move {
            let _ = disconnected.wait_for(|disconnected| *disconnected).await;
        }
    }
}

/// What the transcription endpoint does with one request.
#[derive(Clone, Debug)]
pub enum Transcription {
    /// Answer with this transcript.
    Text(String),
    /// Fail with this HTTP status.
    Status(u16),
    /// Never answer.
    Hang,
}

/// One transcription request as the server saw it.
#[derive(Clone, Debug)]
pub struct TranscriptionRequest {
    pub model: String,
    pub file_name: Option<String>,
    pub bytes: Vec<u8>,
    /// The `Authorization` header, if any.
    pub authorization: Option<String>,
}

/// One request as the server saw it.
#[derive(Clone, Debug)]
pub struct RecordedRequest {
    pub path: String,
    pub headers: HeaderMap,
    /// The parsed JSON body (`Value::Null` if it was not JSON).
    pub body: Value,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// Everything sent, as one JSON text: what a leak check searches.
    pub fn everything_sent(&self) -> String {
        self.body.to_string()
    }

    /// The text of chat message `index` (the system prompt is the first one in the OpenAI
    /// dialect), or nothing.
    pub fn message_text(&self, index: usize) -> String {
        self.body["messages"][index]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The system prompt as the OpenAI dialect sends it: the first chat message.
    pub fn system_prompt(&self) -> String {
        self.message_text(0)
    }

    /// The pictures the request carried, as `(media type, bytes)`, in either dialect.
    pub fn images(&self) -> Vec<(String, Vec<u8>)> {
        let messages = self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        messages
            .iter()
            .filter_map(|message| message["content"].as_array())
            .flatten()
            .filter_map(|part| image_of(part).ok().flatten())
            .collect()
    }
}

/// The picture in one content part, `Ok(None)` for a part that is not a picture, or why the part
/// is not a picture a provider would take.
fn image_of(part: &Value) -> Result<Option<(String, Vec<u8>)>, String> {
    use base64::Engine as _;
    let base64 = base64::engine::general_purpose::STANDARD;
    let (media_type, data) = match part["type"].as_str() {
        Some("image_url") => {
            let url = part["image_url"]["url"].as_str().unwrap_or_default();
            let Some((head, data)) = url
                .strip_prefix("data:")
                .and_then(|rest| rest.split_once(";base64,"))
            else {
                return Err(format!("not a base64 data URL: {url:.40}"));
            };
            (head.to_owned(), data.to_owned())
        }
        Some("image") => {
            let source = &part["source"];
            if source["type"] != "base64" {
                return Err("the image source is not base64".to_owned());
            }
            let media_type = source["media_type"].as_str().unwrap_or_default();
            let data = source["data"].as_str().unwrap_or_default();
            (media_type.to_owned(), data.to_owned())
        }
        _ => return Ok(None),
    };
    if !["image/jpeg", "image/png", "image/gif", "image/webp"].contains(&media_type.as_str()) {
        return Err(format!("unsupported image media type {media_type}"));
    }
    let bytes = base64
        .decode(data)
        .map_err(|error| format!("the image data is not base64: {error}"))?;
    if bytes.is_empty() {
        return Err("the image is empty".to_owned());
    }
    Ok(Some((media_type, bytes)))
}

/// Every content part of every message, checked as pictures: the first problem, if any, and
/// whether the request carries a picture at all.
fn check_images(body: &Value) -> (Result<(), String>, bool) {
    let parts: Vec<Value> = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|message| message["content"].as_array())
        .flatten()
        .cloned()
        .collect();
    let mut has_images = false;
    for part in &parts {
        match image_of(part) {
            Ok(Some(_)) => has_images = true,
            Ok(None) => {}
            Err(problem) => return (Err(problem), true),
        }
    }
    (Ok(()), has_images)
}

/// Computes the reply to a request body when no scripted behaviour is queued (e.g. a stand-in
/// for a real model in the memory evaluation).
pub type Responder = Arc<dyn Fn(&Value) -> String + Send + Sync>;

/// How long the server took over one request: from its arrival to the moment the answer (or the
/// first piece of a stream) was ready.
#[derive(Clone, Debug)]
pub struct Timing {
    /// The request's last user message, which names the turn it belongs to.
    pub last_user_message: String,
    pub received_at: Instant,
    pub answered_at: Instant,
}

impl Timing {
    pub fn duration(&self) -> Duration {
        self.answered_at - self.received_at
    }
}

/// A running fake server; it stops when dropped.
pub struct FakeLlm {
    base_url: String,
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

struct Shared {
    script: Mutex<VecDeque<Behaviour>>,
    requests: Mutex<Vec<RecordedRequest>>,
    /// How long the default (unscripted) reply takes.
    default_delay: Mutex<Duration>,
    responder: Mutex<Option<Responder>>,
    keep_requests: AtomicBool,
    timings: Mutex<Vec<Timing>>,
    /// How many requests have arrived, kept or not, for [`FakeLlm::wait_for_requests`].
    arrived: watch::Sender<usize>,
    /// Refuse requests with pictures, like a model that cannot see.
    refuse_images: AtomicBool,
    transcription_script: Mutex<VecDeque<Transcription>>,
    transcriptions: Mutex<Vec<TranscriptionRequest>>,
    /// A tool every unscripted request offering tools calls first ([`FakeLlm::call_tool_first`]).
    tool_first: Mutex<Option<String>>,
}

impl Default for Shared {
    fn default() -> Self {
        Self {
            script: Mutex::default(),
            requests: Mutex::default(),
            default_delay: Mutex::default(),
            responder: Mutex::default(),
            tool_first: Mutex::default(),
            keep_requests: AtomicBool::new(true),
            timings: Mutex::default(),
            arrived: watch::Sender::new(0),
            refuse_images: AtomicBool::new(false),
            transcription_script: Mutex::default(),
            transcriptions: Mutex::default(),
        }
    }
}

impl FakeLlm {
    /// Starts a server on a free port of 127.0.0.1, on the calling test's runtime.
    pub async fn start() -> Self {
        Self::start_on(std::net::Ipv4Addr::LOCALHOST.into()).await
    }

    /// Starts a server on a free port of `ip`: containers on a Docker network reach the host at
    /// its bridge's address, not at 127.0.0.1.
    pub async fn start_on(ip: std::net::IpAddr) -> Self {
        let shared = Arc::new(Shared::default());
        let app = Router::new()
            .route("/v1/chat/completions", post(handle))
            .route("/v1/messages", post(handle))
            .route("/v1/audio/transcriptions", post(transcribe))
            .with_state(Arc::clone(&shared));
        let listener = tokio::net::TcpListener::bind((ip, 0))
            .await
            .expect("bind the fake LLM server");
        let address = listener.local_addr().expect("fake LLM server address");
        let server = tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("fake LLM server failed");
        });
        Self {
            base_url: format!("http://{address}/v1"),
            shared,
            server,
        }
    }

    /// The value for `LLM_BASE_URL`, e.g. `http://127.0.0.1:41234/v1`.
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// Queues the behaviour for the next request that finds the queue otherwise empty.
    pub fn push(&self, behaviour: Behaviour) {
        self.shared
            .script
            .lock()
            .expect("fake LLM script lock")
            .push_back(behaviour);
    }

    /// Queues a reply that streams `first`, then holds the stream open until the returned handle
    /// releases it (then `rest` follows and the stream ends) or the client hangs up.
    pub fn hold_stream(&self, first: &[&str], rest: &str) -> HeldStream {
        let held = HeldStream::new();
        self.push(Behaviour::Held {
            first: first.iter().map(|piece| (*piece).to_owned()).collect(),
            rest: rest.to_owned(),
            held: held.clone(),
        });
        held
    }

    /// Makes the default (unscripted) reply take `delay`, as a real model's would.
    pub fn set_default_delay(&self, delay: Duration) {
        *self
            .shared
            .default_delay
            .lock()
            .expect("fake LLM delay lock") = delay;
    }

    /// Answers with `responder` whenever the script queue is empty (instead of the echo).
    /// From now on, an unscripted request that offers tools and carries no tool results yet is
    /// answered with a call of `tool` (`{"query": <the person's message>}`); the request with
    /// its result gets the usual reply.
    pub fn call_tool_first(&self, tool: &str) {
        *self.shared.tool_first.lock().expect("fake LLM tool lock") = Some(tool.to_owned());
    }

    pub fn set_responder(&self, responder: Responder) {
        *self
            .shared
            .responder
            .lock()
            .expect("fake LLM responder lock") = Some(responder);
    }

    /// The latest request received, without copying all the others.
    pub fn last_request(&self) -> Option<RecordedRequest> {
        self.shared
            .requests
            .lock()
            .expect("fake LLM requests lock")
            .last()
            .cloned()
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .requests
            .lock()
            .expect("fake LLM requests lock")
            .clone()
    }

    /// Waits until `count` requests have arrived in all, answered or not.
    pub async fn wait_for_requests(&self, count: usize) {
        self.shared
            .arrived
            .subscribe()
            .wait_for(|arrived| *arrived >= count)
            .await
            .expect("the fake LLM keeps its counter");
    }

    /// Whether to keep every request for [`Self::requests`] (the default). A load run turns it
    /// off: thousands of whole prompts would only grow the fake.
    pub fn keep_requests(&self, keep: bool) {
        self.shared.keep_requests.store(keep, Ordering::Relaxed);
    }

    /// Makes the server refuse every request with a picture (HTTP 400), like a model that cannot
    /// see.
    pub fn refuse_images(&self) {
        self.shared.refuse_images.store(true, Ordering::Relaxed);
    }

    /// Queues what the transcription endpoint does with its next request.
    pub fn push_transcription(&self, behaviour: Transcription) {
        self.shared
            .transcription_script
            .lock()
            .expect("fake LLM transcription script lock")
            .push_back(behaviour);
    }

    /// Every transcription request received so far, oldest first.
    pub fn transcriptions(&self) -> Vec<TranscriptionRequest> {
        self.shared
            .transcriptions
            .lock()
            .expect("fake LLM transcriptions lock")
            .clone()
    }

    /// Removes and returns the timings of the requests answered so far.
    pub fn take_timings(&self) -> Vec<Timing> {
        std::mem::take(&mut *self.shared.timings.lock().expect("fake LLM timings lock"))
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.server.abort();
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dialect {
    OpenAi,
    Anthropic,
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let received_at = Instant::now();
    let dialect = if uri.path().ends_with("/messages") {
        Dialect::Anthropic
    } else {
        Dialect::OpenAi
    };
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let credential = headers
        .get(header::AUTHORIZATION)
        .or_else(|| headers.get("x-api-key"))
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    if shared.keep_requests.load(Ordering::Relaxed) {
        shared
            .requests
            .lock()
            .expect("fake LLM requests lock")
            .push(RecordedRequest {
                path: uri.path().to_owned(),
                headers,
                body: body.clone(),
            });
    }
    shared.arrived.send_modify(|arrived| *arrived += 1);
    // A provider refuses a malformed picture, and a model that cannot see any picture.
    let (images_ok, has_images) = check_images(&body);
    let refused = has_images && shared.refuse_images.load(Ordering::Relaxed);
    if images_ok.is_err() || refused {
        return error_response(dialect, 400, None, &credential);
    }
    let last_user_message = last_user_message(&body);
    let scripted = shared
        .script
        .lock()
        .expect("fake LLM script lock")
        .pop_front();
    let default_delay = *shared.default_delay.lock().expect("fake LLM delay lock");
    let responder = shared
        .responder
        .lock()
        .expect("fake LLM responder lock")
        .clone();
    let tool_first = shared
        .tool_first
        .lock()
        .expect("fake LLM tool lock")
        .clone()
        .filter(|_| offers_tools(&body) && !carries_tool_results(&body));
    let scripted = scripted.or_else(|| {
        tool_first.map(|tool| {
            Behaviour::tool_calls(&[(tool.as_str(), json!({"query": last_user_message}))])
        })
    });
    let mut behaviour = scripted.unwrap_or_else(|| {
        let reply = match responder {
            Some(responder) => responder(&body),
            None => format!("reply to: {last_user_message}"),
        };
        Behaviour::delay(default_delay, Behaviour::Reply(reply))
    });
    while let Behaviour::Delay(duration, then) = behaviour {
        // A zero sleep still waits for the timer's next tick (about 1 ms): the unscripted
        // default would make the zero-latency fake take a millisecond per call.
        if !duration.is_zero() {
            tokio::time::sleep(duration).await;
        }
        behaviour = *then;
    }
    let call = Call {
        dialect,
        stream: body["stream"] == Value::Bool(true),
        tokens_in: prompt_words(&body),
    };
    let response = respond(&call, behaviour, &credential).await;
    shared
        .timings
        .lock()
        .expect("fake LLM timings lock")
        .push(Timing {
            last_user_message,
            received_at,
            answered_at: Instant::now(),
        });
    response
}

/// The answer `behaviour` makes to `call` (delays already waited out).
async fn respond(call: &Call, behaviour: Behaviour, credential: &str) -> Response {
    match behaviour {
        Behaviour::Reply(text) if call.stream => stream(call.reply_pieces(&text, true)),
        Behaviour::Reply(text) => json_response(call.reply_json(&text)),
        Behaviour::Status(status, retry_after) => {
            error_response(call.dialect, status, retry_after, credential)
        }
        Behaviour::Garbage if call.stream => stream(vec![call.garbage_event()]),
        Behaviour::Garbage => json_text("{\"choices\": [ this is not json"),
        Behaviour::TruncatedStream(text) if call.stream => stream(call.reply_pieces(&text, false)),
        Behaviour::TruncatedStream(text) => {
            let full = call.reply_json(&text).to_string();
            json_text(&full[..full.len() / 2])
        }
        Behaviour::Hang => std::future::pending().await,
        Behaviour::Chunks { chunks, stall } if call.stream => {
            timed_stream(call.chunk_pieces(&chunks, stall), stall)
        }
        Behaviour::Chunks { chunks, stall } => {
            let pauses: Duration = chunks.iter().map(|(pause, _)| *pause).sum();
            tokio::time::sleep(pauses).await;
            if stall {
                return std::future::pending().await;
            }
            let text: String = chunks.into_iter().map(|(_, text)| text).collect();
            json_response(call.reply_json(&text))
        }
        Behaviour::Held { first, rest, held } => {
            let whole = format!("{}{rest}", first.concat());
            let body = if call.stream {
                let mut start = call.stream_start();
                start.extend(first.iter().map(|piece| call.text_delta(piece)));
                let mut end = vec![call.text_delta(&rest)];
                end.extend(call.stream_end(&whole));
                let keep_alive = Bytes::from_static(b": keep-alive\n\n");
                held_body(start, keep_alive, end, held)
            } else {
                // Leading spaces keep the connection busy without changing the JSON.
                let end = vec![Bytes::from(call.reply_json(&whole).to_string())];
                held_body(Vec::new(), Bytes::from_static(b" "), end, held)
            };
            let content_type = if call.stream {
                "text/event-stream"
            } else {
                "application/json"
            };
            ([(header::CONTENT_TYPE, content_type)], body).into_response()
        }
        Behaviour::ToolCalls { text, calls } if call.stream => {
            stream(call.tool_call_pieces(&text, &calls))
        }
        Behaviour::ToolCalls { text, calls } => json_response(call.tool_call_json(&text, &calls)),
        Behaviour::Refuse(status, message) => refusal(call.dialect, status, &message),
        Behaviour::Delay(..) => unreachable!("delays were unwrapped above"),
    }
}

/// What the reply depends on, taken from the request.
struct Call {
    dialect: Dialect,
    stream: bool,
    tokens_in: usize,
}

impl Call {
    fn reply_json(&self, text: &str) -> Value {
        let tokens_out = word_count(text);
        match self.dialect {
            Dialect::OpenAi => json!({
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop"
                }],
                "usage": {
                    "prompt_tokens": self.tokens_in,
                    "completion_tokens": tokens_out,
                    "total_tokens": self.tokens_in + tokens_out
                }
            }),
            Dialect::Anthropic => json!({
                "id": "msg_fake",
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn",
                "usage": {"input_tokens": self.tokens_in, "output_tokens": tokens_out}
            }),
        }
    }

    /// The pieces of a streamed reply, each written separately; without the ending when
    /// `complete` is false.
    fn reply_pieces(&self, text: &str, complete: bool) -> Vec<Bytes> {
        let mut pieces = self.stream_start();
        pieces.extend(split_first_mid_line(
            split_into_deltas(text)
                .iter()
                .map(|delta| self.text_delta(delta)),
        ));
        if complete {
            pieces.extend(self.stream_end(text));
        }
        pieces
    }

    /// The pieces of a [`Behaviour::Chunks`] stream, each with the pause before it.
    fn chunk_pieces(&self, chunks: &[(Duration, String)], stall: bool) -> Vec<(Duration, Bytes)> {
        let mut pieces: Vec<(Duration, Bytes)> = self
            .stream_start()
            .into_iter()
            .map(|piece| (PIECE_INTERVAL, piece))
            .collect();
        pieces.extend(
            chunks
                .iter()
                .map(|(pause, text)| (*pause, self.text_delta(text))),
        );
        if !stall {
            let text: String = chunks.iter().map(|(_, text)| text.as_str()).collect();
            pieces.extend(
                self.stream_end(&text)
                    .into_iter()
                    .map(|piece| (PIECE_INTERVAL, piece)),
            );
        }
        pieces
    }

    /// A plain reply asking for `calls` after `text`.
    fn tool_call_json(&self, text: &str, calls: &[(String, Value)]) -> Value {
        match self.dialect {
            Dialect::OpenAi => {
                let tool_calls: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(index, (name, arguments))| {
                        json!({
                            "id": format!("call_{index}"),
                            "type": "function",
                            "function": {"name": name, "arguments": arguments.to_string()}
                        })
                    })
                    .collect();
                let content = if text.is_empty() {
                    Value::Null
                } else {
                    json!(text)
                };
                json!({
                    "id": "chatcmpl-fake",
                    "choices": [{
                        "index": 0,
                        "message": {"role": "assistant", "content": content, "tool_calls": tool_calls},
                        "finish_reason": "tool_calls"
                    }],
                    "usage": {"prompt_tokens": self.tokens_in, "completion_tokens": 7}
                })
            }
            Dialect::Anthropic => {
                let text_block = (!text.is_empty()).then(|| json!({"type": "text", "text": text}));
                let uses = calls.iter().enumerate().map(|(index, (name, arguments))| {
                    json!({"type": "tool_use", "id": format!("toolu_{index}"), "name": name, "input": arguments})
                });
                let content: Vec<Value> = text_block.into_iter().chain(uses).collect();
                json!({
                    "id": "msg_fake",
                    "type": "message",
                    "role": "assistant",
                    "content": content,
                    "stop_reason": "tool_use",
                    "usage": {"input_tokens": self.tokens_in, "output_tokens": 7}
                })
            }
        }
    }

    /// A stream asking for `calls` after `text`, each call's arguments in two pieces.
    fn tool_call_pieces(&self, text: &str, calls: &[(String, Value)]) -> Vec<Bytes> {
        let mut pieces = self.stream_start();
        if !text.is_empty() {
            pieces.push(self.text_delta(text));
        }
        for (index, (name, arguments)) in calls.iter().enumerate() {
            let arguments = arguments.to_string();
            let (first, second) = arguments.split_at(arguments.len() / 2);
            match self.dialect {
                Dialect::OpenAi => {
                    pieces.push(openai_chunk(
                        json!({"tool_calls": [{"index": index, "id": format!("call_{index}"), "type": "function",
                                               "function": {"name": name, "arguments": ""}}]}),
                        None,
                    ));
                    for part in [first, second] {
                        pieces.push(openai_chunk(
                            json!({"tool_calls": [{"index": index, "function": {"arguments": part}}]}),
                            None,
                        ));
                    }
                }
                Dialect::Anthropic => {
                    // Block 0 is the text block `stream_start` opened.
                    let block = index + 1;
                    pieces.push(anthropic_event(json!({
                        "type": "content_block_start", "index": block,
                        "content_block": {"type": "tool_use", "id": format!("toolu_{index}"), "name": name, "input": {}}
                    })));
                    for part in [first, second] {
                        pieces.push(anthropic_event(json!({
                            "type": "content_block_delta", "index": block,
                            "delta": {"type": "input_json_delta", "partial_json": part}
                        })));
                    }
                    pieces.push(anthropic_event(
                        json!({"type": "content_block_stop", "index": block}),
                    ));
                }
            }
        }
        match self.dialect {
            Dialect::OpenAi => {
                pieces.push(openai_chunk(json!({}), Some("tool_calls")));
                pieces.push(Bytes::from_static(b"data: [DONE]\n\n"));
            }
            Dialect::Anthropic => {
                pieces.push(anthropic_event(json!({
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use", "stop_sequence": null},
                    "usage": {"output_tokens": 7}
                })));
                pieces.push(anthropic_event(json!({"type": "message_stop"})));
            }
        }
        pieces
    }

    /// What a stream sends before its text.
    fn stream_start(&self) -> Vec<Bytes> {
        match self.dialect {
            Dialect::OpenAi => vec![
                openai_chunk(json!({"role": "assistant", "content": ""}), None),
                Bytes::from_static(b": ping\n\n"),
                openai_chunk(json!({}), None),
            ],
            Dialect::Anthropic => vec![
                anthropic_event(json!({
                    "type": "message_start",
                    "message": {
                        "id": "msg_fake", "type": "message", "role": "assistant", "content": [],
                        "stop_reason": null,
                        "usage": {"input_tokens": self.tokens_in, "output_tokens": 1}
                    }
                })),
                anthropic_event(json!({
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""}
                })),
                anthropic_event(json!({"type": "ping"})),
            ],
        }
    }

    /// One piece of text of a stream.
    fn text_delta(&self, delta: &str) -> Bytes {
        match self.dialect {
            Dialect::OpenAi => openai_chunk(json!({"content": delta}), None),
            Dialect::Anthropic => anthropic_event(json!({
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": delta}
            })),
        }
    }

    /// What a stream of the whole `text` sends after it.
    fn stream_end(&self, text: &str) -> Vec<Bytes> {
        match self.dialect {
            Dialect::OpenAi => vec![
                openai_chunk(json!({}), Some("stop")),
                Bytes::from_static(b"data: [DONE]\n\n"),
            ],
            Dialect::Anthropic => vec![
                anthropic_event(json!({"type": "content_block_stop", "index": 0})),
                anthropic_event(json!({
                    "type": "message_delta",
                    "delta": {"stop_reason": "end_turn", "stop_sequence": null},
                    "usage": {"output_tokens": word_count(text)}
                })),
                anthropic_event(json!({"type": "message_stop"})),
            ],
        }
    }

    fn garbage_event(&self) -> Bytes {
        match self.dialect {
            Dialect::OpenAi => Bytes::from_static(b"data: {\"choices\": [ this is not json\n\n"),
            Dialect::Anthropic => {
                Bytes::from_static(b"event: content_block_delta\ndata: {this is not json\n\n")
            }
        }
    }
}

fn openai_chunk(delta: Value, finish_reason: Option<&str>) -> Bytes {
    let chunk = json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]
    });
    Bytes::from(format!("data: {chunk}\n\n"))
}

fn anthropic_event(data: Value) -> Bytes {
    let name = data["type"].as_str().unwrap_or("unknown").to_owned();
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

/// Words with their trailing whitespace, so the deltas add up to exactly the text.
fn split_into_deltas(text: &str) -> Vec<String> {
    let mut deltas = Vec::new();
    let mut current = String::new();
    for character in text.chars() {
        if !character.is_whitespace() && current.ends_with(char::is_whitespace) {
            deltas.push(std::mem::take(&mut current));
        }
        current.push(character);
    }
    if !current.is_empty() {
        deltas.push(current);
    }
    deltas
}

/// Cuts the first piece in two: inside its first non-ASCII character if it has one (so the
/// client must reassemble UTF-8 across reads), else in the middle of the line.
fn split_first_mid_line(pieces: impl Iterator<Item = Bytes>) -> Vec<Bytes> {
    let mut pieces = pieces.peekable();
    let Some(first) = pieces.next() else {
        return Vec::new();
    };
    let cut = first
        .iter()
        .position(|byte| !byte.is_ascii())
        .map_or(first.len() / 2, |position| position + 1);
    let mut result = vec![first.slice(..cut), first.slice(cut..)];
    result.extend(pieces);
    result
}

fn stream(pieces: Vec<Bytes>) -> Response {
    let pieces = pieces
        .into_iter()
        .map(|piece| (PIECE_INTERVAL, piece))
        .collect();
    timed_stream(pieces, false)
}

/// A stream of `pieces`, each written after its pause; with `stall`, it then stays open without
/// another byte.
fn timed_stream(pieces: Vec<(Duration, Bytes)>, stall: bool) -> Response {
    let pieces = futures_util::stream::iter(pieces).then(|(pause, piece)| async move {
        tokio::time::sleep(pause).await;
        Ok::<_, Infallible>(piece)
    });
    let stalled = futures_util::stream::iter(stall.then_some(()))
        .then(|()| std::future::pending::<Result<Bytes, Infallible>>());
    let body = pieces.chain(stalled);
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(body),
    )
        .into_response()
}

/// Where a held body is.
enum HeldPhase {
    Starting,
    Holding,
    Ending,
}

/// A held body's state; dropped before it ends, it records that the client hung up.
struct HeldBody {
    phase: HeldPhase,
    /// What is still to be sent before the hold, and after it.
    start: VecDeque<Bytes>,
    end: VecDeque<Bytes>,
    keep_alive: Bytes,
    released: watch::Receiver<bool>,
    held: HeldStream,
    ended: bool,
}

impl Drop for HeldBody {
    fn drop(&mut self) {
        if !self.ended {
            self.held.disconnected.send_replace(true);
        }
    }
}

/// `start`, then `keep_alive` now and then until `held` is released, then `end`.
fn held_body(start: Vec<Bytes>, keep_alive: Bytes, end: Vec<Bytes>, held: HeldStream) -> Body {
    let body = HeldBody {
        phase: HeldPhase::Starting,
        start: start.into(),
        end: end.into(),
        keep_alive,
        released: held.released.subscribe(),
        held,
        ended: false,
    };
    Body::from_stream(futures_util::stream::unfold(body, |mut body| async move {
        let piece = next_held_piece(&mut body).await;
        piece.map(|piece| (Ok::<_, Infallible>(piece), body))
    }))
}

/// The next piece of a held body, `None` at its end.
async fn next_held_piece(body: &mut HeldBody) -> Option<Bytes> {
    loop {
        match body.phase {
            HeldPhase::Starting => match body.start.pop_front() {
                Some(piece) => {
                    tokio::time::sleep(PIECE_INTERVAL).await;
                    return Some(piece);
                }
                None => body.phase = HeldPhase::Holding,
            },
            HeldPhase::Holding => {
                let released = tokio::select! {
                    released = body.released.wait_for(|released| *released) => released.is_ok(),
                    () = tokio::time::sleep(KEEP_ALIVE_INTERVAL) => false,
                };
                if !released {
                    return Some(body.keep_alive.clone());
                }
                body.phase = HeldPhase::Ending;
            }
            HeldPhase::Ending => match body.end.pop_front() {
                Some(piece) => return Some(piece),
                None => {
                    body.ended = true;
                    return None;
                }
            },
        }
    }
}

fn json_response(value: Value) -> Response {
    json_text(&value.to_string())
}

fn json_text(text: &str) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        text.to_owned(),
    )
        .into_response()
}

/// A failure whose body carries `message`, as servers explain a refusal.
fn refusal(dialect: Dialect, status: u16, message: &str) -> Response {
    let status = StatusCode::from_u16(status).expect("a valid HTTP status");
    let body = match dialect {
        Dialect::OpenAi => json!({"error": {"message": message, "type": "invalid_request_error"}}),
        Dialect::Anthropic => {
            json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}})
        }
    };
    (status, json_response(body)).into_response()
}

fn error_response(
    dialect: Dialect,
    status: u16,
    retry_after: Option<u64>,
    credential: &str,
) -> Response {
    let status = StatusCode::from_u16(status).expect("a valid HTTP status");
    let message = format!("fake failure ({status}); the key you sent was '{credential}'");
    let body = match dialect {
        Dialect::OpenAi => json!({"error": {"message": message, "type": "fake_error"}}),
        Dialect::Anthropic => {
            json!({"type": "error", "error": {"type": "fake_error", "message": message}})
        }
    };
    let mut response = (status, json_response(body)).into_response();
    if let Some(seconds) = retry_after {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, seconds.into());
    }
    response
}

/// Whether a request offers the model tools.
fn offers_tools(body: &Value) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty())
}

/// Whether a request carries tool results back (either dialect).
fn carries_tool_results(body: &Value) -> bool {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|message| {
            message["role"] == "tool"
                || message["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|block| block["type"] == "tool_result")
        })
}

/// The person's message in a model request, without the time the prompt puts before it.
pub fn question_in(body: &Value) -> String {
    let last = last_user_message(body);
    match last.split_once("] ") {
        Some((time, question)) if time.starts_with('[') => question.to_owned(),
        _ => last,
    }
}

pub fn last_user_message(body: &Value) -> String {
    body["messages"]
        .as_array()
        .and_then(|messages| {
            messages
                .iter()
                .rev()
                .find(|message| message["role"] == "user")
        })
        .map(|message| content_text(&message["content"]))
        .unwrap_or_default()
}

/// The text of a message's content: the string, or the text parts of a list of parts.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

pub fn prompt_words(body: &Value) -> usize {
    let system = body["system"].as_str().map_or(0, word_count);
    let messages = body["messages"].as_array().map_or(0, |messages| {
        messages
            .iter()
            .map(|message| word_count(&content_text(&message["content"])))
            .sum()
    });
    system + messages
}

/// `POST /v1/audio/transcriptions`: checks the form, records it, and answers the transcript.
async fn transcribe(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Ok((fields, uploads)) = super::fake_telegram::parse_body(&headers, &body) else {
        return transcription_error(400, "the body is not a form");
    };
    let is_form = headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with("multipart/form-data"));
    let model = fields["model"].as_str().unwrap_or_default().to_owned();
    let Some(file) = uploads.into_iter().find(|upload| upload.field == "file") else {
        return transcription_error(400, "the form has no file");
    };
    if !is_form || model.is_empty() {
        return transcription_error(400, "a multipart form with a model is required");
    }
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let heard = String::from_utf8_lossy(&file.bytes).into_owned();
    shared
        .transcriptions
        .lock()
        .expect("fake LLM transcriptions lock")
        .push(TranscriptionRequest {
            model,
            file_name: file.file_name,
            bytes: file.bytes,
            authorization,
        });
    let scripted = shared
        .transcription_script
        .lock()
        .expect("fake LLM transcription script lock")
        .pop_front();
    match scripted.unwrap_or(Transcription::Text(heard)) {
        Transcription::Text(text) => json_response(json!({ "text": text })),
        Transcription::Status(status) => transcription_error(status, "fake failure"),
        Transcription::Hang => std::future::pending().await,
    }
}

fn transcription_error(status: u16, message: &str) -> Response {
    let status = StatusCode::from_u16(status).expect("a valid HTTP status");
    (
        status,
        json_response(json!({"error": {"message": message}})),
    )
        .into_response()
}

fn word_count(text: &str) -> usize {
    text.split_whitespace().count()
}
