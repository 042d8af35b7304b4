//! A chat turn's Telegram side ([`TelegramTurn`], the [`TurnFrontEnd`] of
//! [`Conversations::take_turn`]): what arrived (a text, a file, `/retry`) translated into a
//! [`TurnRequest`]; progress shown (`typing`, or the streamed preview with its Stop button);
//! notices and the reply delivered into the messages the turn began, recorded for a restart. A
//! turn the last run left unfinished is finished here too ([`answer_update`]): a stored reply is
//! delivered rather than asked for again.

use teloxide::types::ChatAction;
use tokio::sync::watch;

use crate::commands;
use crate::conversation::{
    Asked, NoticeLater, PreparedInput, ReplyRecord, Retry, TurnEnd, TurnFrontEnd, TurnRequest,
};
use crate::metrics;
use crate::replies;
use crate::telegram::access::without_bot_mention;
use crate::telegram::delivery::{
    Preview, ProgressDisplay, ReplyTarget, deliver_reply, replace_preview_with_notice,
    show_progress,
};
use crate::telegram::intake::Resumption;
use crate::telegram::media::{self, MediaTurn};
use crate::telegram::reply::{HandlerResult, tell_sender_privately};
use crate::telegram::retry::RetryPlacement;
use crate::telegram::stop;
use crate::telegram::turn_context::{MessageKind, TurnContext};

/// Answers the update of `turn`, a message of `kind`, its answer starting in the messages an
/// earlier run sent for it; or, when the last run stored a reply for it, delivers that reply
/// instead of asking the model again. Marks the update done unless recording the delivered reply
/// did.
pub(super) async fn answer_update(
    turn: &TurnContext<'_>,
    resumption: Resumption,
    kind: MessageKind,
) -> HandlerResult {
    let mut front = TelegramTurn {
        turn,
        preview: Preview::of(resumption.message_ids),
        retry: None,
    };
    let end = match resumption.stored_reply {
        Some(reply) => {
            // The model is not asked again: the person gets the reply already in the history.
            tracing::info!(
                update_id = turn.update_id,
                "delivering a reply stored by the last run"
            );
            let header =
                media::resumed_header(turn.conversations, turn.key, turn.message, turn.lang).await;
            let shown = format!("{header}{}", reply.content);
            turn.conversations
                .deliver_stored_reply(turn.key, turn.lang, &mut front, reply.id, &shown)
                .await?
        }
        None => match what_was_asked(turn, kind) {
            Ok(asked) => {
                let request = TurnRequest {
                    key: turn.key,
                    asked,
                    lang: turn.lang,
                    is_admin: turn.is_admin,
                    update_id: Some(turn.update_id),
                    telegram_message_id: Some(i64::from(turn.message.id.0)),
                };
                turn.conversations.take_turn(request, &mut front).await?
            }
            Err(notice) => {
                front.notice(&notice).await?;
                TurnEnd::Answered
            }
        },
    };
    if end == TurnEnd::Answered {
        turn.intake.done(turn.update_id).await;
    }
    Ok(())
}

/// What the person asked with a message of `kind`, or the notice that answers it instead: a
/// command the bot does not know, a file of a kind it does not read.
fn what_was_asked(turn: &TurnContext<'_>, kind: MessageKind) -> Result<Asked, String> {
    match kind {
        MessageKind::Retry => Ok(Asked::Retry),
        MessageKind::Media if media::attachment_of(turn.message).is_some() => Ok(Asked::Prepared),
        MessageKind::Media => Err(replies::text_only(turn.lang)),
        MessageKind::Text => {
            let message = turn.message;
            let text = if message.chat.is_private() {
                message.text().unwrap_or_default().trim().to_owned()
            } else {
                without_bot_mention(message, turn.me)
            };
            if text.starts_with('/') {
                return Err(replies::unknown_command(
                    turn.lang,
                    &commands::help_text(turn.lang),
                ));
            }
            Ok(Asked::Text(text))
        }
    }
}

/// A chat turn as Telegram shows it: the messages its answer goes into, and for a retry where
/// the new answer goes.
pub(super) struct TelegramTurn<'t, 'a> {
    pub(super) turn: &'t TurnContext<'a>,
    /// The messages sent for the answer so far.
    pub(super) preview: Preview,
    /// A retry's old answer and whether the new one goes in its place.
    pub(super) retry: Option<RetryPlacement>,
}

impl TurnFrontEnd for TelegramTurn<'_, '_> {
    fn streams(&self) -> bool {
        self.turn.settings.stream_replies
    }

