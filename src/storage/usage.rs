//! What each person used and keeps: tokens and messages per UTC day (`daily_usage`), for the
//! daily token limit, `/stats`, `/users` and `/usage`; and the bytes of text a person has stored
//! (`stored_bytes`), for the stored-history cap. Both are kept current as things are written, so
//! every read here is a primary-key lookup or a range of days.
//!
//! A stored message counts in `daily_usage` as one message when it is the person's own, and its
//! tokens in and out, on the UTC day of its `created_at`; deleting it gives nothing back. On SQLite
//! the statements that store messages count them in the same transaction: a round of combined
//! writes with one upsert per person and day (`combined.rs`), a message stored alone
//! (`Store::add_message`), a reply stored in place of others and an import
//! (`count_newest_messages`). On PostgreSQL the trigger `messages_after_insert` counts each
//! message, and an import counts its own (`postgres/import.rs`). Incognito turns, which store no
//! message, are counted by triggers on `incognito_token_usage` on both. `stored_bytes` is kept by
//! triggers as messages, summaries and notes are written and deleted (the `stored_bytes`
//! migration).

use super::Result;
use super::Store;
use super::UserId;

/// Counts the newest `stored` messages in `daily_usage` (SQLite): the rows the caller has just
/// inserted in this transaction. AUTOINCREMENT gives a new row a larger id than any row ever
/// stored, and the transaction holds the write lock, so they are the rows with the largest ids.
#[cfg(feature = "sqlite")]
pub(super) async fn count_newest_messages(
    connection: &mut sqlx::SqliteConnection,
    stored: u64,
) -> Result<()> {
    let stored = i64::try_from(stored).unwrap_or(i64::MAX);
    sqlx::query!(
        "INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
         SELECT user_id, created_at - created_at % 86400000, sum(role = 'user'),
                sum(tokens_in + tokens_out)
         FROM (SELECT user_id, created_at, role, tokens_in, tokens_out FROM messages
               ORDER BY id DESC LIMIT ?1)
         WHERE true GROUP BY 1, 2
         ON CONFLICT (user_id, day_start_at) DO UPDATE
             SET messages = messages + excluded.messages, tokens = tokens + excluded.tokens",
        stored,
    )
    .execute(connection)
    .await?;
    Ok(())
}

/// One person's use over a stretch of days.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PersonUsage {
    pub user_id: UserId,
    /// Messages the person sent.
    pub messages: i64,
    /// Tokens their turns cost.
    pub tokens: i64,
    /// The part of `tokens` used today.
    pub tokens_today: i64,
    /// Pictures drawn for them.
    pub images: i64,
    /// Seconds of speech made for them.
    pub speech_seconds: i64,
}

/// Tokens a person used on one day, and the limit an admin set for them, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokensAndLimit {
    pub tokens_used: i64,
    /// `None`: no limit of their own (the setting applies); `Some(None)`: no limit at all;
    /// `Some(Some(n))`: `n` tokens a day.
    pub own_limit: Option<Option<i64>>,
}

/// What `Store::tokens_and_limit` reads: the day's tokens, whether the person has a limit of
/// their own, and that limit.
struct UsageRow {
    used: i64,
    limited: bool,
    daily_tokens: Option<i64>,
}

/// Tokens used on one UTC day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DayTokens {
    pub day_start_ms: i64,
    pub tokens: i64,
}

/// A person's stored text and whether they were told it reached the cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredBytes {
    pub bytes: i64,
    pub told: bool,
}

