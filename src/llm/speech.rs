//! The speech client: reads text aloud through the OpenAI-compatible
//! `POST {TTS_BASE_URL}/audio/speech` (`{model, input, voice, response_format: "opus"}`), which
//! OpenAI, Kokoro-FastAPI, openedai-speech and Piper or espeak behind such a server all speak; and
//! its settings. Telegram-free.
//!
//! The answer is Opus in OGG, what Telegram plays as a voice note, either as the body's bytes or
//! as JSON carrying them in base64 (`audio`, `b64_json` or `data`); either way it is checked and
//! measured by [`ogg`] before anyone hears it. Text longer than the server takes is read in parts
//! ([`script`]). Every call is tried once: a failed voice answer leaves the text answer, which the
//! person already has. Errors never carry the key or the server's body.

mod ogg;
mod script;

pub use ogg::{OggError, OpusAudio, read_opus, sample_opus_file};
pub use script::{parts_for_speech, speakable_text};

use std::time::Duration;

use base64::Engine;

use crate::llm::LlmConfig;
use crate::llm::service::{CallFailure, OwnSettings, ServiceEndpoint, SettingNames};
use crate::secret::Secret;
use crate::setting::Setting;

/// Where and how text is read aloud, from flags or environment variables.
#[derive(Clone, Debug, clap::Args)]
pub struct SpeechConfig {
    /// Base URL of an OpenAI-compatible API with `/audio/speech` (OpenAI, Kokoro-FastAPI,
    /// openedai-speech, ...). Unset: no voice answers and no /tts.
    #[arg(id = "tts_base_url", setting = "TTS_BASE_URL", global = true)]
    pub base_url: Option<reqwest::Url>,

    /// Speech model, as the server knows it (`tts-1`, `kokoro`, ...).
    #[arg(
        id = "tts_model",
        setting = "TTS_MODEL",
        default_value = "tts-1",
        global = true
    )]
    pub model: String,

    /// Voice, as the server knows it (`alloy`, `af_heart`, ...).
    #[arg(
        id = "tts_voice",
        setting = "TTS_VOICE",
        default_value = "alloy",
        global = true
    )]
    pub voice: String,

    /// API key of the speech server. Default: `LLM_API_KEY` when `LLM_PROVIDER` is openai.
    #[arg(
        id = "tts_api_key",
        setting = "TTS_API_KEY",
        hide_env_values = true,
        global = true
    )]
    pub api_key: Option<Secret>,

    /// Time one part of speech may take to arrive.
    #[arg(id = "tts_timeout_secs", setting = "TTS_TIMEOUT_SECS", default_value_t = 60, global = true,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub timeout_secs: u64,

    /// Most characters the speech server takes in one request (OpenAI: 4096); longer text is
    /// read in parts, each its own voice note.
    #[arg(id = "tts_max_input_chars", setting = "TTS_MAX_INPUT_CHARS", default_value_t = 4_096, global = true,
          value_parser = clap::value_parser!(u32).range(100..=100_000))]
    pub max_input_chars: u32,

    /// Most characters read aloud at once (/tts, or an answer); longer text is not read.
    #[arg(id = "tts_max_text_chars", setting = "TTS_MAX_TEXT_CHARS", default_value_t = 12_000, global = true,
          value_parser = clap::value_parser!(u32).range(100..=1_000_000))]
    pub max_text_chars: u32,
}

/// Why text could not be read aloud. Messages never contain the key or the server's body.
#[derive(Debug, thiserror::Error)]
pub enum SpeechError {
    #[error("the speech server did not answer in time")]
    Timeout,
    #[error("could not reach the speech server")]
    Connect(#[source] reqwest::Error),
    /// 4xx other than 429: the server refused this text or these settings.
    #[error("the speech server refused the request (HTTP {status})")]
    Refused { status: u16 },
    /// 429 or 5xx: the server is busy or broken.
    #[error("the speech server failed (HTTP {status})")]
    Failed { status: u16 },
    /// The answer is not Opus in OGG (another format, or garbage).
    #[error("the speech server sent unusable audio: {0}")]
    BadAudio(String),
}

impl SpeechError {
    /// A short fixed name for metrics and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Timeout => "timeout",
            Self::Connect(_) => "connect",
            Self::Refused { .. } => "refused",
            Self::Failed { .. } => "failed",
            Self::BadAudio(_) => "bad_audio",
        }
    }
}

impl From<CallFailure> for SpeechError {
    fn from(failure: CallFailure) -> Self {
        match failure {
            CallFailure::Timeout => Self::Timeout,
            CallFailure::Connect(error) => Self::Connect(error),
            CallFailure::Status(status @ (429 | 500..=599)) => Self::Failed { status },
            CallFailure::Status(status) => Self::Refused { status },
        }
    }
}

/// A client for the configured speech server. Cloning is cheap and clones share connections.
#[derive(Clone)]
pub struct SpeechClient {
    endpoint: ServiceEndpoint,
    model: String,
    voice: String,
    timeout: Duration,
    max_input_chars: usize,
    max_text_chars: usize,
}

impl std::fmt::Debug for SpeechClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpeechClient")
            .field("endpoint", &self.endpoint.url.as_str())
            .field("model", &self.model)
            .field("voice", &self.voice)
            .finish_non_exhaustive()
    }
}

#[derive(serde::Serialize)]
struct SpeechRequest<'a> {
    model: &'a str,
    input: &'a str,
    voice: &'a str,
    response_format: &'static str,
}

