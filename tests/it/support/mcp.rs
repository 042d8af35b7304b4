//! The MCP servers the MCP client's specifications talk to: `examples/mcp_echo.rs` run as a
//! stdio child (through the client itself) or as a Streamable HTTP server on 127.0.0.1, plus
//! configurations, callers and waiting for tools to appear.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use telemem::storage::{ChatId, ConversationKey, UserId};
use telemem::tools::Caller;
use telemem::tools::mcp::{McpConfig, McpServers, McpSettings};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::waiting::{PATIENCE, eventually};

/// The bot's admin in these specs.
pub const ADMIN: i64 = 1;
/// A person who is not an admin.
pub const PERSON: i64 = 2;

/// The `mcp_echo` example, built next to this test binary (`target/debug/deps/it-<hash>` →
/// `target/debug/examples/mcp_echo`).
pub fn mcp_echo_path() -> PathBuf {
    let test_binary = std::env::current_exe().expect("the test binary's path");
    let debug = test_binary
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the test binary lives in target/<profile>/deps");
    let example = debug
        .join("examples")
        .join(format!("mcp_echo{}", std::env::consts::EXE_SUFFIX));
    assert!(
        example.exists(),
        "{} is missing: run `cargo build --examples` first",
        example.display()
    );
    example
}

/// Limits short enough for tests, long enough for a loaded machine.
pub fn test_settings() -> McpSettings {
    McpSettings {
        start_timeout: PATIENCE,
        call_timeout: Duration::from_secs(10),
        max_result_chars: 1_000,
        start_wait: PATIENCE,
    }
}

/// A configuration with one stdio server `name` running `mcp_echo`; `extra` adds keys to it
/// (`allow`, `env`, `timeout_secs`, ...).
pub fn echo_config(name: &str, extra: serde_json::Value) -> McpConfig {
    let mut server = json!({"command": mcp_echo_path()});
    if let (Some(server), Some(extra)) = (server.as_object_mut(), extra.as_object()) {
        server.extend(extra.clone());
    }
    let config = json!({"mcpServers": {name: server}});
    McpConfig::parse(&config.to_string()).expect("a valid test configuration")
}

/// `user` in a private chat, an admin or not.
pub fn caller(user: i64, is_admin: bool) -> Caller {
    Caller {
        key: ConversationKey::new(ChatId(user), UserId(user)),
        is_admin,
    }
}

pub fn admin() -> Caller {
    caller(ADMIN, true)
}

/// Whether `caller` is offered `count` tools within [`PATIENCE`].
pub async fn offers_tools(servers: &McpServers, caller: &Caller, count: usize) -> bool {
    eventually(|| async { servers.tools(caller).len() == count }, PATIENCE).await
}

/// Whether the process `pid` runs (and is not a zombie waiting to be reaped). Linux's /proc.
pub fn process_is_running(pid: &str) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // "<pid> (<name>) <state> ...": the state follows the name's closing parenthesis.
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    !matches!(state, None | Some("Z" | "X"))
}

/// `mcp_echo` serving Streamable HTTP on 127.0.0.1; killed when dropped.
pub struct HttpEcho {
    pub url: String,
    process: tokio::process::Child,
}

impl HttpEcho {
    /// On a port of the system's choosing.
    pub async fn start() -> Self {
        Self::start_on("127.0.0.1:0").await
    }

    /// Kills the server and starts another on the same address, as a restarted server would.
    pub async fn restart(mut self) -> Self {
        self.process.kill().await.expect("mcp_echo is killed");
        let address = self
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_owned();
        Self::start_on(&address).await
    }

    async fn start_on(address: &str) -> Self {
        let mut process = tokio::process::Command::new(mcp_echo_path())
            .args(["--http", address])
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("mcp_echo starts");
        let stdout = process.stdout.take().expect("a piped standard output");
        let mut lines = BufReader::new(stdout).lines();
        let url = tokio::time::timeout(PATIENCE, lines.next_line())
            .await
            .expect("mcp_echo says its URL in time")
            .expect("mcp_echo's standard output")
            .expect("a line with the URL");
        Self { url, process }
    }

    /// Kills the server, leaving nothing listening at its URL.
    pub async fn kill(&mut self) {
        self.process.kill().await.expect("mcp_echo is killed");
    }
}
