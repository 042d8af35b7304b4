//! Reminders on Telegram: the job that sends each due reminder to the chat it was asked in, and
//! `/reminders`, the person's list with a button to cancel each.
//!
//! Every replica runs the job. A reminder is claimed for a while before it is sent (on
//! PostgreSQL with `FOR UPDATE SKIP LOCKED`), so two replicas never send it at once; the claim
//! is renewed before every try to send, so a send that outlasts the lease (Telegram's flood
//! waits, a long batch) is not sent again by the replica that took it over, and it is marked
//! sent with the Telegram message that carried it. A reminder due while no bot ran is
//! sent when one is back, saying it is late. As with every message, the one window left is a
//! crash between Telegram taking the message and the mark: the Bot API has no idempotency key,
//! so that reminder is sent again after the claim lapses.

use std::time::Duration;

use teloxide::prelude::*;
use teloxide::types::{CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup};
use teloxide::{ApiError, RequestError};
use tokio_util::sync::CancellationToken;

use crate::commands;
use crate::conversation::Conversations;
use crate::i18n::Lang;
use crate::replies;
use crate::storage::{DueReminder, UserId};
use crate::telegram::bot::TelegramBot;
use crate::telegram::delivery::with_flood_retry;
use crate::telegram::errors::loggable;
use crate::telegram::identity;
use crate::telegram::reply::{HandlerResult, edit_with_buttons, own_press, send_private_material};

/// Reminders claimed at once.
const CLAIM_BATCH: i64 = 50;

/// A reminder sent this long after its time says it is late.
const LATE_AFTER_MS: i64 = 2 * 60_000;

/// Attempts before a reminder Telegram keeps refusing is given up.
const MAX_ATTEMPTS: i64 = 5;

/// What every cancel button's callback data starts with: `reminder:<id>:<owner>`.
const PREFIX: &str = "reminder:";

/// Sends due reminders until `shutdown`: looks whenever this process stores one, when the next
/// is due, and at least every `check_interval` (other replicas' reminders, a clock that moved).
/// A claim on a reminder holds for `lease` from its last renewal; then another replica may send
/// it.
pub async fn deliver_reminders(
    bot: TelegramBot,
    conversations: Conversations,
    check_interval: Duration,
    lease: Duration,
    shutdown: CancellationToken,
) {
    let claimant = Claimant {
        name: claimant_name(),
        lease_ms: i64::try_from(lease.as_millis()).unwrap_or(i64::MAX),
    };
    let wake = conversations.reminder_wake();
    loop {
        let claimed = match conversations
            .claim_due_reminders(&claimant.name, claimant.lease_ms, CLAIM_BATCH)
            .await
        {
            Ok(claimed) => claimed,
            Err(error) => {
                tracing::error!(error = ?error, "could not claim due reminders");
                Vec::new()
            }
        };
        let full_batch = claimed.len() as i64 == CLAIM_BATCH;
        for reminder in claimed {
            deliver(&bot, &conversations, &claimant, reminder).await;
        }
        if full_batch {
            continue;
        }
        let pause = until_next(&conversations, check_interval).await;
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = wake.notified() => {}
            () = tokio::time::sleep(pause) => {}
        }
    }
}

/// How long to wait for the next reminder: until it is due, at most `check_interval`.
async fn until_next(conversations: &Conversations, check_interval: Duration) -> Duration {
    let next = conversations
        .next_reminder_due_ms()
        .await
        .unwrap_or_else(|error| {
            tracing::error!(error = ?error, "could not read when the next reminder is due");
            None
        });
    let Some(next) = next else {
        return check_interval;
    };
    let wait_ms = u64::try_from(next - conversations.now_ms()).unwrap_or(0);
    Duration::from_millis(wait_ms).min(check_interval)
}

/// This process as it claims reminders.
struct Claimant {
    name: String,
    lease_ms: i64,
}

/// Sends one claimed reminder and records what came of it.
async fn deliver(
    bot: &TelegramBot,
    conversations: &Conversations,
    claimant: &Claimant,
    reminder: DueReminder,
) {
    let lang = conversations
        .language(reminder.user_id)
        .await
        .unwrap_or_default();
    let text = reminder_text(conversations, &reminder, lang).await;
    let chat_id = ChatId(reminder.chat_id.0);
    // The claim is renewed before every try: a flood wait (or a long batch) can outlast the
    // lease, and a reminder another replica took over meanwhile is theirs to send, not ours.
    let sent = with_flood_retry(|| async {
        match conversations
            .renew_reminder_claim(reminder.id, &claimant.name, claimant.lease_ms)
            .await
        {
            Ok(true) => bot.send_message(chat_id, text.clone()).send().await.map(Some),
            Ok(false) => Ok(None),
            Err(error) => {
                tracing::error!(error = ?error, reminder = reminder.id, "could not renew a reminder's claim");
                Ok(None)
            }
        }
    })
    .await;
    let recorded = match sent {
        Ok(None) => {
            tracing::info!(
                reminder = reminder.id,
                "not sending a reminder whose claim another replica took over"
            );
            return;
        }
        Ok(Some(message)) => {
            let late = conversations.now_ms() - reminder.due_at_ms > LATE_AFTER_MS;
            crate::metrics::reminder_sent(if late { "late" } else { "on_time" });
            conversations
                .reminder_sent(reminder.id, &claimant.name, i64::from(message.id.0))
                .await
                .map(|_| ())
        }
        Err(error) => {
            let gives_up = is_final(&error) || reminder.attempts >= MAX_ATTEMPTS;
            tracing::warn!(
                error = %loggable(&error),
                reminder = reminder.id,
                chat_id = reminder.chat_id.0,
                gives_up,
                "could not send a reminder"
            );
            if gives_up {
                crate::metrics::reminder_sent("failed");
            }
            let retry_at =
                (!gives_up).then(|| conversations.now_ms() + retry_delay_ms(reminder.attempts));
            conversations
                .reminder_not_sent(reminder.id, &claimant.name, retry_at)
                .await
        }
    };
    if let Err(error) = recorded {
        tracing::error!(error = ?error, reminder = reminder.id, "could not record a reminder's delivery");
    }
}

