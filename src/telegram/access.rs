//! Who may use the bot, and whether a message is addressed to it.
//!
//! Access is decided on the sender's identity ([`crate::telegram::identity`]): a user id, or the
//! id of the chat a message was sent as (a channel, or a group for its anonymous admins), by the
//! [`AccessList`]: the configured lists and the admins' allows and blocks, held in memory, so no
//! query is made per message. With `ALLOW_ALL_USERS` every identity not blocked may use the bot.
//! With an allow list, a message sent as a channel or anonymously does not show which person
//! wrote it, so it is refused (once, politely) unless the chat it was sent as is itself allowed
//! (the policy takes any id; `ALLOWED_USERS` holds user ids only, so in practice such posts are
//! answered only with `ALLOW_ALL_USERS`). `Channel_Bot` and `GroupAnonymousBot`, the placeholders
//! Telegram puts in `from`, are never what is checked. An identity not allowed gets one polite
//! refusal per process lifetime (remembered only in memory, since nothing at all is stored for
//! them) and silence after that. In groups the bot answers only when mentioned (by Telegram's
//! mention entities, matched exactly), replied to, or given a command, so it stays out of
//! conversations between people; a command addressed to another bot is never for it, and an
//! admin command is a command only when an admin sends it.

use std::collections::HashSet;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use teloxide::types::{Me, Message, MessageEntityKind, MessageEntityRef};
use teloxide::utils::command::BotCommands;

use crate::access_list::{AccessList, Verdict};
use crate::commands::Command;
use crate::commands::admin::AdminCommand;
use crate::storage::UserId;

/// The access list and the memory of who was already refused.
#[derive(Debug)]
pub struct AccessPolicy {
    list: Arc<AccessList>,
    refused: Mutex<HashSet<UserId>>,
}

/// What to do with a message from a given user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Allowed,
    /// Not allowed; tell them once.
    RefuseOnce(Refusal),
    /// Not allowed and already told.
    Ignore,
}

/// Why a sender is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Neither allowed nor blocked: the admins hear about them.
    Stranger,
    /// Blocked by an admin.
    Blocked,
}

impl AccessPolicy {
    pub fn new(list: Arc<AccessList>) -> Self {
        Self {
            list,
            refused: Mutex::new(HashSet::new()),
        }
    }

    /// The access list the policy decides with (the admin commands change it).
    pub fn list(&self) -> &AccessList {
        &self.list
    }

    /// Whether the identity (a user id, or the id of the chat a message was sent as) may use
    /// the bot, without counting a refusal.
    pub fn is_allowed(&self, identity: UserId) -> bool {
        self.list.is_allowed(identity)
    }

    /// Whether the identity is in `ADMIN_USERS`.
    pub fn is_admin(&self, identity: UserId) -> bool {
        self.list.is_admin(identity)
    }

    /// [`Self::is_allowed`], remembering a refusal so that each identity is told only once.
    pub fn check(&self, identity: UserId) -> Access {
        let refusal = match self.list.verdict(identity) {
            Verdict::Admin | Verdict::Allowed => return Access::Allowed,
            Verdict::Blocked => Refusal::Blocked,
            Verdict::Stranger => Refusal::Stranger,
        };
        // A poisoned lock only means another handler panicked; the set itself is still usable.
        let mut refused = self
            .refused
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if refused.insert(identity) {
            Access::RefuseOnce(refusal)
        } else {
            Access::Ignore
        }
    }
}

/// Whether the bot should answer `message`: never a command addressed to another bot
/// (`/stats@other_bot`); otherwise always in private chats, and in groups only when the message
/// mentions the bot, replies to one of its messages, or is one of its commands (the admin
/// commands only when `from_admin`).
pub fn is_addressed_to_bot(message: &Message, me: &Me, from_admin: bool) -> bool {
    if is_command_for_another_bot(message, me) {
        return false;
    }
    if message.chat.is_private() {
        return true;
    }
    let replied_to_bot = message
        .reply_to_message()
        .and_then(|replied| replied.from.as_ref())
        .is_some_and(|author| author.id == me.id);
    replied_to_bot || mentions_bot(message, me) || is_our_command(message, me, from_admin)
}

