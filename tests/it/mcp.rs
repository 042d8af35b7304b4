//! Specifications of the MCP client (`tools/mcp`): the tools of real MCP servers (the
//! `mcp_echo` example, over stdio and Streamable HTTP) offered under their names and schemas,
//! their results, failures, time limits and lengths, the children's environment, servers dying
//! and coming back, who may use which server, and the configuration's errors.

use std::time::Duration;

use serde_json::json;
use telemem::tools::ToolOutput;
use telemem::tools::mcp::{Allow, McpConfig, McpServers, McpSettings};

use crate::support::mcp::{
    ADMIN, HttpEcho, PERSON, admin, caller, echo_config, offers_tools, process_is_running,
    test_settings,
};
use crate::support::waiting::{PATIENCE, eventually};

/// The tools `mcp_echo` has.
const ECHO_TOOLS: usize = 8;

async fn started(config: McpConfig) -> McpServers {
    let servers = McpServers::start(config, test_settings());
    assert!(
        offers_tools(&servers, &admin(), ECHO_TOOLS).await,
        "{:?}",
        servers.status()
    );
    servers
}

#[tokio::test]
async fn the_tools_of_a_stdio_server_are_offered_as_server_and_tool_with_their_schemas() {
    let servers = started(echo_config("echo", json!({}))).await;

    let tools = servers.tools(&admin());
    let mut names: Vec<&str> = tools.iter().map(|tool| tool.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "echo__big",
            "echo__echo",
            "echo__env",
            "echo__exit",
            "echo__fail",
            "echo__parent_environment",
            "echo__pid",
            "echo__sleep"
        ]
    );
    let echo = tools.iter().find(|tool| tool.name == "echo__echo").unwrap();
    assert_eq!(echo.description, "Sends the text back");
    assert_eq!(echo.parameters["type"], "object");
    assert_eq!(echo.parameters["properties"]["text"]["type"], "string");
    assert_eq!(echo.parameters["required"], json!(["text"]));
    assert_eq!(echo.parameters.get("$schema"), None);
    let fail = tools.iter().find(|tool| tool.name == "echo__fail").unwrap();
    assert_eq!(fail.parameters["properties"], json!({}));
    servers.shutdown().await;
}

#[tokio::test]
async fn a_calls_text_comes_back_and_a_failing_tool_is_an_error_output() {
    let servers = started(echo_config("echo", json!({}))).await;

    let echoed = servers
        .call(&admin(), "echo__echo", json!({"text": "héllo"}))
        .await;
    let failed = servers.call(&admin(), "echo__fail", json!({})).await;
    let not_an_object = servers.call(&admin(), "echo__echo", json!("héllo")).await;

    assert_eq!(echoed, ToolOutput::ok("héllo"));
    assert_eq!(failed, ToolOutput::error("this tool always fails"));
    assert!(not_an_object.is_error, "{not_an_object:?}");
    servers.shutdown().await;
}

#[tokio::test]
async fn a_slow_tool_times_out_as_an_error_within_the_servers_timeout() {
    let servers = started(echo_config("echo", json!({"timeout_secs": 1}))).await;

    let started_at = tokio::time::Instant::now();
    let slow = servers
        .call(&admin(), "echo__sleep", json!({"ms": 60_000}))
        .await;

    assert_eq!(
        slow,
        ToolOutput::error("the tool echo__sleep did not answer within 1 s")
    );
    assert!(started_at.elapsed() < Duration::from_secs(5));
    let quick = servers
        .call(&admin(), "echo__sleep", json!({"ms": 1}))
        .await;
    assert_eq!(
        quick,
        ToolOutput::ok("slept 1 ms"),
        "the server still answers"
    );
    servers.shutdown().await;
}

#[tokio::test]
async fn a_result_too_long_is_cut_with_a_marker_saying_how_long_it_was() {
    let servers = started(echo_config("echo", json!({}))).await;

    let big = servers
        .call(&admin(), "echo__big", json!({"chars": 5_000}))
        .await;

    let limit = test_settings().max_result_chars;
    assert_eq!(
        big,
        ToolOutput::ok(format!(
            "{}\n[cut: the result was 5000 characters]",
            "é".repeat(limit)
        ))
    );
    servers.shutdown().await;
}

#[tokio::test]
async fn a_child_gets_its_configured_environment_but_not_the_bots() {
    let env = json!({"env": {"ORDERS_API_KEY": "k-123"}});
    let servers = started(echo_config("echo", env)).await;
    // Set in the test process (by cargo, or the shell) and not among the inherited ones.
    let ours = std::env::vars()
        .map(|(name, _)| name)
        .find(|name| !["PATH", "HOME", "LANG", "TZ"].contains(&name.as_str()));

    let read = |name: String| {
        let servers = servers.clone();
        async move {
            servers
                .call(&admin(), "echo__env", json!({"name": name}))
                .await
                .text
        }
    };

    assert_eq!(read("ORDERS_API_KEY".to_owned()).await, "k-123");
    assert_eq!(read("TELOXIDE_TOKEN".to_owned()).await, "unset");
    assert_eq!(read("LLM_API_KEY".to_owned()).await, "unset");
    if let Some(ours) = ours {
        assert_eq!(
            read(ours.clone()).await,
            "unset",
            "{ours} reached the child"
        );
    }
    if let Ok(path) = std::env::var("PATH") {
        assert_eq!(read("PATH".to_owned()).await, path);
    }
    servers.shutdown().await;
}

