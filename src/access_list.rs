//! Who may use the bot: the configured lists (`ADMIN_USERS`, `ALLOWED_USERS`, `ALLOW_ALL_USERS`)
//! and what the admins changed with `/allow`, `/block` and `/unblock`. The admins' rules are stored
//! in the database and held in memory: read at start, updated with every change made here, and
//! read again when another replica changed them (PostgreSQL: [`AccessList::refresh`], twice a
//! second from [`keep_admin_decisions_fresh`]), so deciding about a message costs no query and a
//! change counts on every replica within a second.
//!
//! The order of precedence: an admin is always allowed and cannot be blocked; a block wins over
//! `ALLOWED_USERS` and `ALLOW_ALL_USERS`; then `ALLOW_ALL_USERS`, `ALLOWED_USERS` and the admins'
//! allows let people in; anyone else is a stranger. Telegram-free: `telegram::access` asks it
//! about every sender, the admin commands change it. Every change is logged with ids only.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use anyhow::Context;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::config::TelegramConfig;
use crate::quota::Quota;
use crate::storage::{
    AccessRule, AccessRuleRecord, AccessRulesFingerprint, Store, StrangerAlert, UserId,
};
use crate::ticks;

/// How often every replica looks whether admins changed a decision elsewhere: a change counts
/// everywhere within a second.
pub const ADMIN_DECISIONS_REFRESH: Duration = Duration::from_millis(500);

/// What the list says about one identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// In `ADMIN_USERS`.
    Admin,
    Allowed,
    /// Blocked by an admin.
    Blocked,
    /// Neither allowed nor blocked.
    Stranger,
}

/// Why an admin's change was refused.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    #[error("an admin cannot block themselves")]
    Yourself,
    #[error("people in ADMIN_USERS cannot be blocked")]
    Admin,
    #[error(transparent)]
    Storage(#[from] anyhow::Error),
}

/// What an admin does about a person's access: `/allow`, `/block`, `/unblock`, and an alert's
/// Allow and Block buttons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessAction {
    Allow,
    Block,
    Unblock,
}

/// What an admin's change did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessChange {
    /// Let in now (a block, if any, lifted).
    Allowed,
    /// Was already allowed, and not blocked: nothing changed.
    AlreadyAllowed,
    Blocked,
    AlreadyBlocked,
    /// The block was lifted; the configured lists decide again.
    Unblocked,
    /// There was no block to lift.
    NotBlocked,
}

/// Everything `/users` shows about access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccessOverview {
    pub allow_all: bool,
    pub admins: Vec<UserId>,
    /// `ALLOWED_USERS`.
    pub configured: Vec<UserId>,
    /// Let in by an admin, by person.
    pub allowed: Vec<AccessRuleRecord>,
    /// Blocked by an admin, by person.
    pub blocked: Vec<AccessRuleRecord>,
}

/// The lists of the configuration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConfiguredAccess {
    /// `ALLOW_ALL_USERS`.
    pub allow_all: bool,
    /// `ADMIN_USERS`.
    pub admins: BTreeSet<UserId>,
    /// `ALLOWED_USERS`.
    pub allowed: BTreeSet<UserId>,
}

impl ConfiguredAccess {
    pub fn from_config(config: &TelegramConfig) -> Self {
        Self {
            allow_all: config.allow_all_users,
            admins: config.admin_users.iter().copied().collect(),
            allowed: config.allowed_users.iter().copied().collect(),
        }
    }
}

/// The configured lists and the admins' rules; share it behind an `Arc`.
pub struct AccessList {
    allow_all: bool,
    admins: BTreeSet<UserId>,
    configured: BTreeSet<UserId>,
    rules: RwLock<HashMap<UserId, AccessRuleRecord>>,
    /// The stored rules' fingerprint when `rules` was last read from the database.
    fingerprint: Mutex<AccessRulesFingerprint>,
    store: Store,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for AccessList {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("AccessList")
            .field("allow_all", &self.allow_all)
            .field("admins", &self.admins)
            .field("configured", &self.configured)
            .finish_non_exhaustive()
    }
}

