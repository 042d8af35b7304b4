//! The picture client: draws a description through the OpenAI-compatible
//! `POST {IMAGE_BASE_URL}/images/generations` (`{model, prompt, n: 1, size, quality}`), which
//! OpenAI and local Stable Diffusion servers with that API (LocalAI, ...) speak; and its settings.
//! Telegram-free.
//!
//! The picture comes back as base64 (`data[0].b64_json`, asked for with `response_format` where
//! the model takes it) or as a URL to download (`data[0].url`); both are accepted. A refusal by
//! the server's safety system is told apart from other failures and carries the server's reason,
//! which the person is shown; no other part of a server's body leaves this module.

use std::time::Duration;

use base64::Engine;

use crate::llm::LlmConfig;
use crate::llm::server_settings::{ImageServer, ServerSettings};
use crate::llm::service::{CallFailure, ServiceEndpoint};
use crate::setting::Setting;

/// Largest picture accepted from a server or a download: Telegram takes photos up to 10 MB.
const MAX_PICTURE_BYTES: usize = 10 * 1024 * 1024;

/// Longest safety reason shown to the person, in characters.
const MAX_REASON_CHARS: usize = 300;

/// Where and how pictures are drawn, from flags or environment variables.
#[derive(Clone, Debug, clap::Args)]
pub struct ImageConfig {
    /// `IMAGE_BASE_URL` (unset: no /image and no `generate_image` tool), `IMAGE_MODEL` and
    /// `IMAGE_API_KEY`.
    #[command(flatten)]
    pub server: ServerSettings<ImageServer>,

    /// Size of a picture, `WIDTHxHEIGHT` as the server knows it (`1024x1024`, `1792x1024`, ...).
    #[arg(id = "image_size", setting = "IMAGE_SIZE", default_value = "1024x1024", global = true,
          value_parser = parse_image_size)]
    pub size: String,

    /// Quality, as the server knows it (`standard`, `hd`; `low`, `medium`, `high`, `auto`).
    #[arg(id = "image_quality", setting = "IMAGE_QUALITY", default_value = "standard", global = true,
          value_parser = parse_image_quality)]
    pub quality: String,

    /// Time a picture may take to be drawn (and downloaded).
    #[arg(id = "image_timeout_secs", setting = "IMAGE_TIMEOUT_SECS", default_value_t = 120, global = true,
          value_parser = clap::value_parser!(u64).range(1..=900))]
    pub timeout_secs: u64,

    /// Longest description of a picture, in characters; longer ones get a polite refusal.
    #[arg(id = "image_max_description_chars", setting = "IMAGE_MAX_DESCRIPTION_CHARS", default_value_t = 1_000, global = true,
          value_parser = clap::value_parser!(u32).range(10..=32_000))]
    pub max_description_chars: u32,
}

fn parse_image_size(value: &str) -> Result<String, String> {
    let valid = value == "auto"
        || value.split_once('x').is_some_and(|(width, height)| {
            [width, height].iter().all(|side| {
                side.parse::<u32>()
                    .is_ok_and(|pixels| (64..=8192).contains(&pixels))
            })
        });
    if valid {
        Ok(value.to_owned())
    } else {
        Err("expected WIDTHxHEIGHT in pixels, such as 1024x1024, or auto".to_owned())
    }
}

fn parse_image_quality(value: &str) -> Result<String, String> {
    const KNOWN: [&str; 6] = ["standard", "hd", "low", "medium", "high", "auto"];
    if KNOWN.contains(&value) {
        Ok(value.to_owned())
    } else {
        Err(format!("expected one of {}", KNOWN.join(", ")))
    }
}

/// A drawn picture.
#[derive(Clone, PartialEq, Eq)]
pub struct Picture {
    pub bytes: Vec<u8>,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Picture")
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

/// Why a picture could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    /// The server did not answer, or refused the request or the settings, or failed.
    #[error(transparent)]
    Call(#[from] CallFailure),
    /// The server's safety system refused the description; `reason` is the server's message,
    /// cut short, meant to be shown.
    #[error("the image server's safety system refused the description")]
    Unsafe { reason: String },
    #[error("the image server sent an unusable answer: {0}")]
    BadResponse(&'static str),
}

impl ImageError {
    /// A short fixed name for metrics and logs.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Call(failure) => failure.kind(),
            Self::Unsafe { .. } => "unsafe",
            Self::BadResponse(_) => "bad_response",
        }
    }
}

