//! Logging set-up in one place: `RUST_LOG` picks the level (default `info`), `LOG_FORMAT` the
//! shape (`pretty` for people, `json` for log collectors). Logs go to standard error so that
//! command output on standard output stays clean.

use tracing_subscriber::EnvFilter;

use crate::config::LogFormat;

/// Installs the global subscriber; a second call (as in tests) is a harmless no-op.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _already_set = match format {
        LogFormat::Pretty => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}
