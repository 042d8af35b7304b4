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
use crate::llm::server_settings::{ServerSettings, SpeechServer};
use crate::llm::service::{CallFailure, ServiceEndpoint};
use crate::setting::Setting;

/// Where and how text is read aloud, from flags or environment variables.
#[derive(Clone, Debug, clap::Args)]
pub struct SpeechConfig {
    /// `TTS_BASE_URL` (unset: no voice answers and no /tts), `TTS_MODEL` and `TTS_API_KEY`.
    #[command(flatten)]
    pub server: ServerSettings<SpeechServer>,

    /// Voice, as the server knows it (`alloy`, `af_heart`, ...).
    #[arg(
        id = "tts_voice",
        setting = "TTS_VOICE",
        default_value = "alloy",
        global = true
    )]
    pub voice: String,

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
    /// The server did not answer, or refused or failed the request.
    #[error(transparent)]
    Call(#[from] CallFailure),
    /// The answer is not Opus in OGG (another format, or garbage).
    #[error("the speech server sent unusable audio: {0}")]
    BadAudio(String),
}

impl SpeechError {
    /// A short fixed name for metrics and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Call(failure) => failure.kind(),
            Self::BadAudio(_) => "bad_audio",
        }
    }
}

/// A client for the configured speech server. Cloning is cheap and clones share connections.
#[derive(Clone, Debug)]
pub struct SpeechClient {
    endpoint: ServiceEndpoint,
    voice: String,
    timeout: Duration,
    max_input_chars: usize,
    max_text_chars: usize,
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
        if config.server.base_url.is_none() {
            return Ok(None);
        }
        let Some(endpoint) = ServiceEndpoint::from_settings(&config.server, llm, "audio/speech")?
        else {
            return Ok(None);
        };
        let voice = config.voice.trim();
        anyhow::ensure!(!voice.is_empty(), "TTS_VOICE is empty");
        Ok(Some(Self {
            endpoint,
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
            model: &self.endpoint.model,
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
    use crate::llm::config::{client_from_flags, parse_flags_with};

    #[test]
    fn speech_is_off_until_its_server_is_set_and_uses_the_defaults() {
        assert!(
            client_from_flags(
                &["--llm-base-url", "http://localhost:8080/v1"],
                SpeechClient::from_config
            )
            .unwrap()
            .is_none()
        );
        let client = client_from_flags(
            &["--tts-base-url", "http://127.0.0.1:8880/v1/"],
            SpeechClient::from_config,
        )
        .unwrap()
        .expect("a client");
        assert_eq!(
            format!("{:?}", client.endpoint),
            "http://127.0.0.1:8880/v1/audio/speech (tts-1)"
        );
        assert_eq!(client.voice, "alloy");
        assert_eq!(client.max_input_chars, 4_096);
    }

    #[test]
    fn a_wrong_setting_stops_the_start_naming_it() {
        let error = client_from_flags(
            &[
                "--tts-base-url",
                "http://127.0.0.1:8880",
                "--tts-voice",
                " ",
            ],
            SpeechClient::from_config,
        )
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
