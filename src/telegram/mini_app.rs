//! The Mini App's ways in from the chat: a button under `/memory` and `/settings` that opens it
//! at the matching view, and the chat's menu button, set at start. Both only when `PUBLIC_URL`
//! gives the app an https address (Telegram opens nothing else); without one the commands answer
//! in text alone, as ever. The app itself is served by `webapp/`.

use teloxide::payloads::SetChatMenuButtonSetters;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup, MenuButton, WebAppInfo};

use crate::commands::AppView;
use crate::i18n::Lang;
use crate::replies;
use crate::telegram::bot::TelegramBot;
use crate::telegram::reply::{HandlerResult, reply_privately_with_keyboard};

/// The address of `view` in the app at `app_url`: the page reads the view from `?view=`, since
/// Telegram puts the sign-in in the fragment.
fn view_url(app_url: &reqwest::Url, view: AppView) -> reqwest::Url {
    let mut url = app_url.clone();
    let name = match view {
        AppView::Memory => "memory",
        AppView::Settings => "settings",
    };
    url.query_pairs_mut().clear().append_pair("view", name);
    url
}

/// A button that opens `view` of the app, labelled in `lang`.
fn app_button(app_url: &reqwest::Url, view: AppView, lang: Lang) -> InlineKeyboardMarkup {
    let label = match view {
        AppView::Memory => replies::app_memory_button(lang),
        AppView::Settings => replies::app_settings_button(lang),
    };
    InlineKeyboardMarkup::new([[InlineKeyboardButton::web_app(
        label,
        WebAppInfo {
            url: view_url(app_url, view),
        },
    )]])
}

/// Answers `message` privately with `text`, and a button opening `view` of the app when there
/// is one. Telegram allows Mini App buttons in private chats only, which is where private
/// material goes anyway.
pub(super) async fn reply_with_app(
    bot: &TelegramBot,
    message: &Message,
    text: &str,
    view: AppView,
    app_url: Option<&reqwest::Url>,
    lang: Lang,
) -> HandlerResult {
    let keyboard = app_url.map(|app_url| app_button(app_url, view, lang));
    reply_privately_with_keyboard(bot, message, text, keyboard).await
}

/// Makes the menu button of every private chat with the bot open the app at `app_url`.
pub async fn set_menu_button(bot: &TelegramBot, app_url: &reqwest::Url) -> HandlerResult {
    bot.set_chat_menu_button()
        .menu_button(MenuButton::WebApp {
            text: replies::app_menu_button(Lang::En),
            web_app: WebAppInfo {
                url: app_url.clone(),
            },
        })
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_view_has_its_own_address_under_the_app() {
        let app_url = reqwest::Url::parse("https://bot.example.com/app/").unwrap();
        assert_eq!(
            view_url(&app_url, AppView::Settings).as_str(),
            "https://bot.example.com/app/?view=settings"
        );
        assert_eq!(
            view_url(&app_url, AppView::Memory).as_str(),
            "https://bot.example.com/app/?view=memory"
        );
    }
}
