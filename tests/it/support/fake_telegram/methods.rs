//! The Bot API methods telemem calls, carried out on the recorded chat state the way Telegram
//! does them: `getUpdates` with offsets, limits and allowed kinds, sending, editing and deleting
//! messages, documents, voice notes and photos, command menus per language, and Telegram's refusals (too long, not
//! modified, not found, 403).

use std::time::Duration;

use serde_json::{Value, json};
use tokio::time::Instant;

use super::super::telegram_html::{utf16_len, visible_text};
use super::server::{Reply, Upload};
use super::state::{State, bot_user, unix_now};
use super::{BOT_USER_ID, BOT_USERNAME, BotMessage, CANT_INITIATE, Handout, SentDocument};

const MESSAGE_LIMIT: usize = 4096;
const CAPTION_LIMIT: usize = 1024;
/// Telegram's `getUpdates` returns at most this many updates.
const MAX_UPDATES_PER_POLL: usize = 100;
pub(super) const NOT_MODIFIED: &str = "Bad Request: message is not modified: specified new message content \
                            and reply markup are exactly the same as a current content and reply \
                            markup of the message";

impl State {
    pub(super) fn apply(&mut self, method: &str, params: &Value, uploads: Vec<Upload>) -> Reply {
        match method.to_ascii_lowercase().as_str() {
            "getme" => Reply::Ok(json!({
                "id": BOT_USER_ID, "is_bot": true, "first_name": "Telemem Test",
                "username": BOT_USERNAME, "can_join_groups": true,
                "can_read_all_group_messages": false, "supports_inline_queries": false,
                "can_connect_to_business": false, "has_main_web_app": false
            })),
            "getupdates" => self.get_updates(params),
            "getfile" => self.get_file(params),
            "sendmessage" => self.send_message(params),
            "editmessagetext" if params.get("inline_message_id").is_some() => {
                self.edit_inline_message_text(params)
            }
            "editmessagetext" => self.edit_message_text(params),
            "editmessagereplymarkup" => self.edit_message_reply_markup(params),
            "deletemessage" => self.delete_message(params),
            "senddocument" => self.send_file(params, uploads, "document"),
            "sendvoice" => self.send_file(params, uploads, "voice"),
            "sendphoto" => self.send_file(params, uploads, "photo"),
            "sendchataction" => match chat_id_param(params) {
                Ok(_) => Reply::Ok(json!(true)),
                Err(reply) => reply,
            },
            "setmycommands" => {
                self.command_menus
                    .insert(menu_key(params), params["commands"].clone());
                Reply::Ok(json!(true))
            }
            "deletemycommands" => {
                self.command_menus.remove(&menu_key(params));
                Reply::Ok(json!(true))
            }
            // Recorded as a call; the tests read the button from its parameters.
            "setchatmenubutton" => Reply::Ok(json!(true)),
            "answercallbackquery" | "answerinlinequery" => Reply::Ok(json!(true)),
            "setwebhook" => {
                self.webhook_url = params["url"].as_str().unwrap_or_default().to_owned();
                Reply::Ok(json!(true))
            }
            "deletewebhook" => {
                self.webhook_url.clear();
                Reply::Ok(json!(true))
            }
            "getwebhookinfo" => Reply::Ok(json!({
                "url": self.webhook_url,
                "has_custom_certificate": false,
                "pending_update_count": self.pending_updates.len()
            })),
            _ => Reply::Error {
                code: 404,
                description: "Not Found".to_owned(),
                parameters: None,
            },
        }
    }

    /// Confirms (drops) updates below `offset`, remembers `allowed_updates`, then either
    /// answers at once or long-polls.
    fn get_updates(&mut self, params: &Value) -> Reply {
        if let Some(offset) = integer_param(params, "offset")
            && offset > 0
        {
            self.pending_updates
                .retain(|update| update["update_id"].as_i64().unwrap_or(0) >= offset);
        }
        if let Some(allowed) = params["allowed_updates"].as_array() {
            let kinds = allowed
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect();
            self.allowed_updates = Some(kinds);
        }
        let limit = integer_param(params, "limit")
            .and_then(|limit| usize::try_from(limit).ok())
            .filter(|limit| (1..=MAX_UPDATES_PER_POLL).contains(limit))
            .unwrap_or(MAX_UPDATES_PER_POLL);
        let seconds = integer_param(params, "timeout")
            .and_then(|seconds| u64::try_from(seconds).ok())
            .unwrap_or(0);
        Reply::Poll {
            timeout: Duration::from_secs(seconds),
            limit,
        }
    }

    /// The updates for one `getUpdates` answer, noting when each was handed out the first time.
    pub(super) fn hand_out(&mut self, limit: usize) -> Vec<Value> {
        let updates = self.deliverable_updates(limit);
        let at = Instant::now();
        for update in &updates {
            let update_id = update["update_id"].as_i64().unwrap_or(0);
            // Update ids grow, so an id not above the last one handed out is a redelivery.
            if update_id > self.last_handed_out_id {
                self.last_handed_out_id = update_id;
                self.handouts.push(Handout { update_id, at });
            }
        }
        updates
    }

