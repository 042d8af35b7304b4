//! Who a message comes from: the one identity that history, sessions, notes, persona, per-user
//! limits, the scheduler's queues and the allow list are keyed on.
//!
//! A person usually writes as themselves, and their identity is their user id. In groups,
//! Telegram also lets people write as a channel or, as a group admin, anonymously. Every such
//! message carries the same placeholder sender (`Channel_Bot` or `GroupAnonymousBot`) in `from`
//! and the real sender in `sender_chat`, so keying on `from` would make every channel and every
//! anonymous admin one person, sharing a history. The identity is therefore `sender_chat` when it
//! is present: each channel is one identity, and the anonymous admins of a group share that
//! group's identity (Telegram's own model: they speak as the group). Chat ids are negative and
//! user ids positive, so the two never collide. This module only decides identities (and the
//! language the sender reads); it must not decide access or where answers go. It is also where
//! teloxide's ids become the store's [`storage::ChatId`] and [`storage::UserId`].
//!
//! The language is the sender's Telegram `language_code` ([`Lang::from_code`]). A message sent as
//! a channel or by an anonymous admin carries no person's language (its `from` is Telegram's
//! placeholder), so it is answered in English, like anyone whose language the bot does not speak.

use teloxide::types::{Message, Update, UpdateKind, User};

use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::storage;

impl From<teloxide::types::ChatId> for storage::ChatId {
    fn from(chat_id: teloxide::types::ChatId) -> Self {
        Self(chat_id.0)
    }
}

/// A user's id as the database keeps it. Telegram's user ids fit in 52 bits, so the cast is
/// lossless.
impl From<teloxide::types::UserId> for storage::UserId {
    fn from(user_id: teloxide::types::UserId) -> Self {
        Self(user_id.0 as i64)
    }
}

/// The identity of a message's sender: its `sender_chat` when it has one (a channel, or a group
/// for its anonymous admins), otherwise the user who sent it. `None` for a message with neither.
pub fn sender_id(message: &Message) -> Option<storage::UserId> {
    match &message.sender_chat {
        Some(chat) => Some(storage::UserId(chat.id.0)),
        None => message.from.as_ref().map(user_id),
    }
}

/// Whether the message was sent as a chat (a channel or an anonymous group admin) rather than
/// by a person as themselves: there is then no person the bot could write to in private.
pub fn is_sent_as_chat(message: &Message) -> bool {
    message.sender_chat.is_some()
}

/// The language to answer `message` in: its sender's, English when it was sent as a chat.
pub fn message_language(message: &Message) -> Lang {
    match &message.from {
        Some(user) if !is_sent_as_chat(message) => user_language(user),
        _ => Lang::En,
    }
}

/// The language a user reads, from their Telegram `language_code`.
pub fn user_language(user: &User) -> Lang {
    Lang::from_code(user.language_code.as_deref())
}

/// The identity behind an update: [`sender_id`] for messages, the user for everything else
/// (button presses are always made by a person as themselves).
pub fn update_sender_id(update: &Update) -> Option<storage::UserId> {
    match &update.kind {
        UpdateKind::Message(message) | UpdateKind::EditedMessage(message) => sender_id(message),
        _ => update.from().map(user_id),
    }
}

/// The (chat, identity) conversation a message belongs to; `None` for a message without a sender.
pub fn conversation_key(message: &Message) -> Option<ConversationKey> {
    Some(ConversationKey::new(
        message.chat.id.into(),
        sender_id(message)?,
    ))
}

/// The conversation an update belongs to, as the handlers key it: a message's, for a button
/// press the presser's in the chat of the message carrying the button, and for a chosen inline
/// result the person's private chat, where its turn runs. One person's updates in one chat share
/// it: the scheduler queues them by it and the intake stores it with them.
pub fn update_conversation_key(update: &Update) -> Option<ConversationKey> {
    match &update.kind {
        UpdateKind::Message(message) => conversation_key(message),
        UpdateKind::CallbackQuery(query) => {
            let chat_id = query.message.as_ref()?.chat().id.into();
            Some(ConversationKey::new(chat_id, user_id(&query.from)))
        }
        UpdateKind::ChosenInlineResult(chosen) => Some(private_conversation(&chosen.from)),
        _ => None,
    }
}

/// The conversation of `user`'s private chat with the bot, whose id is the user's.
pub fn private_conversation(user: &User) -> ConversationKey {
    let user_id = user_id(user);
    ConversationKey::new(storage::ChatId(user_id.0), user_id)
}

/// A user's id as the database keeps it.
pub fn user_id(user: &User) -> storage::UserId {
    user.id.into()
}
