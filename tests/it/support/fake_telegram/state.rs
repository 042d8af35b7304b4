//! The recorded chat state the Bot API methods work on: the calls so far, the updates waiting to
//! be handed out, the messages and documents the bot sent, the chats seen, the files users sent,
//! the command menus, the users' languages, and the scripted faults waiting for their call; plus
//! Telegram's JSON for users, chats and the bot's messages.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::{BOT_USER_ID, BOT_USERNAME, BotMessage, Call, Fault, Handout, Hold, SentDocument};

#[derive(Default)]
pub(super) struct State {
    pub(super) calls: Vec<Call>,
    pub(super) pending_updates: VecDeque<Value>,
    pub(super) last_update_id: i64,
    pub(super) handouts: Vec<Handout>,
    pub(super) last_handed_out_id: i64,
    pub(super) last_message_id: i64,
    pub(super) bot_messages: Vec<BotMessage>,
    pub(super) documents: Vec<SentDocument>,
    pub(super) faults: HashMap<String, VecDeque<Fault>>,
    pub(super) holds: Vec<Hold>,
    pub(super) chats: HashMap<i64, Value>,
    pub(super) allowed_updates: Option<Vec<String>>,
    pub(super) webhook_url: String,
    /// Telegram cannot be reached: every call loses its connection.
    pub(super) down: bool,
    /// Private chats of people who never started the bot: writing there is refused with 403.
    pub(super) closed_private_chats: HashSet<i64>,
    /// Files users sent, by file id, for `getFile` and downloads.
    pub(super) files: HashMap<String, super::files::KeptFile>,
    /// The command menus set with `setMyCommands`, by the chat of a chat scope and by
    /// `language_code` (`None`: for every chat, or every language without its own).
    pub(super) command_menus: HashMap<(Option<i64>, Option<String>), Value>,
    /// The `language_code` of users whose app is not in English (`None`: their app sends none).
    pub(super) languages: HashMap<i64, Option<String>>,
    /// The text of each inline query, by its id.
    pub(super) inline_queries: HashMap<String, String>,
    /// Messages posted by choosing an inline result, which the bot edits by their id.
    pub(super) inline_messages: Vec<BotMessage>,
}

impl State {
    pub(super) fn register_chat(&mut self, chat_id: i64, chat: Value) -> Value {
        self.chats.insert(chat_id, chat.clone());
        chat
    }

    pub(super) fn chat(&self, chat_id: i64) -> Value {
        self.chats.get(&chat_id).cloned().unwrap_or_else(|| {
            if chat_id < 0 {
                group_chat(chat_id)
            } else {
                private_chat(chat_id)
            }
        })
    }

    pub(super) fn user_message(&mut self, chat: Value, user_id: i64) -> Value {
        self.last_message_id += 1;
        json!({
            "message_id": self.last_message_id,
            "date": unix_now(),
            "chat": chat,
            "from": self.user(user_id)
        })
    }

    /// Telegram's JSON for the user `user_id`, with the language their app reports (`en` unless
    /// a test set another, or none).
    pub(super) fn user(&self, user_id: i64) -> Value {
        let mut user = json!({
            "id": user_id, "is_bot": false, "first_name": format!("User {user_id}"),
            "username": format!("user{user_id}")
        });
        let language = self
            .languages
            .get(&user_id)
            .cloned()
            .unwrap_or_else(|| Some("en".to_owned()));
        if let Some(language) = language {
            user["language_code"] = json!(language);
        }
        user
    }

    pub(super) fn bot_message_json(&self, message: &BotMessage) -> Value {
        let mut json = json!({
            "message_id": message.message_id,
            "date": unix_now(),
            "chat": self.chat(message.chat_id),
            "from": bot_user(),
            "text": message.text
        });
        if message.edited {
            json["edit_date"] = json!(unix_now());
        }
        if let Some(markup) = &message.reply_markup {
            json["reply_markup"] = markup.clone();
        }
        json
    }
}

pub(super) fn bot_user() -> Value {
    json!({
        "id": BOT_USER_ID, "is_bot": true, "first_name": "Telemem Test", "username": BOT_USERNAME
    })
}

pub(super) fn private_chat(chat_id: i64) -> Value {
    json!({
        "id": chat_id, "type": "private", "first_name": format!("User {chat_id}"),
        "username": format!("user{chat_id}")
    })
}

pub(super) fn channel_chat(chat_id: i64) -> Value {
    json!({ "id": chat_id, "type": "channel", "title": format!("Channel {chat_id}") })
}

pub(super) fn group_chat(chat_id: i64) -> Value {
    json!({ "id": chat_id, "type": "group", "title": format!("Test group {chat_id}") })
}

pub(super) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}
