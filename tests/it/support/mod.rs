//! What the specifications share and do not specify: test doubles for the network (a fake
//! Telegram Bot API server with Telegram's HTML checks, a fake LLM server and a modest model to
//! answer through it, a fake embedding server, fake speech and image servers and a real speech
//! server on espeak-ng), the harnesses that run the real bot against them, the load generator,
//! plain retrieval baselines (BM25 and cosine top-k) to measure memory against, and small helpers
//! for test databases and for waiting. Nothing here asserts a behaviour of telemem; the specs
//! beside this folder do.
//!
//! `fake_llm`, `fake_telegram`, `telegram_html`, `run_command` and `loadgen` are also compiled
//! into `examples/loadgen.rs` (the first three into `examples/docker_smoke.rs` and
//! `examples/compose_smoke.rs` too), as modules at its root, so the files here name each other
//! with `super::`.

pub mod baselines;
pub mod bot_harness;
pub mod bot_process;
pub mod browser;
pub mod command_line;
pub mod config;
pub mod database;
pub mod fake_embeddings;
pub mod fake_llm;
pub mod fake_media;
pub mod fake_telegram;
pub mod loadgen;
pub mod mcp;
pub mod modest_model;
pub mod pipeline;
pub mod run_command;
pub mod telegram_html;
pub mod times;
pub mod waiting;
pub mod webapp;
