//! A small MCP server for the MCP client's tests (`tests/it/mcp.rs`), built on rmcp's server
//! side: each tool exercises one path of the client (a result, a failure, a slow answer, a dying
//! server, a long result, what the environment holds, which process it is).
//!
//! ```bash
//! cargo run --example mcp_echo                          # MCP over standard input and output
//! cargo run --example mcp_echo -- --http 127.0.0.1:0    # Streamable HTTP; prints its URL
//! ```
//!
//! Standard output is the protocol in the first form, so logs go to standard error.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct SleepArgs {
    /// How long to wait before answering, in milliseconds.
    ms: u64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct BigArgs {
    /// How many characters the answer has.
    chars: usize,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
struct EnvArgs {
    /// The environment variable to read.
    name: String,
}

#[derive(Clone)]
struct Echo {
    // Read by the code `#[tool_handler]` generates.
    #[allow(dead_code)]
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Echo {
    #[tool(description = "Sends the text back")]
    async fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Always fails")]
    async fn fail(&self) -> Result<String, String> {
        Err("this tool always fails".to_owned())
    }

    #[tool(description = "Answers after a while")]
    async fn sleep(&self, Parameters(SleepArgs { ms }): Parameters<SleepArgs>) -> String {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
        format!("slept {ms} ms")
    }

    #[tool(description = "Ends the server's process")]
    async fn exit(&self) -> String {
        std::process::exit(3)
    }

    #[tool(description = "Answers with a long text")]
    async fn big(&self, Parameters(BigArgs { chars }): Parameters<BigArgs>) -> String {
        "é".repeat(chars)
    }

    #[tool(description = "The server's process id")]
    async fn pid(&self) -> String {
        std::process::id().to_string()
    }

    #[tool(description = "What /proc shows of the parent process's environment")]
    async fn parent_environment(&self) -> String {
        let parent = std::os::unix::process::parent_id();
        match std::fs::read(format!("/proc/{parent}/environ")) {
            Ok(block) => String::from_utf8_lossy(&block).replace('\0', "\n"),
            Err(error) => format!("unreadable: {error}"),
        }
    }

    #[tool(description = "The value of an environment variable, or \"unset\"")]
    async fn env(&self, Parameters(EnvArgs { name }): Parameters<EnvArgs>) -> String {
        std::env::var(name).unwrap_or_else(|_| "unset".to_owned())
    }
}

#[tool_handler]
impl ServerHandler for Echo {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn echo() -> Echo {
    Echo {
        tool_router: Echo::tool_router(),
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => serve_stdio().await,
        [flag, address] if flag == "--http" => serve_http(address).await,
        _ => anyhow::bail!("usage: mcp_echo [--http ADDRESS]"),
    }
}

async fn serve_stdio() -> anyhow::Result<()> {
    // A slow server to start, for the tests of turns that wait for one.
    if let Some(delay) = std::env::var("ECHO_START_DELAY_MS")
        .ok()
        .and_then(|ms| ms.parse().ok())
    {
        tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
    }
    eprintln!("mcp_echo: serving on standard input and output");
    let service = echo().serve(rmcp::transport::stdio()).await?;
    // Ends when the client closes our standard input.
    service.waiting().await?;
    Ok(())
}

async fn serve_http(address: &str) -> anyhow::Result<()> {
    let service: StreamableHttpService<Echo, LocalSessionManager> = StreamableHttpService::new(
        || Ok(echo()),
        Default::default(),
        StreamableHttpServerConfig::default(),
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(address).await?;
    // The test reads this line to learn the port.
    println!("http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, router).await?;
    Ok(())
}