#[tokio::test]
async fn a_server_that_dies_loses_its_tools_and_is_back_after_a_restart() {
    let servers = started(echo_config("echo", json!({}))).await;

    let died = servers.call(&admin(), "echo__exit", json!({})).await;

    assert!(died.is_error, "{died:?}");
    let gone = || async { servers.tools(&admin()).is_empty() };
    // The restart may come before a look sees the gap; the status tells of it either way.
    let withdrawn =
        eventually(gone, Duration::from_secs(1)).await || servers.status()[0].last_error.is_some();
    assert!(withdrawn, "{:?}", servers.status());
    assert!(
        offers_tools(&servers, &admin(), ECHO_TOOLS).await,
        "{:?}",
        servers.status()
    );
    let echoed = servers
        .call(&admin(), "echo__echo", json!({"text": "again"}))
        .await;
    assert_eq!(echoed, ToolOutput::ok("again"));
    servers.shutdown().await;
}

#[tokio::test]
async fn shutting_down_ends_the_children() {
    let servers = started(echo_config("echo", json!({}))).await;
    let pid = servers.call(&admin(), "echo__pid", json!({})).await.text;
    assert!(process_is_running(&pid), "{pid}");

    servers.shutdown().await;

    // The child has exited by now; on a loaded machine its reaping may trail a little.
    let ended = || async { !process_is_running(&pid) };
    assert!(eventually(ended, PATIENCE).await, "{pid} still runs");
    assert!(servers.tools(&admin()).is_empty());
}

#[tokio::test]
async fn dropping_the_last_handle_ends_the_children() {
    let servers = started(echo_config("echo", json!({}))).await;
    let pid = servers.call(&admin(), "echo__pid", json!({})).await.text;
    let other_handle = servers.clone();
    drop(servers);
    assert!(
        process_is_running(&pid),
        "a clone keeps the servers running"
    );

    drop(other_handle);

    let ended = || async { !process_is_running(&pid) };
    assert!(eventually(ended, PATIENCE).await, "{pid} still runs");
}

#[tokio::test]
async fn a_call_to_a_server_that_is_down_says_it_is_not_available() {
    let servers = McpServers::start(echo_config("echo", json!({})), test_settings());
    servers.shutdown().await;

    let down = servers
        .call(&admin(), "echo__echo", json!({"text": "hi"}))
        .await;
    let unknown = servers
        .call(&admin(), "other__echo", json!({"text": "hi"}))
        .await;

    assert_eq!(
        down,
        ToolOutput::error("the server echo is not available right now")
    );
    assert_eq!(unknown, ToolOutput::error("no tool named other__echo"));
}

#[tokio::test]
async fn a_server_is_for_admins_unless_allowed_to_everyone_or_listed_people() {
    let admins = echo_config("admins", json!({}));
    let everyone = echo_config("everyone", json!({"allow": "everyone"}));
    let listed = echo_config("listed", json!({"allow": [PERSON]}));
    let config = McpConfig {
        servers: [admins, everyone, listed]
            .into_iter()
            .flat_map(|config| config.servers)
            .collect(),
    };
    let servers = McpServers::start(config, test_settings());
    let person = caller(PERSON, false);
    let stranger = caller(ADMIN + 100, false);
    assert!(
        offers_tools(&servers, &admin(), 2 * ECHO_TOOLS).await,
        "{:?}",
        servers.status()
    );

    assert!(offers_tools(&servers, &person, 2 * ECHO_TOOLS).await);
    assert!(offers_tools(&servers, &stranger, ECHO_TOOLS).await);
    let offered_to_stranger = servers.tools(&stranger);
    assert!(
        offered_to_stranger
            .iter()
            .all(|tool| tool.name.starts_with("everyone__"))
    );
    let refused = servers
        .call(&person, "admins__echo", json!({"text": "hi"}))
        .await;
    assert_eq!(refused, ToolOutput::error("no tool named admins__echo"));
    let refused = servers
        .call(&stranger, "listed__echo", json!({"text": "hi"}))
        .await;
    assert_eq!(refused, ToolOutput::error("no tool named listed__echo"));
    let allowed = servers
        .call(&person, "listed__echo", json!({"text": "hi"}))
        .await;
    assert_eq!(allowed, ToolOutput::ok("hi"));
    let status = servers.status();
    assert_eq!(
        status[2].allow,
        Allow::Users(vec![telemem::ids::UserId(PERSON)])
    );
    servers.shutdown().await;
}

