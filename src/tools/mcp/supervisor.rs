//! One task per MCP server keeps it connected: it starts the server (a child process, or a
//! session over HTTP), lists its tools and publishes them; when the server goes away it withdraws
//! them at once and starts it again after a [`Backoff`].
//!
//! Children never see the bot's environment: it holds the Telegram token and the API keys, so a
//! child gets a cleared one with only what programs need to run plus its own configured `env`.
//! What a child writes to standard error is logged line by line under the server's name; tool
//! arguments and results are never logged (they are people's data).

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsString;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use process_wrap::tokio::CommandWrap;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion, Tool};
use rmcp::service::{RoleClient, RunningService, ServiceExt};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::config::{Transport, offered_tool_name};
use super::http_client::McpHttpClient;
use super::output::tool_spec;
use super::{Connection, McpSettings, OfferedTool, Server};
use crate::backoff::Backoff;

/// The waits between attempts to start a server that keeps failing.
const RESTART_BACKOFF: Backoff = Backoff::new(Duration::from_secs(1), Duration::from_secs(300));

/// A connection that lasted this long was a success: the next failure waits the shortest time.
const STABLE_CONNECTION: Duration = Duration::from_secs(60);

/// How long a server has to close when we stop it before it is left to be killed.
const CLOSE_GRACE: Duration = Duration::from_secs(5);

/// The variables of the bot's environment a child keeps: what programs need to find their
/// tools, home and locale. Nothing else (tokens, API keys) is passed on.
const INHERITED_VARIABLES: [&str; 4] = ["PATH", "HOME", "LANG", "TZ"];

/// The longest line of a child's standard error that is logged whole.
const MAX_STDERR_LINE: usize = 1_000;

type Client = RunningService<RoleClient, ClientConfig>;

/// Keeps `server` connected until `stop` is cancelled.
pub async fn supervise(server: Arc<Server>, settings: McpSettings, stop: CancellationToken) {
    let name = server.config.name.clone();
    let mut backoff = RESTART_BACKOFF;
    loop {
        let started = Instant::now();
        let connected = tokio::select! {
            () = stop.cancelled() => return,
            connected = tokio::time::timeout(settings.start_timeout, connect(&server)) => connected,
        };
        match connected {
            Ok(Ok((client, tools))) => {
                run(&server, client, tools, &stop).await;
                if started.elapsed() >= STABLE_CONNECTION {
                    backoff.reset();
                }
            }
            Ok(Err(error)) => {
                tracing::warn!(server = %name, error = %format!("{error:#}"), "MCP server did not start");
                server.set_error(format!("{error:#}"));
            }
            Err(_) => {
                let seconds = settings.start_timeout.as_secs();
                tracing::warn!(server = %name, seconds, "MCP server did not start in time");
                server.set_error(format!("did not start within {seconds} s"));
            }
        }
        let delay = backoff.next_delay();
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(delay) => {}
        }
    }
}

/// Starts the server, shakes hands and lists its tools.
async fn connect(server: &Server) -> anyhow::Result<(Client, Vec<Tool>)> {
    let handler = client_config();
    let client = match &server.config.transport {
        Transport::Stdio { command, args, env } => {
            let child = spawn_child(&server.config.name, command, args, env)?;
            handler
                .serve(child)
                .await
                .context("the MCP handshake failed")?
        }
        Transport::Http { url, headers } => {
            let http = McpHttpClient::new(headers)?;
            let config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
            let transport = StreamableHttpClientTransport::with_client(http, config);
            handler
                .serve(transport)
                .await
                .context("the MCP handshake failed")?
        }
    };
    let tools = client
        .list_all_tools()
        .await
        .context("listing the tools failed")?;
    Ok((client, tools))
}

