//! The one integration-test binary: each module below is a family of specifications, plus the
//! test doubles they share (a Telegram HTML validator and a fake Bot API server).

mod fake_telegram;
mod fake_telegram_selftest;
mod render;
mod telegram_html;
