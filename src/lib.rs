//! telemem connects Telegram users to an LLM and gives the bot a memory that survives session
//! timeouts, restarts and deployments: every exchange is stored in SQLite, closed sessions are
//! summarized, and each turn's prompt is assembled from a bounded slice of that history.
//!
//! # Layout
//! - [`cli`]: the `telemem` command line and one function per subcommand.
//! - [`clock`]: where "now" comes from (integer UTC milliseconds), fakeable in tests.
//! - [`config`]: one typed `Config` from flags and environment variables.
//! - [`jobs`]: background loops (the purge), each with a step function tests can call.
//! - [`secret`]: a string whose `Debug`/`Display` never shows its value.
//! - [`storage`]: the SQLite store, the only module with SQL.
//! - [`telemetry`]: tracing subscriber set-up.

pub mod cli;
pub mod clock;
pub mod config;
pub mod jobs;
pub mod secret;
pub mod storage;
pub mod telemetry;
