//! Logging set-up in one place: `RUST_LOG` picks the level (default `info`), `LOG_FORMAT` the
//! shape (`pretty` for people, `json` for log collectors). Logs go to standard error so that
//! command output on standard output stays clean.
//!
//! Secrets never reach a log line: besides keeping them out of what we log (they are
//! [`crate::secret::Secret`]s), every line passes through a writer that masks the known secret
//! values, the bot token and the API key, so even a library logging a URL with the token inside at
//! trace level cannot leak it.
//!
//! A panic is logged through the same writer by [`log_panic`], at error level, with where it
//! happened and on which thread but never its message: a panic's message can quote the data it
//! was working on (slicing a string quotes the string), and that may be someone's conversation.

use std::io::{self, Write};
use std::sync::Arc;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::config::LogFormat;

/// Secrets shorter than this are not masked: masking a 3-character "key" would garble logs
/// without protecting anything real.
const MIN_SECRET_LEN: usize = 8;

/// Installs the global subscriber; a second call (as in tests) is a harmless no-op. Every value in
/// `secrets` is replaced by `[redacted]` in every log line.
pub fn init(format: LogFormat, secrets: Vec<String>) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let writer = MaskingWriter::new(secrets);
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    let _already_set = match format {
        LogFormat::Pretty => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    // Replaces the default hook, which writes the message to standard error past the masking.
    std::panic::set_hook(Box::new(log_panic));
}

/// The panic hook: one error-level event with the panic's location and thread, without its
/// message (see the module documentation).
pub fn log_panic(info: &std::panic::PanicHookInfo<'_>) {
    let location = info
        .location()
        .map(|location| {
            format!(
                "{}:{}:{}",
                location.file(),
                location.line(),
                location.column()
            )
        })
        .unwrap_or_else(|| "unknown".to_owned());
    let thread = std::thread::current();
    let thread = thread.name().unwrap_or("unnamed");
    tracing::error!(
        location = %location,
        thread = %thread,
        "a thread panicked (its message is not logged: it may quote conversation text)"
    );
}

/// Makes standard-error writers that mask secrets.
#[derive(Clone)]
pub struct MaskingWriter {
    secrets: Arc<Vec<String>>,
}

impl MaskingWriter {
    pub fn new(secrets: Vec<String>) -> Self {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .filter(|s| s.len() >= MIN_SECRET_LEN)
            .collect();
        // Longest first, so a secret that contains another is masked whole.
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        Self {
            secrets: Arc::new(secrets),
        }
    }

    /// `line` with every secret replaced.
    pub fn mask(&self, line: &str) -> String {
        self.secrets.iter().fold(line.to_owned(), |line, secret| {
            line.replace(secret.as_str(), "[redacted]")
        })
    }
}

impl<'a> MakeWriter<'a> for MaskingWriter {
    type Writer = MaskedLine;

    fn make_writer(&'a self) -> Self::Writer {
        MaskedLine {
            writer: self.clone(),
            buffer: Vec::new(),
        }
    }
}

/// One log event: buffered whole, masked, then written to standard error in one piece.
pub struct MaskedLine {
    writer: MaskingWriter,
    buffer: Vec<u8>,
}

impl Write for MaskedLine {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&self.buffer);
        let masked = if self.writer.secrets.is_empty() {
            text.into_owned()
        } else {
            self.writer.mask(&text)
        };
        self.buffer.clear();
        io::stderr().lock().write_all(masked.as_bytes())
    }
}

impl Drop for MaskedLine {
    fn drop(&mut self) {
        // A log line that cannot be written has nowhere else to go.
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_secrets_are_masked_and_short_ones_ignored() {
        let writer = MaskingWriter::new(vec!["123456:ABCDEFGH-token".to_owned(), "abc".to_owned()]);
        let line = writer.mask("GET https://api.telegram.org/bot123456:ABCDEFGH-token/getMe abc");
        assert_eq!(line, "GET https://api.telegram.org/bot[redacted]/getMe abc");
    }

    /// A log sink the test can read.
    #[derive(Clone, Default)]
    struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_panic_is_logged_with_its_location_and_thread_but_not_its_message() {
        let captured = Captured::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        let conversation = String::from("Ρώτησε για την πρωτεΐνη");

        let panicked = std::thread::Builder::new()
            .name("chat-turn".to_owned())
            .spawn(move || {
                let _logging = tracing::subscriber::set_default(subscriber);
                let previous = std::panic::take_hook();
                std::panic::set_hook(Box::new(log_panic));
                let outcome = std::panic::catch_unwind(|| conversation[..3].to_owned());
                std::panic::set_hook(previous);
                outcome.is_err()
            })
            .unwrap()
            .join()
            .unwrap();

        let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
        assert!(panicked);
        assert!(logs.contains("ERROR"), "{logs}");
        assert!(logs.contains("a thread panicked"), "{logs}");
        assert!(logs.contains("src/telemetry.rs:"), "{logs}");
        assert!(logs.contains("chat-turn"), "{logs}");
        assert!(!logs.contains("πρωτ"), "the message leaked: {logs}");
        assert!(
            !logs.contains("char boundary"),
            "the message leaked: {logs}"
        );
    }
}
