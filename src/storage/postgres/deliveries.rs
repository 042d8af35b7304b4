//! PostgreSQL: the delivery records of many turns in one statement. Each turn records which
//! Telegram message carried its stored reply (which also marks its update `done`, a trigger). On
//! its own that is a statement and a commit per turn, and with durable commits every commit waits
//! for its write-ahead log to reach the disk. Instead the records go to one task, which writes
//! everything waiting as one `UPDATE … FROM unnest(…)`: one round trip and one commit for all of
//! them. A batch that fails is written record by record, so one bad record fails alone.
//!
//! The task ends when every sender is gone; [`Deliveries::flush`] waits for the records handed to
//! it so far, which closing the store does before it closes the pool.

use sqlx::PgPool;
use tokio::sync::{mpsc, oneshot};

use crate::storage::Result;

/// At most this many records go into one statement.
const MAX_BATCH: usize = 512;

/// Records waiting for the task; turns in flight are capped well below this.
const QUEUE_CAPACITY: usize = 1_024;

/// A delivery record, `(message id, Telegram message id)`, and where its outcome goes.
type Waiting = ((i64, i64), oneshot::Sender<Result<()>>);

/// What the task is handed.
enum Job {
    /// `(message id, Telegram message id)` and where its outcome goes.
    Record {
        record: (i64, i64),
        done: oneshot::Sender<Result<()>>,
    },
    /// Answered once every record handed over before it is written.
    Flush { done: oneshot::Sender<()> },
}

/// The sending side of the delivery records' task.
#[derive(Debug)]
pub(in crate::storage) struct Deliveries {
    jobs: mpsc::Sender<Job>,
}

impl Deliveries {
    /// Starts the task writing through `pool`.
    pub(super) fn start(pool: PgPool) -> Self {
        let (jobs, receiver) = mpsc::channel(QUEUE_CAPACITY);
        tokio::spawn(write_batches(pool, receiver));
        Self { jobs }
    }

    /// Records that the Telegram message `telegram_message_id` carried the stored message
    /// `message_id`, together with whatever other turns recorded meanwhile.
    pub(in crate::storage) async fn record(
        &self,
        message_id: i64,
        telegram_message_id: i64,
    ) -> Result<()> {
        let (done, outcome) = oneshot::channel();
        let record = (message_id, telegram_message_id);
        self.jobs
            .send(Job::Record { record, done })
            .await
            .map_err(|_| sqlx::Error::PoolClosed)?;
        outcome.await.map_err(|_| sqlx::Error::PoolClosed)?
    }

    /// Waits until every record handed over before is written (or failed).
    pub(super) async fn flush(&self) {
        let (done, flushed) = oneshot::channel();
        if self.jobs.send(Job::Flush { done }).await.is_ok() {
            let _ = flushed.await;
        }
    }
}

/// The task: takes everything waiting, writes it as one statement, answers each record.
async fn write_batches(pool: PgPool, mut jobs: mpsc::Receiver<Job>) {
    let mut waiting = Vec::with_capacity(MAX_BATCH);
    while jobs.recv_many(&mut waiting, MAX_BATCH).await > 0 {
        let mut records = Vec::with_capacity(waiting.len());
        let mut flushes = Vec::new();
        for job in waiting.drain(..) {
            match job {
                Job::Record { record, done } => records.push((record, done)),
                Job::Flush { done } => flushes.push(done),
            }
        }
        if !records.is_empty() {
            write(&pool, records).await;
        }
        for flushed in flushes {
            let _ = flushed.send(());
        }
    }
}

/// Writes `records` in one statement; if it fails, one by one.
async fn write(pool: &PgPool, records: Vec<Waiting>) {
    let (message_ids, telegram_ids): (Vec<i64>, Vec<i64>) =
        records.iter().map(|(record, _)| *record).unzip();
    match update(pool, &message_ids, &telegram_ids).await {
        Ok(()) => {
            for (_, done) in records {
                let _ = done.send(Ok(()));
            }
        }
        Err(error) if records.len() == 1 => {
            if let Some((_, done)) = records.into_iter().next() {
                let _ = done.send(Err(error));
            }
        }
        Err(error) => {
            tracing::debug!(error = %error, "a batch of delivery records failed; writing one by one");
            for ((message_id, telegram_id), done) in records {
                let _ = done.send(update(pool, &[message_id], &[telegram_id]).await);
            }
        }
    }
}

async fn update(pool: &PgPool, message_ids: &[i64], telegram_ids: &[i64]) -> Result<()> {
    sqlx::query!(
        "UPDATE messages SET telegram_message_id = delivered.telegram_message_id
         FROM unnest($1::bigint[], $2::bigint[]) AS delivered (id, telegram_message_id)
         WHERE messages.id = delivered.id",
        message_ids,
        telegram_ids,
    )
    .execute(pool)
    .await?;
    Ok(())
}
