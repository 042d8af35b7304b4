//! telemem connects Telegram users to an LLM and gives the bot a memory that survives session
//! timeouts, restarts and deployments: every exchange is stored in SQLite, closed sessions are
//! summarized, and each turn's prompt is assembled from a bounded slice of that history.
//!
//! # Layout
//! - [`config`]: one typed `Config` from flags and environment variables.
//! - [`llm`]: the LLM client (OpenAI-compatible or Anthropic), streaming, retries, `LlmError`.
//! - [`secret`]: a string whose `Debug`/`Display` never shows its value.

pub mod llm;
pub mod secret;
