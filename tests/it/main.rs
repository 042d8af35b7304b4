//! The one integration-test binary: each module below is a family of specifications, plus the
//! test doubles they share (a Telegram HTML validator, a fake Bot API server, a fake LLM server)
//! and the harness that runs the real bot against them (in this process, or as a child process
//! under load: `loadgen.rs`, shared with `examples/loadgen.rs`).

mod bot;
mod bot_harness;
mod bot_process;
mod cli;
mod config;
mod eval;
mod exactly_once;
mod fake_embeddings;
mod fake_llm;
mod fake_telegram;
mod fake_telegram_selftest;
mod faults;
mod helpers;
mod http;
mod jobs;
mod llm;
mod load;
mod loadgen;
mod meaning;
mod memory;
mod operations;
mod overload;
mod privacy_groups;
mod privacy_memory;
mod privacy_ops;
mod render;
mod search_index;
mod storage;
mod telegram_html;