/// A client for the configured image server. Cloning is cheap and clones share connections.
#[derive(Clone, Debug)]
pub struct ImageClient {
    endpoint: ServiceEndpoint,
    size: String,
    quality: String,
    timeout: Duration,
    max_description_chars: usize,
}

#[derive(serde::Serialize)]
struct GenerationRequest<'a> {
    model: &'a str,
    prompt: &'a str,
    n: u8,
    size: &'a str,
    quality: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<&'static str>,
}

#[derive(serde::Deserialize)]
struct GenerationAnswer {
    data: Vec<GeneratedImage>,
}

#[derive(serde::Deserialize)]
struct GeneratedImage {
    b64_json: Option<String>,
    url: Option<String>,
}

impl ImageClient {
    /// The client for `config`, or `None` when `IMAGE_BASE_URL` is unset. Fails on settings
    /// that cannot work.
    pub fn from_config(config: &ImageConfig, llm: &LlmConfig) -> anyhow::Result<Option<Self>> {
        if config.server.base_url.is_none() {
            return Ok(None);
        }
        let Some(endpoint) =
            ServiceEndpoint::from_settings(&config.server, llm, "images/generations")?
        else {
            return Ok(None);
        };
        Ok(Some(Self {
            endpoint,
            size: config.size.clone(),
            quality: config.quality.clone(),
            timeout: Duration::from_secs(config.timeout_secs),
            max_description_chars: config.max_description_chars as usize,
        }))
    }

    /// Longest description accepted, in characters.
    pub fn max_description_chars(&self) -> usize {
        self.max_description_chars
    }

    /// `description` drawn, within `IMAGE_TIMEOUT_SECS` (download included).
    pub async fn draw(&self, description: &str) -> Result<Picture, ImageError> {
        let call = async {
            let image = self.generate(description).await?;
            let bytes = match (image.b64_json, image.url) {
                (Some(encoded), _) => base64::engine::general_purpose::STANDARD
                    .decode(encoded.trim())
                    .map_err(|_| ImageError::BadResponse("base64 that cannot be decoded"))?,
                (None, Some(url)) => self.download(&url).await?,
                (None, None) => return Err(ImageError::BadResponse("no picture in the answer")),
            };
            checked_picture(bytes)
        };
        tokio::time::timeout(self.timeout, call)
            .await
            .unwrap_or_else(|_| Err(self.endpoint.timed_out().into()))
    }

    /// The first picture the server describes in its answer to `description`.
    async fn generate(&self, description: &str) -> Result<GeneratedImage, ImageError> {
        let request = GenerationRequest {
            model: &self.endpoint.model,
            prompt: description,
            n: 1,
            size: &self.size,
            quality: &self.quality,
            // The GPT image models always answer base64 and refuse the field.
            response_format: (!self.endpoint.model.starts_with("gpt-image")).then_some("b64_json"),
        };
        let (status, body) = self
            .endpoint
            .post_reading_any_answer(self.timeout, |builder| builder.json(&request))
            .await?;
        if !(200..300).contains(&status) {
            return Err(self.refusal(status, body.as_ref()));
        }
        let answer: GenerationAnswer = serde_json::from_slice(body.as_ref())
            .map_err(|_| ImageError::BadResponse("not the expected JSON"))?;
        answer
            .data
            .into_iter()
            .next()
            .ok_or(ImageError::BadResponse("no picture in the answer"))
    }

    /// The picture at `url`, as the server linked it.
    async fn download(&self, url: &str) -> Result<Vec<u8>, ImageError> {
        let url = reqwest::Url::parse(url)
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https"))
            .ok_or(ImageError::BadResponse("a picture URL that is not http(s)"))?;
        let response = self
            .endpoint
            .http()
            .get(url)
            .send()
            .await
            .map_err(|error| self.endpoint.unreachable(error))?;
        if !response.status().is_success() {
            return Err(self
                .endpoint
                .status_failure(response.status().as_u16())
                .into());
        }
        let bytes = response
            .bytes()
            .await
            .map_err(|error| self.endpoint.unreachable(error))?;
        Ok(bytes.to_vec())
    }

