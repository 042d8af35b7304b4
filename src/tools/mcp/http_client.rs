//! MCP's Streamable HTTP spoken with the bot's own reqwest 0.12: rmcp's transport is generic over
//! [`StreamableHttpClient`], and its built-in client would bring reqwest 0.13 and a second TLS
//! stack into the binary.
//!
//! This owns the HTTP requests only (the POST of each message, the GET of the server's event
//! stream, the DELETE ending a session) and the bounds on what a server may send back; sessions,
//! reconnection and the protocol itself stay with rmcp.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use futures_util::stream::{BoxStream, StreamExt};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue, WWW_AUTHENTICATE};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::common::http_header::{
    EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_SESSION_ID, JSON_MIME_TYPE,
};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, SseError, StreamableHttpClient, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::{Sse, SseStream};

type HttpError = StreamableHttpError<reqwest::Error>;
type EventStream = BoxStream<'static, Result<Sse, SseError>>;

/// The largest event of a server's stream we read when rmcp names no limit.
const DEFAULT_MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// How many same-origin redirects a request follows.
const MAX_REDIRECTS: usize = 10;

/// A reqwest 0.12 client for one MCP server, carrying the server's configured headers.
#[derive(Clone)]
pub struct McpHttpClient {
    http: reqwest::Client,
}

impl McpHttpClient {
    pub fn new(headers: &BTreeMap<String, String>) -> anyhow::Result<Self> {
        let mut default_headers = HeaderMap::new();
        for (name, value) in headers {
            let mut value = HeaderValue::from_str(value)?;
            value.set_sensitive(true);
            default_headers.insert(HeaderName::from_bytes(name.as_bytes())?, value);
        }
        let http = reqwest::Client::builder()
            .default_headers(default_headers)
            // No total timeout: the event streams stay open as long as the session.
            .connect_timeout(Duration::from_secs(10))
            // A connection reused after an unread body stalls on delayed ACKs (rmcp's choice too).
            .pool_max_idle_per_host(0)
            .redirect(same_origin_redirects())
            .build()?;
        Ok(Self { http })
    }

    fn request(
        &self,
        request: reqwest::RequestBuilder,
        session_id: Option<&str>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> reqwest::RequestBuilder {
        let mut request = request.header(
            ACCEPT,
            format!("{EVENT_STREAM_MIME_TYPE}, {JSON_MIME_TYPE}"),
        );
        if let Some(session_id) = session_id {
            request = request.header(HEADER_SESSION_ID, session_id);
        }
        if let Some(token) = auth_token {
            request = request.bearer_auth(token);
        }
        // rmcp puts the protocol version (and its other per-request headers) here.
        for (name, value) in custom_headers {
            request = request.header(name, value);
        }
        request
    }
}

/// Redirects keep the method and body (307, 308) and stay on the same origin: anything else would
/// lose the message or hand the session and headers to another host.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if keeps_body && same_origin && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

impl StreamableHttpClient for McpHttpClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_token,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        let request = self.http.post(uri.as_ref()).json(&message);
        let request = self.request(request, session_id.as_deref(), auth_token, custom_headers);
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        post_response(response, &message, session_id.is_some(), limits).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        let request = self.http.delete(uri.as_ref());
        let request = self.request(request, Some(&session_id), auth_token, custom_headers);
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Ok(()); // the server keeps sessions until they expire
        }
        response
            .error_for_status()
            .map_err(StreamableHttpError::Client)?;
        Ok(())
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<EventStream, HttpError> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_token,
            custom_headers,
            DEFAULT_MAX_EVENT_BYTES,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<EventStream, HttpError> {
        let mut request = self.http.get(uri.as_ref());
        if let Some(last_event_id) = last_event_id {
            request = request.header(HEADER_LAST_EVENT_ID, last_event_id);
        }
        let request = self.request(request, session_id.as_deref(), auth_token, custom_headers);
        let response = request.send().await.map_err(StreamableHttpError::Client)?;
        if response.status() == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        check_auth(&response)?;
        let response = response
            .error_for_status()
            .map_err(StreamableHttpError::Client)?;
        let content_type = content_type(&response);
        if !content_type
            .as_deref()
            .is_some_and(|ct| is_media_type(ct, EVENT_STREAM_MIME_TYPE))
        {
            return Err(StreamableHttpError::UnexpectedContentType(content_type));
        }
        Ok(event_stream(response, max_sse_event_size))
    }
}

