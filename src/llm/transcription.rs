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
use crate::llm::service::{CallFailure, OwnSettings, ServiceEndpoint, SettingNames};
use crate::secret::Secret;
use crate::setting::Setting;

/// Where voice notes are transcribed, from flags or environment variables.
#[derive(Clone, Debug, clap::Args)]
pub struct TranscriptionConfig {
    /// Base URL of an OpenAI-compatible API with `/audio/transcriptions`. Default: `LLM_BASE_URL`
    /// when `LLM_PROVIDER` is openai. Anthropic has no transcription API: without this setting
    /// voice notes get a reply that they are not set up.
    #[arg(
        id = "transcription_base_url",
        setting = "TRANSCRIPTION_BASE_URL",
        global = true
    )]
    pub base_url: Option<reqwest::Url>,

    /// Transcription model, as the server knows it (`whisper-1`, `whisper-large-v3`, ...).
    #[arg(
        id = "transcription_model",
        setting = "TRANSCRIPTION_MODEL",
        default_value = "whisper-1",
        global = true
    )]
    pub model: String,

    /// API key of the transcription server. Default: `LLM_API_KEY` when `LLM_PROVIDER` is openai.
    #[arg(
        id = "transcription_api_key",
        setting = "TRANSCRIPTION_API_KEY",
        hide_env_values = true,
        global = true
    )]
    pub api_key: Option<Secret>,
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
        f.debug_struct("Recording")
            .field("bytes", &self.bytes.len())
            .field("file_name", &self.file_name)
            .field("media_type", &self.media_type)
            .finish()
    }
}

/// Why a recording could not be transcribed. Messages never contain the key or the server's body.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptionError {
    /// No transcription server is configured (the anthropic provider without
    /// `TRANSCRIPTION_BASE_URL`).
    #[error("no transcription server is configured")]
    NotConfigured,
    #[error("the transcription server did not answer in time")]
    Timeout,
    #[error("could not reach the transcription server")]
    Connect(#[source] reqwest::Error),
    /// 4xx other than 429: the server refused this recording (a format it cannot read, a file
    /// that is not audio); sending it again cannot help.
    #[error("the transcription server refused the recording (HTTP {status})")]
    Refused { status: u16 },
    /// 429 or 5xx: the server is busy or broken; later may work.
    #[error("the transcription server failed (HTTP {status})")]
    Failed { status: u16 },
    #[error("the transcription server sent an unusable response: {0}")]
    BadResponse(String),
}

/// A client for the configured transcription server. Cloning is cheap and clones share
/// connections.
#[derive(Clone)]
pub struct TranscriptionClient {
    endpoint: ServiceEndpoint,
    model: String,
}

impl std::fmt::Debug for TranscriptionClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptionClient")
            .field("endpoint", &self.endpoint.url.as_str())
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
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
        let own = OwnSettings {
            base_url: config.base_url.as_ref(),
            api_key: config.api_key.as_ref(),
            names: SettingNames {
                base_url: "TRANSCRIPTION_BASE_URL",
                api_key: "TRANSCRIPTION_API_KEY",
            },
        };
        let Some(endpoint) = ServiceEndpoint::from_settings(own, llm, "audio/transcriptions")?
        else {
            return Ok(None);
        };
        let model = config.model.trim();
        anyhow::ensure!(!model.is_empty(), "TRANSCRIPTION_MODEL is empty");
        Ok(Some(Self {
            endpoint,
            model: model.to_owned(),
        }))
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
            .text("model", self.model.clone())
            .text("response_format", "json")
            .part("file", file);
        let answer = self
            .endpoint
            .post(timeout, |request| request.multipart(form))
            .await?;
        parse_response(answer.as_ref())
    }
}

impl From<CallFailure> for TranscriptionError {
    fn from(failure: CallFailure) -> Self {
        match failure {
            CallFailure::Timeout => Self::Timeout,
            CallFailure::Connect(error) => Self::Connect(error),
            CallFailure::Status(status @ (429 | 500..=599)) => Self::Failed { status },
            CallFailure::Status(status) => Self::Refused { status },
        }
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
    use crate::llm::config::parse_flags_with;

    fn client(args: &[&str]) -> anyhow::Result<Option<TranscriptionClient>> {
        let (llm, transcription) = parse_flags_with(args).expect("valid flags");
        TranscriptionClient::from_config(&transcription, &llm)
    }

    #[test]
    fn openai_transcribes_at_the_chat_server_with_whisper_1_by_default() {
        let client = client(&["--llm-base-url", "http://localhost:8080/v1/"])
            .unwrap()
            .expect("a client");
        assert_eq!(
            client.endpoint.url.as_str(),
            "http://localhost:8080/v1/audio/transcriptions"
        );
        assert_eq!(client.model, "whisper-1");
    }

    #[test]
    fn anthropic_without_a_transcription_server_has_no_client() {
        assert!(client(&["--llm-provider", "anthropic"]).unwrap().is_none());
        let configured = client(&[
            "--llm-provider",
            "anthropic",
            "--llm-api-key",
            "sk-ant-secret",
            "--transcription-base-url",
            "http://127.0.0.1:9000/v1",
        ])
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