/// A command for this bot (`/stats`, `/stats@this_bot`), not one for another bot in the group.
fn is_our_command(message: &Message, me: &Me, from_admin: bool) -> bool {
    let username = me.user.username.as_deref().unwrap_or_default();
    message.text().is_some_and(|text| {
        Command::parse(text, username).is_ok()
            || (from_admin && AdminCommand::parse(text, username).is_ok())
    })
}

/// A message that starts with a command naming another bot (`/stats@other_bot`): it is that
/// bot's, wherever it is sent, and gets no answer from this one.
fn is_command_for_another_bot(message: &Message, me: &Me) -> bool {
    let username = me.user.username.as_deref().unwrap_or_default();
    let entities = message.parse_entities().unwrap_or_default();
    let Some(command) = entities
        .iter()
        .find(|entity| entity.start() == 0 && *entity.kind() == MessageEntityKind::BotCommand)
    else {
        return false;
    };
    command
        .text()
        .split_once('@')
        .is_some_and(|(_, addressee)| !addressee.eq_ignore_ascii_case(username))
}

/// Whether the message mentions the bot: a `mention` entity that is exactly the bot's
/// `@username` (usernames are case-insensitive), or a `text_mention` of the bot's id. Only
/// Telegram's entities count, so `@bot_fan` is not a mention of `@bot`.
pub fn mentions_bot(message: &Message, me: &Me) -> bool {
    !bot_mention_ranges(message, me).is_empty()
        || text_entities(message)
            .iter()
            .any(|entity| {
                matches!(entity.kind(), MessageEntityKind::TextMention { user } if user.id == me.id)
            })
}

/// The byte ranges of the text's `mention` entities that name the bot.
fn bot_mention_ranges(message: &Message, me: &Me) -> Vec<Range<usize>> {
    let Some(username) = me.user.username.as_deref() else {
        return Vec::new();
    };
    let mut ranges = text_entities(message)
        .iter()
        .filter(|entity| *entity.kind() == MessageEntityKind::Mention)
        .filter(|entity| {
            entity
                .text()
                .strip_prefix('@')
                .is_some_and(|mentioned| mentioned.eq_ignore_ascii_case(username))
        })
        .map(|entity| entity.range())
        .collect::<Vec<_>>();
    ranges.sort_by_key(|range| range.start);
    ranges
}

/// The entities of the message's text, or of its caption: a photo or a file can mention the bot
/// too.
fn text_entities(message: &Message) -> Vec<MessageEntityRef<'_>> {
    message
        .parse_entities()
        .or_else(|| message.parse_caption_entities())
        .unwrap_or_default()
}

