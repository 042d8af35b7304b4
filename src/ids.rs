//! Who and where: [`UserId`] and [`ChatId`], the two numbers every conversation is keyed on, as
//! types the compiler tells apart so that a chat id can never be passed where a user id belongs,
//! and [`ConversationKey`], the pair of them.
//!
//! Like [`crate::role`], they live beside the layers that share them (the store, the memory, the
//! access policy, the command line) rather than in any one of them, and know nothing about
//! Telegram: `telegram/identity.rs` converts teloxide's ids into these at its edge. They are
//! stored as SQLite INTEGERs (`sqlx(transparent)`), written as bare numbers in JSON and text.

use std::fmt;
use std::num::ParseIntError;
use std::str::FromStr;

/// Declares an id: a transparent `i64` newtype that reads and writes as a bare number (JSON,
/// text, SQL), compared and ordered like the number.
macro_rules! integer_id {
    ($(#[$doc:meta])* $id:ident) => {
        $(#[$doc])*
        #[derive(
            Clone,
            Copy,
            Debug,
            PartialEq,
            Eq,
            Hash,
            PartialOrd,
            Ord,
            serde::Serialize,
            serde::Deserialize,
            sqlx::Type,
        )]
        #[serde(transparent)]
        #[sqlx(transparent)]
        pub struct $id(pub i64);

        /// Lets `query_as!` fill a field of this type from an INTEGER column.
        impl From<i64> for $id {
            fn from(id: i64) -> Self {
                Self(id)
            }
        }

        impl fmt::Display for $id {
            fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(formatter)
            }
        }

        impl FromStr for $id {
            type Err = ParseIntError;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                text.parse().map(Self)
            }
        }
    };
}

integer_id! {
    /// The identity a conversation belongs to: a Telegram user's id, or, for a message sent as a
    /// chat (a channel, or a group's anonymous admins), that chat's id. User ids are positive and
    /// chat ids negative, so the two never collide.
    UserId
}

integer_id! {
    /// A Telegram chat: a private chat (whose id is the user's), a group or a channel.
    ChatId
}

/// One (chat, user) pair. History, sessions and summaries are keyed by both, so two members of a
/// group chat never share history, and one user's private chat is separate from their groups.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConversationKey {
    pub chat_id: ChatId,
    pub user_id: UserId,
}

impl ConversationKey {
    pub const fn new(chat_id: ChatId, user_id: UserId) -> Self {
        Self { chat_id, user_id }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_and_write_as_bare_numbers() {
        assert_eq!(serde_json::to_string(&UserId(42)).unwrap(), "42");
        assert_eq!(
            serde_json::from_str::<ChatId>("-100").unwrap(),
            ChatId(-100)
        );
        assert_eq!(
            "-1001234567890".parse::<ChatId>().unwrap().to_string(),
            "-1001234567890"
        );
        assert!("forty-two".parse::<UserId>().is_err());
    }
}
