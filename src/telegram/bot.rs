//! The Bot API handle the Telegram side uses: [`TelegramBot`], one type whether requests go
//! straight to Telegram or wait in teloxide's `Throttle` (chosen at start by `TELEGRAM_THROTTLE`),
//! so that no handler, delivery step or listener is generic over the bot. Its methods are the Bot
//! API calls telemem makes, with teloxide's names and arguments; a request takes teloxide's
//! payload setters (`.parse_mode(…)`, `.reply_parameters(…)`) and is sent with `.await` or
//! [`TelegramRequest::send`].
//!
//! teloxide's `ErasedRequester` hides the bot's type as well, but it is neither `Send` nor `Sync`,
//! which dptree's dependencies and tokio's tasks need. This handle is both, because it only ever
//! holds one of the two concrete bots.

use std::future::IntoFuture;

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use teloxide::adaptors::Throttle;
use teloxide::adaptors::throttle::Limits;
use teloxide::net::Download;
use teloxide::payloads::{
    AnswerCallbackQuery, AnswerInlineQuery, DeleteMessage, DeleteWebhook, EditMessageText,
    EditMessageTextInline, GetFile, GetMe, GetUpdates, SendChatAction, SendDocument, SendMessage,
    SendPhoto, SendVoice, SetChatMenuButton, SetMyCommands, SetWebhook,
};
use teloxide::requests::{HasPayload, Output, Payload, Request, Requester};
use teloxide::types::{
    BotCommand, CallbackQueryId, ChatAction, FileId, InlineQueryId, InlineQueryResult, InputFile,
    MessageId, Recipient,
};
use teloxide::{Bot, RequestError};

/// The Bot API as the Telegram side calls it; cheap to clone.
#[derive(Clone, Debug)]
pub struct TelegramBot {
    route: Route,
}

/// Where the requests go.
#[derive(Clone, Debug)]
enum Route {
    Direct(Bot),
    Throttled(Throttle<Bot>),
}

impl TelegramBot {
    /// Requests go to Telegram as they are made (a self-hosted Bot API server, load tests).
    pub fn direct(bot: Bot) -> Self {
        Self {
            route: Route::Direct(bot),
        }
    }

    /// Messages wait as needed to stay within Telegram's published limits: about 30 a second
    /// overall, 1 a second per chat. Spawns the throttle's worker, so it needs the runtime.
    pub fn throttled(bot: Bot) -> Self {
        Self {
            route: Route::Throttled(Throttle::new_spawn(bot, Limits::default())),
        }
    }

    /// The file at `path` (as `getFile` gave it) as a stream of chunks, from the Bot API's file
    /// endpoint (`{api_url}/file/bot<token>/<path>`, so `TELOXIDE_API_URL` counts here too).
    /// Downloads are not messages, so they bypass the throttle. The URL holds the token: log
    /// an error of this stream only without its URL (`reqwest::Error::without_url`).
    pub fn download_file_stream(&self, path: &str) -> <Bot as Download>::Stream {
        match &self.route {
            Route::Direct(bot) => bot.download_file_stream(path),
            Route::Throttled(bot) => bot.inner().download_file_stream(path),
        }
    }

    fn request<P>(&self, payload: P) -> TelegramRequest<P> {
        TelegramRequest {
            bot: self.clone(),
            payload,
        }
    }
}

/// One Bot API request: its payload, adjusted with teloxide's setters, and the bot that sends it.
#[must_use = "a request does nothing until it is sent"]
pub struct TelegramRequest<P> {
    bot: TelegramBot,
    payload: P,
}

impl<P: Payload> HasPayload for TelegramRequest<P> {
    type Payload = P;

    fn payload_mut(&mut self) -> &mut P {
        &mut self.payload
    }

    fn payload_ref(&self) -> &P {
        &self.payload
    }
}