    async fn prepare_input(&mut self) -> Result<PreparedInput, String> {
        let turn = self.turn;
        let settings = &turn.settings.media;
        let Some(attachment) = media::attachment_of(turn.message) else {
            return Err(replies::text_only(turn.lang));
        };
        let caption = media::caption_text(turn.message, turn.me);
        // Fetching and transcribing take a moment: the person sees that the bot is on it.
        if let Err(error) = turn
            .bot
            .send_chat_action(turn.message.chat.id, ChatAction::Typing)
            .await
        {
            tracing::debug!(error = %error, "typing action failed");
        }
        let media_turn = MediaTurn {
            bot: turn.bot,
            conversations: turn.conversations,
            key: turn.key,
            lang: turn.lang,
            telegram_message_id: i64::from(turn.message.id.0),
            settings,
        };
        media_turn.prepare(&attachment, &caption).await.map_err(|problem| {
            metrics::error("media");
            tracing::warn!(error = %problem, chat_id = turn.key.chat_id.0, user_id = turn.key.user_id.0, "could not read an attachment");
            problem.notice(turn.lang, settings)
        })
    }

    async fn show_progress(&mut self, progress: watch::Receiver<String>) {
        let turn = self.turn;
        let stream = self.streams();
        let display = ProgressDisplay {
            target: ReplyTarget::answering(turn.message),
            stream,
            preview: self.preview.clone(),
            answer: turn.answer.clone(),
            buttons: stream.then(|| stop::stop_button(turn.lang, turn.key.user_id, turn.update_id)),
        };
        self.preview = show_progress(turn.bot.clone(), progress, display).await;
    }

    /// Answers with a short notice instead of a model answer, in the preview's message if there
    /// is one (a failed retry in the old answer's place shows the old answer again, the notice
    /// below it). From here on the update counts as answered: a notice is not sent twice.
    async fn notice(&mut self, notice: &str) -> anyhow::Result<()> {
        let turn = self.turn;
        let preview = match &self.retry {
            Some(placement) if placement.in_place => {
                placement.keep_old_answer(turn, self.preview.clone()).await;
                Preview::of(Vec::new())
            }
            _ => self.preview.clone(),
        };
        turn.intake.replying(turn.update_id).await;
        let target = ReplyTarget::answering(turn.message);
        replace_preview_with_notice(turn.bot, target, preview, notice).await?;
        Ok(())
    }

    async fn retry_starts(&mut self, retry: &Retry) {
        let placement = RetryPlacement::of(self.turn, retry, &self.preview);
        self.preview = placement
            .first_preview(self.turn, self.preview.clone())
            .await;
        self.retry = Some(placement);
    }

    async fn before_storing(&mut self, text: &str) {
        if let Some(placement) = &self.retry {
            self.preview = placement
                .make_way(self.turn, self.preview.clone(), text)
                .await;
        }
    }

    /// Delivers the reply into the preview's messages. A stored one then has its messages
    /// recorded (every part, so that a `/retry` finds them all); an unstored one (incognito)
    /// marks the update as being answered first, so that a crash during delivery does not answer
    /// it twice, and a failed delivery drops the update's payload (the message's text), which has
    /// nothing to resume from.
    async fn deliver(
        &mut self,
        markdown: &str,
        record: ReplyRecord,
    ) -> anyhow::Result<Option<i64>> {
        let turn = self.turn;
        let target = ReplyTarget::answering(turn.message);
        let preview = self.preview.clone();
        if record == ReplyRecord::NotStored {
            turn.intake.replying(turn.update_id).await;
            let delivered = deliver_reply(turn.bot, target, preview, markdown, &turn.answer).await;
            if delivered.is_err() {
                turn.intake.done(turn.update_id).await;
            }
            delivered?;
            return Ok(None);
        }
        let message_ids = deliver_reply(turn.bot, target, preview, markdown, &turn.answer).await?;
        if message_ids.len() > 1 {
            turn.answer.record(&message_ids).await;
        }
        Ok(message_ids.first().map(|first| i64::from(first.0)))
    }

    /// The pictures the model drew, then the answer read aloud when the person's `/voice`
    /// asks for it.
    async fn after_answer(&mut self, read_aloud: Option<&str>) {
        crate::telegram::pictures::send_drawn_pictures(self.turn).await;
        if let Some(text) = read_aloud {
            crate::telegram::voice::speak_answer(self.turn, text).await;
        }
    }

    fn notice_later(&self) -> Option<NoticeLater> {
        let bot = self.turn.bot.clone();
        let message = self.turn.message.clone();
        Some(Box::new(move |notice: String| {
            Box::pin(async move {
                if let Err(error) = tell_sender_privately(&bot, &message, &notice).await {
                    tracing::warn!(
                        error = crate::telegram::errors::loggable(&error),
                        "could not tell a person about the stored-history cap"
                    );
                }
            })
        }))
    }
}
