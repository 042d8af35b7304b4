//! What one round trip to another thread costs on this machine: sqlx runs every SQLite
//! connection on a thread of its own, so each statement is one such trip. Prints the wall and
//! CPU time of a `SELECT 1` through sqlx, and of a bare ping-pong between a tokio task and a
//! std thread (the same wake-ups without SQLite). Run it as is, then pinned to one CPU to see
//! what the hop between CPUs costs:
//!
//! ```bash
//! cargo run --release --example hop_probe
//! taskset -c 0 target/release/examples/hop_probe
//! ```
//!
//! See docs/PERFORMANCE.md ("Where the time goes").

use std::time::Instant;

use sqlx::{Connection, SqliteConnection};

const ROUND_TRIPS: u32 = 20_000;

/// CPU time (user + system) of this process so far, in microseconds.
fn cpu_micros() -> anyhow::Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // The fields after the command name, which is in parentheses and may contain spaces.
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let ticks: f64 = fields[11].parse::<f64>()? + fields[12].parse::<f64>()?;
    // Linux reports clock ticks of 10 ms.
    Ok(ticks * 10_000.0)
}

/// Runs `round_trip` ROUND_TRIPS times and prints its mean wall and CPU time.
async fn measure<F, Fut>(label: &str, mut round_trip: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    let (started, cpu_before) = (Instant::now(), cpu_micros()?);
    for _ in 0..ROUND_TRIPS {
        round_trip().await?;
    }
    let wall = started.elapsed().as_secs_f64() * 1e6 / f64::from(ROUND_TRIPS);
    let cpu = (cpu_micros()? - cpu_before) / f64::from(ROUND_TRIPS);
    println!("{label}: wall {wall:.1} us, CPU {cpu:.1} us per round trip");
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let connection = tokio::sync::Mutex::new(SqliteConnection::connect("sqlite::memory:").await?);
    for _ in 0..2 {
        measure("sqlx `SELECT 1`", || async {
            let mut connection = connection.lock().await;
            let _: (i64,) = sqlx::query_as("SELECT 1")
                .fetch_one(&mut *connection)
                .await?;
            Ok(())
        })
        .await?;
    }

    let (requests, echo) = std::sync::mpsc::channel::<tokio::sync::oneshot::Sender<()>>();
    std::thread::spawn(move || {
        for done in echo {
            let _ = done.send(());
        }
    });
    measure("task <-> thread ping-pong", || async {
        let (done, answered) = tokio::sync::oneshot::channel();
        requests.send(done)?;
        answered.await?;
        Ok(())
    })
    .await
}
