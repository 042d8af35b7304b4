//! The real `telemem` binary run for one command, as an operator would run it (`migrate`,
//! `purge`, `stats`, `context`, `chat`...), and its output read as text.

use std::process::{Command, Output};

/// `telemem <args>` on the database at `database_url`, logging warnings only, with `extra_env`
/// on top.
pub fn telemem_command(database_url: &str, args: &[&str], extra_env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_telemem"));
    command
        .args(args)
        .env("DATABASE_URL", database_url)
        .env("RUST_LOG", "warn");
    for (name, value) in extra_env {
        command.env(name, value);
    }
    command
}

/// Runs [`telemem_command`] and waits for it to finish.
pub fn run_telemem(database_url: &str, args: &[&str], extra_env: &[(&str, &str)]) -> Output {
    telemem_command(database_url, args, extra_env)
        .output()
        .expect("run the telemem binary")
}

pub fn stderr_of(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// What a command that succeeded printed; the test fails with its standard error if it did not
/// succeed.
pub fn printed_by(output: &Output) -> String {
    assert!(output.status.success(), "stderr: {}", stderr_of(output));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// `telemem chat` (or any command) as a child whose standard input the test types into while it
/// runs, with everything it prints collected as it comes, so that a test can act in the middle
/// of an answer (say, press Ctrl-C).
pub struct InteractiveCommand {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    printed: std::sync::Arc<std::sync::Mutex<String>>,
    reader: std::thread::JoinHandle<()>,
}

impl InteractiveCommand {
    /// Starts `command` with its standard input and output piped (its standard error is left
    /// to the test's).
    pub fn start(mut command: Command) -> Self {
        use std::io::Read;
        use std::process::Stdio;

        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("run the telemem binary");
        let stdin = child.stdin.take();
        let mut stdout = child.stdout.take().expect("the command's standard output");
        let printed = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let collected = std::sync::Arc::clone(&printed);
        let reader = std::thread::spawn(move || {
            let mut buffer = [0_u8; 1024];
            while let Ok(read) = stdout.read(&mut buffer) {
                if read == 0 {
                    break;
                }
                let text = String::from_utf8_lossy(&buffer[..read]).into_owned();
                collected.lock().expect("the output lock").push_str(&text);
            }
        });
        Self {
            child,
            stdin,
            printed,
            reader,
        }
    }

    /// Types `line` and Enter.
    pub fn type_line(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().expect("input still open");
        writeln!(stdin, "{line}").expect("type into the command");
        stdin.flush().expect("type into the command");
    }

    /// Everything printed so far.
    pub fn printed(&self) -> String {
        self.printed.lock().expect("the output lock").clone()
    }

    /// Waits (at most `PATIENCE`) until the output contains `needle`; panics with the output
    /// otherwise.
    pub async fn wait_for_output(&self, needle: &str) {
        let printed = super::waiting::eventually(
            || async { self.printed().contains(needle) },
            super::waiting::PATIENCE,
        )
        .await;
        assert!(printed, "`{needle}` was not printed:\n{}", self.printed());
    }

    /// Sends the signal `name` (`INT` for Ctrl-C).
    pub fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([format!("-{name}"), self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Ends the input and waits for the command to exit; its exit status and everything it
    /// printed.
    pub async fn finish(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let (status, reader) = tokio::task::spawn_blocking(move || {
            (
                self.child.wait().expect("wait for the command"),
                self.reader,
            )
        })
        .await
        .expect("the waiting task");
        reader.join().expect("the output reader");
        let printed = self.printed.lock().expect("the output lock").clone();
        (status, printed)
    }
}
