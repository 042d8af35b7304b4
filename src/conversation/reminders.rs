//! Reminders and time zones for a conversation: the `set_reminder` tool's work (the time the
//! model wrote read on the person's clock, checked, stored within the person's limit), what
//! `/reminders` lists and cancels, `/timezone`, and what the delivery job claims and marks. Only
//! the person's own reminders are ever listed or cancelled.

use anyhow::Context;
use chrono::{DateTime, FixedOffset};

use super::Conversations;
use crate::ids::ConversationKey;
use crate::storage::{DueReminder, NewReminder, Reminder, ReminderAdded, UserId};
use crate::time_zone::TimeZone;
use crate::tools::ToolOutput;

/// A reminder a minute in the past is taken as meant for now (the model's clock and ours differ
/// by the seconds a turn takes); one further back is refused.
const PAST_GRACE_MS: i64 = 60_000;

/// The furthest ahead a reminder may be set: about five years.
const MAX_AHEAD_MS: i64 = 5 * 366 * 24 * 60 * 60 * 1000;

/// The person's time zone as a turn uses it: theirs, else the configured default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PersonZone {
    pub zone: TimeZone,
    /// Whether the person set it (`/timezone`, or by telling the model); otherwise it is the
    /// default, which may not be theirs.
    pub chosen: bool,
}

impl Conversations {
    /// The person's time zone: the one they chose, else `DEFAULT_TIMEZONE`.
    pub async fn time_zone(&self, user_id: UserId) -> anyhow::Result<PersonZone> {
        let settings = self
            .store
            .user_settings(user_id)
            .await
            .context("cannot read the person's settings")?;
        let chosen = settings
            .and_then(|settings| settings.time_zone)
            .and_then(|name| TimeZone::parse(&name));
        Ok(self.zone_or_default(chosen))
    }

    /// The person's chosen zone if any, else the default.
    pub(super) fn zone_or_default(&self, chosen: Option<TimeZone>) -> PersonZone {
        match chosen {
            Some(zone) => PersonZone { zone, chosen: true },
            None => PersonZone {
                zone: self.settings.default_time_zone,
                chosen: false,
            },
        }
    }

    /// Sets (or with `None` forgets) the person's time zone.
    pub async fn set_time_zone(
        &self,
        user_id: UserId,
        zone: Option<TimeZone>,
    ) -> anyhow::Result<()> {
        self.store
            .set_setting(
                user_id,
                crate::storage::Setting::TimeZone,
                zone.map(TimeZone::name),
                self.clock.now_ms(),
            )
            .await
            .context("cannot store the time zone")?;
        Ok(())
    }

    /// The `set_reminder` tool: `text` at `at` (read on the person's clock), for the
    /// conversation `key`. The model is told the time it was set for, as the person will see it.
    pub(super) async fn set_reminder_for_tool(
        &self,
        key: ConversationKey,
        text: &str,
        at: DateTime<FixedOffset>,
        zone: PersonZone,
    ) -> anyhow::Result<ToolOutput> {
        let now_ms = self.clock.now_ms();
        let (mut due_at_ms, corrected) = zone.zone.resolve(at);
        if due_at_ms < now_ms - PAST_GRACE_MS {
            let now = zone.zone.rfc3339(now_ms);
            return Ok(ToolOutput::error(format!(
                "that time is in the past: it is {now} now in the person's time zone ({})",
                zone.zone
            )));
        }
        if due_at_ms > now_ms + MAX_AHEAD_MS {
            return Ok(ToolOutput::error("that time is more than five years ahead"));
        }
        due_at_ms = due_at_ms.max(now_ms);
        let reminder = NewReminder {
            key,
            text,
            due_at_ms,
            created_at_ms: now_ms,
        };
        let limit = self.tool_settings().reminders_max_per_user;
        let added = self
            .store
            .add_reminder(&reminder, limit)
            .await
            .context("cannot store the reminder")?;
        Ok(match added {
            ReminderAdded::Added { .. } => {
                self.reminder_wake.notify_one();
                let shown = zone.zone.format(due_at_ms);
                let note = if corrected {
                    " (the offset you wrote was not the zone's offset on that date; the time of day was kept)"
                } else {
                    ""
                };
                ToolOutput::ok(format!(
                    "reminder set for {shown} ({}){note}; the person can list and cancel reminders with /reminders",
                    zone.zone
                ))
            }
            ReminderAdded::LimitReached => ToolOutput::error(format!(
                "the person has {limit} reminders waiting, the most allowed; they can cancel some with /reminders"
            )),
        })
    }

