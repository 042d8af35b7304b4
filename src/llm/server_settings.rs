//! The address, model and key settings of the OpenAI-compatible side servers (embeddings,
//! transcription, speech, images), declared once: [`ServerSettings`] is flattened into each
//! server's config, and [`SideServer`] gives each server its settings' names and what `--help`
//! says of them. The four servers' names stand together here, so that they stay alike.

use std::marker::PhantomData;

use anyhow::Context;

use crate::llm::model_name;
use crate::secret::Secret;
use crate::setting::Setting;

/// How one side server's settings are named and described.
pub struct ServerSettingNames {
    /// The server's name in messages: "could not reach the speech server".
    pub server: &'static str,
    pub base_url: &'static str,
    pub base_url_help: &'static str,
    pub model: &'static str,
    pub model_help: &'static str,
    /// The model when its setting is unset; `None`: no model, and the server is not used.
    pub default_model: Option<&'static str>,
    pub api_key: &'static str,
    pub api_key_help: &'static str,
}

/// A side server, named by the type its settings are read for.
pub trait SideServer: Clone + std::fmt::Debug + Send + Sync + 'static {
    const NAMES: ServerSettingNames;
}

/// A side server's own base URL, model and API key, from flags or environment variables. An
/// unset base URL or key falls back to the chat server's where the server allows it (see
/// `ServiceEndpoint::from_settings`).
#[derive(Clone, Debug, clap::Args)]
// No argument group: the four servers' settings would all claim the struct's name for theirs.
#[group(skip)]
pub struct ServerSettings<S: SideServer> {
    #[arg(
        id = S::NAMES.base_url,
        setting = S::NAMES.base_url,
        help = S::NAMES.base_url_help,
        global = true
    )]
    pub base_url: Option<reqwest::Url>,

    #[arg(
        id = S::NAMES.model,
        setting = S::NAMES.model,
        help = S::NAMES.model_help,
        default_value = S::NAMES.default_model,
        global = true
    )]
    pub model: Option<String>,

    #[arg(
        id = S::NAMES.api_key,
        setting = S::NAMES.api_key,
        help = S::NAMES.api_key_help,
        hide_env_values = true,
        global = true
    )]
    pub api_key: Option<Secret>,

    #[arg(skip)]
    server: PhantomData<S>,
}

impl<S: SideServer> ServerSettings<S> {
    /// The model, trimmed, unless it is unset or blank.
    pub fn model(&self) -> Option<&str> {
        model_name(self.model.as_deref())
    }

    /// The model, for a server that cannot work without one; fails naming the setting.
    pub fn required_model(&self) -> anyhow::Result<&str> {
        self.model()
            .with_context(|| format!("{} is empty", S::NAMES.model))
    }
}

/// The embedding server (`/embeddings`).
#[derive(Clone, Debug)]
pub struct EmbeddingServer;

impl SideServer for EmbeddingServer {
    const NAMES: ServerSettingNames = ServerSettingNames {
        server: "embedding",
        base_url: "EMBEDDING_BASE_URL",
        base_url_help: "Base URL of an OpenAI-compatible API with `/embeddings`. Default: \
                        `LLM_BASE_URL` when `LLM_PROVIDER` is openai (Anthropic has no \
                        embeddings API)",
        model: "EMBEDDING_MODEL",
        model_help: "Embedding model for recall by meaning (e.g. `all-minilm`, \
                     `nomic-embed-text`, `text-embedding-3-small`); unset: recall by words only",
        default_model: None,
        api_key: "EMBEDDING_API_KEY",
        api_key_help: "API key of the embedding server. Default: `LLM_API_KEY` when \
                       `LLM_PROVIDER` is openai",
    };
}

/// The transcription server (`/audio/transcriptions`).
#[derive(Clone, Debug)]
pub struct TranscriptionServer;

impl SideServer for TranscriptionServer {
    const NAMES: ServerSettingNames = ServerSettingNames {
        server: "transcription",
        base_url: "TRANSCRIPTION_BASE_URL",
        base_url_help: "Base URL of an OpenAI-compatible API with `/audio/transcriptions`. \
                        Default: `LLM_BASE_URL` when `LLM_PROVIDER` is openai. Anthropic has no \
                        transcription API: without this setting voice notes get a reply that \
                        they are not set up",
        model: "TRANSCRIPTION_MODEL",
        model_help: "Transcription model, as the server knows it (`whisper-1`, \
                     `whisper-large-v3`, ...)",
        default_model: Some("whisper-1"),
        api_key: "TRANSCRIPTION_API_KEY",
        api_key_help: "API key of the transcription server. Default: `LLM_API_KEY` when \
                       `LLM_PROVIDER` is openai",
    };
}

/// The speech server (`/audio/speech`).
#[derive(Clone, Debug)]
pub struct SpeechServer;

impl SideServer for SpeechServer {
    const NAMES: ServerSettingNames = ServerSettingNames {
        server: "speech",
        base_url: "TTS_BASE_URL",
        base_url_help: "Base URL of an OpenAI-compatible API with `/audio/speech` (OpenAI, \
                        Kokoro-FastAPI, openedai-speech, ...). Unset: no voice answers and no \
                        /tts",
        model: "TTS_MODEL",
        model_help: "Speech model, as the server knows it (`tts-1`, `kokoro`, ...)",
        default_model: Some("tts-1"),
        api_key: "TTS_API_KEY",
        api_key_help: "API key of the speech server. Default: `LLM_API_KEY` when `LLM_PROVIDER` \
                       is openai",
    };
}

/// The image server (`/images/generations`).
#[derive(Clone, Debug)]
pub struct ImageServer;

impl SideServer for ImageServer {
    const NAMES: ServerSettingNames = ServerSettingNames {
        server: "image",
        base_url: "IMAGE_BASE_URL",
        base_url_help: "Base URL of an OpenAI-compatible API with `/images/generations` \
                        (OpenAI, LocalAI, ...). Unset: no /image and no `generate_image` tool",
        model: "IMAGE_MODEL",
        model_help: "Image model, as the server knows it (`dall-e-3`, `gpt-image-1`, \
                     `stablediffusion`, ...)",
        default_model: Some("dall-e-3"),
        api_key: "IMAGE_API_KEY",
        api_key_help: "API key of the image server. Default: `LLM_API_KEY` when `LLM_PROVIDER` \
                       is openai",
    };
}
