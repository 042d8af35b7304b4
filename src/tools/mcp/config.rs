//! The `MCP_CONFIG` file: which MCP servers to run or reach, in the `mcpServers` shape MCP hosts
//! share, and who may use each one's tools. Also the names those tools get when offered to the
//! model.
//!
//! Parsing is strict about what it reads and lenient about what it does not: hosts add keys of
//! their own (`"type"`, `"disabled"`, ...), so unknown keys are ignored, but a known key of the
//! wrong type is an error naming the server and the key, found at start-up rather than when a
//! person first asks for the tool.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Map, Value};

use crate::ids::UserId;

/// The longest tool name the model providers accept (OpenAI's limit; Anthropic's too).
const MAX_TOOL_NAME_CHARS: usize = 64;

/// The longest server name: its tools' names start with it, and the rest must tell them apart.
const MAX_SERVER_NAME_CHARS: usize = 32;

/// How many hex digits of a tool name's hash tell apart tools whose offered names had to be
/// changed (a character replaced or the name cut).
const NAME_HASH_DIGITS: usize = 8;

/// Headers the MCP transport sets itself; a configured value would break the protocol.
const RESERVED_HEADERS: [&str; 4] = [
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// Every MCP server the configuration names, ordered by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct McpConfig {
    pub servers: Vec<ServerConfig>,
}

/// One MCP server: how to reach it, who may use it, how long its tools may take.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    pub allow: Allow,
    /// How long one tool call may take; `None` leaves it to the bot-wide setting.
    pub call_timeout: Option<Duration>,
}

/// How the server is reached.
#[derive(Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP on its standard input and output.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Added to the child's otherwise cleared environment.
        env: BTreeMap<String, String>,
    },
    /// A server speaking MCP's Streamable HTTP at `url`.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

// The values of `env` and `headers` are typically API keys and bearer tokens: only their names
// may reach a log.
impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Stdio { command, args, env } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env", &env.keys().collect::<Vec<_>>())
                .finish(),
            Self::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("headers", &headers.keys().collect::<Vec<_>>())
                .finish(),
        }
    }
}

/// Who may see and call a server's tools.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Allow {
    /// The bot's admins only: a server can reach anything its process can.
    #[default]
    Admins,
    Everyone,
    /// These Telegram users (admins not included unless listed).
    Users(Vec<UserId>),
}

impl Allow {
    pub fn admits(&self, caller: &crate::tools::Caller) -> bool {
        match self {
            Self::Admins => caller.is_admin,
            Self::Everyone => true,
            Self::Users(users) => users.contains(&caller.key.user_id),
        }
    }
}

impl fmt::Display for Allow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Admins => f.write_str("admins"),
            Self::Everyone => f.write_str("everyone"),
            Self::Users(users) => {
                let ids: Vec<String> = users.iter().map(ToString::to_string).collect();
                write!(f, "users {}", ids.join(", "))
            }
        }
    }
}

impl McpConfig {
    pub fn from_file(path: &Path) -> anyhow::Result<Self> {
        let json = std::fs::read_to_string(path)
            .with_context(|| format!("reading the MCP configuration {}", path.display()))?;
        Self::parse(&json).with_context(|| format!("in the MCP configuration {}", path.display()))
    }

    pub fn parse(json: &str) -> anyhow::Result<Self> {
        let root: Value = serde_json::from_str(json).context("the file is not valid JSON")?;
        let Some(servers) = root.get("mcpServers") else {
            bail!("there is no \"mcpServers\" object");
        };
        let Value::Object(servers) = servers else {
            bail!("\"mcpServers\" must be an object of servers by name");
        };
        let servers: Vec<ServerConfig> = servers
            .iter()
            .map(|(name, server)| parse_server(name, server))
            .collect::<anyhow::Result<_>>()?;
        let mut prefixes: BTreeMap<String, &str> = BTreeMap::new();
        for server in &servers {
            let prefix = offered_prefix(&server.name);
            if let Some(first) = prefixes.insert(prefix, &server.name) {
                bail!(
                    "the MCP servers \"{first}\" and \"{}\" would offer their tools under the same \
                     names; rename one",
                    server.name
                );
            }
        }
        Ok(Self { servers })
    }
}

