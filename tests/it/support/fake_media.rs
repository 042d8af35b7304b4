//! Fake speech and image servers on 127.0.0.1, OpenAI-shaped: `POST /v1/audio/speech` answers
//! Opus in OGG (a few valid pages whose last granule position gives the length: a tenth of a
//! second per character read) as raw bytes or as base64 in JSON; `POST /v1/images/generations`
//! answers a PNG as `data[0].b64_json` or as `data[0].url` (served by the same fake). Faults can
//! be switched on: an HTTP status, a safety refusal with a reason, or no answer at all. Every
//! request body is recorded. And a real speech server: [`EspeakSpeech`] runs Debian's
//! `espeak-ng` and `opusenc` behind the same endpoint, where the machine has them.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use base64::Engine;
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// Milliseconds of speech the fake makes per character of input.
pub const SPEECH_MS_PER_CHAR: u64 = 100;

/// A PNG's signature, then a label: what the fake image server draws.
pub fn fake_png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend_from_slice(b"a fake picture");
    bytes
}

/// How the fake answers.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Speech: the OGG bytes as the body. Images: base64 in `b64_json`.
    Plain,
    /// Speech: base64 in a JSON body's `audio`. Images: a URL to download.
    Wrapped,
    /// Fail with this HTTP status.
    Status(u16),
    /// Images: 400 with `content_policy_violation` and this reason.
    Unsafe(String),
    /// Never answer.
    Hang,
}

struct Shared {
    answer: Mutex<Answer>,
    requests: Mutex<Vec<Value>>,
    base_url: String,
}

/// The fake speech and image server.
pub struct FakeMedia {
    shared: Arc<Shared>,
    server: JoinHandle<()>,
}

impl Drop for FakeMedia {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeMedia {
    /// Serves on a free port of 127.0.0.1, answering `answer`.
    pub async fn start(answer: Answer) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the fake media server");
        let address = listener.local_addr().expect("its address");
        let shared = Arc::new(Shared {
            answer: Mutex::new(answer),
            requests: Mutex::default(),
            base_url: format!("http://{address}/v1"),
        });
        let app = Router::new()
            .route("/v1/audio/speech", post(speech))
            .route("/v1/images/generations", post(generation))
            .route("/v1/files/picture.png", get(picture))
            .with_state(Arc::clone(&shared));
        let server = tokio::spawn(async move {
            axum::serve(listener, app)
                .await
                .expect("the fake media server");
        });
        Self { shared, server }
    }

    /// The base URL to set as `TTS_BASE_URL` or `IMAGE_BASE_URL`.
    pub fn base_url(&self) -> String {
        self.shared.base_url.clone()
    }

    /// From now on, answer `answer`.
    pub fn answer(&self, answer: Answer) {
        *self.shared.answer.lock().unwrap() = answer;
    }

    /// The JSON bodies of the requests so far.
    pub fn requests(&self) -> Vec<Value> {
        self.shared.requests.lock().unwrap().clone()
    }
}

fn record(shared: &Shared, body: &[u8]) -> (Answer, Value) {
    let request: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    shared.requests.lock().unwrap().push(request.clone());
    (shared.answer.lock().unwrap().clone(), request)
}

async fn hang() -> Response {
    std::future::pending::<()>().await;
    StatusCode::OK.into_response()
}

async fn speech(State(shared): State<Arc<Shared>>, body: axum::body::Bytes) -> Response {
    let (answer, request) = record(&shared, &body);
    let characters = request["input"]
        .as_str()
        .unwrap_or_default()
        .chars()
        .count() as u64;
    let ogg = telemem::llm::speech::sample_opus_file(characters * SPEECH_MS_PER_CHAR);
    match answer {
        Answer::Plain => ([(header::CONTENT_TYPE, "audio/ogg")], ogg).into_response(),
        Answer::Wrapped => {
            let audio = base64::engine::general_purpose::STANDARD.encode(ogg);
            axum::Json(json!({ "audio": audio })).into_response()
        }
        Answer::Status(status) => status_response(status),
        Answer::Unsafe(_) => status_response(400),
        Answer::Hang => hang().await,
    }
}

async fn generation(State(shared): State<Arc<Shared>>, body: axum::body::Bytes) -> Response {
    let (answer, _) = record(&shared, &body);
    match answer {
        Answer::Plain => {
            let picture = base64::engine::general_purpose::STANDARD.encode(fake_png());
            axum::Json(json!({ "created": 1, "data": [{ "b64_json": picture }] })).into_response()
        }
        Answer::Wrapped => {
            let url = format!("{}/files/picture.png", shared.base_url);
            axum::Json(json!({ "created": 1, "data": [{ "url": url }] })).into_response()
        }
        Answer::Unsafe(reason) => {
            let error = json!({ "error": {
                "code": "content_policy_violation", "type": "invalid_request_error",
                "message": reason } });
            (StatusCode::BAD_REQUEST, axum::Json(error)).into_response()
        }
        Answer::Status(status) => status_response(status),
        Answer::Hang => hang().await,
    }
}

async fn picture() -> Response {
    ([(header::CONTENT_TYPE, "image/png")], fake_png()).into_response()
}

fn status_response(status: u16) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (status, "the fake failed on purpose").into_response()
}

/// A real, tiny OpenAI-shaped speech server: `espeak-ng --stdout` piped into `opusenc - -` for
/// each request, on 127.0.0.1. `None` (after one line saying so) where either program is
/// missing.
pub struct EspeakSpeech {
    base_url: String,
    server: JoinHandle<()>,
}

impl Drop for EspeakSpeech {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl EspeakSpeech {
    pub async fn start() -> Option<Self> {
        let found = |program: &str| {
            std::process::Command::new(program)
                .arg("--version")
                .output()
                .is_ok_and(|output| output.status.success())
        };
        if !found("espeak-ng") || !found("opusenc") {
            eprintln!(
                "the real speech path was not tried: espeak-ng and opusenc are not on PATH \
                 (Debian: apt-get install espeak-ng opus-tools)"
            );
            return None;
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.ok()?;
        let base_url = format!("http://{}/v1", listener.local_addr().ok()?);
        let app = Router::new().route("/v1/audio/speech", post(espeak));
        let server = tokio::spawn(async move {
            axum::serve(listener, app).await.expect("the espeak server");
        });
        Some(Self { base_url, server })
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }
}

async fn espeak(body: axum::body::Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let text = request["input"].as_str().unwrap_or_default().to_owned();
    let made = tokio::task::spawn_blocking(move || {
        let script = "espeak-ng --stdout \"$1\" | opusenc --quiet - -";
        std::process::Command::new("sh")
            .args(["-c", script, "speak", &text])
            .output()
    })
    .await;
    match made {
        Ok(Ok(output)) if output.status.success() => {
            ([(header::CONTENT_TYPE, "audio/ogg")], output.stdout).into_response()
        }
        _ => status_response(500),
    }
}