    /// Pending updates the bot asked for, oldest first; they stay pending until confirmed.
    fn deliverable_updates(&self, limit: usize) -> Vec<Value> {
        self.pending_updates
            .iter()
            .filter(|update| self.is_allowed(update))
            .take(limit)
            .cloned()
            .collect()
    }

    fn is_allowed(&self, update: &Value) -> bool {
        match &self.allowed_updates {
            Some(kinds) if !kinds.is_empty() => kinds.iter().any(|kind| update.get(kind).is_some()),
            _ => true,
        }
    }

    fn send_message(&mut self, params: &Value) -> Reply {
        let chat_id = match self.writable_chat(params) {
            Ok(chat_id) => chat_id,
            Err(reply) => return reply,
        };
        let SentText {
            raw_text,
            parse_mode,
            text,
        } = match sent_text(params, "Bad Request: message is too long") {
            Ok(sent) => sent,
            Err(reply) => return reply,
        };
        self.last_message_id += 1;
        let message = BotMessage {
            chat_id,
            message_id: self.last_message_id,
            text,
            raw_text,
            parse_mode,
            reply_markup: inline_keyboard(params),
            edited: false,
        };
        let json = self.bot_message_json(&message);
        self.bot_messages.push(message);
        Reply::Ok(json)
    }

    fn edit_message_text(&mut self, params: &Value) -> Reply {
        // Telegram words "too long" differently for edits.
        let SentText {
            raw_text,
            parse_mode,
            text,
        } = match sent_text(params, "Bad Request: MESSAGE_TOO_LONG") {
            Ok(sent) => sent,
            Err(reply) => return reply,
        };
        let reply_markup = inline_keyboard(params);
        let index = match self.find_bot_message(params, "Bad Request: message to edit not found") {
            Ok(index) => index,
            Err(reply) => return reply,
        };
        let message = &mut self.bot_messages[index];
        if message.raw_text == raw_text
            && message.parse_mode == parse_mode
            && message.reply_markup == reply_markup
        {
            return Reply::bad_request(NOT_MODIFIED);
        }
        message.text = text;
        message.raw_text = raw_text;
        message.parse_mode = parse_mode;
        message.reply_markup = reply_markup;
        message.edited = true;
        let message = message.clone();
        Reply::Ok(self.bot_message_json(&message))
    }

    fn edit_message_reply_markup(&mut self, params: &Value) -> Reply {
        let reply_markup = inline_keyboard(params);
        let index = match self.find_bot_message(params, "Bad Request: message to edit not found") {
            Ok(index) => index,
            Err(reply) => return reply,
        };
        let message = &mut self.bot_messages[index];
        if message.reply_markup == reply_markup {
            return Reply::bad_request(NOT_MODIFIED);
        }
        message.reply_markup = reply_markup;
        message.edited = true;
        let message = message.clone();
        Reply::Ok(self.bot_message_json(&message))
    }

    fn delete_message(&mut self, params: &Value) -> Reply {
        match self.find_bot_message(params, "Bad Request: message to delete not found") {
            Ok(index) => {
                self.bot_messages.remove(index);
                Reply::Ok(json!(true))
            }
            Err(reply) => reply,
        }
    }

    /// `sendDocument`, `sendVoice` or `sendPhoto`: the file uploaded in the parameter `kind`
    /// (`document`, `voice`, `photo`), recorded with its caption (and a voice note's duration).
    fn send_file(&mut self, params: &Value, uploads: Vec<Upload>, kind: &'static str) -> Reply {
        let chat_id = match self.writable_chat(params) {
            Ok(chat_id) => chat_id,
            Err(reply) => return reply,
        };
        // teloxide names the upload's part in the parameter as `attach://<part name>`.
        let Some(reference) = params[kind].as_str() else {
            return Reply::bad_request(format!("Bad Request: there is no {kind} in the request"));
        };
        let upload = reference
            .strip_prefix("attach://")
            .and_then(|field| uploads.into_iter().find(|upload| upload.field == field));
        let (file_name, bytes) = match upload {
            Some(upload) => (upload.file_name, upload.bytes),
            None => (None, Vec::new()),
        };
        let parse_mode = params["parse_mode"].as_str();
        let caption = match params["caption"].as_str() {
            Some(raw) => {
                let too_long = "Bad Request: message caption is too long";
                match checked_text(raw, parse_mode, CAPTION_LIMIT, too_long) {
                    Ok(caption) => Some(caption),
                    Err(reply) => return reply,
                }
            }
            None => None,
        };
        self.last_message_id += 1;
        let mut message = json!({
            "message_id": self.last_message_id,
            "date": unix_now(),
            "chat": self.chat(chat_id),
            "from": bot_user(),
        });
        let file = json!({
            "file_id": format!("{kind}-{}", self.last_message_id),
            "file_unique_id": format!("u{kind}-{}", self.last_message_id),
            "file_size": bytes.len()
        });
        let duration = integer_param(params, "duration");
        message[kind] = match kind {
            "photo" => json!([{
                "file_id": file["file_id"], "file_unique_id": file["file_unique_id"],
                "file_size": bytes.len(), "width": 1024, "height": 1024
            }]),
            "voice" => {
                let mut voice = file;
                voice["duration"] = json!(duration.unwrap_or(0));
                voice
            }
            _ => file,
        };
        if let Some(file_name) = &file_name
            && kind == "document"
        {
            message["document"]["file_name"] = json!(file_name);
        }
        if let Some(caption) = &caption {
            message["caption"] = json!(caption);
        }
        self.documents.push(SentDocument {
            kind,
            chat_id,
            file_name,
            caption,
            duration,
            bytes,
        });
        Reply::Ok(message)
    }

