//! The HTTP side of the fake: it checks the token in the path, reads JSON and multipart bodies,
//! records every call, applies the scripted faults and holds, hands the call to its method, and
//! answers in the Bot API's envelope (or cuts the connection); `getUpdates` waits here as a long
//! poll.

use std::sync::Arc;
use std::time::Duration;

use axum::{
    body::{Body, Bytes},
    extract::State as AxumState,
    http::{HeaderMap, StatusCode, Uri, header},
    response::{IntoResponse, Response},
};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

use super::faults::fault_reply;
use super::{BOT_TOKEN, Call, Shared};

/// What the fake answers to one call.
pub(super) enum Reply {
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
    /// A file download's bytes.
    File(Vec<u8>),
}

impl Reply {
    pub(super) fn bad_request(description: impl Into<String>) -> Self {
        Self::Error {
            code: 400,
            description: description.into(),
            parameters: None,
        }
    }
}

/// A file part of a multipart request.
#[derive(Clone, Debug)]
pub struct Upload {
    pub field: String,
    pub file_name: Option<String>,
    pub bytes: Vec<u8>,
}

pub(super) async fn handle_request(
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
    if let ["file", token_segment, path @ ..] = &segments[..] {
        return download(&shared, token_segment, path, at);
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
        Reply::File(bytes) => (StatusCode::OK, bytes).into_response(),
    }
}

/// The Bot API's file download: the bytes of the file at `path` (as `getFile` gave it; the
/// client may send its slashes encoded), recorded as a `downloadFile` call.
fn download(shared: &Shared, token_segment: &str, path: &[&str], at: Instant) -> Response {
    if token_segment.strip_prefix("bot") != Some(BOT_TOKEN) {
        return error_response(401, "Unauthorized", None);
    }
    let path = path
        .iter()
        .map(|segment| percent_decode(segment))
        .collect::<Vec<_>>()
        .join("/");
    let reply = {
        let mut state = shared.lock();
        let reply = match state.take_fault("downloadFile") {
            Some(fault) => fault_reply(fault),
            None => match state.file_bytes(&path) {
                Some(bytes) => Reply::File(bytes),
                None => Reply::Error {
                    code: 404,
                    description: "Not Found".to_owned(),
                    parameters: None,
                },
            },
        };
        state.calls.push(Call {
            method: "downloadFile".to_owned(),
            params: json!({ "path": path }),
            ok: matches!(reply, Reply::File(_)),
            at,
            held: false,
        });
        reply
    };
    shared.notify();
    match reply {
        Reply::File(bytes) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/octet-stream")],
            bytes,
        )
            .into_response(),
        Reply::DropConnection => dropped_connection(),
        Reply::Error {
            code, description, ..
        } => error_response(code, &description, None),
        _ => error_response(500, "Internal Server Error", None),
    }
}

/// `%2F` and the like back to the bytes they stand for.
fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = bytes
            .get(index + 1..index + 3)
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match (bytes[index], hex) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                index += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
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

/// A request body's parameters (JSON, or a multipart form's fields) and its uploaded files;
/// also what the fake LLM server reads uploads with.
pub fn parse_body(headers: &HeaderMap, body: &[u8]) -> Result<(Value, Vec<Upload>), String> {
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
