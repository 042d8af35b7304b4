//! What one person may use, counted per person across all their chats: tokens per UTC day
//! (`USER_DAILY_TOKEN_LIMIT`, or the limit an admin set for them with `/limit`) and stored
//! history (`USER_MAX_STORED_MB`). Telegram-free: the Telegram handlers ask [`Quota`] before a
//! turn and after one, `telemem chat` before one, and the admin commands read and change it.
//!
//! **Tokens.** A turn costs what its reply stored: the provider's reported usage, or the
//! project's estimate when the provider reports none (`Conversations::finish_turn`). The day's
//! count is kept per person in `daily_usage` (counted in the transaction that stores the reply,
//! see `storage/usage.rs`), so `/clear` does not reset it. The check reads it before a turn: a turn started under the
//! limit finishes, even if it ends past it. `ADMIN_USERS` are exempt.
//!
//! **Stored history.** A person's size is the UTF-8 byte length of the texts stored for them: their
//! messages, the replies to them, session summaries and notes (not the persona, which is bounded,
//! nor the vectors, which go with their rows). Past the cap, their oldest closed sessions are
//! deleted first, off the reply's path, and they are told once: the notice is stored, so neither
//! later trims nor a restart repeat it, until their history is back under half the cap.
//!
//! **Pictures and speech.** Per UTC day, in [`media`].

pub mod media;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use anyhow::Context;

use crate::clock::{Clock, start_of_utc_day_ms};
use crate::config::Config;
use crate::storage::{DayTokens, PersonUsage, Store, TokenLimitRecord, UserId};

/// One UTC day in milliseconds.
pub const DAY_MS: i64 = 24 * 60 * 60 * 1000;

/// The limits that apply, fixed at start.
#[derive(Clone, Debug, Default)]
pub struct QuotaSettings {
    /// Tokens a day for people without a limit of their own; `None`: no limit.
    pub daily_tokens: Option<u64>,
    /// Most bytes of text one person may keep; `None`: no cap.
    pub max_stored_bytes: Option<u64>,
    /// People the token limit never applies to (`ADMIN_USERS`).
    pub exempt: HashSet<UserId>,
    /// Rows deleted per transaction when trimming a person's history.
    pub batch_size: i64,
    /// Pictures a day per person; `None`: no limit.
    pub daily_images: Option<u64>,
    /// Seconds of speech a day per person; `None`: no limit.
    pub daily_speech_seconds: Option<u64>,
}

impl QuotaSettings {
    pub fn from_config(config: &Config) -> Self {
        Self {
            daily_tokens: config.quota.daily_token_limit(),
            max_stored_bytes: config.quota.max_stored_bytes(),
            exempt: config.telegram.admin_users.iter().copied().collect(),
            batch_size: i64::from(config.storage.purge_batch_size),
            daily_images: config.quota.daily_images(),
            daily_speech_seconds: config.quota.daily_speech_seconds(),
        }
    }
}

/// Where a person's daily token limit comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSource {
    /// `USER_DAILY_TOKEN_LIMIT`.
    Setting,
    /// An admin's `/limit`.
    Admin { set_by: UserId },
    /// `ADMIN_USERS` have no limit.
    Exempt,
}

/// A person's daily token limit as it applies to them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PersonLimit {
    /// `None`: no limit.
    pub tokens: Option<u64>,
    pub source: LimitSource,
}

/// What an admin's `/limit` sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitChange {
    /// This many tokens a day.
    Tokens(u64),
    /// No limit for this person.
    Off,
    /// Back to `USER_DAILY_TOKEN_LIMIT`.
    Default,
}

/// Today's use against the limit, for `/stats`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokensToday {
    pub used: u64,
    /// `None`: no limit.
    pub limit: Option<u64>,
}

/// A person past their daily limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitReached {
    pub used: u64,
    pub limit: u64,
    /// The next 00:00 UTC.
    pub resets_at_ms: i64,
    pub now_ms: i64,
}

/// Whether a person may take a turn now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenCheck {
    Within,
    Reached(LimitReached),
}

/// What the stored-history cap did about a person.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CapOutcome {
    /// Under the cap (or no cap, or a trim for them already running): nothing done.
    Untouched,
    /// Sessions were deleted; `tell` when the person has not been told yet.
    Trimmed { sessions: u64, tell: bool },
}

/// The per-person limits; cheap to clone.
#[derive(Clone)]
pub struct Quota {
    store: Store,
    clock: Arc<dyn Clock>,
    settings: Arc<QuotaSettings>,
    /// People whose history is being trimmed now: one trim per person at a time.
    trimming: Arc<Mutex<HashSet<UserId>>>,
    /// Whether anyone may have a daily limit: the setting, or an admin's `/limit` for someone.
    /// Without either, a turn needs no read of the day's use.
    any_limit: Arc<tokio::sync::OnceCell<AtomicBool>>,
}