impl<P: BotApiMethod> TelegramRequest<P> {
    /// Sends the request; the future owns everything it needs.
    pub fn send(self) -> BoxFuture<'static, Result<P::Output, RequestError>> {
        self.payload.send_with(&self.bot)
    }
}

impl<P: BotApiMethod> IntoFuture for TelegramRequest<P> {
    type Output = Result<P::Output, RequestError>;
    type IntoFuture = BoxFuture<'static, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        self.send()
    }
}

/// A Bot API method [`TelegramBot`] offers: how its payload is sent along either route.
pub trait BotApiMethod: Payload + Sized {
    fn send_with(self, bot: &TelegramBot)
    -> BoxFuture<'static, Result<Self::Output, RequestError>>;
}

/// Sends `payload` as `request`, a request for the same method that teloxide built from the
/// payload's required fields: the payload brings the optional fields set on it too.
fn send_payload<R>(
    mut request: R,
    payload: R::Payload,
) -> BoxFuture<'static, Result<Output<R>, RequestError>>
where
    R: Request<Err = RequestError>,
    R::Send: Send + 'static,
{
    *request.payload_mut() = payload;
    request.send().boxed()
}

/// For each method: the [`TelegramBot`] method that starts its request, with teloxide's
/// arguments, and its [`BotApiMethod`] implementation, which builds teloxide's request for the
/// route from copies of the required fields (teloxide builds requests only from those; copied
/// with `Clone::clone` because some of them are `Copy`).
macro_rules! bot_api_methods {
    ($($method:ident($($field:ident: $Field:ty),*) -> $Payload:ident;)*) => {
        impl TelegramBot {
            $(
                #[doc = concat!("Starts a [`", stringify!($Payload), "`] request.")]
                pub fn $method(&self, $($field: $Field),*) -> TelegramRequest<$Payload> {
                    self.request($Payload::new($($field),*))
                }
            )*
        }

        $(
            impl BotApiMethod for $Payload {
                fn send_with(
                    self,
                    bot: &TelegramBot,
                ) -> BoxFuture<'static, Result<Self::Output, RequestError>> {
                    match &bot.route {
                        Route::Direct(requester) => send_payload(
                            requester.$method($(Clone::clone(&self.$field)),*),
                            self,
                        ),
                        Route::Throttled(requester) => send_payload(
                            requester.$method($(Clone::clone(&self.$field)),*),
                            self,
                        ),
                    }
                }
            }
        )*
    };
}

bot_api_methods! {
    get_me() -> GetMe;
    get_updates() -> GetUpdates;
    get_file(file_id: FileId) -> GetFile;
    set_webhook(url: reqwest::Url) -> SetWebhook;
    delete_webhook() -> DeleteWebhook;
    set_my_commands(commands: impl IntoIterator<Item = BotCommand>) -> SetMyCommands;
    set_chat_menu_button() -> SetChatMenuButton;
    send_message(chat_id: impl Into<Recipient>, text: impl Into<String>) -> SendMessage;
    send_document(chat_id: impl Into<Recipient>, document: InputFile) -> SendDocument;
    send_voice(chat_id: impl Into<Recipient>, voice: InputFile) -> SendVoice;
    send_photo(chat_id: impl Into<Recipient>, photo: InputFile) -> SendPhoto;
    send_chat_action(chat_id: impl Into<Recipient>, action: ChatAction) -> SendChatAction;
    edit_message_text(
        chat_id: impl Into<Recipient>,
        message_id: MessageId,
        text: impl Into<String>
    ) -> EditMessageText;
    delete_message(chat_id: impl Into<Recipient>, message_id: MessageId) -> DeleteMessage;
    answer_callback_query(callback_query_id: CallbackQueryId) -> AnswerCallbackQuery;
    answer_inline_query(
        inline_query_id: InlineQueryId,
        results: Vec<InlineQueryResult>
    ) -> AnswerInlineQuery;
    edit_message_text_inline(
        inline_message_id: impl Into<String>,
        text: impl Into<String>
    ) -> EditMessageTextInline;
}
