//! A chat turn as one use case, whatever front end it came through (a Telegram message or
//! `/retry`, an inline question, a line typed in `telemem chat`): [`Conversations::take_turn`]
//! runs the whole sequence with its invariants, and the front end only says what arrived
//! ([`TurnRequest`]) and shows and delivers through its [`TurnFrontEnd`].
//!
//! The sequence, always in this order:
//! 1. the message's own checks (empty, longer than `MAX_MESSAGE_CHARS`): a refused message is
//!    neither stored nor sent;
//! 2. the daily limit, before anything is stored or asked (a retry's is checked by
//!    [`Conversations::begin_retry`]);
//! 3. the turn registered as running, so that `/cancel`, the Stop button and Ctrl-C reach
//!    everything slow after it;
//! 4. the input prepared when the front end has one to fetch (a file), then the message stored
//!    ([`Conversations::begin_turn_with`]), so it is never lost;
//! 5. the model asked, with its tool rounds, while the front end shows progress;
//! 6. the answer checked: a failed call or an empty answer becomes a notice;
//! 7. its tokens counted, once, as soon as the model answered (they are spent even if delivery
//!    fails);
//! 8. the reply stored ([`Conversations::finish_turn`]) *before* it is delivered, in one
//!    transaction with the Telegram update's `replying` mark: a crash from there on leaves the
//!    reply in the history and the next start delivers it instead of asking again;
//! 9. the reply delivered, and the message that carried it recorded; then what goes with it
//!    (a picture the model drew, a voice answer; after a failed answer, the picture only);
//! 10. the person's stored history kept under `USER_MAX_STORED_MB`, in the background.
//!
//! A rule for every turn goes here, and every front end has it.

use std::future::Future;
use std::pin::Pin;

use tokio::sync::watch;

use super::{Answer, Conversations, FinishedTurn, Retry, RetryStart, Turn, TurnInput};
use crate::i18n::Lang;
use crate::ids::ConversationKey;
use crate::llm::LlmError;
use crate::metrics;
use crate::quota::CapOutcome;
use crate::replies;

/// What arrived for a turn.
#[derive(Clone, Debug)]
pub enum Asked {
    /// A text message.
    Text(String),
    /// A message whose input the front end prepares once the turn runs
    /// ([`TurnFrontEnd::prepare_input`]): a file to fetch and read.
    Prepared,
    /// `/retry`: the person's last message asked again, the new answer replacing the old one.
    Retry,
}

/// A turn as the front end translated it.
#[derive(Clone, Debug)]
pub struct TurnRequest {
    pub key: ConversationKey,
    pub asked: Asked,
    /// The language the person reads.
    pub lang: Lang,
    /// Whether the person is one of the bot's admins (some tools are theirs alone).
    pub is_admin: bool,
    /// The Telegram update this turn answers, when it came through the crash-safe intake.
    pub update_id: Option<i64>,
    /// The Telegram message the person sent, when there is one.
    pub telegram_message_id: Option<i64>,
}

/// A message the front end prepared: what the model gets and what is stored, and a line shown
/// above the answer but not stored (what was heard of a voice note; empty for most).
#[derive(Clone, Debug, Default)]
pub struct PreparedInput {
    pub input: TurnInput,
    pub header: String,
}

/// Whether the reply being delivered is in the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplyRecord {
    /// Stored with this id: after a crash the next start delivers it again if need be.
    Stored { reply_id: i64 },
    /// Not stored (incognito): there is nothing to resume from, so the front end marks the
    /// update as being answered before it delivers.
    NotStored,
}

/// How a turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnEnd {
    /// The stored reply was delivered and the message carrying it recorded (which marks a
    /// Telegram update done).
    Recorded,
    /// Answered otherwise: a notice, a reply not stored, or one with no message to record.
    Answered,
}

/// Tells the person, later and in the background, the notice it is given.
pub type NoticeLater =
    Box<dyn FnOnce(String) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + 'static>;

/// What a front end does for a turn: show its progress, answer with a notice, deliver the reply.
/// Everything else about a turn is [`Conversations::take_turn`]'s.
pub trait TurnFrontEnd: Send {
    /// Whether the person sees the answer while the model writes it.
    fn streams(&self) -> bool;

    /// The turn's input for [`Asked::Prepared`], called once the daily limit is checked and the
    /// turn runs (so a stop reaches a slow fetch); `Err` is the notice that answers instead.
    fn prepare_input(&mut self) -> impl Future<Output = Result<PreparedInput, String>> + Send {
        async { Err(String::new()) }
    }

