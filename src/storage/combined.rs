//! Write combining for the writes every chat turn makes: its user's message, its reply, the
//! record of which Telegram message carried the reply, and (for a streamed or long reply) which
//! Telegram messages carry the answer so far. Under load many turns want the one writer
//! connection at the same moment. Taking it in turn for one small statement each costs every
//! turn a round trip to the database thread and a commit of its own, and the turns queue behind
//! each other. Instead these writes go to one task, which takes the writer and writes everything
//! waiting as one round: one transaction, sent to the database thread as one command, with the
//! messages of all waiting turns in one `INSERT … SELECT … FROM json_each`, the delivery records
//! in one `UPDATE` and the answers' messages in another. The commit then writes each touched page
//! (the table's last page, index pages) once for all of them. The triggers (session activity,
//! user activity, update states) run for each row, exactly as for a row inserted alone. The
//! people's daily usage (`daily_usage`, see `usage.rs`) is counted once per round instead: one
//! upsert per person and UTC day adds up the round's new messages, where a trigger would update
//! the same few rows once per message.
//!
//! A combined statement that fails is retried write by write, so one bad write (say, for a session
//! that `/clear` has just deleted) fails alone. The task ends when the last [`Store`] clone is
//! dropped; [`Store::close`] first waits for the writes already handed to it.
//!
//! [`Store`]: super::Store
//! [`Store::close`]: super::Store::close

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::Result;
use super::{ChatId, Connections, NewMessage, Role, unless_closed};

/// At most this many writes go into one round: bounds a statement's size and how long other
/// writers wait for the connection.
const MAX_ROUND: usize = 256;

/// Writes waiting for the task. Turns in flight are capped well below this (`telegram`), so a
/// full queue only slows a burst down.
pub(super) const QUEUE_CAPACITY: usize = 1_024;

/// One write handed to the combining task, with where its outcome goes.
pub(super) enum Write {
    /// A message; the outcome is its id and whether it was new (a user's message seen before,
    /// same chat and Telegram message id, is not stored again).
    Message {
        row: MessageRow,
        done: oneshot::Sender<Result<(i64, bool)>>,
    },
    /// `(message id, Telegram message id)`: which Telegram message carried a stored reply.
    Delivered {
        record: (i64, i64),
        done: oneshot::Sender<Result<()>>,
    },
    /// `(update id, Telegram message ids)`: the messages that carry an update's answer so far.
    AnswerMessages {
        record: (i64, Vec<i64>),
        done: oneshot::Sender<Result<()>>,
    },
    /// Answered once every write handed over before it is done.
    Flush { done: oneshot::Sender<()> },
}

/// A message to insert, as a row of the combined statement's JSON array, plus what identifies a
/// user's message among the inserted rows.
pub(super) struct MessageRow {
    json: String,
    chat_id: ChatId,
    telegram_message_id: Option<i64>,
}

impl MessageRow {
    /// `message` with `role`, answering the Telegram update `update_id` (for a reply).
    pub(super) fn new(
        message: &NewMessage<'_>,
        role: Role,
        update_id: Option<i64>,
    ) -> Result<Self> {
        let json = serde_json::to_string(&(
            message.key.chat_id,
            message.key.user_id,
            message.session_id,
            role,
            message.content,
            message.created_at_ms,
            message.tokens_in,
            message.tokens_out,
            message.telegram_message_id,
            update_id,
        ))
        .map_err(|error| sqlx::Error::Encode(error.into()))?;
        Ok(Self {
            json,
            chat_id: message.key.chat_id,
            telegram_message_id: message.telegram_message_id,
        })
    }
}

/// The combining task: waits for writes, takes the writer, adds whatever else arrived meanwhile,
/// and writes the round.
pub(super) async fn combine_writes(
    connections: Arc<Connections>,
    mut queue: mpsc::Receiver<Write>,
) {
    let mut round = Vec::with_capacity(MAX_ROUND);
    while queue.recv_many(&mut round, MAX_ROUND).await > 0 {
        let writer = connections.lock_writer().await;
        while round.len() < MAX_ROUND {
            match queue.try_recv() {
                Ok(write) => round.push(write),
                Err(_) => break,
            }
        }
        let mut writes = Round::default();
        let mut flushed = Vec::new();
        for write in round.drain(..) {
            match write {
                Write::Message { row, done } => writes.messages.push((row, done)),
                Write::Delivered { record, done } => writes.delivered.push((record, done)),
                Write::AnswerMessages { record, done } => writes.answers.push((record, done)),
                Write::Flush { done } => flushed.push(done),
            }
        }
        if !writes.messages.is_empty() {
            connections.messages_to_index();
        }
        match unless_closed(writer) {
            Ok(mut connection) => write_round(&mut connection, writes).await,
            Err(_) => writes.fail_all(|| sqlx::Error::PoolClosed),
        }
        for done in flushed {
            let _ = done.send(());
        }
    }
}