fn parse_server(name: &str, server: &Value) -> anyhow::Result<ServerConfig> {
    if name.trim().is_empty() {
        bail!("an MCP server has an empty name");
    }
    let offered = offered_characters(name);
    if name.chars().count() > MAX_SERVER_NAME_CHARS
        || offered.contains("__")
        || offered.starts_with('_')
        || offered.ends_with('_')
    {
        bail!(
            "the MCP server name \"{name}\" cannot name its tools: at most \
             {MAX_SERVER_NAME_CHARS} characters, not starting or ending with \"_\" and without \
             \"__\" (the tools are offered as <server>__<tool>)"
        );
    }
    let Value::Object(fields) = server else {
        bail!("the MCP server \"{name}\" must be an object");
    };
    let fields = Fields {
        server: name,
        fields,
    };
    let transport = match (fields.string("command")?, fields.string("url")?) {
        (Some(command), None) => Transport::Stdio {
            command,
            args: fields.strings("args")?,
            env: fields.string_map("env")?,
        },
        (None, Some(url)) => Transport::Http {
            url,
            headers: http_headers(&fields)?,
        },
        (Some(_), Some(_)) => {
            bail!("the MCP server \"{name}\" has both \"command\" and \"url\"; give one")
        }
        (None, None) => bail!(
            "the MCP server \"{name}\" has neither \"command\" (a program to run) nor \"url\""
        ),
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
        allow: fields.allow()?,
        call_timeout: fields.seconds("timeout_secs")?,
    })
}

fn http_headers(fields: &Fields<'_>) -> anyhow::Result<BTreeMap<String, String>> {
    let headers = fields.string_map("headers")?;
    for (name, value) in &headers {
        let reserved = RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str());
        let valid = reqwest::header::HeaderName::from_bytes(name.as_bytes()).is_ok()
            && reqwest::header::HeaderValue::from_str(value).is_ok();
        if reserved || !valid {
            bail!(
                "the MCP server \"{}\" has a header \"{name}\" that cannot be sent{}",
                fields.server,
                if reserved { " (MCP sets it)" } else { "" }
            );
        }
    }
    Ok(headers)
}

/// A server's keys, read with errors that name the server and the key.
struct Fields<'a> {
    server: &'a str,
    fields: &'a Map<String, Value>,
}

impl Fields<'_> {
    fn wrong_type(&self, key: &str, expected: &str) -> anyhow::Error {
        anyhow::anyhow!(
            "the MCP server \"{}\" has a \"{key}\" that is not {expected}",
            self.server
        )
    }

    fn string(&self, key: &str) -> anyhow::Result<Option<String>> {
        match self.fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) if !text.trim().is_empty() => Ok(Some(text.clone())),
            Some(_) => Err(self.wrong_type(key, "a non-empty string")),
        }
    }

    fn strings(&self, key: &str) -> anyhow::Result<Vec<String>> {
        let Some(value) = self.fields.get(key) else {
            return Ok(Vec::new());
        };
        let items = value
            .as_array()
            .ok_or_else(|| self.wrong_type(key, "an array of strings"))?;
        items
            .iter()
            .map(|item| {
                item.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| self.wrong_type(key, "an array of strings"))
            })
            .collect()
    }

    fn string_map(&self, key: &str) -> anyhow::Result<BTreeMap<String, String>> {
        let Some(value) = self.fields.get(key) else {
            return Ok(BTreeMap::new());
        };
        let expected = "an object of strings";
        let entries = value
            .as_object()
            .ok_or_else(|| self.wrong_type(key, expected))?;
        entries
            .iter()
            .map(|(name, value)| match value {
                Value::String(text) => Ok((name.clone(), text.clone())),
                _ => Err(self.wrong_type(key, expected)),
            })
            .collect()
    }

    fn allow(&self) -> anyhow::Result<Allow> {
        let expected = "\"admins\", \"everyone\" or an array of Telegram user ids";
        match self.fields.get("allow") {
            None => Ok(Allow::Admins),
            Some(Value::String(word)) if word == "admins" => Ok(Allow::Admins),
            Some(Value::String(word)) if word == "everyone" => Ok(Allow::Everyone),
            Some(Value::Array(ids)) => ids
                .iter()
                .map(|id| {
                    id.as_i64()
                        .map(UserId)
                        .ok_or_else(|| self.wrong_type("allow", expected))
                })
                .collect::<anyhow::Result<_>>()
                .map(Allow::Users),
            Some(_) => Err(self.wrong_type("allow", expected)),
        }
    }

    fn seconds(&self, key: &str) -> anyhow::Result<Option<Duration>> {
        match self.fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(number)) => match number.as_u64() {
                Some(seconds) if seconds > 0 => Ok(Some(Duration::from_secs(seconds))),
                _ => Err(self.wrong_type(key, "a positive whole number of seconds")),
            },
            Some(_) => Err(self.wrong_type(key, "a positive whole number of seconds")),
        }
    }
}