/// The message text (or a file's caption) with the bot's own @mentions removed, for the prompt.
pub fn without_bot_mention(message: &Message, me: &Me) -> String {
    let text = message.text().or(message.caption()).unwrap_or_default();
    let mut result = String::with_capacity(text.len());
    let mut position = 0;
    for range in bot_mention_ranges(message, me) {
        result.push_str(&text[position..range.start]);
        position = range.end;
    }
    result.push_str(&text[position..]);
    result.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::access_list::AccessAction::{Allow, Block, Unblock};
    use crate::access_list::{AccessChange, AccessError};

    const BOT_USERNAME: &str = "telemem_bot";

    /// A policy over a fresh database, with admin 99; keep the directory while it is used.
    async fn policy(allowed: &[i64], allow_all: bool) -> (AccessPolicy, tempfile::TempDir) {
        let directory = tempfile::tempdir().expect("a temporary directory");
        let url = format!("sqlite://{}", directory.path().join("access.db").display());
        let store = crate::storage::Store::connect(&url)
            .await
            .expect("a database");
        store.migrate().await.expect("migrations");
        let configured = crate::access_list::ConfiguredAccess {
            allow_all,
            admins: [UserId(99)].into(),
            allowed: allowed.iter().copied().map(UserId).collect(),
        };
        let clock = Arc::new(crate::clock::ManualClock::starting_at(1_000));
        let list = AccessList::load(configured, store, clock)
            .await
            .expect("the access list");
        (AccessPolicy::new(Arc::new(list)), directory)
    }

    fn me() -> Me {
        serde_json::from_value(json!({
            "id": 1000, "is_bot": true, "first_name": "Telemem", "username": BOT_USERNAME,
            "can_join_groups": true, "can_read_all_group_messages": false,
            "supports_inline_queries": false, "can_connect_to_business": false,
            "has_main_web_app": false
        }))
        .expect("a getMe answer")
    }

    /// A message in `chat` with `text` and one entity of `kind` over `covered` (a substring).
    fn message(chat: serde_json::Value, text: &str, kind: &str, covered: &str) -> Message {
        let start = text
            .find(covered)
            .expect("the entity's text is in the message");
        let utf16 = |part: &str| part.encode_utf16().count();
        serde_json::from_value(json!({
            "message_id": 1, "date": 0, "chat": chat,
            "from": { "id": 7, "is_bot": false, "first_name": "Ann" },
            "text": text,
            "entities": [{
                "type": kind, "offset": utf16(&text[..start]), "length": utf16(covered)
            }]
        }))
        .expect("a message")
    }

    fn group() -> serde_json::Value {
        json!({ "id": -5, "type": "group", "title": "Friends" })
    }

    fn private() -> serde_json::Value {
        json!({ "id": 7, "type": "private", "first_name": "Ann" })
    }

    /// `username` with the letters whose flag is set in upper case.
    fn with_case(username: &str, upper: &[bool]) -> String {
        username
            .chars()
            .zip(upper.iter().chain(std::iter::repeat(&false)))
            .map(|(ch, &up)| if up { ch.to_ascii_uppercase() } else { ch })
            .collect()
    }

    #[tokio::test]
    async fn strangers_are_refused_once_then_ignored() {
        let (policy, _directory) = policy(&[1], false).await;
        assert_eq!(policy.check(UserId(1)), Access::Allowed);
        assert_eq!(policy.check(UserId(99)), Access::Allowed);
        assert_eq!(
            policy.check(UserId(2)),
            Access::RefuseOnce(Refusal::Stranger)
        );
        assert_eq!(policy.check(UserId(2)), Access::Ignore);
    }

    #[tokio::test]
    async fn allow_all_lets_everyone_in() {
        let (policy, _directory) = policy(&[], true).await;
        assert_eq!(policy.check(UserId(12345)), Access::Allowed);
        assert_eq!(policy.check(UserId(-100_123)), Access::Allowed);
    }

    #[tokio::test]
    async fn a_chat_identity_is_allowed_only_when_its_own_id_is_listed() {
        let (policy, _directory) = policy(&[1, -100_777], false).await;
        assert_eq!(policy.check(UserId(-100_777)), Access::Allowed);
        assert_eq!(
            policy.check(UserId(-100_888)),
            Access::RefuseOnce(Refusal::Stranger)
        );
    }

    #[tokio::test]
    async fn a_block_wins_over_the_allow_lists_at_once_but_never_over_an_admin() {
        let (policy, _directory) = policy(&[1], true).await;
        let list = policy.list();
        let change = |admin, person, action| list.change(UserId(admin), UserId(person), action);
        assert_eq!(change(99, 1, Block).await.unwrap(), AccessChange::Blocked);
        assert_eq!(change(99, 5, Block).await.unwrap(), AccessChange::Blocked);
        for blocked in [1, 5] {
            let refusal = Access::RefuseOnce(Refusal::Blocked);
            assert_eq!(policy.check(UserId(blocked)), refusal);
        }
        assert!(matches!(
            change(99, 99, Block).await,
            Err(AccessError::Yourself)
        ));
        assert!(matches!(
            change(98, 99, Block).await,
            Err(AccessError::Admin)
        ));
        assert_eq!(
            change(99, 5, Unblock).await.unwrap(),
            AccessChange::Unblocked
        );
        assert_eq!(change(99, 1, Allow).await.unwrap(), AccessChange::Allowed);
        assert_eq!(policy.check(UserId(5)), Access::Allowed);
        assert_eq!(policy.check(UserId(1)), Access::Allowed);
    }

    #[tokio::test]
    async fn admins_changes_are_stored_and_read_back_at_the_next_start() {
        let (policy, directory) = policy(&[], false).await;
        let list = policy.list();
        list.change(UserId(99), UserId(7), Allow).await.unwrap();
        list.change(UserId(99), UserId(8), Block).await.unwrap();
        let url = format!("sqlite://{}", directory.path().join("access.db").display());
        let store = crate::storage::Store::connect(&url).await.unwrap();
        let configured = crate::access_list::ConfiguredAccess::default();
        let clock = Arc::new(crate::clock::ManualClock::starting_at(2_000));
        let restarted = AccessList::load(configured, store, clock).await.unwrap();
        assert_eq!(restarted.verdict(UserId(7)), Verdict::Allowed);
        assert_eq!(restarted.verdict(UserId(8)), Verdict::Blocked);
        assert_eq!(restarted.verdict(UserId(9)), Verdict::Stranger);
    }

    #[test]
    fn a_command_for_another_bot_is_not_addressed_to_this_one_even_in_private() {
        let me = me();
        let other = message(
            private(),
            "/stats@other_bot",
            "bot_command",
            "/stats@other_bot",
        );
        let ours = message(
            private(),
            "/stats@TeleMem_Bot",
            "bot_command",
            "/stats@TeleMem_Bot",
        );
        let plain = message(group(), "/stats", "bot_command", "/stats");
        assert!(!is_addressed_to_bot(&other, &me, false));
        assert!(is_addressed_to_bot(&ours, &me, false));
        assert!(is_addressed_to_bot(&plain, &me, false));
    }

    #[test]
    fn an_admin_command_is_a_command_for_the_bot_in_a_group_only_from_an_admin() {
        let users = message(group(), "/users", "bot_command", "/users");
        assert!(!is_addressed_to_bot(&users, &me(), false));
        assert!(is_addressed_to_bot(&users, &me(), true));
    }

    #[test]
    fn a_text_mention_of_the_bots_id_is_a_mention() {
        let text = "Telemem, what time is it?";
        let mut value = serde_json::to_value(message(group(), text, "bold", "Telemem")).unwrap();
        value["entities"][0] = json!({
            "type": "text_mention", "offset": 0, "length": 7,
            "user": { "id": 1000, "is_bot": true, "first_name": "Telemem" }
        });
        let message: Message = serde_json::from_value(value).unwrap();
        assert!(is_addressed_to_bot(&message, &me(), false));
    }

    proptest! {
        #[test]
        fn a_mention_of_the_bots_exact_username_anywhere_is_detected(
            before in "[a-zA-Zа-я0-9 ,.!?😀]{0,20}",
            upper in proptest::collection::vec(any::<bool>(), 0..11),
            after in "([ ,.!?][a-zA-Zа-я0-9 😀]{0,20})?",
        ) {
            let mention = format!("@{}", with_case(BOT_USERNAME, &upper));
            let text = format!("{before} {mention}{after}");
            let message = message(group(), &text, "mention", &mention);
            prop_assert!(is_addressed_to_bot(&message, &me(), false));
            prop_assert!(!without_bot_mention(&message, &me()).contains('@'));
        }

        #[test]
        fn a_username_that_merely_starts_with_or_contains_the_bots_is_not_a_mention(
            before in "[a-zA-Z0-9_ ]{0,20}",
            head in "[a-z0-9_]{0,5}",
            tail in "[a-z0-9_]{0,5}",
            after in "([ ,.!?][a-zA-Z0-9 ]{0,20})?",
        ) {
            prop_assume!(!head.is_empty() || !tail.is_empty());
            let mention = format!("@{head}{BOT_USERNAME}{tail}");
            let text = format!("{before} {mention}{after}");
            let message = message(group(), &text, "mention", &mention);
            prop_assert!(!mentions_bot(&message, &me()));
            prop_assert!(!is_addressed_to_bot(&message, &me(), false));
            prop_assert_eq!(without_bot_mention(&message, &me()), text.trim());
        }
    }
}
