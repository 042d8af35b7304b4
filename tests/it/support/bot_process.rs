//! The real `telemem` binary as a child process against the fakes: the surroundings that outlive
//! its runs, starting it, reading its logs as they come, watching its updates in the database,
//! sending it signals and waiting for it to exit.

use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};
use telemem::storage::Store;

use super::database::TempDatabase;
use super::fake_llm::FakeLlm;
use super::fake_telegram::FakeTelegram;
use super::run_command::telemem_run;
use super::waiting::{PATIENCE, eventually};

/// A port that was free a moment ago on 127.0.0.1.
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local address").port()
}

/// What a bot process runs against and what outlives it, so the next process takes over: the
/// fake Telegram, the fake LLM and the database.
pub struct Surroundings {
    pub telegram: FakeTelegram,
    pub llm: FakeLlm,
    pub database: TempDatabase,
}

impl Surroundings {
    pub async fn start() -> Self {
        Self {
            telegram: FakeTelegram::start().await,
            llm: FakeLlm::start().await,
            database: TempDatabase::new(),
        }
    }

    /// `telemem run` against these surroundings (see [`telemem_run`]), logging at info level,
    /// with `extra_env` on top (later values win).
    pub fn spawn_bot(&self, extra_env: &[(&str, &str)]) -> BotProcess {
        let mut command = telemem_run(
            Path::new(env!("CARGO_BIN_EXE_telemem")),
            &self.telegram,
            &self.llm,
            &self.database.url,
        );
        // On PostgreSQL a restarted bot takes over its last run's updates once their lease lapses.
        command
            .env("RUST_LOG", "info")
            .env("LOG_FORMAT", "pretty")
            .env("NO_COLOR", "1")
            .env("REPLICA_LEASE_SECS", "2");
        for (key, value) in extra_env {
            command.env(key, value);
        }
        BotProcess::spawn(command)
    }

    /// A store on the bot's database, beside the bot.
    pub async fn store(&self) -> Store {
        self.database.connect().await
    }
}

/// A running bot process and the log lines it has written so far.
pub struct BotProcess {
    child: Child,
    logs: Arc<Mutex<String>>,
    /// The thread reading the logs; it ends once the process and its standard error are gone.
    reader: JoinHandle<()>,
}

impl BotProcess {
    fn spawn(mut command: Command) -> Self {
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

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
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

    /// How the process ended, if it has.
    pub fn exit_status(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().expect("the bot's status")
    }

    /// Waits (at most `PATIENCE`) for the process to exit, then for the rest of its logs: after
    /// this, [`Self::logs`] holds everything it wrote.
    pub async fn wait_for_exit(&mut self) -> ExitStatus {
        let mut status = None;
        eventually(
            || {
                status = self.exit_status();
                std::future::ready(status.is_some())
            },
            PATIENCE,
        )
        .await;
        let status = status.expect("the bot did not stop");
        let reader = &self.reader;
        assert!(
            eventually(|| std::future::ready(reader.is_finished()), PATIENCE).await,
            "the bot's logs were not read to the end"
        );
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
    if database_url.starts_with("postgres") {
        return wait_for_postgres_update_counts(database_url, predicate).await;
    }
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

async fn wait_for_postgres_update_counts(
    database_url: &str,
    predicate: impl Fn(&UpdateCounts) -> bool,
) {
    let read = || async {
        let counts = match sqlx::PgConnection::connect(database_url).await {
            Ok(mut reader) => sqlx::query_as::<_, (i64, i64)>(
                "SELECT count(*) FILTER (WHERE state = 'done'),
                        count(*) FILTER (WHERE state <> 'done' AND answer_message_ids IS NOT NULL)
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
