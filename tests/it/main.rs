//! The one integration-test binary: each module below is a family of specifications, read as a
//! list of behaviours. What they share lives in `support/`: the test doubles (a Telegram HTML
//! validator, a fake Bot API server, a fake LLM server and a modest model behind it, a fake
//! embedding server), the harnesses that run the real bot against them (in this process, or as a
//! child process), the load generator shared with `examples/loadgen.rs`, and the helpers for
//! databases and waiting.

mod admins;
mod bot;
mod browser_selftest;
mod cli;
mod config;
mod eval;
mod exactly_once;
mod facts;
mod fake_telegram_selftest;
mod faults;
mod http;
mod import;
mod incognito;
mod inline;
mod jobs;
mod languages;
mod limits;
mod llm;
mod load;
mod long_eval;
mod mcp;
mod meaning;
mod media;
mod memory;
mod models;
mod multilingual_eval;
mod notes;
mod operations;
mod overload;
mod people_store;
mod postgres;
mod privacy_groups;
mod privacy_memory;
mod privacy_ops;
mod purge_store;
mod recall_store;
mod reminders;
mod reminders_store;
mod render;
mod replicas;
mod search_index;
mod stop_and_retry;
mod storage;
mod support;
mod tools;
mod turn_sequence;
mod voice_and_pictures;
mod webapp;
mod webapp_browser;