fn client_config() -> ClientConfig {
    let implementation = Implementation::new("telemem", env!("CARGO_PKG_VERSION"));
    // The newest version that still opens with `initialize`, which every server speaks.
    ClientConfig::new(ClientCapabilities::default(), implementation)
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// The child process, its environment cleared, its standard error logged.
fn spawn_child(
    name: &str,
    command: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
) -> anyhow::Result<TokioChildProcess> {
    let mut child = tokio::process::Command::new(command);
    child
        .args(args)
        .env_clear()
        .envs(child_environment(|name| std::env::var_os(name), env))
        // Killed even when the runtime goes away before rmcp's own clean-up runs.
        .kill_on_drop(true);
    let mut child = CommandWrap::from(child);
    #[cfg(unix)]
    child.wrap(process_wrap::tokio::ProcessGroup::leader());
    let (transport, stderr) = TokioChildProcess::builder(child)
        .stderr(Stdio::piped())
        .spawn()
        .with_context(|| format!("could not run {command}"))?;
    if let Some(stderr) = stderr {
        tokio::spawn(log_stderr(name.to_owned(), stderr));
    }
    Ok(transport)
}

/// A child's whole environment: the [`INHERITED_VARIABLES`] that `ours` has, then the server's
/// configured `env` (which wins).
fn child_environment(
    ours: impl Fn(&str) -> Option<OsString>,
    configured: &BTreeMap<String, String>,
) -> Vec<(OsString, OsString)> {
    let inherited = INHERITED_VARIABLES
        .iter()
        .filter_map(|&name| Some((OsString::from(name), ours(name)?)));
    let configured = configured
        .iter()
        .map(|(name, value)| (OsString::from(name), OsString::from(value)));
    inherited.chain(configured).collect()
}

/// Logs each line of a child's standard error, cut to [`MAX_STDERR_LINE`] bytes so a child
/// cannot make us hold an endless line.
async fn log_stderr(server: String, stderr: impl AsyncRead + Unpin) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        let (consumed, ended) = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(buffer) => {
                let end = buffer.iter().position(|&byte| byte == b'\n');
                let piece = &buffer[..end.unwrap_or(buffer.len())];
                let room = MAX_STDERR_LINE.saturating_sub(line.len());
                line.extend_from_slice(&piece[..piece.len().min(room)]);
                (end.map_or(buffer.len(), |end| end + 1), end.is_some())
            }
        };
        reader.consume(consumed);
        if ended {
            log_stderr_line(&server, &line);
            line.clear();
        }
    }
    if !line.is_empty() {
        log_stderr_line(&server, &line);
    }
}

fn log_stderr_line(server: &str, line: &[u8]) {
    let line = String::from_utf8_lossy(line);
    tracing::info!(server, line = %line.trim_end(), "MCP server stderr");
}

/// Publishes the connected server's tools until it goes away or we stop, then withdraws them.
async fn run(server: &Server, client: Client, tools: Vec<Tool>, stop: &CancellationToken) {
    let connection = Arc::new(Connection {
        peer: client.peer().clone(),
        tools: offered_tools(&server.config.name, &tools),
        broken: CancellationToken::new(),
    });
    let broken = connection.broken.clone();
    tracing::info!(
        server = %server.config.name,
        tools = connection.tools.len(),
        "MCP server connected"
    );
    server.publish(connection);
    let closer = client.cancellation_token();
    let closed = client.waiting();
    tokio::pin!(closed);
    let reason = tokio::select! {
        () = stop.cancelled() => "stopped",
        () = broken.cancelled() => "broken",
        _ = &mut closed => "closed",
    };
    server.withdraw(format!("the connection was {reason}"));
    if reason != "closed" {
        closer.cancel();
        // Past the grace the service task finishes closing on its own (the child is killed).
        let _ = tokio::time::timeout(CLOSE_GRACE, closed).await;
    }
    tracing::info!(server = %server.config.name, reason, "MCP server disconnected");
}

/// The server's tools under their offered names. Names are distinct by construction
/// ([`offered_tool_name`]); a server listing one tool name twice keeps the first, loudly.
fn offered_tools(server: &str, tools: &[Tool]) -> Vec<OfferedTool> {
    let mut seen = HashSet::new();
    let mut offered = Vec::with_capacity(tools.len());
    for tool in tools {
        let name = offered_tool_name(server, &tool.name);
        if !seen.insert(name.clone()) {
            tracing::error!(
                server,
                tool = %tool.name,
                name,
                "the MCP server lists two tools under one name; the second is not offered"
            );
            continue;
        }
        offered.push(OfferedTool {
            spec: Arc::new(tool_spec(name, tool)),
            name: tool.name.to_string(),
        });
    }
    offered
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_gets_only_the_basic_variables_and_its_own_never_the_bots_secrets() {
        let ours = |name: &str| match name {
            "PATH" | "TELOXIDE_TOKEN" | "LLM_API_KEY" => {
                Some(OsString::from(format!("our {name}")))
            }
            _ => None,
        };
        let configured = BTreeMap::from([("API_TOKEN".to_owned(), "theirs".to_owned())]);
        let mut environment = child_environment(ours, &configured);
        environment.sort();
        let expected = [("API_TOKEN", "theirs"), ("PATH", "our PATH")]
            .map(|(name, value)| (OsString::from(name), OsString::from(value)));
        assert_eq!(environment, expected);
    }
}
