//! Reminders (`reminders`): added within a person's limit, listed and cancelled by that person
//! only, claimed by the delivery job of whichever replica comes first, and marked sent (with the
//! Telegram message that carried them), to be retried, or failed. A claim holds until its lease
//! runs out; a claim that lapsed (its replica died, or it waits for a retry) may be taken again.

use super::{ChatId, ConversationKey, Result, Store, UserId};

/// A reminder to store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewReminder<'a> {
    /// The chat it is sent in and the person it is for.
    pub key: ConversationKey,
    pub text: &'a str,
    pub due_at_ms: i64,
    pub created_at_ms: i64,
}

/// What came of [`Store::add_reminder`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReminderAdded {
    Added {
        id: i64,
    },
    /// The person has as many reminders waiting as they may.
    LimitReached,
}

/// A stored reminder.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Reminder {
    pub id: i64,
    pub chat_id: ChatId,
    pub user_id: UserId,
    pub text: String,
    pub due_at_ms: i64,
    pub created_at_ms: i64,
    /// `pending`, `claimed` (being sent), `sent`, `cancelled` or `failed`.
    pub state: String,
    pub sent_at_ms: Option<i64>,
}

/// A reminder claimed for sending.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DueReminder {
    pub id: i64,
    pub chat_id: ChatId,
    pub user_id: UserId,
    pub text: String,
    pub due_at_ms: i64,
    /// Claims so far, this one included.
    pub attempts: i64,
}

impl Store {
    /// Stores `reminder`, unless its person has `max_waiting` reminders waiting already. The
    /// count and the insert are one transaction, taken one person at a time, so adds racing on
    /// replicas cannot pass the limit together.
    pub async fn add_reminder(
        &self,
        reminder: &NewReminder<'_>,
        max_waiting: i64,
    ) -> Result<ReminderAdded> {
        let (chat_id, user_id) = (reminder.key.chat_id.0, reminder.key.user_id.0);
        let text = self.storable(reminder.text);
        begin!(self, transaction);
        // On SQLite the writer's transaction is already one at a time.
        #[cfg(feature = "postgres")]
        #[allow(irrefutable_let_patterns)] // with the PostgreSQL backend alone
        if let super::backend::Writing::Postgres(transaction) = transaction.statements() {
            sqlx::query!(
                "SELECT pg_advisory_xact_lock(hashtext('telemem reminders'), hashtext($1::text))",
                user_id.to_string(),
            )
            .fetch_one(&mut **transaction)
            .await?;
        }
        let waiting = run_in!(
            transaction.fetch_one,
            query_scalar!(
                sql = r#"SELECT count(*) AS "count!: i64" FROM reminders
                         WHERE user_id = $1 AND state IN ('pending', 'claimed')"#,
                user_id,
            ),
        )?;
        if waiting >= max_waiting {
            return Ok(ReminderAdded::LimitReached);
        }
        let id = run_in!(
            transaction.fetch_one,
            query_scalar!(
                sql = r#"INSERT INTO reminders (chat_id, user_id, text, due_at, created_at)
                         VALUES ($1, $2, $3, $4, $5) RETURNING id AS "id!: i64""#,
                chat_id,
                user_id,
                &*text,
                reminder.due_at_ms,
                reminder.created_at_ms,
            ),
        )?;
        transaction.commit().await?;
        Ok(ReminderAdded::Added { id })
    }

    /// The person's reminders not yet sent nor cancelled, soonest first, in every chat.
    pub async fn pending_reminders(&self, user_id: UserId) -> Result<Vec<Reminder>> {
        run!(
            self.reader.fetch_all,
            select!(
                Reminder,
                sql = "FROM reminders WHERE user_id = $1 AND state IN ('pending', 'claimed')
                       ORDER BY due_at, id",
                user_id.0,
            ),
        )
    }

    /// Every reminder of the conversation, whatever its state, in order of their times (for
    /// `/export`).
    pub async fn reminders_of(&self, key: ConversationKey) -> Result<Vec<Reminder>> {
        run!(
            self.reader.fetch_all,
            select!(
                Reminder,
                sql = "FROM reminders WHERE chat_id = $1 AND user_id = $2 ORDER BY due_at, id",
                key.chat_id.0,
                key.user_id.0,
            ),
        )
    }

    /// Cancels the person's reminder `id` if it is still waiting; false when it is not theirs,
    /// was sent, or is being sent right now.
    pub async fn cancel_reminder(&self, user_id: UserId, id: i64) -> Result<bool> {
        let cancelled = run!(
            self.writer.execute,
            query!(
                sql = "UPDATE reminders SET state = 'cancelled'
                       WHERE id = $1 AND user_id = $2 AND state = 'pending'",
                id,
                user_id.0,
            ),
        )?;
        Ok(cancelled == 1)
    }