impl AccessList {
    /// The configured lists with the admins' rules read from the database.
    pub async fn load(
        configured: ConfiguredAccess,
        store: Store,
        clock: Arc<dyn Clock>,
    ) -> anyhow::Result<Self> {
        let list = Self {
            allow_all: configured.allow_all,
            admins: configured.admins,
            configured: configured.allowed,
            rules: RwLock::default(),
            fingerprint: Mutex::new(AccessRulesFingerprint {
                rules: -1,
                ..AccessRulesFingerprint::default()
            }),
            store,
            clock,
        };
        list.refresh().await?;
        Ok(list)
    }

    /// Reads the rules again if they changed in the database since they were last read (another
    /// replica's admin decided something): one small query when nothing changed.
    pub async fn refresh(&self) -> anyhow::Result<()> {
        let fingerprint = self
            .store
            .access_rules_fingerprint()
            .await
            .context("cannot read the admins' access rules")?;
        if *self.fingerprint_now() == fingerprint {
            return Ok(());
        }
        let rules = self
            .store
            .access_rules()
            .await
            .context("cannot read the admins' access rules")?;
        *self.rules_mut() = rules.into_iter().map(|rule| (rule.user_id, rule)).collect();
        *self.fingerprint_now() = fingerprint;
        Ok(())
    }

    fn fingerprint_now(&self) -> std::sync::MutexGuard<'_, AccessRulesFingerprint> {
        self.fingerprint
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// What the list says about `identity` (a user id, or the id of the chat a message was
    /// sent as).
    pub fn verdict(&self, identity: UserId) -> Verdict {
        if self.admins.contains(&identity) {
            return Verdict::Admin;
        }
        let rule = self.rule(identity);
        if rule == Some(AccessRule::Block) {
            return Verdict::Blocked;
        }
        if self.allow_all || self.configured.contains(&identity) || rule == Some(AccessRule::Allow)
        {
            Verdict::Allowed
        } else {
            Verdict::Stranger
        }
    }

    pub fn is_allowed(&self, identity: UserId) -> bool {
        matches!(self.verdict(identity), Verdict::Admin | Verdict::Allowed)
    }

    /// Whether an admin's rule blocks `identity`.
    fn is_blocked(&self, identity: UserId) -> bool {
        self.rule(identity) == Some(AccessRule::Block)
    }

    pub fn is_admin(&self, identity: UserId) -> bool {
        self.admins.contains(&identity)
    }

    /// `ADMIN_USERS`, in order.
    pub fn admins(&self) -> Vec<UserId> {
        self.admins.iter().copied().collect()
    }

    /// The admin `admin_id` changes `user_id`'s access by `action`: lets them in, lifting a
    /// block; shuts them out, never themselves or another admin; or lifts their block, so the
    /// configured lists decide again.
    pub async fn change(
        &self,
        admin_id: UserId,
        user_id: UserId,
        action: AccessAction,
    ) -> Result<AccessChange, AccessError> {
        let blocked = self.is_blocked(user_id);
        let rule = match action {
            AccessAction::Allow if !blocked && self.is_allowed(user_id) => {
                return Ok(AccessChange::AlreadyAllowed);
            }
            AccessAction::Allow => AccessRule::Allow,
            AccessAction::Block if user_id == admin_id => return Err(AccessError::Yourself),
            AccessAction::Block if self.is_admin(user_id) => return Err(AccessError::Admin),
            AccessAction::Block if blocked => return Ok(AccessChange::AlreadyBlocked),
            AccessAction::Block => AccessRule::Block,
            AccessAction::Unblock if !blocked => return Ok(AccessChange::NotBlocked),
            AccessAction::Unblock => return self.lift_block(admin_id, user_id).await,
        };
        self.set_rule(admin_id, user_id, rule).await?;
        Ok(match rule {
            AccessRule::Allow => AccessChange::Allowed,
            AccessRule::Block => AccessChange::Blocked,
        })
    }

