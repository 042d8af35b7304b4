//! The real `telemem` binary as a child process against the fakes: start it, read its logs as
//! they come, watch its updates in the database, send it signals, wait for it to exit.

use std::process::{Child, Command, Stdio};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use sqlx::ConnectOptions;
use sqlx::sqlite::SqliteConnectOptions;

use super::fake_llm::FakeLlm;
use super::fake_telegram::FakeTelegram;
use super::waiting::PATIENCE;
use super::waiting::eventually;

/// A port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

/// A running bot process and the log lines it has written so far.
pub struct BotProcess {
    pub child: Child,
    logs: Arc<Mutex<String>>,
    /// The thread reading the logs; it ends once the process and its standard error are gone.
    reader: JoinHandle<()>,
}

impl BotProcess {
    /// `telemem run` against the fakes on `database_url`, everyone allowed, not streaming, not
    /// throttled, with `extra_env` on top (later values win).
    pub fn spawn(
        telegram: &FakeTelegram,
        llm: &FakeLlm,
        database_url: &str,
        extra_env: &[(&str, &str)],
    ) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_telemem"));
        command
            .arg("run")
            .env("TELOXIDE_TOKEN", telegram.token())
            .env("TELOXIDE_API_URL", telegram.api_url().as_str())
            .env("ALLOW_ALL_USERS", "true")
            .env("LLM_BASE_URL", llm.base_url())
            .env("DATABASE_URL", database_url)
            .env("STREAM_REPLIES", "false")
            .env("TELEGRAM_THROTTLE", "false")
            .env("RUST_LOG", "info")
            .env("LOG_FORMAT", "pretty")
            .env("NO_COLOR", "1");
        for (key, value) in extra_env {
            command.env(key, value);
        }
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the telemem binary");
        // Read the logs as they come: a bot whose log writes block on a full pipe cannot stop.
        let logs = Arc::new(Mutex::new(String::new()));
        let mut stderr = child.stderr.take().expect("the bot's stderr");
        let sink = Arc::clone(&logs);
        let reader = std::thread::spawn(move || {
            let mut buffer = [0_u8; 8_192];
            while let Ok(read) = std::io::Read::read(&mut stderr, &mut buffer) {
                if read == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buffer[..read]);
                sink.lock().unwrap().push_str(&text);
            }
        });
        Self {
            child,
            logs,
            reader,
        }
    }

    /// Everything the bot has logged so far.
    pub fn logs(&self) -> String {
        self.logs.lock().unwrap().clone()
    }

    /// Waits until the logs contain `needle` `count` times.
    pub async fn wait_for_log(&self, needle: &str, count: usize) {
        assert!(
            eventually(
                || async { self.logs().matches(needle).count() >= count },
                PATIENCE
            )
            .await,
            "no {count} × {needle:?} in the logs:\n{}",
            self.logs()
        );
    }

    /// Sends a signal by name (`TERM`, `KILL`).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Waits (at most `PATIENCE`) for the process to exit, then for the rest of its logs: after
    /// this, [`Self::logs`] holds everything it wrote.
    pub async fn wait_for_exit(&mut self) -> std::process::ExitStatus {
        let deadline = tokio::time::Instant::now() + PATIENCE;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the bot's status") {
                break status;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "the bot did not stop"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        while !self.reader.is_finished() {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the bot's logs were not read to the end"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        status
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// How many updates a bot's database holds, by where they stand.
#[derive(Debug)]
pub struct UpdateCounts {
    pub done: i64,
    /// Not done, with a message of the answer on show.
    pub shown: i64,
}

/// Waits until the updates in the database at `database_url` are as `predicate` wants them,
/// read beside the running bot.
pub async fn wait_for_update_counts(database_url: &str, predicate: impl Fn(&UpdateCounts) -> bool) {
    let options = SqliteConnectOptions::from_str(database_url)
        .unwrap()
        .read_only(true);
    let read = || async {
        // The bot creates the database and its tables a moment after it starts.
        let counts = match options.connect().await {
            Ok(mut reader) => sqlx::query_as::<_, (i64, i64)>(
                "SELECT coalesce(sum(state = 'done'), 0),
                        coalesce(sum(state <> 'done' AND answer_message_ids IS NOT NULL), 0)
                 FROM processed_updates",
            )
            .fetch_one(&mut reader)
            .await
            .ok(),
            Err(_) => None,
        };
        counts.map_or(UpdateCounts { done: 0, shown: 0 }, |(done, shown)| {
            UpdateCounts { done, shown }
        })
    };
    if !eventually(|| async { predicate(&read().await) }, PATIENCE).await {
        panic!("the updates never got there: {:?}", read().await);
    }
}