/// The reminder as the person reads it; a late one says when it was due, on their clock.
async fn reminder_text(
    conversations: &Conversations,
    reminder: &DueReminder,
    lang: Lang,
) -> String {
    let late_by = conversations.now_ms() - reminder.due_at_ms;
    if late_by <= LATE_AFTER_MS {
        return replies::reminder_due(lang, &reminder.text);
    }
    let zone = match conversations.time_zone(reminder.user_id).await {
        Ok(zone) => zone.zone,
        Err(_) => crate::time_zone::TimeZone::UTC,
    };
    replies::reminder_late(lang, &reminder.text, &zone.format(reminder.due_at_ms))
}

/// Whether Telegram will refuse the reminder however often it is sent: the person blocked the
/// bot, the chat is gone, the bot was removed from the group.
fn is_final(error: &RequestError) -> bool {
    matches!(
        error,
        RequestError::Api(
            ApiError::BotBlocked
                | ApiError::ChatNotFound
                | ApiError::UserDeactivated
                | ApiError::BotKicked
                | ApiError::BotKickedFromSupergroup
                | ApiError::CantInitiateConversation
                | ApiError::CantTalkWithBots
                | ApiError::GroupDeactivated
        )
    )
}

/// A minute after the first failure, doubling after each.
fn retry_delay_ms(attempts: i64) -> i64 {
    60_000 << attempts.clamp(1, 6).saturating_sub(1)
}

/// A name for this process's claims, unique among replicas.
fn claimant_name() -> String {
    let mut random = [0u8; 8];
    // Without the random source, the process id still tells replicas on different hosts apart
    // only by chance; the claim's lease bounds any confusion to one delayed reminder.
    let _ = getrandom::fill(&mut random);
    format!("{}-{}", std::process::id(), u64::from_le_bytes(random))
}

/// `/reminders`: the person's waiting reminders with a button to cancel each, where only they
/// see it.
pub(super) async fn list_reminders(
    bot: &TelegramBot,
    message: &Message,
    owner: UserId,
    conversations: &Conversations,
) -> HandlerResult {
    let lang = identity::message_language(message);
    let (text, buttons) = reminder_list(conversations, owner, lang).await?;
    send_private_material(bot, message, |chat_id| async move {
        bot.send_message(chat_id, text)
            .reply_markup(buttons)
            .await
            .map(|_| ())
    })
    .await
}

/// The list's text and its cancel buttons.
async fn reminder_list(
    conversations: &Conversations,
    owner: UserId,
    lang: Lang,
) -> anyhow::Result<(String, InlineKeyboardMarkup)> {
    let (text, ids) = commands::reminders_text(conversations, owner, lang).await?;
    let rows = ids.iter().enumerate().map(|(index, id)| {
        let label = replies::reminder_cancel_button(lang, index + 1);
        [InlineKeyboardButton::callback(
            label,
            format!("{PREFIX}{id}:{owner}"),
        )]
    });
    Ok((text, InlineKeyboardMarkup::new(rows)))
}

/// Whether a button press is on a `/reminders` list.
pub fn is_reminder_button(query: CallbackQuery) -> bool {
    query
        .data
        .as_deref()
        .is_some_and(|data| data.starts_with(PREFIX))
}

/// A press on a cancel button: cancels that reminder if it is the presser's and shows the list
/// as it is now.
pub(super) async fn press_reminder_button(
    bot: TelegramBot,
    query: CallbackQuery,
    conversations: Conversations,
) -> HandlerResult {
    let owner = |&(_, owner): &(i64, UserId)| owner;
    let not_yours = replies::reminder_not_yours;
    let Some((presser, lang, (id, _))) =
        own_press(&bot, &query, parse_button, owner, not_yours).await?
    else {
        return Ok(());
    };
    let cancelled = conversations.cancel_reminder(presser, id).await?;
    let notice = if cancelled {
        replies::reminder_cancelled(lang)
    } else {
        replies::reminder_already_gone(lang)
    };
    bot.answer_callback_query(query.id.clone())
        .text(notice)
        .await?;
    let Some(message) = query.regular_message() else {
        return Ok(());
    };
    let (text, buttons) = reminder_list(&conversations, presser, lang).await?;
    edit_with_buttons(&bot, message, text, buttons).await
}

/// `reminder:<id>:<owner>` read back.
fn parse_button(data: &str) -> Option<(i64, UserId)> {
    let (id, owner) = data.strip_prefix(PREFIX)?.split_once(':')?;
    Some((id.parse().ok()?, owner.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn button_data_fits_telegrams_64_bytes_and_reads_back() {
        let data = format!("{PREFIX}{}:{}", i64::MAX, UserId(i64::MIN));
        assert!(data.len() <= 64, "{data}");
        assert_eq!(parse_button(&data), Some((i64::MAX, UserId(i64::MIN))));
        assert_eq!(parse_button("reminder:x:5"), None);
        assert_eq!(parse_button("model:1:5"), None);
    }

    #[test]
    fn retries_wait_longer_each_time() {
        assert_eq!(retry_delay_ms(1), 60_000);
        assert_eq!(retry_delay_ms(2), 120_000);
        assert_eq!(retry_delay_ms(40), 60_000 << 5);
    }
}