    /// Shows that the model is at work until `progress` closes: the answer so far (below the
    /// header) when the answer streams, `typing` or the like otherwise.
    fn show_progress(
        &mut self,
        progress: watch::Receiver<String>,
    ) -> impl Future<Output = ()> + Send;

    /// Answers with `notice` instead of a model answer.
    fn notice(&mut self, notice: &str) -> impl Future<Output = anyhow::Result<()>> + Send;

    /// A retry is about to ask the model: the answer it replaces.
    fn retry_starts(&mut self, _retry: &Retry) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// The answer `text` is about to be stored (a retry's old answer makes way for it).
    fn before_storing(&mut self, _text: &str) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// Delivers `markdown`; returns the Telegram message that carries it, when there is one to
    /// record.
    fn deliver(
        &mut self,
        markdown: &str,
        delivery: ReplyRecord,
    ) -> impl Future<Output = anyhow::Result<Option<i64>>> + Send;

    /// After the model answered: what the front end sends besides the answer (a picture the
    /// model drew), and the answer's text to read aloud if it wants (`None` when the answer was
    /// stopped or failed).
    fn after_answer(&mut self, _read_aloud: Option<&str>) -> impl Future<Output = ()> + Send {
        async {}
    }

    /// How to tell the person, later, that their oldest history was trimmed; `None`: they are
    /// not told.
    fn notice_later(&self) -> Option<NoticeLater> {
        None
    }
}

impl Conversations {
    /// Runs the turn `request` from its checks to its delivery through `front`.
    pub async fn take_turn(
        &self,
        request: TurnRequest,
        front: &mut impl TurnFrontEnd,
    ) -> anyhow::Result<TurnEnd> {
        let end = match request.asked {
            Asked::Retry => self.take_retry(&request, front).await,
            _ => self.take_message_turn(&request, front).await,
        };
        self.keep_history_under_cap(request.key, request.lang, front);
        end
    }

    /// Delivers through `front` a reply the last run stored but did not deliver (the model is
    /// not asked again), then records the message that carried it.
    pub async fn deliver_stored_reply(
        &self,
        key: ConversationKey,
        lang: Lang,
        front: &mut impl TurnFrontEnd,
        reply_id: i64,
        markdown: &str,
    ) -> anyhow::Result<TurnEnd> {
        let end = self
            .deliver(front, markdown, ReplyRecord::Stored { reply_id })
            .await;
        self.keep_history_under_cap(key, lang, front);
        end
    }

    async fn take_message_turn(
        &self,
        request: &TurnRequest,
        front: &mut impl TurnFrontEnd,
    ) -> anyhow::Result<TurnEnd> {
        let lang = request.lang;
        if let Asked::Text(text) = &request.asked
            && let Some(notice) = self.refusal_of(text, lang)
        {
            front.notice(&notice).await?;
            return Ok(TurnEnd::Answered);
        }
        if let Some(reached) = self.daily_limit_reached(request.key.user_id).await {
            front
                .notice(&replies::daily_limit_reached(lang, &reached))
                .await?;
            return Ok(TurnEnd::Answered);
        }
        let running = self.start_running(request.key, request.update_id);
        let prepared = match &request.asked {
            Asked::Text(text) => PreparedInput {
                input: TurnInput::text(text),
                header: String::new(),
            },
            _ => match front.prepare_input().await {
                Ok(prepared) => prepared,
                Err(notice) => {
                    front.notice(&notice).await?;
                    return Ok(TurnEnd::Answered);
                }
            },
        };
        let started = match self
            .begin_turn_with(request.key, prepared.input, request.telegram_message_id)
            .await
        {
            Ok(started) => started,
            Err(error) => {
                front.notice(&failed_start_notice(&error, lang)).await?;
                return Err(error.context("could not start the chat turn"));
            }
        };
        let started = Turn {
            is_admin: request.is_admin,
            lang,
            ..started
        };
        let Some(answer) = self
            .usable_answer(front, &started, running, &prepared.header)
            .await?
        else {
            return Ok(TurnEnd::Answered);
        };
        let completion = answer.completion();
        let finished = self
            .finish_turn(&started, completion, request.update_id)
            .await?;
        let record = match finished {
            FinishedTurn::Stored { reply_id } => ReplyRecord::Stored { reply_id },
            FinishedTurn::NotStored => ReplyRecord::NotStored,
        };
        let shown = format!("{}{}", prepared.header, completion.text);
        self.deliver_answer(front, &shown, &answer, record).await
    }

