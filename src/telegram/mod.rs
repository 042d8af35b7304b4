//! The Telegram edge of the bot: everything that knows how Telegram wants messages shaped.
//! For now that is only [`render`], which turns the model's Markdown into Telegram HTML and cuts
//! long replies into messages Telegram accepts. Nothing in here may reach into memory or storage.

pub mod render;
