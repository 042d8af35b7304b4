//! The LLM client: one [`LlmClient`] that speaks either the OpenAI chat-completions dialect
//! (OpenAI, Ollama, vLLM, llama.cpp, ...) or Anthropic's Messages API, plain or streamed.
//!
//! It owns the wire: request bodies, server-sent events, retries with backoff inside one time
//! budget, and turning every failure into an [`LlmError`] the caller can branch on. It knows
//! nothing about Telegram, sessions or storage: callers hand it a finished [`ChatRequest`].
//!
//! Nothing here may leak the API key or a provider's error body into an error message: errors
//! end up in logs and, through careless callers, in chats. Bodies are only logged at debug level,
//! truncated and with the key masked.
//!
//! # Layout
//! - `chat.rs`: the request and reply types; `error.rs`: [`LlmError`].
//! - `config.rs`: [`LlmConfig`] and [`Provider`], the flags and their defaults.
//! - `models.rs`: [`ModelList`], the models people may choose (`LLM_MODELS`).
//! - `client.rs`: [`LlmClient`], sending, streaming and retrying.
//! - `dialect.rs`: the `Dialect` trait, the provider's wire format, which `openai.rs` and
//!   `anthropic.rs` implement.
//! - `sse.rs`: the event-stream parser; `retry.rs`: the retry policy.
//! - `embeddings.rs`: the embedding client (`/embeddings`) and its settings, for recall by meaning.
//! - `transcription.rs`: the transcription client (`/audio/transcriptions`) and its settings, for
//!   voice notes.
//! - `speech.rs`: the speech client (`/audio/speech`) and its settings, the Opus checks and the
//!   text read aloud, for voice answers and `/tts`.
//! - `images.rs`: the picture client (`/images/generations`) and its settings, for `/image`.
//! - `server_settings.rs`: the base URL, model and key settings of those four side servers;
//!   `service.rs`: what their clients share on the wire.

mod anthropic;
mod chat;
mod client;
mod config;
mod dialect;
pub mod embeddings;
mod error;
pub mod images;
mod models;
mod openai;
mod retry;
pub mod server_settings;
mod service;
pub mod speech;
mod sse;
pub mod transcription;

pub use crate::role::Role;
pub use chat::{ChatMessage, ChatRequest, Completion, Image, ToolCall, ToolResult, ToolSpec};
pub use client::LlmClient;
pub use config::{LlmConfig, Provider, model_name};
pub use error::LlmError;
pub use models::{ModelInUse, ModelList};
pub use service::CallFailure;