/// The name a server's tool is offered to the model under: `<server>__<tool>`, with every
/// character outside `[A-Za-z0-9_-]` replaced by `_`. When that changed the tool's name, or the
/// whole is over the providers' 64 characters, it is cut and ends in a hash of the tool's own
/// name, so two tools of a server never share an offered name. Server names are checked at
/// start ([`McpConfig::parse`]) so that the part before the first `__` names one server.
pub fn offered_tool_name(server: &str, tool: &str) -> String {
    let name = format!(
        "{}__{}",
        offered_characters(server),
        offered_characters(tool)
    );
    let changed = offered_characters(tool) != tool;
    if !changed && name.chars().count() <= MAX_TOOL_NAME_CHARS {
        return name;
    }
    let hash = name_hash(tool);
    let kept = MAX_TOOL_NAME_CHARS - NAME_HASH_DIGITS - 1;
    let head: String = name.chars().take(kept).collect();
    format!("{head}_{hash}")
}

/// `text` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
fn offered_characters(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// [`NAME_HASH_DIGITS`] hex digits of FNV-1a over `text`: the same on every replica and run.
fn name_hash(text: &str) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("{hash:016x}")[..NAME_HASH_DIGITS].to_owned()
}

/// The prefix every offered name of `server`'s tools starts with.
pub fn offered_prefix(server: &str) -> String {
    format!("{}__", offered_characters(server))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offered_names_keep_only_the_characters_providers_accept_and_fit_64() {
        assert_eq!(offered_tool_name("orders", "find"), "orders__find");
        let changed = offered_tool_name("my.server", "list files");
        assert!(changed.starts_with("my_server__list_files_"), "{changed}");
        assert_eq!(
            changed.len(),
            "my_server__list_files_".len() + NAME_HASH_DIGITS
        );
        let long = offered_tool_name("s", &"t".repeat(80));
        assert_eq!(long.chars().count(), 64);
        assert!(long.starts_with("s__ttt"), "{long}");
    }

    #[test]
    fn two_tools_of_a_server_never_share_an_offered_name() {
        let names = [
            "list files",
            "list_files",
            "list.files",
            &format!("{}a", "x".repeat(70)),
            &format!("{}b", "x".repeat(70)),
        ]
        .map(|tool| offered_tool_name("fs", tool));
        let distinct: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
        assert!(names.iter().all(|name| name.chars().count() <= 64));
    }

    #[test]
    fn server_names_that_would_mix_up_tool_names_are_refused_naming_them() {
        let parse =
            |servers: &str| McpConfig::parse(&format!(r#"{{"mcpServers": {{{servers}}}}}"#));
        let error = parse(r#""x": {"command": "a"}, "x__fs": {"command": "b"}"#).unwrap_err();
        assert!(format!("{error:#}").contains("\"x__fs\""), "{error:#}");
        let error =
            parse(r#""my.server": {"command": "a"}, "my server": {"command": "b"}"#).unwrap_err();
        let shown = format!("{error:#}");
        assert!(
            shown.contains("my.server") && shown.contains("my server"),
            "{shown}"
        );
        for name in ["x_", "_x", "a__b", &"s".repeat(33)] {
            let servers = format!(r#""{name}": {{"command": "a"}}"#);
            assert!(parse(&servers).is_err(), "{name}");
        }
        assert!(parse(r#""x": {"command": "a"}, "x-fs": {"command": "b"}"#).is_ok());
    }

    #[test]
    fn header_and_env_values_stay_out_of_debug_output() {
        let config = McpConfig::parse(
            r#"{"mcpServers": {"a": {"command": "x", "env": {"KEY": "secret-1"}},
                               "b": {"url": "http://h/", "headers": {"Authorization": "secret-2"}}}}"#,
        )
        .unwrap();
        let shown = format!("{config:?}");
        assert!(shown.contains("KEY") && shown.contains("Authorization"));
        assert!(!shown.contains("secret"));
    }
}