type MessageWrite = (MessageRow, oneshot::Sender<Result<(i64, bool)>>);
type DeliveredWrite = ((i64, i64), oneshot::Sender<Result<()>>);
type AnswerWrite = ((i64, Vec<i64>), oneshot::Sender<Result<()>>);

/// The writes of one round, by kind.
#[derive(Default)]
struct Round {
    messages: Vec<MessageWrite>,
    delivered: Vec<DeliveredWrite>,
    answers: Vec<AnswerWrite>,
}

impl Round {
    fn len(&self) -> usize {
        self.messages.len() + self.delivered.len() + self.answers.len()
    }

    /// Answers the round's only write with `error`.
    fn fail_one(self, error: sqlx::Error) {
        if let Some((_, done)) = self.messages.into_iter().next() {
            let _ = done.send(Err(error));
        } else if let Some((_, done)) = self.delivered.into_iter().next() {
            let _ = done.send(Err(error));
        } else if let Some((_, done)) = self.answers.into_iter().next() {
            let _ = done.send(Err(error));
        }
    }

    /// Answers every write with the error `error` makes.
    fn fail_all(self, error: impl Fn() -> sqlx::Error) {
        for (_, done) in self.messages {
            let _ = done.send(Err(error()));
        }
        for (_, done) in self.delivered {
            let _ = done.send(Err(error()));
        }
        for (_, done) in self.answers {
            let _ = done.send(Err(error()));
        }
    }
}

/// Writes one round in one transaction (one statement, see [`round_statement`]). If that fails,
/// writes each write on its own, so that only a bad one fails.
async fn write_round(connection: &mut sqlx::SqliteConnection, writes: Round) {
    if writes.len() == 0 {
        return;
    }
    let rows: Vec<&MessageRow> = writes.messages.iter().map(|(row, _)| row).collect();
    let records: Vec<(i64, i64)> = writes.delivered.iter().map(|(record, _)| *record).collect();
    let answers: Vec<&(i64, Vec<i64>)> = writes.answers.iter().map(|(record, _)| record).collect();
    let error = match round_statement(connection, &rows, &records, &answers).await {
        Ok(outcomes) => {
            for ((_, done), outcome) in writes.messages.into_iter().zip(outcomes) {
                let _ = done.send(outcome);
            }
            let records = writes.delivered.into_iter().map(|(_, done)| done);
            for done in records.chain(writes.answers.into_iter().map(|(_, done)| done)) {
                let _ = done.send(Ok(()));
            }
            return;
        }
        Err(error) => error,
    };
    if writes.len() == 1 {
        // The statement was this one write: the error is its own (say, a full database).
        writes.fail_one(error);
        return;
    }
    tracing::debug!(error = %error, "a combined write failed; writing one by one");
    write_one_by_one(connection, writes).await;
}

/// Writes each write of a round in a statement of its own.
async fn write_one_by_one(connection: &mut sqlx::SqliteConnection, writes: Round) {
    for (row, done) in writes.messages {
        let outcome = round_statement(connection, &[&row], &[], &[]).await;
        let _ = done.send(outcome.and_then(|mut outcomes| outcomes.remove(0)));
    }
    for (record, done) in writes.delivered {
        let outcome = round_statement(connection, &[], &[record], &[]).await;
        let _ = done.send(outcome.map(|_| ()));
    }
    for (record, done) in writes.answers {
        let outcome = round_statement(connection, &[], &[], &[&record]).await;
        let _ = done.send(outcome.map(|_| ()));
    }
}

/// A message row as the inserts return it.
struct Inserted {
    id: i64,
    chat_id: ChatId,
    telegram_message_id: Option<i64>,
}

