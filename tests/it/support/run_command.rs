//! The `telemem run` command against the fakes, shared by the bot processes of the
//! specifications (`bot_process.rs`) and of the load generator (`loadgen.rs`, also compiled into
//! `examples/loadgen.rs`): the same connections and defaults, so the two never drift apart.

use std::path::Path;
use std::process::Command;

use super::fake_llm::FakeLlm;
use super::fake_telegram::FakeTelegram;

/// `<bin> run` on `database_url` against `telegram` and `llm`, everyone allowed, not streaming,
/// not throttled. Only what is set here reaches the bot (and `PATH`): a developer's own
/// `TELOXIDE_TOKEN` or `LLM_*` must not leak in. Callers add their own settings on top.
pub fn telemem_run(
    bin: &Path,
    telegram: &FakeTelegram,
    llm: &FakeLlm,
    database_url: &str,
) -> Command {
    let mut command = Command::new(bin);
    command
        .arg("run")
        .env_clear()
        .envs(std::env::var_os("PATH").map(|path| ("PATH", path)))
        .env("TELOXIDE_TOKEN", telegram.token())
        .env("TELOXIDE_API_URL", telegram.api_url().as_str())
        .env("ALLOW_ALL_USERS", "true")
        .env("LLM_BASE_URL", llm.base_url())
        .env("DATABASE_URL", database_url)
        .env("STREAM_REPLIES", "false")
        .env("TELEGRAM_THROTTLE", "false");
    command
}
