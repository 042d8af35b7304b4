//! The tools of the MCP servers `MCP_CONFIG` names: [`McpServers`] keeps each server connected
//! in the background (`supervisor.rs`), offers the tools of those currently up to the people each
//! server's `allow` admits, and runs their calls with a time limit, turning every failure into a
//! [`ToolOutput`] the model is told about.
//!
//! Start-up never waits for a server: tools appear when their server is up and disappear the
//! moment it goes away. A turn that comes while a server it may use is still making its first
//! connection waits for it a little ([`McpSettings::start_wait`], [`McpServers::wait_for_starting`]),
//! so the messages that waited while the bot was down are not answered without the tools. The configuration is `config.rs`, the HTTP transport on the bot's
//! reqwest `http_client.rs`, the translation of schemas and results `output.rs`. Nothing here
//! logs what a tool was given or gave back; only server, tool, duration and outcome.

mod config;
mod http_client;
mod output;
mod supervisor;

use std::collections::HashSet;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{Peer, RoleClient, ServiceError};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

pub use config::{Allow, McpConfig, ServerConfig, Transport, offered_tool_name};

use crate::llm::ToolSpec;
use crate::tools::{Caller, ToolOutput};

/// Limits every MCP server shares.
#[derive(Clone, Debug)]
pub struct McpSettings {
    /// How long starting a server (handshake and listing its tools) may take.
    pub start_timeout: Duration,
    /// How long a tool call may take, unless the server's `timeout_secs` says otherwise.
    pub call_timeout: Duration,
    /// The longest result, in characters, the model is given; longer ones are cut.
    pub max_result_chars: usize,
    /// How long a turn waits for a server still making its first connection.
    pub start_wait: Duration,
}

impl Default for McpSettings {
    fn default() -> Self {
        Self {
            start_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(60),
            max_result_chars: 20_000,
            start_wait: Duration::from_secs(5),
        }
    }
}

/// What an admin sees of one server (`/tools`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerStatus {
    pub name: String,
    /// `stdio` or `http`.
    pub transport: &'static str,
    pub connected: bool,
    /// How many tools it offers now (none while it is down).
    pub tools: usize,
    pub allow: Allow,
    /// Why it was last down, when it is not connected.
    pub last_error: Option<String>,
}

/// The MCP servers, kept connected by one task each. Cloning is cheap; the servers stop when
/// [`McpServers::shutdown`] is called or the last clone is dropped.
#[derive(Clone)]
pub struct McpServers {
    inner: Arc<Inner>,
}

// For the structs that hold it: which servers, not their state.
impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = self.inner.servers.iter().map(|server| &server.config.name);
        f.debug_list().entries(names).finish()
    }
}

struct Inner {
    servers: Vec<Arc<Server>>,
    settings: McpSettings,
    stop: CancellationToken,
    tasks: TaskTracker,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// A configured server and, while it is up, its connection.
struct Server {
    config: ServerConfig,
    state: RwLock<ServerState>,
    /// Cancelled once the first try to connect has ended, up or failed.
    first_try_ended: CancellationToken,
}

#[derive(Default)]
struct ServerState {
    connection: Option<Arc<Connection>>,
    last_error: Option<String>,
}

/// A server that is up: the handle to call it and its tools.
struct Connection {
    peer: Peer<RoleClient>,
    tools: Vec<OfferedTool>,
    /// Cancelled by a call that found the transport broken: the supervisor starts over.
    broken: CancellationToken,
}

impl Connection {
    fn is_up(&self) -> bool {
        !self.broken.is_cancelled() && !self.peer.is_transport_closed()
    }
}

/// A tool as the model sees it, and its name on its server.
struct OfferedTool {
    spec: Arc<ToolSpec>,
    name: String,
}

impl Server {
    fn connection(&self) -> Option<Arc<Connection>> {
        let state = self.state.read().unwrap_or_else(PoisonError::into_inner);
        state
            .connection
            .clone()
            .filter(|connection| connection.is_up())
    }

    fn publish(&self, connection: Arc<Connection>) {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        state.connection = Some(connection);
        state.last_error = None;
        self.first_try_ended.cancel();
    }

    fn withdraw(&self, reason: String) {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        state.connection = None;
        state.last_error = Some(reason);
    }

    fn set_error(&self, error: String) {
        let mut state = self.state.write().unwrap_or_else(PoisonError::into_inner);
        state.last_error = Some(error);
        self.first_try_ended.cancel();
    }
}

impl McpServers {
    /// No servers: `MCP_CONFIG` is unset.
    pub fn none() -> Self {
        Self::start(McpConfig::default(), McpSettings::default())
    }

    /// Starts keeping every configured server connected, in the background: returns at once.
    /// Needs a Tokio runtime.
    pub fn start(config: McpConfig, settings: McpSettings) -> Self {
        let stop = CancellationToken::new();
        let tasks = TaskTracker::new();
        let servers: Vec<Arc<Server>> = config
            .servers
            .into_iter()
            .map(|config| {
                Arc::new(Server {
                    config,
                    state: RwLock::default(),
                    first_try_ended: CancellationToken::new(),
                })
            })
            .collect();
        for server in &servers {
            let supervisor = supervisor::supervise(server.clone(), settings.clone(), stop.clone());
            tasks.spawn(supervisor);
        }
        tasks.close();
        Self {
            inner: Arc::new(Inner {
                servers,
                settings,
                stop,
                tasks,
            }),
        }
    }