impl SpeechClient {
    /// The client for `config`, or `None` when `TTS_BASE_URL` is unset: speaking is opted into,
    /// since a chat server rarely speaks too. Fails on settings that cannot work.
    pub fn from_config(config: &SpeechConfig, llm: &LlmConfig) -> anyhow::Result<Option<Self>> {
        let Some(base_url) = config.base_url.as_ref() else {
            return Ok(None);
        };
        let own = OwnSettings {
            base_url: Some(base_url),
            api_key: config.api_key.as_ref(),
            names: SettingNames {
                base_url: "TTS_BASE_URL",
                api_key: "TTS_API_KEY",
            },
        };
        let Some(endpoint) = ServiceEndpoint::from_settings(own, llm, "audio/speech")? else {
            return Ok(None);
        };
        let model = config.model.trim();
        anyhow::ensure!(!model.is_empty(), "TTS_MODEL is empty");
        let voice = config.voice.trim();
        anyhow::ensure!(!voice.is_empty(), "TTS_VOICE is empty");
        Ok(Some(Self {
            endpoint,
            model: model.to_owned(),
            voice: voice.to_owned(),
            timeout: Duration::from_secs(config.timeout_secs),
            max_input_chars: config.max_input_chars as usize,
            max_text_chars: config.max_text_chars as usize,
        }))
    }

    /// Most characters of speakable text read at once.
    pub fn max_text_chars(&self) -> usize {
        self.max_text_chars
    }

    /// `text` (already speakable: see [`speakable_text`]) cut into the parts one request takes.
    pub fn parts_of(&self, text: &str) -> Vec<String> {
        parts_for_speech(text, self.max_input_chars)
    }

    /// One part read aloud, as checked Opus in OGG, within `TTS_TIMEOUT_SECS`.
    pub async fn speak(&self, part: &str) -> Result<OpusAudio, SpeechError> {
        let request = SpeechRequest {
            model: &self.model,
            input: part,
            voice: &self.voice,
            response_format: "opus",
        };
        let answer = self
            .endpoint
            .post(self.timeout, |builder| builder.json(&request))
            .await?;
        let audio = audio_in_answer(answer.as_ref())?;
        read_opus(audio).map_err(|error| SpeechError::BadAudio(error.to_string()))
    }
}

/// The audio bytes of an answer: the body itself, or base64 in a JSON body's `audio`,
/// `b64_json` or `data` field (servers that wrap audio in JSON use one of these).
fn audio_in_answer(body: &[u8]) -> Result<Vec<u8>, SpeechError> {
    let starts_like_json = body
        .iter()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|&byte| byte == b'{');
    if !starts_like_json {
        return Ok(body.to_vec());
    }
    let bad = |what: &str| SpeechError::BadAudio(what.to_owned());
    let json: serde_json::Value =
        serde_json::from_slice(body).map_err(|_| bad("JSON that cannot be read"))?;
    let encoded = ["audio", "b64_json", "data"]
        .iter()
        .find_map(|field| json.get(field).and_then(serde_json::Value::as_str))
        .ok_or_else(|| bad("JSON without base64 audio"))?;
    base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| bad("base64 that cannot be decoded"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::parse_flags_with;

    fn client(args: &[&str]) -> anyhow::Result<Option<SpeechClient>> {
        let (llm, speech) = parse_flags_with::<SpeechConfig>(args).expect("valid flags");
        SpeechClient::from_config(&speech, &llm)
    }

    #[test]
    fn speech_is_off_until_its_server_is_set_and_uses_the_defaults() {
        assert!(
            client(&["--llm-base-url", "http://localhost:8080/v1"])
                .unwrap()
                .is_none()
        );
        let client = client(&["--tts-base-url", "http://127.0.0.1:8880/v1/"])
            .unwrap()
            .expect("a client");
        assert_eq!(
            client.endpoint.url.as_str(),
            "http://127.0.0.1:8880/v1/audio/speech"
        );
        assert_eq!(
            (client.model.as_str(), client.voice.as_str()),
            ("tts-1", "alloy")
        );
        assert_eq!(client.max_input_chars, 4_096);
    }

    #[test]
    fn a_wrong_setting_stops_the_start_naming_it() {
        let error = client(&[
            "--tts-base-url",
            "http://127.0.0.1:8880",
            "--tts-voice",
            " ",
        ])
        .unwrap_err();
        assert_eq!(error.to_string(), "TTS_VOICE is empty");
        let refused =
            parse_flags_with::<SpeechConfig>(&["--tts-max-input-chars", "5"]).expect_err("refused");
        assert!(
            refused.to_string().contains("TTS_MAX_INPUT_CHARS"),
            "{refused}"
        );
    }

    #[test]
    fn audio_comes_as_bytes_or_as_base64_in_json() {
        let opus = sample_opus_file(1_000);
        assert_eq!(audio_in_answer(&opus).unwrap(), opus);
        let encoded = base64::engine::general_purpose::STANDARD.encode(&opus);
        for field in ["audio", "b64_json", "data"] {
            let body = format!(r#" {{"{field}": "{encoded}"}}"#);
            assert_eq!(audio_in_answer(body.as_bytes()).unwrap(), opus);
        }
        let error = audio_in_answer(br#"{"error": "secret detail"}"#).unwrap_err();
        assert!(!error.to_string().contains("secret"), "{error}");
    }
}
