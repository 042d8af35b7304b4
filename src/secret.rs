//! Secrets (the bot token, API keys) carried through the program without ever being printed.
//! `Debug` and `Display` show a fixed placeholder so a secret cannot leak through a log line or an
//! error message by accident; the value is only reachable through [`Secret::expose`].
//! [`hide_from_other_processes`] keeps them out of what other processes of the same user can read
//! in `/proc`.

use std::fmt;

/// A string that must never appear in logs.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The raw value, for the one place that must send it (an HTTP header).
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(\"[redacted]\")")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        Ok(Self::new(value))
    }
}

/// Environment variables whose values stay readable in `/proc/<pid>/environ`: the ones that say
/// how to run, never a credential. Every other value (the bot token, the API keys,
/// `DATABASE_URL`, whatever else the operator set) is hidden.
const PUBLIC_VARIABLES: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "RUST_LOG",
    "RUST_BACKTRACE",
    "NO_COLOR",
    "LOG_FORMAT",
    "HOSTNAME",
    "PWD",
];

/// Whether the value of the environment variable `name` may stay readable by other processes.
fn is_public_variable(name: &[u8]) -> bool {
    PUBLIC_VARIABLES
        .iter()
        .any(|public| public.as_bytes() == name)
        || name.starts_with(b"LC_")
        || name.starts_with(b"MALLOC_")
}

/// Hides the process's secrets from every other process of the same user, such as an MCP server
/// it starts: `/proc/<pid>/environ` stops showing the values of all but the
/// [`PUBLIC_VARIABLES`], and the process stops being dumpable, so `/proc/<pid>/mem`, core dumps
/// and `ptrace` are closed to anyone without `CAP_SYS_PTRACE`. The values stay readable through
/// `std::env` inside the process.
///
/// Clearing a variable from the environment does not do this: `/proc/<pid>/environ` shows the
/// block the kernel copied at `exec`, not the process's current variables. So each hidden value
/// is first copied to the heap (`setenv` points the variable there), then its bytes in that block
/// are overwritten with zeros.
///
/// Must run before any other thread starts: no one may read the environment while it changes.
#[cfg(target_os = "linux")]
pub fn hide_from_other_processes() {
    // SAFETY: prctl(PR_SET_DUMPABLE, 0) only changes this process's own dumpable flag.
    unsafe {
        libc::prctl(libc::PR_SET_DUMPABLE, 0, 0, 0, 0);
    }
    let Some((start, end)) = environment_block() else {
        return;
    };
    let hidden: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os()
        .filter(|(name, _)| !is_public_variable(name.as_encoded_bytes()))
        .collect();
    // SAFETY: [start, end) is the environment block the kernel wrote on this process's stack at
    // exec (from /proc/self/stat); it stays mapped and writable for the life of the process.
    let block = unsafe { std::slice::from_raw_parts_mut(start as *mut u8, end - start) };
    for entry in block.split_mut(|&byte| byte == 0) {
        let Some(equals) = entry.iter().position(|&byte| byte == b'=') else {
            continue;
        };
        if !is_public_variable(&entry[..equals]) {
            entry[equals + 1..].fill(0);
        }
    }
    for (name, value) in hidden {
        // SAFETY: the caller runs this before any other thread exists, so nothing reads the
        // environment while it is set.
        unsafe { std::env::set_var(name, value) };
    }
}

#[cfg(not(target_os = "linux"))]
pub fn hide_from_other_processes() {}

/// Where the kernel put this process's environment at exec: fields 50 and 51 of
/// `/proc/self/stat` (`env_start`, `env_end`).
#[cfg(target_os = "linux")]
fn environment_block() -> Option<(usize, usize)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which may hold spaces) start at field 3.
    let (_, fields) = stat.rsplit_once(')')?;
    let mut fields = fields.split_whitespace().skip(50 - 3);
    let start: usize = fields.next()?.parse().ok()?;
    let end: usize = fields.next()?.parse().ok()?;
    (start != 0 && start < end).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_value() {
        let secret = Secret::new("sk-very-secret");
        assert!(!format!("{secret:?}").contains("sk-very"));
        assert!(!format!("{secret}").contains("sk-very"));
        assert_eq!(secret.expose(), "sk-very-secret");
    }

    #[test]
    fn only_variables_that_say_how_to_run_stay_public() {
        for public in [
            "PATH",
            "HOME",
            "LANG",
            "LC_ALL",
            "TZ",
            "RUST_LOG",
            "MALLOC_ARENA_MAX",
        ] {
            assert!(is_public_variable(public.as_bytes()), "{public}");
        }
        for secret in [
            "TELOXIDE_TOKEN",
            "LLM_API_KEY",
            "DATABASE_URL",
            "PATHS",
            "LC",
            "AWS_KEY",
        ] {
            assert!(!is_public_variable(secret.as_bytes()), "{secret}");
        }
    }
}