impl Quota {
    pub fn new(store: Store, clock: Arc<dyn Clock>, settings: QuotaSettings) -> Self {
        Self {
            store,
            clock,
            settings: Arc::new(settings),
            trimming: Arc::default(),
            any_limit: Arc::default(),
        }
    }

    pub fn settings(&self) -> &QuotaSettings {
        &self.settings
    }

    /// Whether `user_id` may take a turn now: under their daily limit, or without one.
    pub async fn check_tokens(&self, user_id: UserId) -> anyhow::Result<TokenCheck> {
        if self.settings.exempt.contains(&user_id) || !self.anyone_may_have_a_limit().await? {
            return Ok(TokenCheck::Within);
        }
        let now_ms = self.clock.now_ms();
        let today = self.today(user_id, now_ms).await?;
        Ok(match today.limit {
            Some(limit) if today.used >= limit => TokenCheck::Reached(LimitReached {
                used: today.used,
                limit,
                resets_at_ms: start_of_utc_day_ms(now_ms) + DAY_MS,
                now_ms,
            }),
            _ => TokenCheck::Within,
        })
    }

    /// Reads again whether an admin's `/limit` limits anyone (another replica's admin may have
    /// set the first one).
    pub async fn refresh(&self) -> anyhow::Result<()> {
        if self.settings.daily_tokens.is_some() {
            return Ok(());
        }
        let any = self
            .store
            .any_own_token_limit()
            .await
            .context("cannot read the token limits")?;
        match self.any_limit.get() {
            Some(cached) => cached.store(any, Ordering::Relaxed),
            None => {
                let _ = self.any_limit.set(AtomicBool::new(any));
            }
        }
        Ok(())
    }

    /// Whether the setting or an admin's `/limit` may limit anyone; read from the database once,
    /// then kept up to date by [`Quota::set_limit`] and [`Quota::refresh`].
    async fn anyone_may_have_a_limit(&self) -> anyhow::Result<bool> {
        if self.settings.daily_tokens.is_some() {
            return Ok(true);
        }
        if self.any_limit.get().is_none() {
            self.refresh().await?;
        }
        Ok(self
            .any_limit
            .get()
            .is_some_and(|any| any.load(Ordering::Relaxed)))
    }

    /// Tokens `user_id` used today in all their chats, and their limit.
    pub async fn tokens_today(&self, user_id: UserId) -> anyhow::Result<TokensToday> {
        self.today(user_id, self.clock.now_ms()).await
    }

    async fn today(&self, user_id: UserId, now_ms: i64) -> anyhow::Result<TokensToday> {
        let row = self
            .store
            .tokens_and_limit(user_id, start_of_utc_day_ms(now_ms))
            .await
            .context("cannot read today's token use")?;
        let limit = if self.settings.exempt.contains(&user_id) {
            None
        } else {
            match row.own_limit {
                Some(own) => own.map(|tokens| tokens.max(0) as u64),
                None => self.settings.daily_tokens,
            }
        };
        Ok(TokensToday {
            used: row.tokens_used.max(0) as u64,
            limit,
        })
    }

    /// `user_id`'s daily limit and where it comes from.
    pub async fn limit_of(&self, user_id: UserId) -> anyhow::Result<PersonLimit> {
        if self.settings.exempt.contains(&user_id) {
            return Ok(PersonLimit {
                tokens: None,
                source: LimitSource::Exempt,
            });
        }
        let own = self
            .store
            .token_limit(user_id)
            .await
            .context("cannot read the token limit")?;
        Ok(match own {
            Some(record) => PersonLimit {
                tokens: record.daily_tokens.map(|tokens| tokens.max(0) as u64),
                source: LimitSource::Admin {
                    set_by: record.set_by,
                },
            },
            None => PersonLimit {
                tokens: self.settings.daily_tokens,
                source: LimitSource::Setting,
            },
        })
    }

    /// The admin `admin_id` changes `user_id`'s daily limit; returns the limit that applies now.
    pub async fn set_limit(
        &self,
        admin_id: UserId,
        user_id: UserId,
        change: LimitChange,
    ) -> anyhow::Result<PersonLimit> {
        let record = |daily_tokens| TokenLimitRecord {
            user_id,
            daily_tokens,
            set_by: admin_id,
            set_at_ms: self.clock.now_ms(),
        };
        let stored = match change {
            LimitChange::Tokens(tokens) => {
                // Before the limit is stored: a turn checking in between reads the day's use.
                self.anyone_may_have_a_limit().await?;
                if let Some(any) = self.any_limit.get() {
                    any.store(true, Ordering::Relaxed);
                }
                let tokens = i64::try_from(tokens).unwrap_or(i64::MAX);
                self.store.set_token_limit(&record(Some(tokens))).await
            }
            LimitChange::Off => self.store.set_token_limit(&record(None)).await,
            LimitChange::Default => self.store.delete_token_limit(user_id).await.map(|_| ()),
        };
        stored.context("cannot store the token limit")?;
        tracing::info!(
            admin_id = admin_id.0,
            user_id = user_id.0,
            change = ?change,
            "an admin changed a daily token limit"
        );
        self.limit_of(user_id).await
    }

