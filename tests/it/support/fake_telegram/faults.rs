//! What goes wrong, as tests script it: a canned failure for the next call of a method, an
//! outage that cuts every connection, a call held without an answer (applied or not), and
//! private chats the bot may not write to.

use std::collections::VecDeque;

use serde_json::{Value, json};

use super::FakeTelegram;
use super::server::Reply;
use super::state::State;

/// A call to keep waiting without an answer, chosen by its method and text.
#[derive(Clone, Debug, PartialEq)]
pub struct Hold {
    /// The method (any capitalisation).
    pub method: String,
    /// Only a call whose `text` parameter contains this is held.
    pub text_contains: String,
    /// Whether the call takes effect before it is held (Telegram did it, the bot never learns)
    /// or not at all.
    pub applied: bool,
}

/// A canned failure for the next call of one method.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// 429 with `parameters.retry_after`, which teloxide turns into `RequestError::RetryAfter`.
    TooManyRequests { retry_after: u32 },
    /// 400 with this description.
    BadRequest(String),
    /// The connection is cut after the status line, so the client sees a network error.
    DropConnection,
    /// 200 with this body, which teloxide cannot read (say, not the shape the method returns).
    Unreadable(String),
}

impl FakeTelegram {
    /// Makes the next call of `method` (any capitalisation) fail with `fault`; faults for the
    /// same method are used in the order they were queued.
    pub fn fail_next(&self, method: &str, fault: Fault) {
        self.shared
            .lock()
            .faults
            .entry(method.to_ascii_lowercase())
            .or_default()
            .push_back(fault);
    }

    /// Takes Telegram off the network (`true`) or brings it back: while down, every call's
    /// connection is cut (the bot sees a network error) and waiting long polls end empty.
    /// Users can still write; their messages are handed out once Telegram is back.
    pub fn set_down(&self, down: bool) {
        self.shared.lock().down = down;
        self.shared.notify();
    }

    /// Keeps the next call that matches `hold` waiting for ever (until the fake stops); one call
    /// per hold.
    pub fn hold_next(&self, hold: Hold) {
        self.shared.lock().holds.push(hold);
    }

    /// Makes `user_id`'s private chat one the bot may not write to (they never pressed Start):
    /// `sendMessage` and `sendDocument` there get Telegram's 403.
    pub fn close_private_chat(&self, user_id: i64) {
        self.shared.lock().closed_private_chats.insert(user_id);
    }
}

impl State {
    /// The first hold that matches this call, taken out of the list.
    pub(super) fn take_hold(&mut self, method: &str, params: &Value) -> Option<Hold> {
        let text = params["text"].as_str().unwrap_or_default();
        let index = self.holds.iter().position(|hold| {
            hold.method.eq_ignore_ascii_case(method) && text.contains(&hold.text_contains)
        })?;
        Some(self.holds.remove(index))
    }

    pub(super) fn take_fault(&mut self, method: &str) -> Option<Fault> {
        self.faults
            .get_mut(&method.to_ascii_lowercase())
            .and_then(VecDeque::pop_front)
    }
}

pub(super) fn fault_reply(fault: Fault) -> Reply {
    match fault {
        Fault::TooManyRequests { retry_after } => Reply::Error {
            code: 429,
            description: format!("Too Many Requests: retry after {retry_after}"),
            parameters: Some(json!({ "retry_after": retry_after })),
        },
        Fault::BadRequest(description) => Reply::bad_request(description),
        Fault::DropConnection => Reply::DropConnection,
        Fault::Unreadable(body) => Reply::Raw(body),
    }
}
