//! Incognito: the per-conversation switch (`incognito_conversations`), and the token counts of
//! incognito turns (`incognito_token_usage`), which store no message to carry them. Neither holds
//! any text. Whether a turn is in incognito is read with the rest of its start
//! ([`Store::turn_start`]).

use super::Result;
use super::{Backend, Store};
use super::{ConversationKey, UserId};

impl Store {
    /// Whether the conversation is in incognito.
    pub async fn is_incognito(&self, key: ConversationKey) -> Result<bool> {
        run!(
            self.reader.fetch_one,
            query_scalar!(
                sql = r#"SELECT EXISTS (SELECT 1 FROM incognito_conversations
                                        WHERE chat_id = $1 AND user_id = $2) AS "incognito!: bool""#,
                key.chat_id.0,
                key.user_id.0,
            ),
        )
    }

    /// Switches the conversation's incognito on (from `now_ms`) or off. Returns whether that
    /// changed anything (`false`: it was so already).
    pub async fn set_incognito(&self, key: ConversationKey, on: bool, now_ms: i64) -> Result<bool> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                let result = if on {
                    sqlx::query!(
                        "INSERT INTO incognito_conversations (chat_id, user_id, since_at)
                         VALUES (?1, ?2, ?3)
                         ON CONFLICT (chat_id, user_id) DO NOTHING",
                        key.chat_id,
                        key.user_id,
                        now_ms,
                    )
                    .execute(&mut *db.writer().await?)
                    .await?
                } else {
                    sqlx::query!(
                        "DELETE FROM incognito_conversations WHERE chat_id = ?1 AND user_id = ?2",
                        key.chat_id,
                        key.user_id,
                    )
                    .execute(&mut *db.writer().await?)
                    .await?
                };
                Ok(result.rows_affected() == 1)
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let result = if on {
                    sqlx::query!(
                        "INSERT INTO incognito_conversations (chat_id, user_id, since_at)
                         VALUES ($1, $2, $3)
                         ON CONFLICT (chat_id, user_id) DO NOTHING",
                        key.chat_id.0,
                        key.user_id.0,
                        now_ms,
                    )
                    .execute(&db.pool)
                    .await?
                } else {
                    sqlx::query!(
                        "DELETE FROM incognito_conversations WHERE chat_id = $1 AND user_id = $2",
                        key.chat_id.0,
                        key.user_id.0,
                    )
                    .execute(&db.pool)
                    .await?
                };
                Ok(result.rows_affected() == 1)
            }
        }
    }

    /// Adds the tokens of one incognito turn of `user_id` to their count of the UTC day that
    /// starts at `day_start_ms`.
    pub async fn add_incognito_tokens(
        &self,
        user_id: UserId,
        day_start_ms: i64,
        tokens_in: i64,
        tokens_out: i64,
    ) -> Result<()> {
        run!(
            self.writer.execute,
            query!(
                sql = "INSERT INTO incognito_token_usage (user_id, day_start_at, tokens_in, tokens_out)
                       VALUES ($1, $2, $3, $4)
                       ON CONFLICT (user_id, day_start_at) DO UPDATE
                           SET tokens_in = incognito_token_usage.tokens_in + excluded.tokens_in,
                               tokens_out = incognito_token_usage.tokens_out + excluded.tokens_out",
                user_id.0,
                day_start_ms,
                tokens_in,
                tokens_out,
            ),
        )?;
        Ok(())
    }

    /// Tokens (in and out) `user_id`'s incognito turns used in all their chats since the UTC
    /// day that starts at `since_day_start_ms`.
    pub async fn incognito_tokens(&self, user_id: UserId, since_day_start_ms: i64) -> Result<i64> {
        run!(
            self.reader.fetch_one,
            query_scalar!(
                sqlite = r#"SELECT coalesce(sum(tokens_in + tokens_out), 0) AS "tokens!: i64"
                            FROM incognito_token_usage WHERE user_id = ?1 AND day_start_at >= ?2"#,
                postgres = r#"SELECT coalesce(sum(tokens_in + tokens_out), 0)::bigint AS "tokens!"
                              FROM incognito_token_usage WHERE user_id = $1 AND day_start_at >= $2"#,
                user_id.0,
                since_day_start_ms,
            ),
        )
    }
}
