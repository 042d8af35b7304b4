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
