//! The transcription client: turns a voice note, an audio file or a video note into text through
//! the OpenAI-compatible `POST {TRANSCRIPTION_BASE_URL}/audio/transcriptions` (a multipart form
//! with the file and `model`), which OpenAI, Groq, whisper.cpp's server, faster-whisper-server
//! and LocalAI all speak; and its settings.
//!
//! Every call is tried once within the time its caller has left: a person waiting for an answer
//! is better served by a clear "try again" than by a long wait. Like the chat client, errors never
//! carry the key or the server's body.

use std::time::Duration;

use serde::Deserialize;

use crate::llm::LlmConfig;
use crate::llm::server_settings::{ServerSettings, TranscriptionServer};
use crate::llm::service::{CallFailure, ServiceEndpoint};

/// Where voice notes are transcribed, from flags or environment variables.
#[derive(Clone, Debug, clap::Args)]
pub struct TranscriptionConfig {
    /// `TRANSCRIPTION_BASE_URL` (default: the chat server's when it speaks OpenAI),
    /// `TRANSCRIPTION_MODEL` and `TRANSCRIPTION_API_KEY`.
    #[command(flatten)]
    pub server: ServerSettings<TranscriptionServer>,
}

/// A recording to transcribe: its bytes, a file name whose extension tells the server the format
/// (`voice.ogg`), and its media type.
#[derive(Clone)]
pub struct Recording {
    pub bytes: Vec<u8>,
    pub file_name: String,
    pub media_type: String,
}

impl std::fmt::Debug for Recording {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (name, media_type, bytes) = (&self.file_name, &self.media_type, self.bytes.len());
        write!(f, "Recording({name:?}, {media_type}, {bytes} bytes)")
    }
}

/// Why a recording could not be transcribed. Messages never contain the key or the server's body.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptionError {
    /// No transcription server is configured (the anthropic provider without
    /// `TRANSCRIPTION_BASE_URL`).
    #[error("no transcription server is configured")]
    NotConfigured,
    /// The server did not answer, or refused the recording (a format it cannot read, a file that
    /// is not audio: sending it again cannot help), or failed (later may work).
    #[error(transparent)]
    Call(#[from] CallFailure),
    #[error("the transcription server sent an unusable response: {0}")]
    BadResponse(String),
}

/// A client for the configured transcription server. Cloning is cheap and clones share
/// connections.
#[derive(Clone, Debug)]
pub struct TranscriptionClient {
    endpoint: ServiceEndpoint,
}

#[derive(Deserialize)]
struct TranscriptionResponse {
    text: String,
}

impl TranscriptionClient {
    /// The client for `config`, or `None` when there is no server to ask (the anthropic
    /// provider without `TRANSCRIPTION_BASE_URL`). Fails on settings that cannot work, so that a
    /// wrong configuration stops the start with a clear message.
    pub fn from_config(
        config: &TranscriptionConfig,
        llm: &LlmConfig,
    ) -> anyhow::Result<Option<Self>> {
        let endpoint = ServiceEndpoint::from_settings(&config.server, llm, "audio/transcriptions")?;
        Ok(endpoint.map(|endpoint| Self { endpoint }))
    }

    /// The text spoken in `recording`, trimmed, within `timeout`.
    pub async fn transcribe(
        &self,
        recording: Recording,
        timeout: Duration,
    ) -> Result<String, TranscriptionError> {
        let file = reqwest::multipart::Part::bytes(recording.bytes)
            .file_name(recording.file_name)
            .mime_str(plain_media_type(&recording.media_type))
            .map_err(|_| TranscriptionError::BadResponse("unusable media type".to_owned()))?;
        let form = reqwest::multipart::Form::new()
            .text("model", self.endpoint.model.clone())
            .text("response_format", "json")
            .part("file", file);
        let answer = self
            .endpoint
            .post(timeout, |request| request.multipart(form))
            .await?;
        parse_response(answer.as_ref())
    }
}

/// `media_type` if it is a plain `type/subtype`, else `application/octet-stream`: an odd media type
/// from Telegram is no reason to fail, since the file name tells the server the format.
fn plain_media_type(media_type: &str) -> &str {
    let token = |part: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '+' | '-' | '_'))
    };
    match media_type.split_once('/') {
        Some((kind, subtype)) if token(kind) && token(subtype) => media_type,
        _ => "application/octet-stream",
    }
}

/// The transcript in a response body, trimmed.
fn parse_response(body: &[u8]) -> Result<String, TranscriptionError> {
    let response: TranscriptionResponse = serde_json::from_slice(body).map_err(|error| {
        // Where it went wrong, not serde's message, which can quote the transcript.
        TranscriptionError::BadResponse(format!(
            "not the expected JSON ({:?} error at line {} column {})",
            error.classify(),
            error.line(),
            error.column()
        ))
    })?;
    Ok(response.text.trim().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::client_from_flags;

    #[test]
    fn openai_transcribes_at_the_chat_server_with_whisper_1_by_default() {
        let client = client_from_flags(
            &["--llm-base-url", "http://localhost:8080/v1/"],
            TranscriptionClient::from_config,
        )
        .unwrap()
        .expect("a client");
        assert_eq!(
            format!("{:?}", client.endpoint),
            "http://localhost:8080/v1/audio/transcriptions (whisper-1)"
        );
    }

    #[test]
    fn anthropic_without_a_transcription_server_has_no_client() {
        assert!(
            client_from_flags(
                &["--llm-provider", "anthropic"],
                TranscriptionClient::from_config
            )
            .unwrap()
            .is_none()
        );
        let configured = client_from_flags(
            &[
                "--llm-provider",
                "anthropic",
                "--llm-api-key",
                "sk-ant-secret",
                "--transcription-base-url",
                "http://127.0.0.1:9000/v1",
            ],
            TranscriptionClient::from_config,
        )
        .unwrap()
        .expect("a client");
        assert!(
            configured
                .endpoint
                .headers
                .get(reqwest::header::AUTHORIZATION)
                .is_none(),
            "the Anthropic key never goes to another server"
        );
    }

    #[test]
    fn an_odd_media_type_is_sent_as_octet_stream() {
        assert_eq!(plain_media_type("audio/ogg"), "audio/ogg");
        assert_eq!(plain_media_type("audio/x-m4a"), "audio/x-m4a");
        assert_eq!(
            plain_media_type("audio ogg; evil"),
            "application/octet-stream"
        );
        assert_eq!(plain_media_type(""), "application/octet-stream");
    }

    #[test]
    fn a_transcript_is_read_and_trimmed_and_garbage_is_a_bad_response() {
        assert_eq!(
            parse_response(br#"{"text":"  buy milk  "}"#).unwrap(),
            "buy milk"
        );
        let error = parse_response(b"{\"text\": secret words").unwrap_err();
        assert!(matches!(error, TranscriptionError::BadResponse(_)));
        assert!(!error.to_string().contains("secret"), "{error}");
    }
}
