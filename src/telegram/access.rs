//! Who may use the bot, and whether a message is addressed to it.
//!
//! A user not on the allow list gets one polite refusal per process lifetime (remembered only in
//! memory, since nothing at all is stored for them) and silence after that. In groups the bot
//! answers only when mentioned, replied to, or given a command, so it stays out of conversations
//! between people.

use std::collections::HashSet;
use std::sync::Mutex;

use teloxide::types::{Me, Message, MessageEntityKind};
use teloxide::utils::command::BotCommands;

use crate::config::TelegramConfig;
use crate::telegram::commands::Command;

/// The allow list and the memory of who was already refused.
#[derive(Debug)]
pub struct AccessPolicy {
    allow_all: bool,
    allowed: HashSet<i64>,
    admins: HashSet<i64>,
    refused: Mutex<HashSet<i64>>,
}

/// What to do with a message from a given user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Allowed,
    /// Not allowed; tell them once.
    RefuseOnce,
    /// Not allowed and already told.
    Ignore,
}

impl AccessPolicy {
    pub fn from_config(config: &TelegramConfig) -> Self {
        Self {
            allow_all: config.allow_all_users,
            allowed: config.allowed_users.iter().copied().collect(),
            admins: config.admin_users.iter().copied().collect(),
            refused: Mutex::new(HashSet::new()),
        }
    }

    /// Whether the user may use the bot, without counting a refusal.
    pub fn is_allowed(&self, user_id: i64) -> bool {
        self.allow_all || self.allowed.contains(&user_id) || self.admins.contains(&user_id)
    }

    pub fn check(&self, user_id: i64) -> Access {
        if self.is_allowed(user_id) {
            return Access::Allowed;
        }
        // A poisoned lock only means another handler panicked; the set itself is still usable.
        let mut refused = self
            .refused
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if refused.insert(user_id) {
            Access::RefuseOnce
        } else {
            Access::Ignore
        }
    }
}

/// Whether the bot should answer `message`: always in private chats; in groups only when the
/// message mentions the bot, replies to one of its messages, or is a command.
pub fn is_addressed_to_bot(message: &Message, me: &Me) -> bool {
    if message.chat.is_private() {
        return true;
    }
    let replied_to_bot = message
        .reply_to_message()
        .and_then(|replied| replied.from.as_ref())
        .is_some_and(|author| author.id == me.id);
    replied_to_bot || mentions_bot(message, me) || is_our_command(message, me)
}

/// A command for this bot (`/stats`, `/stats@this_bot`), not one for another bot in the group.
fn is_our_command(message: &Message, me: &Me) -> bool {
    let username = me.user.username.as_deref().unwrap_or_default();
    message
        .text()
        .is_some_and(|text| Command::parse(text, username).is_ok())
}

fn mentions_bot(message: &Message, me: &Me) -> bool {
    let Some(username) = me.user.username.as_deref() else {
        return false;
    };
    let mention = format!("@{username}");
    let by_entity = message
        .parse_entities()
        .unwrap_or_default()
        .iter()
        .any(|entity| match entity.kind() {
            MessageEntityKind::Mention => entity.text().eq_ignore_ascii_case(&mention),
            MessageEntityKind::TextMention { user } => user.id == me.id,
            _ => false,
        });
    by_entity
        || message
            .text()
            .is_some_and(|text| contains_ignore_ascii_case(text, &mention))
}

fn contains_ignore_ascii_case(text: &str, needle: &str) -> bool {
    text.to_ascii_lowercase()
        .contains(&needle.to_ascii_lowercase())
}

/// The message text with the bot's own @mention removed, for the prompt.
pub fn without_bot_mention(text: &str, me: &Me) -> String {
    let Some(username) = me.user.username.as_deref() else {
        return text.to_owned();
    };
    let mention = format!("@{username}").to_ascii_lowercase();
    let lowered = text.to_ascii_lowercase();
    let mut result = String::with_capacity(text.len());
    let mut position = 0;
    // ASCII lowercasing keeps byte offsets, so positions in `lowered` are valid in `text`.
    while let Some(found) = lowered[position..].find(&mention) {
        result.push_str(&text[position..position + found]);
        position += found + mention.len();
    }
    result.push_str(&text[position..]);
    result.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allowed: &[i64], allow_all: bool) -> AccessPolicy {
        AccessPolicy {
            allow_all,
            allowed: allowed.iter().copied().collect(),
            admins: HashSet::from([99]),
            refused: Mutex::new(HashSet::new()),
        }
    }

    #[test]
    fn strangers_are_refused_once_then_ignored() {
        let policy = policy(&[1], false);
        assert_eq!(policy.check(1), Access::Allowed);
        assert_eq!(policy.check(99), Access::Allowed);
        assert_eq!(policy.check(2), Access::RefuseOnce);
        assert_eq!(policy.check(2), Access::Ignore);
    }

    #[test]
    fn allow_all_lets_everyone_in() {
        assert_eq!(policy(&[], true).check(12345), Access::Allowed);
    }
}
