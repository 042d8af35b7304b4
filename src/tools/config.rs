//! The tools' settings: whether the model is offered tools at all, how many rounds of calls a
//! turn may take, how long a call may run and how much of its result the model reads, where the
//! MCP servers are configured, and the reminders' limits.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;

use crate::setting::Setting;
use crate::time_zone::TimeZone;

#[derive(Clone, Debug, Args)]
pub struct ToolsConfig {
    /// Offer the model tools (reminders, searching the person's memory, notes, MCP servers):
    /// `on` or `off`.
    #[arg(setting = "TOOLS", default_value_t = true, global = true,
          action = clap::ArgAction::Set,
          value_parser = clap::builder::BoolishValueParser::new())]
    pub tools: bool,

    /// Rounds of tool calls one reply may take before the model must answer without tools.
    #[arg(setting = "TOOLS_MAX_ROUNDS", default_value_t = 4, global = true,
          value_parser = clap::value_parser!(u32).range(1..=16))]
    pub tools_max_rounds: u32,

    /// Longest time one tool call may take; past it the model is told the tool did not answer.
    #[arg(setting = "TOOL_TIMEOUT_SECS", default_value_t = 30, global = true,
          value_parser = clap::value_parser!(u64).range(1..=600))]
    pub tool_timeout_secs: u64,

    /// Most characters of one tool result the model reads; the rest is cut, and the model told.
    #[arg(setting = "TOOL_RESULT_MAX_CHARS", default_value_t = 8_000, global = true,
          value_parser = clap::value_parser!(u32).range(200..=1_000_000))]
    pub tool_result_max_chars: u32,

    /// A JSON file in the `mcpServers` shape MCP hosts use: the MCP servers whose tools the model
    /// may call. Unset: none.
    #[arg(setting = "MCP_CONFIG", global = true)]
    pub mcp_config: Option<PathBuf>,

    /// Longest time a message waits for an MCP server that is still making its first connection
    /// (right after a start) before it is answered without that server's tools.
    #[arg(setting = "MCP_START_WAIT_SECS", default_value_t = 5, global = true,
          value_parser = clap::value_parser!(u64).range(0..=120))]
    pub mcp_start_wait_secs: u64,

    /// The time zone of people who have not set theirs with /timezone (an IANA name such as
    /// Europe/Berlin).
    #[arg(setting = "DEFAULT_TIMEZONE", default_value = "UTC", global = true,
          value_parser = parse_time_zone)]
    pub default_timezone: TimeZone,

    /// Longest time between two looks for due reminders (each replica also looks when it
    /// stores one and when the next is due).
    #[arg(setting = "REMINDERS_CHECK_SECS", default_value_t = 10, global = true,
          value_parser = clap::value_parser!(u64).range(1..=3_600))]
    pub reminders_check_secs: u64,

    /// Reminders one person may have waiting at once.
    #[arg(setting = "REMINDERS_MAX_PER_USER", default_value_t = 50, global = true,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub reminders_max_per_user: u32,
}

fn parse_time_zone(name: &str) -> Result<TimeZone, String> {
    TimeZone::parse(name)
        .ok_or_else(|| "expected an IANA time zone name such as Europe/Berlin or UTC".to_owned())
}

impl ToolsConfig {
    pub fn reminders_check_interval(&self) -> Duration {
        Duration::from_secs(self.reminders_check_secs)
    }

    pub fn tool_timeout(&self) -> Duration {
        Duration::from_secs(self.tool_timeout_secs)
    }
}