    /// What a failed answer means: a safety refusal (with its reason), or a failure by status.
    fn refusal(&self, status: u16, body: &[u8]) -> ImageError {
        match safety_reason(status, body) {
            Some(reason) => ImageError::Unsafe { reason },
            None => self.endpoint.status_failure(status).into(),
        }
    }
}

/// The reason the server's safety system gave, when a failed answer is its refusal.
fn safety_reason(status: u16, body: &[u8]) -> Option<String> {
    let error = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|json| json.get("error").cloned());
    let field = |name: &str| {
        error
            .as_ref()
            .and_then(|error| error.get(name))
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let about_safety = |text: &str| {
        let text = text.to_lowercase();
        text.contains("content_policy") || text.contains("safety") || text.contains("moderation")
    };
    let is_safety = status == 400
        && (about_safety(&field("code")) || about_safety(&field("type")) || {
            let message = field("message");
            about_safety(&message)
        });
    if !is_safety {
        return None;
    }
    let message = field("message");
    Some(message.trim().chars().take(MAX_REASON_CHARS).collect())
}

/// `bytes` if they are a picture Telegram shows (PNG, JPEG, WebP) of a size it takes.
fn checked_picture(bytes: Vec<u8>) -> Result<Picture, ImageError> {
    if bytes.len() > MAX_PICTURE_BYTES {
        return Err(ImageError::BadResponse("a picture over 10 MB"));
    }
    let is_picture = bytes.starts_with(b"\x89PNG\r\n\x1a\n")
        || bytes.starts_with(&[0xFF, 0xD8, 0xFF])
        || (bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP"));
    if is_picture {
        Ok(Picture { bytes })
    } else {
        Err(ImageError::BadResponse("not a PNG, JPEG or WebP picture"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::config::{client_from_flags, parse_flags_with};

    #[test]
    fn pictures_are_off_until_their_server_is_set_and_use_the_defaults() {
        assert!(
            client_from_flags(&[], ImageClient::from_config)
                .unwrap()
                .is_none()
        );
        let client = client_from_flags(
            &["--image-base-url", "http://127.0.0.1:8080/v1"],
            ImageClient::from_config,
        )
        .unwrap()
        .expect("a client");
        assert_eq!(
            format!("{:?}", client.endpoint),
            "http://127.0.0.1:8080/v1/images/generations (dall-e-3)"
        );
        assert_eq!(
            (client.size.as_str(), client.quality.as_str()),
            ("1024x1024", "standard")
        );
    }

    #[test]
    fn a_wrong_size_or_quality_stops_the_start_naming_the_setting() {
        for args in [["--image-size", "huge"], ["--image-quality", "best"]] {
            let refused = parse_flags_with::<ImageConfig>(&args).expect_err("refused");
            let setting = args[0]
                .trim_start_matches("--")
                .replace('-', "_")
                .to_uppercase();
            assert!(refused.to_string().contains(&setting), "{refused}");
        }
    }

    #[test]
    fn a_safety_refusal_carries_its_reason_and_other_failures_do_not() {
        let body = br#"{"error": {"code": "content_policy_violation",
                        "message": "Your request was rejected by our safety system."}}"#;
        let client = client_from_flags(
            &["--image-base-url", "http://127.0.0.1:8080/v1"],
            ImageClient::from_config,
        )
        .unwrap()
        .expect("a client");
        match client.refusal(400, body) {
            ImageError::Unsafe { reason } => {
                assert_eq!(reason, "Your request was rejected by our safety system.")
            }
            other => panic!("{other:?}"),
        }
        let other = client.refusal(400, br#"{"error": {"message": "bad size 12x12"}}"#);
        assert!(
            matches!(
                other,
                ImageError::Call(CallFailure::Refused { status: 400, .. })
            ),
            "{other:?}"
        );
        assert!(matches!(
            client.refusal(503, b"oops"),
            ImageError::Call(CallFailure::Failed { status: 503, .. })
        ));
    }

    #[test]
    fn only_pictures_are_accepted() {
        assert!(checked_picture(b"\x89PNG\r\n\x1a\nrest".to_vec()).is_ok());
        assert!(checked_picture(vec![0xFF, 0xD8, 0xFF, 0xE0]).is_ok());
        assert!(matches!(
            checked_picture(b"<html>".to_vec()),
            Err(ImageError::BadResponse(_))
        ));
    }
}
