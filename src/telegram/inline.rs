//! Inline mode: `@bot question` typed in any chat. An allowed person's query gets one result,
//! personal and never cached, which posts the question with a "thinking" line and a Stop button
//! (Telegram names the posted message, `inline_message_id`, only when it carries buttons). When
//! they choose it (a `chosen_inline_result`, which BotFather's `/setinlinefeedback` turns on), the
//! question is a chat turn of their private chat with the bot: their persona, notes, memory,
//! model, daily limit and per-user limits, and incognito, as for a message there, and the exchange
//! is stored there. The answer streams into the posted message and ends as one message, cut with
//! an ellipsis when it does not fit; a refusal or a failure is edited in as a short notice. An
//! empty query, a stranger's or a blocked person's gets no result, and nothing of theirs is
//! stored.
//!
//! Both kinds of update come through the intake like messages. A chosen result is queued with
//! the person's private messages (`identity::update_conversation_key`); after a crash one whose
//! answer was stored gets that answer, one still `received` is asked again. An inline message
//! that cannot be edited only costs a logged error: the update is marked done all the same.
//! Logs name ids, never the question.

use std::sync::Arc;

use teloxide::payloads::AnswerInlineQuerySetters;
use teloxide::prelude::*;
use teloxide::types::{
    ChosenInlineResult, InlineQuery, InlineQueryResult, InlineQueryResultArticle,
    InputMessageContent, InputMessageContentText, Me, User,
};
use tokio::sync::watch;
use tokio::time::Instant;

use crate::conversation::{
    Asked, Conversations, NoticeLater, ReplyRecord, TurnFrontEnd, TurnRequest,
};
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::replies;
use crate::telegram::access::AccessPolicy;
use crate::telegram::bot::TelegramBot;
use crate::telegram::delivery::{
    InlineEdit, InlineMessage, ReplyTarget, edit_inline_message, send_plain_text,
    show_inline_progress,
};
use crate::telegram::identity;
use crate::telegram::intake::Intake;
use crate::telegram::reply::{HandlerResult, answer_once};
use crate::telegram::settings::BotSettings;
use crate::telegram::stop;

/// The id of the one result an inline query offers.
const RESULT_ID: &str = "ask";

/// The update a Stop button names before its answer has begun: none (update ids start at 1), so
/// a press then finds nothing to stop.
const NO_ANSWER_YET: i64 = 0;

/// An inline query. Answered once, at once: after a crash Telegram no longer takes the answer.
pub async fn answer_inline_query(
    bot: TelegramBot,
    update: Update,
    query: InlineQuery,
    me: Me,
    access: Arc<AccessPolicy>,
    intake: Intake,
) -> HandlerResult {
    let sender = identity::user_id(&query.from);
    let question = query.query.trim();
    let results = if access.is_allowed(sender) && !question.is_empty() {
        vec![ask_result(&query.from, question, &me)]
    } else {
        Vec::new()
    };
    tracing::debug!(
        user_id = sender.0,
        results = results.len(),
        "answering an inline query"
    );
    let answer = async {
        bot.answer_inline_query(query.id.clone(), results)
            .is_personal(true)
            .cache_time(0)
            .await?;
        Ok(())
    };
    answer_once(&intake, &update, answer).await
}

/// The one result for `question`: it posts the question, a line saying the answer is coming and
/// a Stop button.
fn ask_result(user: &User, question: &str, me: &Me) -> InlineQueryResult {
    let lang = identity::user_language(user);
    let posted = format!(
        "{}{}",
        question_header(question),
        replies::inline_waiting(lang)
    );
    let content = InputMessageContent::Text(InputMessageContentText::new(posted));
    let title = replies::inline_title(lang, &me.user.first_name);
    let buttons = stop::stop_button(lang, identity::user_id(user), NO_ANSWER_YET);
    InlineQueryResultArticle::new(RESULT_ID, title, content)
        .description(question)
        .reply_markup(buttons)
        .into()
}

/// What the posted message shows above the answer: the question.
fn question_header(question: &str) -> String {
    format!("❓ {question}\n\n")
}

/// Filter: the person who chose a result may use the bot (strangers are offered none, so this
/// only matters for someone blocked meanwhile).
pub fn chooser_allowed(chosen: ChosenInlineResult, access: Arc<AccessPolicy>) -> bool {
    access.is_allowed(identity::user_id(&chosen.from))
}

