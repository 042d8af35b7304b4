//! Every sentence the bot says to users, for both front ends: Telegram and `telemem chat` in a
//! terminal. Each function takes the person's [`Lang`] and returns the sentence from that
//! language's file in `src/locales/` ([`crate::i18n`]), so callers never spell a message id.
//! Replies never carry internal error text or provider responses: those go to the log.
//!
//! The sentences are grouped by who hears them: a chat turn's notices (`chat`), the answers to
//! everyone's commands (`commands`), the admins' side and the refusals of strangers (`admin`),
//! the tools' side: reminders, time zones, `/tools` (`tools`), the Mini App's buttons and
//! `/settings` (`app`), voice answers, `/tts`, `/voice` and `/image` (`voice_and_pictures`),
//! and how numbers, sizes and
//! durations read (`numbers`). Callers use them from here. The figures some replies are made
//! from are plain values of `views`, which the conversation fills in.

/// The sentence `$id` in `$lang` with each value in the placeholder of its name: a variable of
/// that name (`say!(lang, "persona-too-long", length, max)`) or `name = value`
/// (`say!(lang, "from-group", group = title)`).
macro_rules! say {
    ($lang:expr, $id:expr $(, $name:ident $(= $value:expr)?)* $(,)?) => {
        $crate::i18n::text(
            $lang,
            $id,
            [$((stringify!($name), say!(@value $name $(= $value)?))),*],
        )
    };
    (@value $name:ident) => {
        fluent_bundle::FluentValue::from($name)
    };
    (@value $name:ident = $value:expr) => {
        fluent_bundle::FluentValue::from($value)
    };
}

mod admin;
mod app;
mod chat;
mod commands;
mod numbers;
mod tools;
pub mod views;
mod voice_and_pictures;

pub use admin::*;
pub use app::*;
pub use chat::*;
pub use commands::*;
pub use numbers::{human_bytes, human_duration, thousands};
pub use tools::*;
pub use voice_and_pictures::*;

use crate::i18n::{self, Lang};

/// A sentence without placeholders.
fn plain(lang: Lang, id: &str) -> String {
    i18n::text(lang, id, [])
}

#[cfg(test)]
mod tests;