    async fn take_retry(
        &self,
        request: &TurnRequest,
        front: &mut impl TurnFrontEnd,
    ) -> anyhow::Result<TurnEnd> {
        let lang = request.lang;
        let notice = match self.begin_retry(request.key).await {
            Ok(RetryStart::Ready(retry)) => return self.answer_retry(request, front, retry).await,
            Ok(RetryStart::LimitReached(reached)) => replies::daily_limit_reached(lang, &reached),
            Ok(RetryStart::NothingToRetry) => replies::nothing_to_retry(lang),
            Ok(RetryStart::StillRunning) => replies::retry_while_running(lang),
            Err(error) => {
                metrics::error("database");
                front.notice(&replies::internal_error(lang)).await?;
                return Err(error.context("could not start the retry"));
            }
        };
        front.notice(&notice).await?;
        Ok(TurnEnd::Answered)
    }

    /// A retry ready to ask the model: its new answer replaces the old one in the history
    /// before it is delivered.
    async fn answer_retry(
        &self,
        request: &TurnRequest,
        front: &mut impl TurnFrontEnd,
        retry: Retry,
    ) -> anyhow::Result<TurnEnd> {
        let running = self.start_running(request.key, request.update_id);
        front.retry_starts(&retry).await;
        let asked = Turn {
            is_admin: request.is_admin,
            lang: request.lang,
            ..retry.turn.clone()
        };
        let Some(answer) = self.usable_answer(front, &asked, running, "").await? else {
            return Ok(TurnEnd::Answered);
        };
        let text = &answer.completion().text;
        front.before_storing(text).await;
        let reply_id = self
            .finish_retry(&retry, answer.completion(), request.update_id)
            .await?;
        self.deliver_answer(front, text, &answer, ReplyRecord::Stored { reply_id })
            .await
    }

    /// Asks the model while `front` shows progress (below `header`) and checks the answer. A
    /// usable one has its tokens counted, once, as soon as the model answered (they are spent
    /// even if delivery fails). Otherwise `front` answers with the notice, then gets what the
    /// model made meanwhile (a picture it drew), and there is no answer.
    async fn usable_answer(
        &self,
        front: &mut impl TurnFrontEnd,
        turn: &Turn,
        running: crate::running_turns::RunningTurn,
        header: &str,
    ) -> anyhow::Result<Option<Answer>> {
        let answer = self
            .ask_showing_progress(front, turn, running, header)
            .await;
        match answer_or_notice(turn.lang, turn, answer) {
            Ok(answer) => {
                count_tokens(&answer);
                Ok(Some(answer))
            }
            Err(notice) => {
                front.notice(&notice).await?;
                front.after_answer(None).await;
                Ok(None)
            }
        }
    }

    /// Delivers `shown` (the answer, below any header), records the message that carried it,
    /// then lets `front` add what goes with the answer (read aloud unless it was stopped).
    async fn deliver_answer(
        &self,
        front: &mut impl TurnFrontEnd,
        shown: &str,
        answer: &Answer,
        record: ReplyRecord,
    ) -> anyhow::Result<TurnEnd> {
        let end = self.deliver(front, shown, record).await?;
        let text = &answer.completion().text;
        front
            .after_answer((!answer.is_stopped()).then_some(text.as_str()))
            .await;
        Ok(end)
    }

    /// The notice that answers `text` instead of the model, if the message cannot be a turn.
    fn refusal_of(&self, text: &str, lang: Lang) -> Option<String> {
        let max_chars = self.settings.max_message_chars;
        let length = text.chars().count();
        if text.trim().is_empty() {
            Some(replies::empty_message(lang))
        } else if length > max_chars {
            Some(replies::message_too_long(lang, length, max_chars))
        } else {
            None
        }
    }

    /// Asks the model while `front` shows progress (below `header`), until the answer is
    /// complete or `running` is stopped.
    async fn ask_showing_progress(
        &self,
        front: &mut impl TurnFrontEnd,
        turn: &Turn,
        running: crate::running_turns::RunningTurn,
        header: &str,
    ) -> Result<Answer, LlmError> {
        let (model_sender, model_progress) = watch::channel(String::new());
        let (shown_sender, shown) = watch::channel(String::new());
        let stream = front.streams();
        let asked_at = std::time::Instant::now();
        let asking = async {
            let answer = self
                .ask_until_stopped(turn, stream.then_some(&model_sender), &running)
                .await;
            // The model call is over: from here on there is nothing left to stop.
            drop(running);
            drop(model_sender);
            answer
        };
        let (answer, (), ()) = tokio::join!(
            asking,
            show_below(header, model_progress, shown_sender),
            front.show_progress(shown)
        );
        count_model_call(&answer, asked_at);
        answer
    }