    /// The chat a message is sent to, or Telegram's 403 for a private chat the bot may not use.
    fn writable_chat(&self, params: &Value) -> Result<i64, Reply> {
        let chat_id = chat_id_param(params)?;
        if self.closed_private_chats.contains(&chat_id) {
            return Err(Reply::Error {
                code: 403,
                description: CANT_INITIATE.to_owned(),
                parameters: None,
            });
        }
        Ok(chat_id)
    }

    fn find_bot_message(&self, params: &Value, not_found: &str) -> Result<usize, Reply> {
        let chat_id = chat_id_param(params)?;
        let message_id = integer_param(params, "message_id").ok_or_else(|| {
            Reply::bad_request("Bad Request: message identifier is not specified")
        })?;
        self.bot_messages
            .iter()
            .position(|message| message.chat_id == chat_id && message.message_id == message_id)
            .ok_or_else(|| Reply::bad_request(not_found))
    }
}

/// The text of a `sendMessage` or `editMessageText` call: as sent, its parse mode, and what
/// users see.
pub(super) struct SentText {
    pub(super) raw_text: String,
    pub(super) parse_mode: Option<String>,
    pub(super) text: String,
}

/// The call's text, or Telegram's refusal of it (`too_long` in the method's own words).
pub(super) fn sent_text(params: &Value, too_long: &str) -> Result<SentText, Reply> {
    let raw_text = params["text"].as_str().unwrap_or_default().to_owned();
    let parse_mode = params["parse_mode"].as_str().map(str::to_owned);
    let text = checked_text(&raw_text, parse_mode.as_deref(), MESSAGE_LIMIT, too_long)?;
    Ok(SentText {
        raw_text,
        parse_mode,
        text,
    })
}

/// The visible text of a message text or caption, checked the way Telegram checks it, or
/// Telegram's refusal (past `limit`, in the words of `too_long`).
fn checked_text(
    raw: &str,
    parse_mode: Option<&str>,
    limit: usize,
    too_long: &str,
) -> Result<String, Reply> {
    let text = match parse_mode {
        Some(mode) if mode.eq_ignore_ascii_case("html") => {
            visible_text(raw).map_err(Reply::bad_request)?
        }
        _ => raw.to_owned(),
    };
    if text.trim().is_empty() {
        return Err(Reply::bad_request("Bad Request: message text is empty"));
    }
    if utf16_len(&text) > limit {
        return Err(Reply::bad_request(too_long));
    }
    Ok(text)
}

/// Telegram only echoes inline keyboards back in the returned message.
pub(super) fn inline_keyboard(params: &Value) -> Option<Value> {
    let markup = match &params["reply_markup"] {
        // Multipart requests carry the markup as a JSON string.
        Value::String(encoded) => serde_json::from_str(encoded).ok()?,
        other => other.clone(),
    };
    markup.get("inline_keyboard").is_some().then_some(markup)
}

/// An integer parameter, given as a JSON number or (in multipart requests) a string.
/// A command menu's `language_code`; `None` for the menu of every language without its own.
/// Which menu a `setMyCommands` call sets: the chat of a `chat` scope (`None`: every chat), and
/// the `language_code` (`None`: every language without its own).
fn menu_key(params: &Value) -> (Option<i64>, Option<String>) {
    let scope = &params["scope"];
    let chat = (scope["type"].as_str() == Some("chat"))
        .then(|| scope["chat_id"].as_i64())
        .flatten();
    (chat, language_param(params))
}

fn language_param(params: &Value) -> Option<String> {
    params["language_code"]
        .as_str()
        .filter(|code| !code.is_empty())
        .map(str::to_owned)
}

fn integer_param(params: &Value, name: &str) -> Option<i64> {
    match &params[name] {
        Value::Number(number) => number.as_i64(),
        Value::String(text) => text.parse().ok(),
        _ => None,
    }
}

fn chat_id_param(params: &Value) -> Result<i64, Reply> {
    integer_param(params, "chat_id")
        .ok_or_else(|| Reply::bad_request("Bad Request: chat not found"))
}
