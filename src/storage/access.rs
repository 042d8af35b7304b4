//! What admins decided about people: who they let in or shut out (`access_rules`), whose daily
//! token limit they changed (`token_limits`), and which strangers they were told about
//! (`stranger_alerts`). Admin decisions, not a person's data, so the purge leaves them.

use super::Result;
use super::Store;
use super::UserId;

/// What an admin decided about one person's access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, sqlx::Type)]
#[sqlx(type_name = "TEXT", rename_all = "lowercase")]
pub enum AccessRule {
    /// Let in (`/allow`), whatever the configured lists say.
    Allow,
    /// Shut out (`/block`), whatever `ALLOWED_USERS` or `ALLOW_ALL_USERS` say.
    Block,
}

/// An access rule as stored: whose, which, by which admin, when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AccessRuleRecord {
    pub user_id: UserId,
    pub rule: AccessRule,
    pub changed_by: UserId,
    pub changed_at_ms: i64,
}

/// A person's own daily token limit as an admin set it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenLimitRecord {
    pub user_id: UserId,
    /// `None`: no limit at all.
    pub daily_tokens: Option<i64>,
    pub set_by: UserId,
    pub set_at_ms: i64,
}

/// A summary of every access rule that changes with any change to them (a rule set, changed or
/// deleted), read instead of the rules to see whether another replica changed them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccessRulesFingerprint {
    pub rules: i64,
    pub blocks: i64,
    /// The rules' people and change times, summed modulo a prime so the sum cannot overflow.
    pub stamp: i64,
}

/// A stranger the admins were told about, and when.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StrangerAlert {
    pub user_id: UserId,
    pub alerted_at_ms: i64,
}

impl Store {
    /// Every access rule, by person.
    pub async fn access_rules(&self) -> Result<Vec<AccessRuleRecord>> {
        run!(
            self.reader.fetch_all,
            query_as!(
                AccessRuleRecord,
                sql = r#"SELECT user_id AS "user_id!", rule AS "rule: AccessRule",
                                changed_by AS "changed_by: UserId",
                                changed_at AS changed_at_ms
                         FROM access_rules ORDER BY user_id"#,
            ),
        )
    }

    /// The [`AccessRulesFingerprint`] of the rules as they are now.
    pub async fn access_rules_fingerprint(&self) -> Result<AccessRulesFingerprint> {
        run!(
            self.reader.fetch_one,
            query_as!(
                AccessRulesFingerprint,
                sqlite = r#"SELECT count(*) AS "rules!: i64",
                                   coalesce(sum(rule = 'block'), 0) AS "blocks!: i64",
                                   coalesce(sum((user_id % 1000000007) + (changed_at % 1000000007)), 0)
                                       AS "stamp!: i64"
                            FROM access_rules"#,
                postgres = r#"SELECT count(*)::bigint AS "rules!",
                                     coalesce(sum(CASE WHEN rule = 'block' THEN 1 ELSE 0 END), 0)::bigint
                                         AS "blocks!",
                                     coalesce(sum((user_id % 1000000007) + (changed_at % 1000000007)), 0)::bigint
                                         AS "stamp!"
                              FROM access_rules"#,
            ),
        )
    }

    /// Stores `record`, replacing the person's earlier rule.
    pub async fn set_access_rule(&self, record: &AccessRuleRecord) -> Result<()> {
        run!(
            self.writer.execute,
            query!(
                sql = "INSERT INTO access_rules (user_id, rule, changed_by, changed_at)
                       VALUES ($1, $2, $3, $4)
                       ON CONFLICT (user_id) DO UPDATE
                           SET rule = excluded.rule, changed_by = excluded.changed_by,
                               changed_at = excluded.changed_at",
                record.user_id.0,
                record.rule as AccessRule,
                record.changed_by.0,
                record.changed_at_ms,
            ),
        )?;
        Ok(())
    }

    /// Deletes the person's rule; whether there was one.
    pub async fn delete_access_rule(&self, user_id: UserId) -> Result<bool> {
        delete_person_row!(self, "access_rules", user_id)
    }

    /// Records that the admins were told about the stranger `user_id`; whether this is the first
    /// time (only then are they told; with replicas, by whichever got here first).
    pub async fn record_stranger_alert(&self, user_id: UserId, now_ms: i64) -> Result<bool> {
        record_first_time!(self, "stranger_alerts", "alerted_at", user_id, now_ms)
    }

    /// The strangers the admins were told about, the latest first, at most `limit`.
    pub async fn stranger_alerts(&self, limit: i64) -> Result<Vec<StrangerAlert>> {
        run!(
            self.reader.fetch_all,
            query_as!(
                StrangerAlert,
                sql = r#"SELECT user_id AS "user_id!: UserId", alerted_at AS "alerted_at_ms!"
                         FROM stranger_alerts ORDER BY alerted_at DESC, user_id LIMIT $1"#,
                limit,
            ),
        )
    }

    /// The person's own daily token limit, if an admin set one.
    pub async fn token_limit(&self, user_id: UserId) -> Result<Option<TokenLimitRecord>> {
        run!(
            self.reader.fetch_optional,
            query_as!(
                TokenLimitRecord,
                sql = r#"SELECT user_id AS "user_id!", daily_tokens,
                                set_by AS "set_by: UserId", set_at AS set_at_ms
                         FROM token_limits WHERE user_id = $1"#,
                user_id.0,
            ),
        )
    }

    /// Whether an admin gave anyone a daily token limit of their own (a number, not `off`).
    pub async fn any_own_token_limit(&self) -> Result<bool> {
        run!(
            self.reader.fetch_one,
            query_scalar!(
                sql = r#"SELECT EXISTS (SELECT 1 FROM token_limits WHERE daily_tokens IS NOT NULL)
                             AS "any!: bool""#,
            ),
        )
    }

    /// Stores `record`, replacing the person's earlier limit.
    pub async fn set_token_limit(&self, record: &TokenLimitRecord) -> Result<()> {
        run!(
            self.writer.execute,
            query!(
                sql = "INSERT INTO token_limits (user_id, daily_tokens, set_by, set_at)
                       VALUES ($1, $2, $3, $4)
                       ON CONFLICT (user_id) DO UPDATE
                           SET daily_tokens = excluded.daily_tokens, set_by = excluded.set_by,
                               set_at = excluded.set_at",
                record.user_id.0,
                record.daily_tokens,
                record.set_by.0,
                record.set_at_ms,
            ),
        )?;
        Ok(())
    }

    /// Deletes the person's own limit, so the setting applies again; whether there was one.
    pub async fn delete_token_limit(&self, user_id: UserId) -> Result<bool> {
        delete_person_row!(self, "token_limits", user_id)
    }
}