    /// Claims for `claimant`, soonest first, up to `limit` reminders due at `now_ms` that are
    /// waiting or whose claim lapsed, each until `now_ms + lease_ms`. On PostgreSQL rows another
    /// replica is claiming are skipped, never waited for.
    pub async fn claim_due_reminders(
        &self,
        claimant: &str,
        now_ms: i64,
        lease_ms: i64,
        limit: i64,
    ) -> Result<Vec<DueReminder>> {
        let lease_until = now_ms.saturating_add(lease_ms);
        let mut due = run!(
            self.writer.fetch_all,
            query_as!(
                DueReminder,
                sqlite = r#"UPDATE reminders
                            SET state = 'claimed', claimed_by = ?1, lease_until = ?3,
                                attempts = attempts + 1
                            WHERE id IN (SELECT id FROM reminders
                                         WHERE due_at <= ?2
                                           AND (state = 'pending'
                                                OR (state = 'claimed' AND lease_until <= ?2))
                                         ORDER BY due_at, id LIMIT ?4)
                            RETURNING id AS "id!", chat_id, user_id, text, due_at AS due_at_ms,
                                      attempts AS "attempts: i64""#,
                postgres = r#"UPDATE reminders
                              SET state = 'claimed', claimed_by = $1, lease_until = $3,
                                  attempts = attempts + 1
                              WHERE id IN (SELECT id FROM reminders
                                           WHERE due_at <= $2
                                             AND (state = 'pending'
                                                  OR (state = 'claimed' AND lease_until <= $2))
                                           ORDER BY due_at, id LIMIT $4
                                           FOR UPDATE SKIP LOCKED)
                              RETURNING id, chat_id, user_id, text, due_at AS due_at_ms,
                                        attempts::bigint AS "attempts!""#,
                claimant,
                now_ms,
                lease_until,
                limit,
            ),
        )?;
        // RETURNING gives no order.
        due.sort_by_key(|reminder| (reminder.due_at_ms, reminder.id));
        Ok(due)
    }

    /// Extends `claimant`'s claim on reminder `id` to `now_ms + lease_ms`, just before a send;
    /// false when it is no longer theirs to send (another claimant took it over after the lease
    /// lapsed, or it was cancelled). A lapsed claim nobody took yet is still theirs.
    pub async fn renew_reminder_claim(
        &self,
        id: i64,
        claimant: &str,
        now_ms: i64,
        lease_ms: i64,
    ) -> Result<bool> {
        let lease_until = now_ms.saturating_add(lease_ms);
        let renewed = run!(
            self.writer.execute,
            query!(
                sql = "UPDATE reminders SET lease_until = $3
                       WHERE id = $1 AND claimed_by = $2 AND state = 'claimed'",
                id,
                claimant,
                lease_until,
            ),
        )?;
        Ok(renewed == 1)
    }

    /// Marks reminder `id` sent at `sent_at_ms` as Telegram message `telegram_message_id`, if
    /// `claimant` still holds its claim; false when its claim lapsed and another took it.
    pub async fn reminder_sent(
        &self,
        id: i64,
        claimant: &str,
        sent_at_ms: i64,
        telegram_message_id: i64,
    ) -> Result<bool> {
        let marked = run!(
            self.writer.execute,
            query!(
                sql = "UPDATE reminders
                       SET state = 'sent', sent_at = $3, telegram_message_id = $4,
                           lease_until = NULL
                       WHERE id = $1 AND claimed_by = $2 AND state = 'claimed'",
                id,
                claimant,
                sent_at_ms,
                telegram_message_id,
            ),
        )?;
        Ok(marked == 1)
    }

    /// Records that `claimant` could not send reminder `id`: with `retry_at_ms`, its claim is
    /// kept until then and it is claimable again after (its due time stays, for the "late"
    /// mark); with `None`, it is given up (`failed`).
    pub async fn reminder_not_sent(
        &self,
        id: i64,
        claimant: &str,
        retry_at_ms: Option<i64>,
    ) -> Result<()> {
        run!(
            self.writer.execute,
            query!(
                sqlite = "UPDATE reminders
                          SET state = iif(?3 IS NULL, 'failed', 'claimed'), lease_until = ?3
                          WHERE id = ?1 AND claimed_by = ?2 AND state = 'claimed'",
                postgres = "UPDATE reminders
                            SET state = CASE WHEN $3::bigint IS NULL THEN 'failed' ELSE 'claimed' END,
                                lease_until = $3
                            WHERE id = $1 AND claimed_by = $2 AND state = 'claimed'",
                id,
                claimant,
                retry_at_ms,
            ),
        )?;
        Ok(())
    }

    /// The earliest time a reminder becomes claimable: a waiting one's due time, or a claimed
    /// one's lease end.
    pub async fn next_reminder_due_ms(&self) -> Result<Option<i64>> {
        run!(
            self.reader.fetch_one,
            query_scalar!(
                sqlite = r#"SELECT min(CASE state WHEN 'pending' THEN due_at
                                                   ELSE max(due_at, lease_until) END)
                                AS "next: i64"
                            FROM reminders WHERE state IN ('pending', 'claimed')"#,
                postgres = r#"SELECT min(CASE state WHEN 'pending' THEN due_at
                                                     ELSE greatest(due_at, lease_until) END)::bigint
                                  AS "next"
                              FROM reminders WHERE state IN ('pending', 'claimed')"#,
            ),
        )
    }
}