    /// Delivers through `front`, then records the message that carried a stored reply.
    async fn deliver(
        &self,
        front: &mut impl TurnFrontEnd,
        markdown: &str,
        delivery: ReplyRecord,
    ) -> anyhow::Result<TurnEnd> {
        let carried_by = front.deliver(markdown, delivery).await?;
        metrics::reply_sent();
        match (delivery, carried_by) {
            (ReplyRecord::Stored { reply_id }, Some(message_id)) => {
                self.reply_delivered(reply_id, message_id).await?;
                Ok(TurnEnd::Recorded)
            }
            _ => Ok(TurnEnd::Answered),
        }
    }

    /// After a turn, in the background: trims the person's oldest sessions if their stored
    /// history is over `USER_MAX_STORED_MB`, and the first time tells them through `front`.
    fn keep_history_under_cap(&self, key: ConversationKey, lang: Lang, front: &impl TurnFrontEnd) {
        let quota = self.quota().clone();
        let Some(max_bytes) = quota.settings().max_stored_bytes else {
            return;
        };
        let user_id = key.user_id;
        let notice = replies::stored_history_capped(lang, max_bytes);
        let tell = front.notice_later();
        tokio::spawn(async move {
            match quota.keep_stored_history_under_cap(user_id).await {
                Ok(CapOutcome::Trimmed { tell: true, .. }) => {
                    if let Some(tell) = tell {
                        tell(notice).await;
                    }
                }
                Ok(_) => {}
                Err(error) => tracing::error!(
                    error = ?error,
                    user_id = user_id.0,
                    "could not keep a stored history under its cap"
                ),
            }
        });
    }
}

/// Passes the model's text so far on to the progress display, below `header`, until the model is
/// done (its sender is dropped).
async fn show_below(
    header: &str,
    mut model_progress: watch::Receiver<String>,
    shown: watch::Sender<String>,
) {
    while model_progress.changed().await.is_ok() {
        let text = format!("{header}{}", *model_progress.borrow_and_update());
        shown.send_replace(text);
    }
}

/// The answer to store and deliver, or the notice that answers instead when the model failed or
/// said nothing.
fn answer_or_notice(
    lang: Lang,
    started: &Turn,
    answer: Result<Answer, LlmError>,
) -> Result<Answer, String> {
    let key = started.key;
    match answer {
        Ok(answer) if answer.completion().text.trim().is_empty() => Err(replies::empty_reply(lang)),
        Ok(answer) => Ok(answer),
        Err(error) => {
            metrics::error("llm");
            tracing::error!(error = ?error, chat_id = key.chat_id.0, user_id = key.user_id.0, "the model call failed");
            Err(match error {
                LlmError::RateLimited { .. } => replies::model_rate_limited(lang),
                // A model that cannot see refuses a request with a picture (HTTP 400).
                LlmError::Rejected { .. } if carries_images(started) => {
                    replies::vision_not_supported(lang)
                }
                _ => replies::model_unavailable(lang),
            })
        }
    }
}

fn carries_images(started: &Turn) -> bool {
    started
        .request
        .messages
        .iter()
        .any(|message| !message.images.is_empty())
}

/// Counts the tokens the provider reported for an answer.
fn count_tokens(answer: &Answer) {
    let completion = answer.completion();
    metrics::tokens(
        u64::from(completion.tokens_in.unwrap_or(0)),
        u64::from(completion.tokens_out.unwrap_or(0)),
    );
}

/// Counts a model call asked at `asked_at`, by how it ended.
fn count_model_call(answer: &Result<Answer, LlmError>, asked_at: std::time::Instant) {
    let outcome = match answer {
        Ok(Answer::Complete(_)) => "ok",
        Ok(Answer::Stopped(_)) => "stopped",
        Err(_) => "error",
    };
    metrics::llm_call_finished(asked_at.elapsed(), outcome);
}

/// The notice for a turn that could not start (its message not stored): storage is full, or
/// something went wrong; counted as an error.
fn failed_start_notice(error: &anyhow::Error, lang: Lang) -> String {
    let disk_full = crate::storage::is_storage_full_error(error);
    metrics::error(if disk_full { "disk_full" } else { "database" });
    if disk_full {
        replies::storage_full(lang)
    } else {
        replies::internal_error(lang)
    }
}
