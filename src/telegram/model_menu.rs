//! The `/model` menu in Telegram: the models on offer as inline buttons, the one in use marked,
//! and what a press does. The choice itself is [`Conversations::choose_model`]'s.
//!
//! A button's callback data must fit Telegram's 64 bytes, which a model's name may not, so it
//! names the model by its place in the list and a fingerprint of its name:
//! `model:<index>:<fingerprint>:<user id>`. At press time the fingerprint shows whether the list
//! still holds that model there (the operator may have changed `LLM_MODELS` and restarted since);
//! if not, the menu is shown again as it is now. The user id is who asked: in a group only they
//! may choose from their menu.

use teloxide::prelude::*;
use teloxide::types::{CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup};

use crate::conversation::{Conversations, ModelMenu};
use crate::i18n::Lang;
use crate::replies;
use crate::storage::UserId;
use crate::telegram::bot::TelegramBot;
use crate::telegram::reply::{HandlerResult, edit_with_buttons, own_press, send_with_buttons};

/// What every model button's callback data starts with.
const PREFIX: &str = "model:";

/// What a model button says: which model, and who may press it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ModelButton {
    index: usize,
    fingerprint: u32,
    owner: UserId,
}

impl ModelButton {
    fn for_model(index: usize, name: &str, owner: UserId) -> Self {
        Self {
            index,
            fingerprint: fingerprint(name),
            owner,
        }
    }

    /// At most 6 + 20 + 1 + 8 + 1 + 20 bytes: within Telegram's 64 for any list and any id.
    fn data(self) -> String {
        format!(
            "{PREFIX}{}:{:08x}:{}",
            self.index, self.fingerprint, self.owner
        )
    }

    fn parse(data: &str) -> Option<Self> {
        let mut parts = data.strip_prefix(PREFIX)?.split(':');
        let button = Self {
            index: parts.next()?.parse().ok()?,
            fingerprint: u32::from_str_radix(parts.next()?, 16).ok()?,
            owner: parts.next()?.parse().ok()?,
        };
        parts.next().is_none().then_some(button)
    }

    /// The model this button names, if the list still has it in the same place.
    fn model(self, models: &[String]) -> Option<&str> {
        let name = models.get(self.index)?;
        (fingerprint(name) == self.fingerprint).then_some(name.as_str())
    }
}

/// FNV-1a, 32 bits: a stable fingerprint of a model's name (not a secret, only a check that the
/// list did not change under the button).
fn fingerprint(name: &str) -> u32 {
    name.bytes().fold(0x811c_9dc5, |hash, byte| {
        (hash ^ u32::from(byte)).wrapping_mul(0x0100_0193)
    })
}

/// One button per model, one model a row (names can be long), the one in use marked.
fn keyboard(menu: &ModelMenu, owner: UserId) -> InlineKeyboardMarkup {
    let rows = menu.models.iter().enumerate().map(|(index, name)| {
        let label = replies::model_label(name, *name == menu.in_use.name);
        let data = ModelButton::for_model(index, name, owner).data();
        [InlineKeyboardButton::callback(label, data)]
    });
    InlineKeyboardMarkup::new(rows)
}

fn menu_text(lang: Lang, intro: &str) -> String {
    format!("{intro}\n\n{}", replies::model_choose_with_buttons(lang))
}

/// Whether a button press is on a `/model` menu.
pub fn is_model_button(query: CallbackQuery) -> bool {
    query
        .data
        .as_deref()
        .is_some_and(|data| data.starts_with(PREFIX))
}

/// Answers `/model` in `message`'s chat with `intro` and the menu, for `owner` to choose from.
pub async fn offer_models(
    bot: &TelegramBot,
    message: &Message,
    owner: UserId,
    lang: Lang,
    intro: &str,
    menu: &ModelMenu,
) -> HandlerResult {
    let (text, buttons) = (menu_text(lang, intro), keyboard(menu, owner));
    send_with_buttons(bot, message, text, buttons).await
}

/// Chooses the pressed model for the person who asked and edits the menu to mark it; someone
/// else's press only gets a short notice, and a menu out of date is shown as it is now.
pub(super) async fn press_model_button(
    bot: TelegramBot,
    query: CallbackQuery,
    conversations: Conversations,
) -> HandlerResult {
    let read = ModelButton::parse;
    let owner = |button: &ModelButton| button.owner;
    let not_yours = replies::model_menu_not_yours;
    let Some((presser, lang, button)) = own_press(&bot, &query, read, owner, not_yours).await?
    else {
        return Ok(());
    };
    let chosen = match button.model(conversations.models().names()) {
        Some(name) => conversations.choose_model(presser, name).await?,
        None => None,
    };
    let intro = match &chosen {
        Some(name) => replies::model_chosen(lang, name),
        None => replies::model_menu_out_of_date(lang),
    };
    let menu = conversations.model_menu(presser).await?;
    bot.answer_callback_query(query.id.clone()).await?;
    let Some(message) = query.regular_message() else {
        return Ok(());
    };
    // The same model pressed twice leaves the menu as it is.
    let (text, markup) = (menu_text(lang, &intro), keyboard(&menu, presser));
    edit_with_buttons(&bot, message, text, markup).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn button_data_fits_telegrams_64_bytes_and_reads_back() {
        let long_name = "x".repeat(200);
        let button = ModelButton::for_model(usize::MAX, &long_name, UserId(i64::MIN));
        let data = button.data();
        assert!(data.len() <= 64, "{} bytes: {data}", data.len());
        assert_eq!(ModelButton::parse(&data), Some(button));
        assert_eq!(ModelButton::parse("clear:yes:5"), None);
        assert_eq!(ModelButton::parse("model:1:zz:5"), None);
        assert_eq!(ModelButton::parse("model:1:00000000:5:6"), None);
    }

    #[test]
    fn a_button_names_its_model_only_while_the_list_has_it_in_the_same_place() {
        let models = vec!["gpt-4o".to_owned(), "gpt-4o-mini".to_owned()];
        let button = ModelButton::for_model(1, "gpt-4o-mini", UserId(7));
        assert_eq!(button.model(&models), Some("gpt-4o-mini"));

        let reordered = vec!["gpt-4o-mini".to_owned(), "gpt-4o".to_owned()];
        assert_eq!(button.model(&reordered), None);
        assert_eq!(button.model(&models[..1]), None);
    }
}
