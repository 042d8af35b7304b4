//! telemem connects Telegram users to an LLM and gives the bot a memory that survives session
//! timeouts, restarts and deployments: every exchange is stored (in SQLite or PostgreSQL), closed
//! sessions are summarized, and each turn's prompt is assembled from a bounded slice of that
//! history.
//!
//! # Layout
//! - [`access_list`]: who may use the bot: the configured lists and the admins' allows and blocks.
//! - [`app`]: wires database, LLM client, bot and jobs together; owns shutdown.
//! - [`attachments`]: what photos, voice notes and documents become in a conversation (stored
//!   text, prompt text), and the checks on their bytes.
//! - [`backoff`]: doubling waits between retries, shared by Telegram and the LLM client.
//! - [`bounded_text`]: the length check of a text a person gives (persona, note, description).
//! - [`cli`]: the `telemem` command line and one function per subcommand.
//! - [`clock`]: where "now" comes from (integer UTC milliseconds), fakeable in tests.
//! - [`commands`]: the bot's commands and what each answers, for Telegram and `telemem chat`;
//!   the admins' commands in [`commands::admin`].
//! - [`config`]: one typed `Config` from flags and environment variables.
//! - [`conversation`]: one chat turn, free of Telegram (also behind `telemem chat`), and what the
//!   commands do to a conversation.
//! - [`http`]: the operations endpoint: `/healthz`, `/metrics`, and `telemem healthcheck`.
//! - [`import`]: `telemem import`: a Telegram export or JSON Lines history into one person's
//!   memory, with its original times, cut into sessions, stored once.
//! - [`ids`]: `UserId` and `ChatId`, the numbers conversations are keyed on.
//! - [`i18n`]: the languages the bot writes in (`Lang`), the catalog of `src/locales/*.ftl`.
//! - [`jobs`]: when the background jobs (purge, summarizer) run, and how they stop.
//! - [`llm`]: the LLM client (OpenAI-compatible and Anthropic), streaming and retries.
//! - [`memory`]: sessions, summaries and notes (and the summarizer that writes them), recall,
//!   redaction, the escaping of stored text in prompts, context assembly and its token budget.
//! - [`metrics`]: Prometheus metrics and the time of the last contact with Telegram.
//! - [`per_person`]: the per-minute counts both front ends keep of each active person.
//! - [`quota`]: what one person may use: tokens per day and stored history.
//! - [`replies`]: every sentence users see, in the person's language, for both front ends,
//!   grouped by who hears it.
//! - [`role`]: who said a message, shared by the LLM client and the store.
//! - [`running_turns`]: the turns running now, and stopping one (`/cancel`, Stop, Ctrl-C).
//! - [`secret`]: a string whose `Debug`/`Display` never shows its value.
//! - [`storage`]: the store (SQLite or PostgreSQL behind one facade), the only module with SQL.
//! - [`telegram`]: crash-safe intake (polling, webhook), the teloxide handler tree over its
//!   endpoints, which stand on a chat turn's machinery and the ways every endpoint answers;
//!   rendering and reply delivery.
//! - [`telemetry`]: tracing subscriber set-up.
//! - [`ticks`]: waking a periodic background loop until shutdown, alike for every job.
//! - [`time_zone`]: a person's time zone: reading its name, showing a moment on their clock.
//! - [`tokens`]: the token estimate every budget and count uses (no tokenizer).
//! - [`tools`]: the tools the model may call (built-in ones and MCP servers'), Telegram-free.
//! - [`voice_mode`]: how a person wants their answers (`/voice on|off|auto`).
//! - [`webapp`]: the Mini App: its page and JSON API on the HTTP listener, signed in by
//!   Telegram's init data.

pub mod access_list;
pub mod app;
pub mod attachments;
pub mod backoff;
pub mod bounded_text;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod conversation;
pub mod http;
pub mod i18n;
pub mod ids;
pub mod import;
pub mod jobs;
pub mod llm;
pub mod memory;
pub mod metrics;
pub mod per_person;
pub mod quota;
pub mod replies;
pub mod role;
pub mod running_turns;
pub mod secret;
pub mod setting;
pub mod storage;
pub mod telegram;
pub mod telemetry;
pub mod ticks;
pub mod time_zone;
pub mod tokens;
pub mod tools;
pub mod voice_mode;
pub mod webapp;
