//! Inline mode as Telegram does it: a person's inline query (`@bot question`), the bot's answer
//! (`answerInlineQuery`, recorded as a call), the person choosing its first result, which posts
//! the result's message in some chat as an inline message, and edits of that message by its
//! `inline_message_id`. As on Telegram, the `chosen_inline_result` names the posted message only
//! when the result carried an inline keyboard.

use serde_json::{Value, json};

use super::methods::{SentText, inline_keyboard, sent_text};
use super::server::Reply;
use super::state::State;
use super::{BotMessage, FakeTelegram};

/// Telegram's answer to an edit of an inline message it does not know.
const INLINE_MESSAGE_NOT_FOUND: &str = "Bad Request: MESSAGE_ID_INVALID";

/// What choosing an inline result did.
#[derive(Clone, Debug, PartialEq)]
pub struct ChosenResult {
    /// The `chosen_inline_result` update.
    pub update_id: i64,
    /// The message the result posted; `None` when the result carried no keyboard, so the bot
    /// cannot know it.
    pub inline_message_id: Option<String>,
}

impl FakeTelegram {
    /// An inline query `@bot <query>` typed by `user_id`; returns its update id.
    pub fn send_inline_query(&self, user_id: i64, query: &str) -> i64 {
        self.enqueue(|state, update_id| {
            state
                .inline_queries
                .insert(format!("inline-{update_id}"), query.to_owned());
            json!({
                "update_id": update_id,
                "inline_query": {
                    "id": format!("inline-{update_id}"),
                    "from": state.user(user_id),
                    "query": query,
                    "offset": "",
                    "chat_type": "group"
                }
            })
        })
    }

    /// The `results` of each `answerInlineQuery` call so far, with the query each answered.
    pub fn inline_answers(&self) -> Vec<(String, Value)> {
        self.calls()
            .into_iter()
            .filter(|call| call.method == "answerInlineQuery")
            .map(|call| {
                let query_id = call.params["inline_query_id"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                (query_id, call.params)
            })
            .collect()
    }

    /// `user_id` chooses the first result the bot offered for the inline query of update
    /// `query_update_id`: its message is posted and the bot gets a `chosen_inline_result`. Panics
    /// if the bot offered no result for that query.
    pub fn choose_inline_result(&self, user_id: i64, query_update_id: i64) -> ChosenResult {
        let query_id = format!("inline-{query_update_id}");
        let answer = self
            .inline_answers()
            .into_iter()
            .rev()
            .find(|(answered, _)| *answered == query_id)
            .map(|(_, params)| params)
            .expect("the bot answered the inline query");
        let result = answer["results"][0].clone();
        assert!(result.is_object(), "the bot offered no result: {answer}");
        let query = self
            .shared
            .lock()
            .inline_queries
            .get(&query_id)
            .cloned()
            .unwrap_or_default();
        let mut inline_message_id = None;
        let update_id = self.enqueue(|state, update_id| {
            let posted = state.post_inline_message(&result);
            let mut chosen = json!({
                "result_id": result["id"],
                "from": state.user(user_id),
                "query": query,
            });
            if posted.reply_markup.is_some() {
                let id = format!("inline-message-{}", posted.message_id);
                chosen["inline_message_id"] = json!(id);
                inline_message_id = Some(id);
            }
            json!({ "update_id": update_id, "chosen_inline_result": chosen })
        });
        ChosenResult {
            update_id,
            inline_message_id,
        }
    }

    /// The inline message `inline_message_id` as it stands after edits.
    pub fn inline_message(&self, inline_message_id: &str) -> Option<BotMessage> {
        let state = self.shared.lock();
        let number = inline_number(inline_message_id)?;
        state
            .inline_messages
            .iter()
            .find(|message| message.message_id == number)
            .cloned()
    }

    /// A press by `user_id` on a button of the inline message `inline_message_id` (the callback
    /// query carries the message's id instead of the message).
    pub fn press_inline_button(&self, user_id: i64, inline_message_id: &str, data: &str) -> i64 {
        self.enqueue(|state, update_id| {
            json!({
                "update_id": update_id,
                "callback_query": {
                    "id": format!("callback-{update_id}"),
                    "from": state.user(user_id),
                    "inline_message_id": inline_message_id,
                    "chat_instance": "inline-instance",
                    "data": data
                }
            })
        })
    }
}

impl State {
    /// Posts an inline result's message (in a chat the bot does not see); the message's number
    /// makes its `inline_message_id`.
    fn post_inline_message(&mut self, result: &Value) -> BotMessage {
        self.last_message_id += 1;
        let content = &result["input_message_content"];
        let text = content["message_text"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let message = BotMessage {
            chat_id: 0,
            message_id: self.last_message_id,
            text: text.clone(),
            raw_text: text,
            parse_mode: content["parse_mode"].as_str().map(str::to_owned),
            reply_markup: inline_keyboard(result),
            edited: false,
        };
        self.inline_messages.push(message.clone());
        message
    }

    /// `editMessageText` with an `inline_message_id`: like an edit of a chat message, answered
    /// with `true` rather than the message.
    pub(super) fn edit_inline_message_text(&mut self, params: &Value) -> Reply {
        let SentText {
            raw_text,
            parse_mode,
            text,
        } = match sent_text(params, "Bad Request: MESSAGE_TOO_LONG") {
            Ok(sent) => sent,
            Err(reply) => return reply,
        };
        let reply_markup = inline_keyboard(params);
        let number = params["inline_message_id"].as_str().and_then(inline_number);
        let Some(message) = self
            .inline_messages
            .iter_mut()
            .find(|message| Some(message.message_id) == number)
        else {
            return Reply::bad_request(INLINE_MESSAGE_NOT_FOUND);
        };
        if message.raw_text == raw_text
            && message.parse_mode == parse_mode
            && message.reply_markup == reply_markup
        {
            return Reply::bad_request(super::methods::NOT_MODIFIED);
        }
        message.text = text;
        message.raw_text = raw_text;
        message.parse_mode = parse_mode;
        message.reply_markup = reply_markup;
        message.edited = true;
        Reply::Ok(json!(true))
    }
}

fn inline_number(inline_message_id: &str) -> Option<i64> {
    inline_message_id
        .strip_prefix("inline-message-")?
        .parse()
        .ok()
}
