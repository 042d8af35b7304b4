//! Pictures on Telegram: `/image <description>` drawn and sent as a photo with its description as
//! the caption (cut to Telegram's 1024 characters), or a sentence saying why not (no server, an
//! empty or overlong description, the daily limit, the image server's safety system with its
//! reason, a timeout, a failure); and the pictures the model drew with `generate_image` during a
//! turn, sent after the turn's answer.

use teloxide::prelude::*;
use teloxide::types::{ChatAction, InputFile, ReplyParameters};

use crate::conversation::{Conversations, DescriptionError, DrawRefusal, DrawnPicture};
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::llm::CallFailure;
use crate::llm::images::ImageError;
use crate::replies;
use crate::telegram::bot::TelegramBot;
use crate::telegram::delivery::ReplyTarget;
use crate::telegram::reply::{HandlerResult, reply_in_chat};
use crate::telegram::turn_context::TurnContext;

/// Telegram's limit on a photo's caption, in characters.
const CAPTION_MAX_CHARS: usize = 1024;

/// `/image <description>`: the picture, or a sentence saying why there is none.
pub async fn draw_on_request(
    bot: &TelegramBot,
    message: &Message,
    key: ConversationKey,
    lang: Lang,
    conversations: &Conversations,
    description: &str,
) -> HandlerResult {
    if !conversations.can_draw() {
        return reply_in_chat(bot, message, &replies::image_not_set_up(lang)).await;
    }
    let target = ReplyTarget::answering(message);
    if let Err(error) = bot
        .send_chat_action(target.chat_id, ChatAction::UploadPhoto)
        .await
    {
        tracing::debug!(error = %error, "upload-photo action failed");
    }
    let message_id = Some(i64::from(message.id.0));
    let refusal = match conversations
        .draw_on_request(key, description, message_id)
        .await
    {
        Ok(drawn) => return send_picture(bot, target, drawn).await,
        Err(refusal) => refusal,
    };
    let notice = match &refusal {
        DrawRefusal::NotConfigured => replies::image_not_set_up(lang),
        DrawRefusal::Description(DescriptionError::Empty) => replies::image_usage(lang),
        DrawRefusal::Description(DescriptionError::TooLong { length, max }) => {
            replies::image_description_too_long(lang, *length, *max)
        }
        DrawRefusal::LimitReached(reached) => replies::image_limit_reached(lang, reached),
        DrawRefusal::Failed(failure) => {
            tracing::warn!(error = %failure, user_id = key.user_id.0, "/image failed");
            match failure {
                ImageError::Unsafe { reason } => replies::image_unsafe(lang, reason),
                ImageError::Call(CallFailure::Timeout { .. }) => replies::image_timed_out(lang),
                _ => replies::image_failed(lang),
            }
        }
        DrawRefusal::Internal(error) => {
            tracing::error!(error = ?error, "/image failed");
            replies::internal_error(lang)
        }
    };
    reply_in_chat(bot, message, &notice).await
}

/// After a turn's answer: the pictures the model drew during it.
pub(super) async fn send_drawn_pictures(turn: &TurnContext<'_>) {
    let target = ReplyTarget::answering(turn.message);
    for drawn in turn.conversations.take_drawn_pictures(turn.key) {
        if let Err(error) = send_picture(turn.bot, target, drawn).await {
            tracing::warn!(error = ?error, "could not send a drawn picture");
        }
    }
}

/// Sends `drawn` as a photo captioned with its description.
async fn send_picture(
    bot: &TelegramBot,
    target: ReplyTarget,
    drawn: DrawnPicture,
) -> HandlerResult {
    let caption: String = drawn.description.chars().take(CAPTION_MAX_CHARS).collect();
    let photo = InputFile::memory(drawn.picture.bytes).file_name("picture.png");
    let mut request = bot.send_photo(target.chat_id, photo).caption(caption);
    if let Some(reply_to) = target.reply_to {
        let reply = ReplyParameters::new(reply_to).allow_sending_without_reply();
        request = request.reply_parameters(reply);
    }
    request.await?;
    Ok(())
}