/// A chosen result: the question answered in the message it posted, as a turn of the person's
/// private chat; or, when the last run stored the answer, that answer.
pub async fn chosen_result(
    bot: TelegramBot,
    update: Update,
    chosen: ChosenInlineResult,
    conversations: Conversations,
    settings: Arc<BotSettings>,
    intake: Intake,
) -> HandlerResult {
    let update_id = i64::from(update.id.0);
    let resumption = intake.take_resumption(update_id);
    let Some(turn) = InlineTurn::of(&chosen, update_id, &bot, &settings, &intake) else {
        tracing::warn!(
            update_id,
            "a chosen inline result without its message; nothing to answer in"
        );
        intake.done(update_id).await;
        return Ok(());
    };
    let user = &chosen.from;
    let user_id = identity::user_id(user);
    conversations
        .record_language(user_id, user.language_code.as_deref())
        .await;
    let (key, lang) = (turn.key, turn.lang);
    let mut front = turn;
    let outcome = match resumption.stored_reply {
        Some(reply) => {
            tracing::info!(
                update_id,
                "delivering an inline answer stored by the last run"
            );
            conversations
                .deliver_stored_reply(key, lang, &mut front, reply.id, &reply.content)
                .await
        }
        None => {
            let request = front.request(Asked::Text(chosen.query.trim().to_owned()));
            conversations.take_turn(request, &mut front).await
        }
    };
    // Done even when the message could not be edited: it would not be editable next time either.
    intake.done(update_id).await;
    outcome.map(|_| ())
}

/// Shows `notice` in the message a chosen result posted, in place of an answer (a per-user limit
/// turned it away); a failure is only logged.
pub async fn answer_chosen_with_notice(
    bot: &TelegramBot,
    chosen: &ChosenInlineResult,
    notice: &str,
) {
    let Some(id) = chosen.inline_message_id.clone() else {
        return;
    };
    let inline = InlineMessage {
        id,
        header: question_header(chosen.query.trim()),
    };
    if let Err(error) =
        edit_inline_message(bot, &inline, InlineEdit::Notice(notice), Instant::now()).await
    {
        tracing::warn!(
            error = crate::telegram::errors::loggable(&error),
            "could not show a notice in an inline message"
        );
    }
}

/// A chat turn answered in an inline message.
struct InlineTurn<'a> {
    bot: &'a TelegramBot,
    settings: &'a BotSettings,
    intake: &'a Intake,
    /// The person's private chat, whose turn this is.
    key: ConversationKey,
    lang: Lang,
    update_id: i64,
    inline: InlineMessage,
    /// When the inline message may be edited next.
    next_edit_at: Instant,
}

impl<'a> InlineTurn<'a> {
    /// The turn of `chosen`; `None` when Telegram did not name the message it posted.
    fn of(
        chosen: &ChosenInlineResult,
        update_id: i64,
        bot: &'a TelegramBot,
        settings: &'a BotSettings,
        intake: &'a Intake,
    ) -> Option<Self> {
        let inline = InlineMessage {
            id: chosen.inline_message_id.clone()?,
            header: question_header(chosen.query.trim()),
        };
        Some(Self {
            bot,
            settings,
            intake,
            key: identity::private_conversation(&chosen.from),
            lang: identity::user_language(&chosen.from),
            update_id,
            inline,
            next_edit_at: Instant::now(),
        })
    }

    /// The turn of `asked`, as a message in the person's private chat.
    fn request(&self, asked: Asked) -> TurnRequest {
        TurnRequest {
            key: self.key,
            asked,
            lang: self.lang,
            is_admin: self.settings.is_admin(self.key.user_id),
            update_id: Some(self.update_id),
            telegram_message_id: None,
        }
    }

    /// Edits `edit` into the inline message once the last edit is far enough behind.
    async fn edit(&self, edit: InlineEdit<'_>) -> Result<(), teloxide::RequestError> {
        edit_inline_message(self.bot, &self.inline, edit, self.next_edit_at).await
    }
}

impl TurnFrontEnd for InlineTurn<'_> {
    fn streams(&self) -> bool {
        self.settings.stream_replies
    }

    /// The inline message shows the answer so far (when replies stream) with a Stop button.
    async fn show_progress(&mut self, progress: watch::Receiver<String>) {
        let buttons = stop::stop_button(self.lang, self.key.user_id, self.update_id);
        let display = show_inline_progress(
            self.bot.clone(),
            progress,
            self.inline.clone(),
            Some(buttons),
        );
        self.next_edit_at = display.await;
    }

    /// Shows `notice` in place of the answer; from here on the update counts as answered.
    async fn notice(&mut self, notice: &str) -> anyhow::Result<()> {
        self.intake.replying(self.update_id).await;
        self.edit(InlineEdit::Notice(notice)).await?;
        Ok(())
    }

    async fn deliver(
        &mut self,
        markdown: &str,
        record: ReplyRecord,
    ) -> anyhow::Result<Option<i64>> {
        if record == ReplyRecord::NotStored {
            // Incognito: nothing to resume from, so a crash from here on does not answer twice.
            self.intake.replying(self.update_id).await;
        }
        self.edit(InlineEdit::Answer(markdown)).await?;
        Ok(None)
    }

    /// The person hears about the stored-history cap in their private chat.
    fn notice_later(&self) -> Option<NoticeLater> {
        let bot = self.bot.clone();
        let target = ReplyTarget {
            chat_id: teloxide::types::ChatId(self.key.chat_id.0),
            reply_to: None,
        };
        Some(Box::new(move |notice: String| {
            Box::pin(async move {
                if let Err(error) = send_plain_text(&bot, target, &notice).await {
                    tracing::warn!(
                        error = crate::telegram::errors::loggable(&error),
                        "could not tell a person about the stored-history cap"
                    );
                }
            })
        }))
    }
}