#[tokio::test]
async fn a_command_that_does_not_exist_never_blocks_start_and_just_has_no_tools() {
    let config =
        McpConfig::parse(r#"{"mcpServers": {"missing": {"command": "/nonexistent/mcp-server"}}}"#)
            .unwrap();

    let started_at = tokio::time::Instant::now();
    let servers = McpServers::start(config, McpSettings::default());
    assert!(started_at.elapsed() < Duration::from_secs(1));

    let failed = || async { servers.status()[0].last_error.is_some() };
    assert!(eventually(failed, PATIENCE).await);
    assert!(servers.tools(&admin()).is_empty());
    assert!(!servers.status()[0].connected);
    servers.shutdown().await;
}

#[test]
fn a_configuration_names_the_server_whose_transport_or_allow_is_wrong() {
    let error = |json: &str| format!("{:#}", McpConfig::parse(json).unwrap_err());

    let both = error(r#"{"mcpServers": {"a": {"command": "x", "url": "http://h/"}}}"#);
    let neither = error(r#"{"mcpServers": {"b": {"args": ["x"]}}}"#);
    let allow = error(r#"{"mcpServers": {"c": {"command": "x", "allow": "admin"}}}"#);
    let ids = error(r#"{"mcpServers": {"d": {"command": "x", "allow": ["42"]}}}"#);
    let args = error(r#"{"mcpServers": {"e": {"command": "x", "args": "-v"}}}"#);
    let empty = error(r#"{"mcpServers": {"": {"command": "x"}}}"#);

    assert!(both.contains("\"a\"") && both.contains("both"), "{both}");
    assert!(
        neither.contains("\"b\"") && neither.contains("neither"),
        "{neither}"
    );
    assert!(
        allow.contains("\"c\"") && allow.contains("\"allow\""),
        "{allow}"
    );
    assert!(ids.contains("\"d\"") && ids.contains("\"allow\""), "{ids}");
    assert!(
        args.contains("\"e\"") && args.contains("\"args\""),
        "{args}"
    );
    assert!(empty.contains("empty name"), "{empty}");
}

#[test]
fn a_configuration_reads_both_transports_and_ignores_keys_it_does_not_know() {
    let config = McpConfig::parse(
        r#"{"mcpServers": {
            "web": {"url": "http://127.0.0.1:1/mcp", "headers": {"X-Key": "k"}, "type": "http"},
            "orders": {"command": "orders-mcp", "args": ["--db", "x"], "allow": "everyone",
                       "timeout_secs": 5, "disabled": false}
        }, "otherHostSetting": 1}"#,
    )
    .unwrap();

    let names: Vec<&str> = config
        .servers
        .iter()
        .map(|server| server.name.as_str())
        .collect();
    assert_eq!(names, ["orders", "web"]);
    assert_eq!(config.servers[0].allow, Allow::Everyone);
    assert_eq!(config.servers[0].call_timeout, Some(Duration::from_secs(5)));
    assert_eq!(config.servers[1].allow, Allow::Admins);
}

#[tokio::test]
async fn a_streamable_http_server_lists_and_calls_tools_through_the_bots_http_client() {
    let http = HttpEcho::start().await;
    let config = json!({"mcpServers": {"web": {"url": http.url, "headers": {"X-Test": "1"}}}});
    let config = McpConfig::parse(&config.to_string()).unwrap();
    let servers = McpServers::start(config, test_settings());
    assert!(
        offers_tools(&servers, &admin(), ECHO_TOOLS).await,
        "{:?}",
        servers.status()
    );

    let echoed = servers
        .call(&admin(), "web__echo", json!({"text": "over http"}))
        .await;
    let failed = servers.call(&admin(), "web__fail", json!({})).await;

    assert_eq!(echoed, ToolOutput::ok("over http"));
    assert_eq!(failed, ToolOutput::error("this tool always fails"));
    assert_eq!(servers.status()[0].transport, "http");
    servers.shutdown().await;
}

#[tokio::test]
async fn an_http_server_that_goes_away_is_not_available_and_is_used_again_once_back() {
    let mut http = HttpEcho::start().await;
    let config = json!({"mcpServers": {"web": {"url": http.url}}});
    let servers = McpServers::start(
        McpConfig::parse(&config.to_string()).unwrap(),
        test_settings(),
    );
    assert!(
        offers_tools(&servers, &admin(), ECHO_TOOLS).await,
        "{:?}",
        servers.status()
    );

    http.kill().await;
    let gone = servers
        .call(&admin(), "web__echo", json!({"text": "anyone?"}))
        .await;

    assert_eq!(
        gone,
        ToolOutput::error("the server web is not available right now")
    );
    assert!(servers.tools(&admin()).is_empty());
    let _http = http.restart().await;
    assert!(
        offers_tools(&servers, &admin(), ECHO_TOOLS).await,
        "{:?}",
        servers.status()
    );
    let echoed = servers
        .call(&admin(), "web__echo", json!({"text": "back"}))
        .await;
    assert_eq!(echoed, ToolOutput::ok("back"));
    servers.shutdown().await;
}
