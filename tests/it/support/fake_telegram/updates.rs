//! The updates users send, as tests enqueue them: private and group texts (with the entities
//! Telegram marks), posts as a channel or an anonymous admin, stickers, photos, button presses
//! and raw updates; each is handed to the bot by the next `getUpdates`, or taken out for a
//! webhook.

use serde_json::{Value, json};

use super::super::telegram_html::utf16_len;
use super::state::{State, bot_user, channel_chat, group_chat, private_chat, unix_now};
use super::{CHANNEL_BOT_ID, FakeTelegram, GROUP_ANONYMOUS_BOT_ID};

impl FakeTelegram {
    /// A private-chat text message from `user_id`; returns its update id.
    pub fn send_text(&self, chat_id: i64, user_id: i64, text: &str) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.register_chat(chat_id, private_chat(chat_id));
            let mut message = state.user_message(chat, user_id);
            add_text(&mut message, text);
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// An update built by `build` from its update id, as it is: say, one teloxide cannot read.
    pub fn send_raw_update(&self, build: impl FnOnce(i64) -> Value) -> i64 {
        self.enqueue(|_, update_id| build(update_id))
    }

    /// A group message; with `reply_to_bot` it replies to the bot's latest message there.
    pub fn send_group_text(
        &self,
        chat_id: i64,
        user_id: i64,
        text: &str,
        reply_to_bot: bool,
    ) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.register_chat(chat_id, group_chat(chat_id));
            let mut message = state.user_message(chat.clone(), user_id);
            add_text(&mut message, text);
            if reply_to_bot {
                let replied = state
                    .bot_messages
                    .iter()
                    .rev()
                    .find(|sent| sent.chat_id == chat_id)
                    .map(|sent| state.bot_message_json(sent));
                // Without an earlier bot message, reply to one from before the test began.
                let replied = replied.unwrap_or_else(|| {
                    json!({
                        "message_id": 0, "date": unix_now(), "chat": chat,
                        "from": bot_user(), "text": "an earlier message"
                    })
                });
                message["reply_to_message"] = replied;
            }
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// A group message sent as the chat `sender_chat_id`: a channel, or (when it is the group
    /// itself) an anonymous admin of the group. `from` is Telegram's placeholder for either.
    pub fn send_group_text_as_chat(&self, chat_id: i64, sender_chat_id: i64, text: &str) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.register_chat(chat_id, group_chat(chat_id));
            let (placeholder, sender_chat) = if sender_chat_id == chat_id {
                (GROUP_ANONYMOUS_BOT_ID, chat.clone())
            } else {
                (CHANNEL_BOT_ID, channel_chat(sender_chat_id))
            };
            let mut message = state.user_message(chat, placeholder);
            message["from"] = json!({
                "id": placeholder, "is_bot": true, "first_name": "Placeholder",
                "username": if sender_chat_id == chat_id { "GroupAnonymousBot" } else { "Channel_Bot" }
            });
            message["sender_chat"] = sender_chat;
            add_text(&mut message, text);
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// A sticker message with the given emoji.
    pub fn send_sticker(&self, chat_id: i64, user_id: i64, emoji: &str) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.chat(chat_id);
            let mut message = state.user_message(chat, user_id);
            message["sticker"] = json!({
                "file_id": format!("sticker-{update_id}"),
                "file_unique_id": format!("usticker-{update_id}"),
                "type": "regular", "width": 512, "height": 512,
                "is_animated": false, "is_video": false, "emoji": emoji
            });
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// A photo message, with an optional caption.
    pub fn send_photo(&self, chat_id: i64, user_id: i64, caption: Option<&str>) -> i64 {
        self.enqueue(|state, update_id| {
            let chat = state.chat(chat_id);
            let mut message = state.user_message(chat, user_id);
            message["photo"] = json!([{
                "file_id": format!("photo-{update_id}"),
                "file_unique_id": format!("uphoto-{update_id}"),
                "width": 640, "height": 480, "file_size": 12345
            }]);
            if let Some(caption) = caption {
                message["caption"] = json!(caption);
            }
            json!({ "update_id": update_id, "message": message })
        })
    }

    /// A press on an inline-keyboard button of bot message `message_id`.
    pub fn press_button(&self, chat_id: i64, user_id: i64, message_id: i64, data: &str) -> i64 {
        self.enqueue(|state, update_id| {
            let message = state
                .bot_messages
                .iter()
                .find(|sent| sent.chat_id == chat_id && sent.message_id == message_id)
                .map(|sent| state.bot_message_json(sent))
                // Telegram's shape for a message the bot can no longer access.
                .unwrap_or_else(
                    || json!({ "chat": state.chat(chat_id), "message_id": message_id, "date": 0 }),
                );
            json!({
                "update_id": update_id,
                "callback_query": {
                    "id": format!("callback-{update_id}"),
                    "from": state.user(user_id),
                    "message": message,
                    "chat_instance": format!("instance-{chat_id}"),
                    "data": data
                }
            })
        })
    }

    /// From now on the updates of `user_id` say their app is in `language` (`None`: the app
    /// reports no language); users are in English (`en`) otherwise.
    pub fn set_language(&self, user_id: i64, language: Option<&str>) {
        self.shared
            .lock()
            .languages
            .insert(user_id, language.map(str::to_owned));
    }

    /// Takes the queued updates out, as Telegram does when it pushes them to a webhook instead
    /// of handing them to `getUpdates`.
    pub fn take_pending_updates(&self) -> Vec<Value> {
        self.shared.lock().pending_updates.drain(..).collect()
    }

    pub(super) fn enqueue(&self, build: impl FnOnce(&mut State, i64) -> Value) -> i64 {
        let update_id = {
            let mut state = self.shared.lock();
            state.last_update_id += 1;
            let update_id = state.last_update_id;
            let update = build(&mut state, update_id);
            state.pending_updates.push_back(update);
            update_id
        };
        self.shared.notify();
        update_id
    }
}

fn add_text(message: &mut Value, text: &str) {
    message["text"] = json!(text);
    let mut entities = Vec::new();
    // Telegram marks a leading command so clients (and teloxide's filters) can see it.
    if text.starts_with('/') {
        let command = text.split_whitespace().next().unwrap_or(text);
        entities.push(json!({ "type": "bot_command", "offset": 0, "length": utf16_len(command) }));
    }
    entities.extend(mention_entities(text));
    if !entities.is_empty() {
        message["entities"] = Value::Array(entities);
    }
}

/// A `mention` entity for each `@username` in the text, as Telegram marks them: `@` not right
/// after a letter, digit or underscore, then 5 to 32 of those (`/cmd@bot` is part of a command).
pub(super) fn mention_entities(text: &str) -> Vec<Value> {
    let is_word = |ch: char| ch.is_ascii_alphanumeric() || ch == '_';
    let mut entities = Vec::new();
    let mut previous: Option<char> = None;
    for (start, ch) in text.char_indices() {
        let after_word = previous.is_some_and(|p| is_word(p) || p == '/');
        previous = Some(ch);
        if ch != '@' || after_word {
            continue;
        }
        let name_length = text[start + 1..]
            .chars()
            .take_while(|&c| is_word(c))
            .count();
        if (5..=32).contains(&name_length) {
            entities.push(json!({
                "type": "mention",
                "offset": utf16_len(&text[..start]),
                "length": 1 + name_length
            }));
        }
    }
    entities
}