    /// The `set_timezone` tool: the zone the person named, if the IANA database has it.
    pub(super) async fn set_time_zone_for_tool(
        &self,
        user_id: UserId,
        name: &str,
    ) -> anyhow::Result<ToolOutput> {
        let Some(zone) = TimeZone::parse(name) else {
            return Ok(ToolOutput::error(format!(
                "{name:?} is not an IANA time zone name; use one such as Europe/Berlin or America/New_York"
            )));
        };
        self.set_time_zone(user_id, Some(zone)).await?;
        let now = zone.format(self.clock.now_ms());
        Ok(ToolOutput::ok(format!(
            "time zone set to {zone}; it is {now} there now"
        )))
    }

    /// The person's reminders not yet sent, soonest first, in every chat.
    pub async fn pending_reminders(&self, user_id: UserId) -> anyhow::Result<Vec<Reminder>> {
        self.store
            .pending_reminders(user_id)
            .await
            .context("cannot read the reminders")
    }

    /// Cancels the person's reminder `id`; false when it is not theirs or no longer waiting.
    pub async fn cancel_reminder(&self, user_id: UserId, id: i64) -> anyhow::Result<bool> {
        self.store
            .cancel_reminder(user_id, id)
            .await
            .context("cannot cancel the reminder")
    }

    /// Every reminder of the conversation, for `/export`.
    pub async fn reminders_of(&self, key: ConversationKey) -> anyhow::Result<Vec<Reminder>> {
        self.store
            .reminders_of(key)
            .await
            .context("cannot read the conversation's reminders")
    }

    /// Claims, for `claimant`, up to `limit` reminders due now (or whose earlier claim lapsed),
    /// each for `lease_ms`.
    pub async fn claim_due_reminders(
        &self,
        claimant: &str,
        lease_ms: i64,
        limit: i64,
    ) -> anyhow::Result<Vec<DueReminder>> {
        self.store
            .claim_due_reminders(claimant, self.clock.now_ms(), lease_ms, limit)
            .await
            .context("cannot claim the due reminders")
    }

    /// Extends `claimant`'s claim on reminder `id` by `lease_ms` from now, before each try to
    /// send it; false when it is no longer theirs to send.
    pub async fn renew_reminder_claim(
        &self,
        id: i64,
        claimant: &str,
        lease_ms: i64,
    ) -> anyhow::Result<bool> {
        self.store
            .renew_reminder_claim(id, claimant, self.clock.now_ms(), lease_ms)
            .await
            .context("cannot renew a reminder's claim")
    }

    /// Records that `claimant` delivered reminder `id` as Telegram message `message_id`; false
    /// when its claim had lapsed and another took it over.
    pub async fn reminder_sent(
        &self,
        id: i64,
        claimant: &str,
        message_id: i64,
    ) -> anyhow::Result<bool> {
        self.store
            .reminder_sent(id, claimant, self.clock.now_ms(), message_id)
            .await
            .context("cannot record a delivered reminder")
    }

    /// Records that reminder `id` could not be delivered: tried again from `retry_at_ms`, or
    /// with `None` given up.
    pub async fn reminder_not_sent(
        &self,
        id: i64,
        claimant: &str,
        retry_at_ms: Option<i64>,
    ) -> anyhow::Result<()> {
        self.store
            .reminder_not_sent(id, claimant, retry_at_ms)
            .await
            .context("cannot record an undelivered reminder")
    }

    /// When the next reminder becomes due (or claimable again), if any.
    pub async fn next_reminder_due_ms(&self) -> anyhow::Result<Option<i64>> {
        self.store
            .next_reminder_due_ms()
            .await
            .context("cannot read when the next reminder is due")
    }

    /// Told whenever this process stores a reminder, so that the delivery job looks again.
    pub fn reminder_wake(&self) -> std::sync::Arc<tokio::sync::Notify> {
        self.reminder_wake.clone()
    }
}