    /// Stops every server (children are asked to exit, then killed) and waits for that.
    pub async fn shutdown(&self) {
        self.inner.stop.cancel();
        self.inner.tasks.wait().await;
    }

    /// Waits, up to [`McpSettings::start_wait`], for the servers `caller` may use that are still
    /// making their first connection (right after a start); returns at once when none is.
    pub async fn wait_for_starting(&self, caller: &Caller) {
        let deadline = Instant::now() + self.inner.settings.start_wait;
        for server in &self.inner.servers {
            if server.config.allow.admits(caller) && !server.first_try_ended.is_cancelled() {
                let first_try = server.first_try_ended.cancelled();
                if tokio::time::timeout_at(deadline, first_try).await.is_err() {
                    tracing::info!(server = %server.config.name, "answering without a server still starting");
                    return;
                }
            }
        }
    }

    /// The tools `caller` may use now, from the servers that are up.
    pub fn tools(&self, caller: &Caller) -> Vec<Arc<ToolSpec>> {
        let mut tools = Vec::new();
        self.for_each_offered(|server, _, tool| {
            if server.config.allow.admits(caller) {
                tools.push(tool.spec.clone());
            }
        });
        tools
    }

    /// Every connected server's tools, each name once (names are distinct by construction:
    /// [`config::offered_tool_name`]).
    fn for_each_offered(
        &self,
        mut visit: impl FnMut(&Arc<Server>, &Arc<Connection>, &OfferedTool),
    ) {
        let mut seen = HashSet::new();
        for server in &self.inner.servers {
            let Some(connection) = server.connection() else {
                continue;
            };
            for tool in &connection.tools {
                if seen.insert(tool.spec.name.clone()) {
                    visit(server, &connection, tool);
                }
            }
        }
    }

    /// Runs the tool offered as `name` for `caller`. Every failure is an error output.
    pub async fn call(
        &self,
        caller: &Caller,
        name: &str,
        arguments: serde_json::Value,
    ) -> ToolOutput {
        let Some((server, connection, tool)) = self.find(caller, name) else {
            return self.not_found(caller, name);
        };
        let serde_json::Value::Object(arguments) = arguments else {
            return ToolOutput::error(format!("the arguments of {name} must be a JSON object"));
        };
        let timeout = server
            .config
            .call_timeout
            .unwrap_or(self.inner.settings.call_timeout);
        let params = CallToolRequestParams::new(tool.clone()).with_arguments(arguments);
        let started = Instant::now();
        // Dropping the call at the deadline tells the server it was cancelled.
        let result = tokio::time::timeout(timeout, connection.peer.call_tool(params)).await;
        let (output, outcome) = match result {
            Err(_) => {
                let seconds = timeout.as_secs();
                let text = format!("the tool {name} did not answer within {seconds} s");
                (ToolOutput::error(text), "timeout")
            }
            Ok(Ok(result)) => {
                let output = output::tool_output(&result, self.inner.settings.max_result_chars);
                let outcome = if output.is_error { "tool error" } else { "ok" };
                (output, outcome)
            }
            Ok(Err(ServiceError::TransportClosed | ServiceError::TransportSend(_))) => {
                connection.broken.cancel();
                (unavailable(&server.config.name), "server gone")
            }
            Ok(Err(ServiceError::McpError(error))) => {
                let text = format!("the tool {name} failed: {}", error.message);
                (ToolOutput::error(text), "protocol error")
            }
            Ok(Err(error)) => {
                let text = format!("the tool {name} failed: {error}");
                (ToolOutput::error(text), "protocol error")
            }
        };
        tracing::info!(
            server = %server.config.name,
            tool = %tool,
            duration_ms = started.elapsed().as_millis() as u64,
            outcome,
            "MCP tool called"
        );
        output
    }

    /// The server, connection and server-side name of the tool offered to `caller` as `name`.
    fn find(&self, caller: &Caller, name: &str) -> Option<(Arc<Server>, Arc<Connection>, String)> {
        let mut found = None;
        self.for_each_offered(|server, connection, tool| {
            if found.is_none() && tool.spec.name == name && server.config.allow.admits(caller) {
                found = Some((server.clone(), connection.clone(), tool.name.clone()));
            }
        });
        found
    }

    /// The answer for a name no server up offers to `caller`: the server's tools are gone while
    /// it is down, so a name of its shape says so; any other name, or a server `caller` may not
    /// use, gets the same answer as a name that never existed.
    fn not_found(&self, caller: &Caller, name: &str) -> ToolOutput {
        let down = self.inner.servers.iter().find(|server| {
            server.config.allow.admits(caller)
                && name.starts_with(&config::offered_prefix(&server.config.name))
                && server.connection().is_none()
        });
        match down {
            Some(server) => unavailable(&server.config.name),
            None => ToolOutput::error(format!("no tool named {name}")),
        }
    }

    /// Each server's state, in the configuration's order.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.inner
            .servers
            .iter()
            .map(|server| {
                let connection = server.connection();
                let state = server.state.read().unwrap_or_else(PoisonError::into_inner);
                ServerStatus {
                    name: server.config.name.clone(),
                    transport: match server.config.transport {
                        Transport::Stdio { .. } => "stdio",
                        Transport::Http { .. } => "http",
                    },
                    connected: connection.is_some(),
                    tools: connection.map_or(0, |connection| connection.tools.len()),
                    allow: server.config.allow.clone(),
                    last_error: state.last_error.clone(),
                }
            })
            .collect()
    }
}

fn unavailable(server: &str) -> ToolOutput {
    ToolOutput::error(format!("the server {server} is not available right now"))
}