/// The messages `rows`, the delivery records `delivered` and the answers' messages `answers` in
/// one transaction, sent to the database thread as one command (one round trip, one commit). An
/// error means nothing was written. Otherwise, for each row in the order of `rows`, its id and
/// whether it was new: a user's message already stored (same chat and Telegram message id, as
/// when an update is handled again after a crash) is not inserted, and its existing id is looked
/// up after the commit.
///
/// The messages inserted are counted in `daily_usage` in the same transaction, and only they: a
/// message not inserted (stored before) was counted when it was. They are the newest `changes()`
/// rows of `messages` (the insert's own count, triggers' writes aside): AUTOINCREMENT gives a new
/// row a larger id than any row ever stored, and the transaction holds the write lock.
async fn round_statement(
    connection: &mut sqlx::SqliteConnection,
    rows: &[&MessageRow],
    delivered: &[(i64, i64)],
    answers: &[&(i64, Vec<i64>)],
) -> Result<Vec<Result<(i64, bool)>>> {
    let encode = |error: serde_json::Error| sqlx::Error::Encode(error.into());
    let delivered = serde_json::to_string(delivered).map_err(encode)?;
    let answers = serde_json::to_string(answers).map_err(encode)?;
    // Statements after a failing one do not run: roll back what the transaction did.
    let inserted = sqlx::query_as!(
        Inserted,
        r#"BEGIN IMMEDIATE;
           INSERT INTO messages
               (chat_id, user_id, session_id, role, content, created_at,
                tokens_in, tokens_out, telegram_message_id, update_id)
           SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4,
                  value ->> 5, value ->> 6, value ->> 7, value ->> 8, value ->> 9
           FROM json_each(?) WHERE true ORDER BY key
           ON CONFLICT DO NOTHING
           RETURNING id AS "id!", chat_id AS "chat_id!", telegram_message_id;
           INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
           SELECT user_id, created_at - created_at % 86400000, sum(role = 'user'),
                  sum(tokens_in + tokens_out)
           FROM (SELECT user_id, created_at, role, tokens_in, tokens_out FROM messages
                 ORDER BY id DESC LIMIT changes())
           WHERE true GROUP BY 1, 2
           ON CONFLICT (user_id, day_start_at) DO UPDATE
               SET messages = messages + excluded.messages, tokens = tokens + excluded.tokens;
           UPDATE messages SET telegram_message_id = delivered.value ->> 1
           FROM json_each(?) AS delivered
           WHERE messages.id = delivered.value ->> 0;
           UPDATE processed_updates SET answer_message_ids = answer.value -> 1
           FROM json_each(?) AS answer
           WHERE processed_updates.update_id = answer.value ->> 0;
           COMMIT"#,
        json_array(rows),
        delivered,
        answers,
    )
    .fetch_all(&mut *connection)
    .await;
    match inserted {
        Ok(inserted) => Ok(match_inserted(connection, rows, inserted).await),
        Err(error) => {
            super::roll_back_failed_command(connection).await;
            Err(error)
        }
    }
}

/// The rows as one JSON array.
fn json_array(rows: &[&MessageRow]) -> String {
    let mut json =
        String::with_capacity(rows.iter().map(|row| row.json.len() + 1).sum::<usize>() + 2);
    json.push('[');
    for (index, row) in rows.iter().enumerate() {
        if index > 0 {
            json.push(',');
        }
        json.push_str(&row.json);
    }
    json.push(']');
    json
}

/// Pairs the rows an insert returned with `rows`: each row's id and whether it was new. The rows
/// go in in array order and AUTOINCREMENT gives each a larger id than the one before, so sorting
/// the returned rows by id restores the order of `rows`, minus the ones not inserted. A failed
/// look-up of one not inserted fails that row alone: the others are stored, and must not be
/// written again.
async fn match_inserted(
    connection: &mut sqlx::SqliteConnection,
    rows: &[&MessageRow],
    mut inserted: Vec<Inserted>,
) -> Vec<Result<(i64, bool)>> {
    inserted.sort_unstable_by_key(|row| row.id);
    let mut inserted = inserted.into_iter().peekable();
    let mut outcomes = Vec::with_capacity(rows.len());
    for row in rows {
        let next = inserted.next_if(|next| {
            next.chat_id == row.chat_id && next.telegram_message_id == row.telegram_message_id
        });
        match next {
            Some(next) => outcomes.push(Ok((next.id, true))),
            None => outcomes.push(
                existing_user_message(connection, row)
                    .await
                    .map(|id| (id, false)),
            ),
        }
    }
    outcomes
}

/// The id of the stored user's message `row` repeats.
async fn existing_user_message(
    connection: &mut sqlx::SqliteConnection,
    row: &MessageRow,
) -> Result<i64> {
    sqlx::query_scalar!(
        r#"SELECT id AS "id!" FROM messages
           WHERE chat_id = ?1 AND telegram_message_id = ?2 AND role = 'user'"#,
        row.chat_id,
        row.telegram_message_id,
    )
    .fetch_optional(connection)
    .await?
    .ok_or_else(|| sqlx::Error::Protocol("a combined message insert lost a row".into()))
}
