//! What a chat turn's Telegram steps share ([`TurnContext`]): the update being answered, where
//! its answer goes, and what kind of turn the message starts ([`MessageKind`]). Its own module so
//! that the turn, `/retry`'s placement, voice answers and pictures all stand on it without
//! importing each other.

use teloxide::prelude::*;
use teloxide::types::Me;

use crate::conversation::Conversations;
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::telegram::bot::TelegramBot;
use crate::telegram::intake::{AnswerMessages, Intake};
use crate::telegram::settings::BotSettings;

/// What kind of chat turn a message starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MessageKind {
    /// A text message.
    Text,
    /// A photo, voice note, audio file, video note or readable document (see
    /// [`media::attachment_of`](crate::telegram::media::attachment_of)): the turn is about what
    /// the file holds.
    Media,
    /// `/retry`: the model asked again for the sender's last message in this chat ([`super::retry`]).
    Retry,
}

/// What a chat turn's steps share: the update being answered and where the answer goes.
pub(super) struct TurnContext<'a> {
    pub(super) bot: &'a TelegramBot,
    pub(super) message: &'a Message,
    pub(super) key: ConversationKey,
    /// The language the sender reads.
    pub(super) lang: Lang,
    /// Whether the sender is one of the bot's admins (some tools are theirs alone).
    pub(super) is_admin: bool,
    pub(super) conversations: &'a Conversations,
    pub(super) intake: &'a Intake,
    pub(super) update_id: i64,
    /// Where the messages carrying the answer are recorded as they are sent.
    pub(super) answer: AnswerMessages,
    /// The bot itself, whose mention is taken out of a group message.
    pub(super) me: &'a Me,
    pub(super) settings: &'a BotSettings,
}