    /// Each person's tokens today and over the last `days` days (today included), most first;
    /// with `only`, that person's alone.
    pub async fn usage(&self, days: i64, only: Option<UserId>) -> anyhow::Result<Vec<PersonUsage>> {
        let today_ms = start_of_utc_day_ms(self.clock.now_ms());
        let since_ms = today_ms - (days - 1).max(0) * DAY_MS;
        self.store
            .usage_by_person(since_ms, today_ms, only)
            .await
            .context("cannot read the usage")
    }

    /// Tokens used on each of the last `days` UTC days (today included), oldest first, days
    /// without use as zero: `only`'s, or everyone's together.
    pub async fn tokens_per_day(
        &self,
        days: i64,
        only: Option<UserId>,
    ) -> anyhow::Result<Vec<DayTokens>> {
        let today_ms = start_of_utc_day_ms(self.clock.now_ms());
        let since_ms = today_ms - (days - 1).max(0) * DAY_MS;
        let used = self
            .store
            .tokens_per_day(since_ms, only)
            .await
            .context("cannot read the tokens per day")?;
        let used: std::collections::HashMap<i64, i64> = used
            .into_iter()
            .map(|day| (day.day_start_ms, day.tokens))
            .collect();
        Ok((0..days.max(0))
            .map(|day| {
                let day_start_ms = since_ms + day * DAY_MS;
                DayTokens {
                    day_start_ms,
                    tokens: used.get(&day_start_ms).copied().unwrap_or(0),
                }
            })
            .collect())
    }

    /// Keeps `user_id`'s stored history under the cap: deletes their oldest closed sessions when
    /// it is over, and says whether to tell them. Meant to run off the reply's path.
    pub async fn keep_stored_history_under_cap(
        &self,
        user_id: UserId,
    ) -> anyhow::Result<CapOutcome> {
        let Some(max_bytes) = self.settings.max_stored_bytes else {
            return Ok(CapOutcome::Untouched);
        };
        let Some(_trim) = TrimGuard::claim(&self.trimming, user_id) else {
            return Ok(CapOutcome::Untouched);
        };
        let max_bytes = i64::try_from(max_bytes).unwrap_or(i64::MAX);
        let stored = self
            .store
            .stored_bytes(user_id)
            .await
            .context("cannot read the size of the stored history")?;
        if stored.bytes <= max_bytes {
            if stored.told && stored.bytes <= max_bytes / 2 {
                self.store
                    .forget_stored_bytes_notice(user_id)
                    .await
                    .context("cannot forget the cap's notice")?;
            }
            return Ok(CapOutcome::Untouched);
        }
        let counts = self
            .store
            .purge_oldest_sessions_of(user_id, max_bytes, self.settings.batch_size.max(1))
            .await
            .context("cannot trim the stored history")?;
        tracing::info!(
            user_id = user_id.0,
            sessions = counts.sessions,
            messages = counts.messages,
            "trimmed a person's oldest sessions to the stored-history cap"
        );
        if counts.sessions == 0 {
            return Ok(CapOutcome::Untouched);
        }
        let tell = !stored.told
            && self
                .store
                .record_stored_bytes_notice(user_id, self.clock.now_ms())
                .await
                .context("cannot record the cap's notice")?;
        Ok(CapOutcome::Trimmed {
            sessions: counts.sessions,
            tell,
        })
    }
}

/// A person's place in the set of trims running; leaves it when dropped.
struct TrimGuard<'a> {
    trimming: &'a Mutex<HashSet<UserId>>,
    user_id: UserId,
}

impl<'a> TrimGuard<'a> {
    /// `None` when a trim for `user_id` is already running.
    fn claim(trimming: &'a Mutex<HashSet<UserId>>, user_id: UserId) -> Option<Self> {
        // A poisoned lock only means a trim panicked; the set is still usable.
        let mut running = trimming.lock().unwrap_or_else(|poison| poison.into_inner());
        running
            .insert(user_id)
            .then_some(Self { trimming, user_id })
    }
}

impl Drop for TrimGuard<'_> {
    fn drop(&mut self) {
        let mut running = self
            .trimming
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        running.remove(&self.user_id);
    }
}