impl Store {
    /// Tokens `user_id` used on the UTC day starting at `day_start_ms`, and their own limit:
    /// what the check before every turn needs, in one read of two primary keys.
    pub async fn tokens_and_limit(
        &self,
        user_id: UserId,
        day_start_ms: i64,
    ) -> Result<TokensAndLimit> {
        let row = run!(
            self.reader.fetch_one,
            query_as!(
                UsageRow,
                sql = r#"SELECT coalesce((SELECT tokens FROM daily_usage
                                          WHERE user_id = $1 AND day_start_at = $2), 0) AS "used!: i64",
                                EXISTS (SELECT 1 FROM token_limits WHERE user_id = $1) AS "limited!: bool",
                                (SELECT daily_tokens FROM token_limits WHERE user_id = $1)
                                    AS "daily_tokens?: i64""#,
                user_id.0,
                day_start_ms,
            ),
        )?;
        Ok(TokensAndLimit {
            tokens_used: row.used,
            own_limit: row.limited.then_some(row.daily_tokens),
        })
    }

    /// Each person's use from the day starting at `since_ms` on (`today_ms`: the start of today),
    /// most tokens first; with `only`, that person's alone (nothing if they used nothing).
    pub async fn usage_by_person(
        &self,
        since_ms: i64,
        today_ms: i64,
        only: Option<UserId>,
    ) -> Result<Vec<PersonUsage>> {
        run!(
            self.reader.fetch_all,
            sqlite = sqlx::query_as!(
                PersonUsage,
                r#"SELECT user_id AS "user_id!: UserId",
                          sum(messages) AS "messages!: i64",
                          sum(tokens) AS "tokens!: i64",
                          sum(CASE WHEN day_start_at >= ?2 THEN tokens ELSE 0 END)
                              AS "tokens_today!: i64",
                          sum(images) AS "images!: i64",
                          sum(speech_seconds) AS "speech_seconds!: i64"
                   FROM daily_usage
                   WHERE day_start_at >= ?1 AND (?3 IS NULL OR user_id = ?3)
                   GROUP BY user_id
                   ORDER BY sum(tokens) DESC, user_id"#,
                since_ms,
                today_ms,
                only,
            ),
            postgres = sqlx::query_as!(
                PersonUsage,
                r#"SELECT user_id,
                          sum(messages)::bigint AS "messages!",
                          sum(tokens)::bigint AS "tokens!",
                          coalesce(sum(tokens) FILTER (WHERE day_start_at >= $2), 0)::bigint
                              AS "tokens_today!",
                          sum(images)::bigint AS "images!",
                          sum(speech_seconds)::bigint AS "speech_seconds!"
                   FROM daily_usage
                   WHERE day_start_at >= $1 AND ($3::bigint IS NULL OR user_id = $3)
                   GROUP BY user_id
                   ORDER BY sum(tokens) DESC, user_id"#,
                since_ms,
                today_ms,
                only.map(|user_id| user_id.0),
            ),
        )
    }

    /// Tokens used per UTC day from the day starting at `since_ms` on, oldest first: `only`'s
    /// (read by their primary key), or everyone's together. Days without use are left out.
    pub async fn tokens_per_day(
        &self,
        since_ms: i64,
        only: Option<UserId>,
    ) -> Result<Vec<DayTokens>> {
        match only {
            Some(user_id) => run!(
                self.reader.fetch_all,
                query_as!(
                    DayTokens,
                    sql = r#"SELECT day_start_at AS "day_start_ms!: i64", tokens AS "tokens!: i64"
                             FROM daily_usage
                             WHERE user_id = $1 AND day_start_at >= $2
                             ORDER BY day_start_at"#,
                    user_id.0,
                    since_ms,
                ),
            ),
            None => run!(
                self.reader.fetch_all,
                query_as!(
                    DayTokens,
                    sqlite = r#"SELECT day_start_at AS "day_start_ms!: i64", sum(tokens) AS "tokens!: i64"
                                FROM daily_usage
                                WHERE day_start_at >= ?1
                                GROUP BY day_start_at
                                ORDER BY day_start_at"#,
                    postgres = r#"SELECT day_start_at AS "day_start_ms!", sum(tokens)::bigint AS "tokens!"
                                  FROM daily_usage
                                  WHERE day_start_at >= $1
                                  GROUP BY day_start_at
                                  ORDER BY day_start_at"#,
                    since_ms,
                ),
            ),
        }
    }

    /// The bytes of text `user_id` stores in all their chats, and whether they were told that
    /// it reached the cap.
    pub async fn stored_bytes(&self, user_id: UserId) -> Result<StoredBytes> {
        run!(
            self.reader.fetch_one,
            query_as!(
                StoredBytes,
                sql = r#"SELECT coalesce((SELECT bytes FROM stored_bytes WHERE user_id = $1), 0)
                                    AS "bytes!: i64",
                                EXISTS (SELECT 1 FROM stored_bytes_notices WHERE user_id = $1)
                                    AS "told!: bool""#,
                user_id.0,
            ),
        )
    }

    /// Records that `user_id` was told their history reached the cap; whether they had not been
    /// told already.
    pub async fn record_stored_bytes_notice(&self, user_id: UserId, now_ms: i64) -> Result<bool> {
        record_first_time!(self, "stored_bytes_notices", "told_at", user_id, now_ms)
    }

    /// Forgets that `user_id` was told about the cap: reaching it again is news again.
    pub async fn forget_stored_bytes_notice(&self, user_id: UserId) -> Result<()> {
        delete_person_row!(self, "stored_bytes_notices", user_id)?;
        Ok(())
    }
}