/// What the answer to a POST means to rmcp.
async fn post_response(
    response: reqwest::Response,
    message: &ClientJsonRpcMessage,
    session_was_sent: bool,
    limits: StreamableHttpResponseLimits,
) -> Result<StreamableHttpPostResponse, HttpError> {
    check_auth(&response)?;
    let status = response.status();
    if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
        return Ok(StreamableHttpPostResponse::Accepted);
    }
    if status == StatusCode::NOT_FOUND && session_was_sent {
        return Err(StreamableHttpError::SessionExpired);
    }
    // Notifications and responses wait for no answer: any success will do.
    let awaits_answer = matches!(message, ClientJsonRpcMessage::Request(_));
    let session_id = response
        .headers()
        .get(HEADER_SESSION_ID)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let content_type = content_type(&response);
    let is_json = content_type
        .as_deref()
        .is_some_and(|ct| is_media_type(ct, JSON_MIME_TYPE));
    if !status.is_success() {
        return failure(response, status, is_json, limits, session_id).await;
    }
    match content_type.as_deref() {
        Some(ct) if is_media_type(ct, EVENT_STREAM_MIME_TYPE) => {
            Ok(StreamableHttpPostResponse::Sse(
                event_stream(response, limits.max_sse_event_size),
                session_id,
            ))
        }
        Some(_) if is_json => {
            let body = bounded_body(response, limits.max_json_response_size).await?;
            match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
                Ok(answer) => Ok(StreamableHttpPostResponse::Json(answer, session_id)),
                Err(_) if !awaits_answer => Ok(StreamableHttpPostResponse::Accepted),
                Err(error) => Err(StreamableHttpError::Deserialize(error)),
            }
        }
        _ if !awaits_answer => Ok(StreamableHttpPostResponse::Accepted),
        _ => Err(StreamableHttpError::UnexpectedContentType(content_type)),
    }
}

/// A failed POST: the server's JSON-RPC error when it sent one (so the caller reads the server's
/// reason), else the status.
async fn failure(
    response: reqwest::Response,
    status: StatusCode,
    is_json: bool,
    limits: StreamableHttpResponseLimits,
    session_id: Option<String>,
) -> Result<StreamableHttpPostResponse, HttpError> {
    if is_json
        && let Ok(body) = bounded_body(response, limits.max_json_response_size).await
        && let Ok(error @ ServerJsonRpcMessage::Error(_)) =
            serde_json::from_slice::<ServerJsonRpcMessage>(&body)
    {
        return Ok(StreamableHttpPostResponse::Json(error, session_id));
    }
    Err(StreamableHttpError::UnexpectedServerResponse(Cow::Owned(
        format!("HTTP {status}"),
    )))
}

/// A 401 asking for credentials, as rmcp reports it.
fn check_auth(response: &reqwest::Response) -> Result<(), HttpError> {
    if response.status() != StatusCode::UNAUTHORIZED {
        return Ok(());
    }
    let Some(header) = response.headers().get(WWW_AUTHENTICATE) else {
        return Ok(());
    };
    Err(StreamableHttpError::AuthRequired(AuthRequiredError::new(
        String::from_utf8_lossy(header.as_bytes()).into_owned(),
    )))
}

fn content_type(response: &reqwest::Response) -> Option<String> {
    response
        .headers()
        .get(CONTENT_TYPE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned())
}

/// Whether a `Content-Type` value names `media_type` (parameters such as `charset` aside).
fn is_media_type(content_type: &str, media_type: &str) -> bool {
    content_type
        .split(';')
        .next()
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case(media_type))
}

/// The body, refused when longer than `max_bytes`.
async fn bounded_body(response: reqwest::Response, max_bytes: usize) -> Result<Vec<u8>, HttpError> {
    let too_large = StreamableHttpError::ResponseBodyTooLarge {
        max_size: max_bytes,
    };
    if response
        .content_length()
        .is_some_and(|length| length > max_bytes as u64)
    {
        return Err(too_large);
    }
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(StreamableHttpError::Client)?;
        if body.len() + chunk.len() > max_bytes {
            return Err(too_large);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The response's server-sent events, failing on an event longer than `max_event_bytes` rather
/// than buffering it.
fn event_stream(response: reqwest::Response, max_event_bytes: usize) -> EventStream {
    let mut event_bytes = EventBytes::default();
    let bytes = response.bytes_stream().map(move |chunk| {
        let chunk = chunk.map_err(std::io::Error::other)?;
        if event_bytes.add(&chunk) > max_event_bytes {
            return Err(std::io::Error::other(format!(
                "an event of the MCP server's stream is longer than {max_event_bytes} bytes"
            )));
        }
        Ok(chunk)
    });
    SseStream::from_bytes_stream(bytes).boxed()
}

/// Counts the bytes of the event being received: events end at a blank line.
#[derive(Default)]
struct EventBytes {
    count: usize,
    after_newline: bool,
}

impl EventBytes {
    /// The length of the current event after `chunk`.
    fn add(&mut self, chunk: &[u8]) -> usize {
        for &byte in chunk {
            match byte {
                b'\n' if self.after_newline => self.count = 0,
                b'\n' => self.after_newline = true,
                b'\r' => {}
                _ => {
                    self.after_newline = false;
                    self.count += 1;
                }
            }
        }
        self.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_ends_at_a_blank_line_even_split_across_chunks() {
        let mut bytes = EventBytes::default();
        assert_eq!(bytes.add(b"data: abc\n"), 9);
        assert_eq!(bytes.add(b"\r\ndata: x"), 7);
        assert_eq!(bytes.add(b"y\n\n"), 0);
    }

    #[test]
    fn media_types_are_compared_without_their_parameters() {
        assert!(is_media_type(
            "text/event-stream; charset=utf-8",
            EVENT_STREAM_MIME_TYPE
        ));
        assert!(!is_media_type("text/html", JSON_MIME_TYPE));
    }
}