    async fn lift_block(
        &self,
        admin_id: UserId,
        user_id: UserId,
    ) -> Result<AccessChange, AccessError> {
        self.store
            .delete_access_rule(user_id)
            .await
            .context("cannot delete the access rule")?;
        self.rules_mut().remove(&user_id);
        tracing::info!(
            admin_id = admin_id.0,
            user_id = user_id.0,
            action = "unblock",
            "an admin changed access"
        );
        Ok(AccessChange::Unblocked)
    }

    /// Records that the admins were told about the stranger `user_id`; whether this is the first
    /// time, ever.
    pub async fn first_alert_about(&self, user_id: UserId) -> anyhow::Result<bool> {
        self.store
            .record_stranger_alert(user_id, self.clock.now_ms())
            .await
            .context("cannot record the alert about a stranger")
    }

    /// The strangers the admins were told about, the latest first, at most `limit`.
    pub async fn strangers(&self, limit: i64) -> anyhow::Result<Vec<StrangerAlert>> {
        self.store
            .stranger_alerts(limit)
            .await
            .context("cannot read the alerts about strangers")
    }

    /// Who is allowed and who is blocked, for `/users`.
    pub fn overview(&self) -> AccessOverview {
        let mut rules: Vec<AccessRuleRecord> = self.rules_read().values().copied().collect();
        rules.sort_by_key(|rule| rule.user_id);
        let (blocked, allowed) = rules
            .into_iter()
            .partition(|rule| rule.rule == AccessRule::Block);
        AccessOverview {
            allow_all: self.allow_all,
            admins: self.admins(),
            configured: self.configured.iter().copied().collect(),
            allowed,
            blocked,
        }
    }

    /// Stores the rule, then makes it count at once.
    async fn set_rule(
        &self,
        admin_id: UserId,
        user_id: UserId,
        rule: AccessRule,
    ) -> Result<(), AccessError> {
        let record = AccessRuleRecord {
            user_id,
            rule,
            changed_by: admin_id,
            changed_at_ms: self.clock.now_ms(),
        };
        self.store
            .set_access_rule(&record)
            .await
            .context("cannot store the access rule")?;
        self.rules_mut().insert(user_id, record);
        tracing::info!(
            admin_id = admin_id.0,
            user_id = user_id.0,
            action = ?rule,
            "an admin changed access"
        );
        Ok(())
    }

    fn rule(&self, identity: UserId) -> Option<AccessRule> {
        self.rules_read().get(&identity).map(|record| record.rule)
    }

    // A poisoned lock only means a writer panicked between two whole-value updates of the map;
    // the map itself is still consistent.
    fn rules_read(&self) -> std::sync::RwLockReadGuard<'_, HashMap<UserId, AccessRuleRecord>> {
        self.rules
            .read()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn rules_mut(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<UserId, AccessRuleRecord>> {
        self.rules
            .write()
            .unwrap_or_else(|poison| poison.into_inner())
    }
}

/// Keeps this replica's copy of the admins' decisions (access rules, whether anyone has a daily
/// token limit) up to date with the database until `shutdown`: what an admin decides through
/// another replica counts here within a second.
pub async fn keep_admin_decisions_fresh(
    access: Arc<AccessList>,
    quota: Quota,
    shutdown: CancellationToken,
) {
    let mut ticks = ticks::every(ADMIN_DECISIONS_REFRESH);
    while ticks::next(&mut ticks, &shutdown).await {
        if let Err(error) = access.refresh().await {
            tracing::warn!(error = ?error, "could not read the admins' access rules again");
        }
        if let Err(error) = quota.refresh().await {
            tracing::warn!(error = ?error, "could not read the token limits again");
        }
    }
}
