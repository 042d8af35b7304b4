//! Voice answers and `/tts` on Telegram: after a chat turn's text answer is delivered, the same
//! answer read aloud as voice notes (`sendVoice`, Opus in OGG, with its length) when the person's
//! `/voice` asks for it; and `/tts <text>` read aloud on request. The text answer always goes
//! first, so a speech server that fails or times out leaves it standing: the failure is logged
//! and counted, and the person is only told when they asked for speech themselves (`/tts`) or
//! reached their daily seconds.

use teloxide::prelude::*;
use teloxide::types::{ChatAction, InputFile, ReplyParameters};

use crate::conversation::{Conversations, SpeakRefusal};
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::llm::speech::OpusAudio;
use crate::replies;
use crate::telegram::bot::TelegramBot;
use crate::telegram::delivery::ReplyTarget;
use crate::telegram::reply::{HandlerResult, reply_in_chat};
use crate::telegram::turn_context::TurnContext;

/// Whether `message` was spoken: a voice note, an audio file or a video note.
fn is_spoken(message: &Message) -> bool {
    message.voice().is_some() || message.audio().is_some() || message.video_note().is_some()
}

/// After a turn's answer `markdown` was delivered: the answer read aloud, when the person wants
/// it. Never fails the turn: the text is already there.
pub(super) async fn speak_answer(turn: &TurnContext<'_>, markdown: &str) {
    let user_id = turn.key.user_id;
    let spoken = is_spoken(turn.message);
    if !turn.conversations.speaks_answer_to(user_id, spoken).await {
        return;
    }
    let target = ReplyTarget::answering(turn.message);
    record_voice_action(turn.bot, target).await;
    let outcome = match turn.conversations.speak(user_id, markdown).await {
        Ok(clips) => send_voice_notes(turn.bot, target, clips).await,
        Err(SpeakRefusal::LimitReached(reached)) => {
            let notice = replies::speech_limit_reached(turn.lang, &reached);
            reply_in_chat(turn.bot, turn.message, &notice).await
        }
        Err(refusal) => {
            tracing::warn!(error = %refusal, user_id = user_id.0, "no voice answer; the text stands");
            Ok(())
        }
    };
    if let Err(error) = outcome {
        crate::metrics::speech_call("not_delivered");
        tracing::warn!(error = ?error, "could not send the voice answer");
    }
}

/// `/tts <text>`: `text` read aloud as voice notes, or a sentence saying why not.
pub async fn read_aloud(
    bot: &TelegramBot,
    message: &Message,
    key: ConversationKey,
    lang: Lang,
    conversations: &Conversations,
    text: &str,
) -> HandlerResult {
    if !conversations.can_speak() {
        return reply_in_chat(bot, message, &replies::speech_not_set_up(lang)).await;
    }
    let target = ReplyTarget::answering(message);
    record_voice_action(bot, target).await;
    let refusal = match conversations.speak(key.user_id, text).await {
        Ok(clips) => return send_voice_notes(bot, target, clips).await,
        Err(refusal) => refusal,
    };
    let notice = match &refusal {
        SpeakRefusal::NotConfigured => replies::speech_not_set_up(lang),
        SpeakRefusal::NothingToRead => replies::tts_usage(lang),
        SpeakRefusal::TooLong { length, max } => replies::tts_too_long(lang, *length, *max),
        SpeakRefusal::LimitReached(reached) => replies::speech_limit_reached(lang, reached),
        SpeakRefusal::Failed(_) | SpeakRefusal::Internal(_) => {
            tracing::warn!(error = %refusal, user_id = key.user_id.0, "/tts failed");
            replies::speech_failed(lang)
        }
    };
    reply_in_chat(bot, message, &notice).await
}

/// Shows "recording a voice message" while the speech is made.
async fn record_voice_action(bot: &TelegramBot, target: ReplyTarget) {
    if let Err(error) = bot
        .send_chat_action(target.chat_id, ChatAction::RecordVoice)
        .await
    {
        tracing::debug!(error = %error, "record-voice action failed");
    }
}

/// Sends `clips` in order as voice notes, each with its length.
async fn send_voice_notes(
    bot: &TelegramBot,
    target: ReplyTarget,
    clips: Vec<OpusAudio>,
) -> HandlerResult {
    let count = clips.len();
    for (index, clip) in clips.into_iter().enumerate() {
        let seconds = u32::try_from(clip.whole_seconds()).unwrap_or(u32::MAX);
        let name = if count == 1 {
            "answer.ogg".to_owned()
        } else {
            format!("answer-{}.ogg", index + 1)
        };
        let mut request = bot
            .send_voice(
                target.chat_id,
                InputFile::memory(clip.bytes).file_name(name),
            )
            .duration(seconds);
        if let Some(reply_to) = target.reply_to {
            let reply = ReplyParameters::new(reply_to).allow_sending_without_reply();
            request = request.reply_parameters(reply);
        }
        request.await?;
    }
    Ok(())
}
