//! Crash-safe intake of Telegram updates, by long polling or by webhook.
//!
//! teloxide's own listeners confirm an update to Telegram (the next `getUpdates` offset, or the
//! webhook's 200) before the bot has done anything with it, so a crash loses it. Here an update
//! from an allowed user is first stored with its payload (`processed_updates`, state `received`);
//! only then does the next poll confirm it, or the webhook call get its answer. Storing the reply
//! marks it `replying`, and recording the delivered reply marks it `done`; a notice or a command
//! marks it `replying` before it answers. The Telegram messages that carry an answer are recorded
//! with the update as soon as Telegram has created them and before anything else is sent for it
//! ([`AnswerMessages`]): a streamed preview, and the parts of a long reply while more are to come.
//!
//! On start, the last run's unfinished updates go through the scheduler again, in order with
//! their chats' new ones, and the handler finishes each from what was recorded
//! ([`Intake::take_resumption`]). One still `received` is answered again, in the messages already
//! sent for it if any (so a preview becomes the answer instead of staying beside a second one).
//! One left `replying` with a stored reply never delivered gets that reply, from its stored text,
//! in those messages. One left `replying` by a notice or a command may already have reached the
//! user and is not answered twice. An update id seen before is dropped, so a redelivery is never
//! answered again.
//!
//! Updates from people not on the allow list are passed on without being stored (they only get
//! a refusal), so nothing of theirs is kept.
//!
//! An update teloxide cannot read carries its raw JSON (message text included), and so does the
//! error of a poll whose answer cannot be read at all: only the update id and the kind of error
//! are logged, never the JSON.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use subtle::ConstantTimeEq;
use teloxide::prelude::*;
use teloxide::types::{AllowedUpdate, MessageId, Update};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::metrics;
use crate::storage::{
    BackendKind, Leadership, LoadElsewhere, RecordedUpdate, SoleTask, Store, UndeliveredReply,
    UnfinishedUpdate, UpdateRecord, UpdateState,
};
use crate::telegram::access::AccessPolicy;
use crate::telegram::bot::TelegramBot;
use crate::telegram::connect::telegram_backoff;
use crate::telegram::identity::{update_conversation_key, update_sender_id};

/// How long one `getUpdates` call waits for updates (Telegram's long polling).
const POLL_TIMEOUT_SECS: u32 = 10;

/// Unfinished updates older than this are not handled again after a restart: an answer a day
/// late is worse than none.
const REPLAY_WINDOW_MS: i64 = 24 * 60 * 60 * 1_000;

/// How long an update waits for an earlier one of its conversation that another replica is
/// answering, and how often it looks.
const ORDER_PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);
const ORDER_POLL_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);

/// Unfinished updates claimed per query when taking them over.
const CLAIM_BATCH: i64 = 500;

/// Updates taken in but not yet handed to the scheduler, which takes them at once (it queues them
/// per person), so this fills only if the scheduler itself falls behind.
const QUEUE_CAPACITY: usize = 1_024;

/// The header Telegram sends with every webhook call when a secret token was registered.
pub const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

/// An update handed to the scheduler.
#[derive(Debug)]
pub struct Incoming {
    /// Boxed: an update is nearly 2 KB inline, and it moves through the channel, a queue and a
    /// waiting task before its handling starts (a thousand people writing at once are a
    /// thousand of each).
    pub update: Box<Update>,
    /// Left unfinished by the last run: it was let in then, so the per-user limits do not apply.
    pub replayed: bool,
    /// When it was stored, no older update of its conversation was being answered by another
    /// replica: it need not wait for one ([`Intake::wait_for_earlier_updates`]).
    pub in_order: bool,
    /// The person's updates other replicas held when it was stored: they count against the
    /// per-person limits here too.
    pub elsewhere: LoadElsewhere,
}

/// Stores updates and hands them to the scheduler; cheap to clone.
#[derive(Clone)]
pub struct Intake {
    store: Store,
    clock: Arc<dyn Clock>,
    access: Arc<AccessPolicy>,
    sender: mpsc::Sender<Incoming>,
    /// What the last run left of the updates handed over again, until their handlers take it.
    resumptions: Arc<std::sync::Mutex<HashMap<i64, Resumption>>>,
    /// Cancelled once the last run's unfinished updates are handed over: new updates wait for
    /// it, so that none overtakes an older one of the same chat (a webhook call can come in
    /// while the replay runs).
    replay_finished: CancellationToken,
}

/// What the last run did for an update it did not finish, for the handler that finishes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Resumption {
    /// The messages already sent for it (a preview, the first parts of a reply), in reading order.
    pub message_ids: Vec<MessageId>,
    /// The reply stored for it and never delivered: it is delivered as it is.
    pub stored_reply: Option<UndeliveredReply>,
}

/// Records, with one update, which Telegram messages carry its answer so far (see the module
/// documentation); cheap to clone.
#[derive(Clone)]
pub struct AnswerMessages {
    store: Store,
    update_id: i64,
}

impl AnswerMessages {
    /// Records `message_ids` as the messages carrying the answer, in reading order. A failure is
    /// logged: the answer still goes out, only a crash right now could then repeat a part of it.
    pub async fn record(&self, message_ids: &[MessageId]) {
        let ids: Vec<i64> = message_ids.iter().map(|id| i64::from(id.0)).collect();
        if let Err(error) = self
            .store
            .record_answer_messages(self.update_id, &ids)
            .await
        {
            metrics::error("database");
            tracing::error!(error = ?error, update_id = self.update_id, "could not record the answer's messages");
        }
    }
}

impl Intake {
    /// The intake and the channel the scheduler reads from.
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        access: Arc<AccessPolicy>,
    ) -> (Self, mpsc::Receiver<Incoming>) {
        let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
        let intake = Self {
            store,
            clock,
            access,
            sender,
            resumptions: Arc::default(),
            replay_finished: CancellationToken::new(),
        };
        (intake, receiver)
    }

    /// Hands the updates left unfinished by the last run to the scheduler again, before any new
    /// one (call it before polling starts), with what was recorded of them for their handlers
    /// ([`Intake::take_resumption`]); marks done those not to be answered again. Returns how many
    /// were handed over. With replicas (PostgreSQL), only updates whose replica's lease has
    /// lapsed are taken; [`Intake::take_over_abandoned`] takes the others later.
    pub async fn replay_unfinished(&self) -> anyhow::Result<usize> {
        let mut replayed = 0;
        loop {
            let now_ms = self.clock.now_ms();
            let claimed = self
                .store
                .claim_unfinished_updates(now_ms - REPLAY_WINDOW_MS, now_ms, CLAIM_BATCH)
                .await?;
            let count = claimed.len();
            replayed += self.hand_over(claimed).await?;
            if count < CLAIM_BATCH as usize {
                return Ok(replayed);
            }
        }
    }

    /// Hands `unfinished` updates to the scheduler again; returns how many.
    async fn hand_over(&self, unfinished: Vec<UnfinishedUpdate>) -> anyhow::Result<usize> {
        let mut handed_over = 0;
        for unfinished in unfinished {
            let update_id = unfinished.update_id;
            let Some((update, resumption)) = Self::resumption(unfinished) else {
                self.store
                    .set_update_state(update_id, UpdateState::Done)
                    .await?;
                continue;
            };
            if resumption != Resumption::default() {
                self.lock_resumptions().insert(update_id, resumption);
            }
            self.forward(update, true).await;
            handed_over += 1;
        }
        Ok(handed_over)
    }

    /// Replicas sharing one database (PostgreSQL): keeps this replica's claims on the updates it
    /// is answering (every third of `lease`), and takes over the unfinished updates of a replica
    /// that stopped renewing its claims (every half of it), until `stop`.
    pub async fn take_over_abandoned(&self, lease: std::time::Duration, stop: CancellationToken) {
        let start = tokio::time::Instant::now();
        let mut renew = tokio::time::interval_at(start + lease / 3, lease / 3);
        // The start's replay has just looked.
        let mut look = tokio::time::interval_at(start + lease / 2, lease / 2);
        loop {
            tokio::select! {
                () = stop.cancelled() => return,
                _ = renew.tick() => {
                    if let Err(error) = self.store.renew_update_leases(self.clock.now_ms()).await {
                        metrics::error("database");
                        tracing::warn!(error = %error, "could not renew the claims on updates");
                    }
                }
                _ = look.tick() => match self.replay_unfinished().await {
                    Ok(0) => {}
                    Ok(count) => tracing::info!(count, "took over updates another replica left unfinished"),
                    Err(error) => {
                        metrics::error("database");
                        tracing::warn!(error = ?error, "could not look for abandoned updates");
                    }
                },
            }
        }
    }

    /// The update to hand over again and what its handler needs to finish it, or `None` when it
    /// must not be answered again.
    fn resumption(unfinished: UnfinishedUpdate) -> Option<(Update, Resumption)> {
        let update_id = unfinished.update_id;
        let update = unfinished
            .payload
            .as_deref()
            .and_then(|payload| serde_json::from_str::<Update>(payload).ok())?;
        let message_ids = unfinished
            .answer_message_ids
            .iter()
            .filter_map(|&id| i32::try_from(id).ok().map(MessageId))
            .collect();
        let stored_reply = match unfinished.state {
            UpdateState::Received => None,
            UpdateState::Replying => match unfinished.undelivered_reply {
                Some(reply) => Some(reply),
                None => {
                    tracing::warn!(
                        update_id,
                        "the last run stopped while answering; not answering twice"
                    );
                    return None;
                }
            },
            UpdateState::Done => return None,
        };
        tracing::info!(
            update_id,
            stored_reply = stored_reply.is_some(),
            "finishing an update left unfinished by the last run"
        );
        let resumption = Resumption {
            message_ids,
            stored_reply,
        };
        Some((update, resumption))
    }

    /// What the last run left of `update_id`, once: for the handler that finishes it. Nothing
    /// for an update of this run.
    pub fn take_resumption(&self, update_id: i64) -> Resumption {
        self.lock_resumptions()
            .remove(&update_id)
            .unwrap_or_default()
    }

    fn lock_resumptions(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Resumption>> {
        // Held only for one map operation, which cannot panic: never poisoned in practice, and
        // the map is still sound if it were.
        self.resumptions
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Replicas (PostgreSQL): waits until no earlier update of `update`'s conversation is being
    /// answered by another replica, so that a person's messages are answered in order, each with
    /// the ones before it in its history, even when a balancer spreads them over replicas. Gives
    /// up after [`ORDER_PATIENCE`] (an earlier update whose replica died is taken over meanwhile).
    /// An update `in_order` ([`Incoming::in_order`]) was found clear as it was stored, in the
    /// same statement: it does not ask again.
    pub async fn wait_for_earlier_updates(
        &self,
        update: &Update,
        in_order: bool,
        stop: &CancellationToken,
    ) {
        if in_order || self.store.kind() != BackendKind::Postgres {
            return;
        }
        let Some(key) = update_conversation_key(update) else {
            return;
        };
        let update_id = i64::from(update.id.0);
        let give_up_at = tokio::time::Instant::now() + ORDER_PATIENCE;
        while tokio::time::Instant::now() < give_up_at {
            let since_ms = self.clock.now_ms() - REPLAY_WINDOW_MS;
            match self
                .store
                .earlier_update_elsewhere(key, update_id, since_ms)
                .await
            {
                Ok(false) => return,
                Ok(true) => {}
                Err(error) => {
                    tracing::warn!(error = %error, update_id, "could not check the order of a conversation's updates");
                    return;
                }
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(ORDER_POLL_INTERVAL) => {}
            }
        }
        tracing::warn!(
            update_id,
            "an earlier update of the conversation is still unanswered elsewhere; answering this one first"
        );
    }

    /// Where the handler of `update_id` records the messages that carry its answer.
    pub fn answer_messages(&self, update_id: i64) -> AnswerMessages {
        AnswerMessages {
            store: self.store.clone(),
            update_id,
        }
    }

    /// [`Intake::replay_unfinished`], logging the outcome; new updates are handed over only after
    /// it.
    pub async fn replay_unfinished_logged(&self) {
        match self.replay_unfinished().await {
            Ok(0) => {}
            Ok(count) => tracing::info!(count, "handled updates left unfinished by the last run"),
            Err(error) => tracing::error!(error = ?error, "could not read the unfinished updates"),
        }
        self.replay_finished.cancel();
    }

    /// Takes in one poll's updates: stores them first (allowed users only), in one transaction,
    /// then hands them on in order. A redelivered update is dropped. Fails only if the database
    /// cannot store them; then the caller must not confirm them to Telegram. The webhook's calls
    /// take the same two steps together ([`store_webhook_updates`]).
    pub async fn accept_batch(&self, updates: Vec<Update>) -> anyhow::Result<()> {
        updates.iter().for_each(note_received);
        let recorded = self.record(&updates).await?;
        self.hand_on(updates, &recorded).await;
        Ok(())
    }

    /// Stores `updates` from allowed users in one transaction; for each stored, whether it is new
    /// and clear of earlier unfinished ones elsewhere. Fails only if the database cannot store
    /// them, and then has stored none.
    async fn record(&self, updates: &[Update]) -> anyhow::Result<HashMap<i64, RecordedUpdate>> {
        let mut to_store = Vec::new();
        for update in updates {
            if update_sender_id(update).is_some_and(|sender| self.access.is_allowed(sender)) {
                to_store.push(UpdateRecord {
                    update_id: i64::from(update.id.0),
                    owner: update_conversation_key(update),
                    payload: serde_json::to_string(update)?,
                });
            }
        }
        if to_store.is_empty() {
            return Ok(HashMap::new());
        }
        let now_ms = self.clock.now_ms();
        match self
            .store
            .record_updates_in_order(&to_store, now_ms, now_ms - REPLAY_WINDOW_MS)
            .await
        {
            Ok(new) => Ok(to_store
                .iter()
                .map(|record| record.update_id)
                .zip(new)
                .collect()),
            // Storage is full: keeping the updates back would only fetch them again forever.
            // Handing them on lets the users hear that storage is full.
            Err(error) if crate::storage::is_storage_full(&error) => {
                tracing::warn!(
                    count = to_store.len(),
                    "storage is full; handling updates without storing them"
                );
                Ok(HashMap::new())
            }
            Err(error) => Err(error.into()),
        }
    }

    /// Hands `updates` on in order, once [`Intake::record`] stored them, dropping those
    /// delivered before.
    async fn hand_on(&self, updates: Vec<Update>, recorded: &HashMap<i64, RecordedUpdate>) {
        // None overtakes an older update of its chat that the replay hands over.
        self.replay_finished.cancelled().await;
        for update in updates {
            let (in_order, elsewhere) = match recorded.get(&i64::from(update.id.0)) {
                Some(RecordedUpdate::SeenBefore) => {
                    tracing::info!(update_id = update.id.0, "dropped an update delivered twice");
                    continue;
                }
                Some(RecordedUpdate::New {
                    behind_unfinished_elsewhere,
                    elsewhere,
                }) => (!behind_unfinished_elsewhere, *elsewhere),
                None => (false, LoadElsewhere::default()),
            };
            self.send(Incoming {
                update: Box::new(update),
                replayed: false,
                in_order,
                elsewhere,
            })
            .await;
        }
    }

    async fn forward(&self, update: Update, replayed: bool) {
        self.send(Incoming {
            update: Box::new(update),
            replayed,
            in_order: false,
            elsewhere: LoadElsewhere::default(),
        })
        .await;
    }

    async fn send(&self, incoming: Incoming) {
        // Fails only when the scheduler has stopped; the update stays stored for the next run.
        if self.sender.send(incoming).await.is_err() {
            tracing::debug!("the scheduler has stopped; the update waits for the next run");
        }
    }

    /// Marks an update as being answered: after a crash from here on, it is not answered again.
    pub async fn replying(&self, update_id: i64) {
        self.set_state(update_id, UpdateState::Replying).await;
    }

    /// Marks an update as handled.
    pub async fn done(&self, update_id: i64) {
        self.set_state(update_id, UpdateState::Done).await;
    }

    async fn set_state(&self, update_id: i64, state: UpdateState) {
        if let Err(error) = self.store.set_update_state(update_id, state).await {
            tracing::error!(error = ?error, update_id, ?state, "could not record the update's state");
        }
    }
}

/// Long polling: first the last run's unfinished updates, then each new batch, stored before the
/// next `getUpdates` call confirms it. Telegram allows one poller per bot: with replicas
/// (PostgreSQL), the replica that leads [`SoleTask::Polling`] polls, and the others wait to take
/// over should it stop.
pub async fn run_polling(bot: TelegramBot, intake: Intake, shutdown: CancellationToken) {
    intake.replay_unfinished_logged().await;
    while let Some(leadership) = lead_polling(&intake.store, &shutdown).await {
        poll_while_leading(&bot, &intake, leadership, &shutdown).await;
    }
    tracing::debug!("polling stopped");
}

/// How often a replica waiting to poll asks whether the poller still holds its lock.
const POLLING_STANDBY_INTERVAL: std::time::Duration = std::time::Duration::from_secs(2);

/// Waits until this replica may poll; `None` once `shutdown` comes first.
async fn lead_polling(store: &Store, shutdown: &CancellationToken) -> Option<Leadership> {
    let mut told = false;
    while !shutdown.is_cancelled() {
        match store.try_lead(SoleTask::Polling).await {
            Ok(Some(leadership)) => {
                if told {
                    tracing::info!("the replica that polled Telegram stopped; this one polls now");
                }
                return Some(leadership);
            }
            Ok(None) if !told => {
                tracing::info!("another replica polls Telegram; this one stands by to take over");
                told = true;
            }
            Ok(None) => {}
            Err(error) => {
                metrics::error("database");
                tracing::warn!(error = %error, "could not ask whether another replica polls");
            }
        }
        tokio::select! {
            () = shutdown.cancelled() => return None,
            () = tokio::time::sleep(POLLING_STANDBY_INTERVAL) => {}
        }
    }
    None
}

/// Polls until `shutdown`, or until this replica no longer leads the polling.
async fn poll_while_leading(
    bot: &TelegramBot,
    intake: &Intake,
    mut leadership: Leadership,
    shutdown: &CancellationToken,
) {
    if let Err(error) = bot.delete_webhook().await {
        tracing::warn!(error = %error, "could not remove a webhook before polling");
    }
    let mut offset: i32 = 0;
    // After a failed poll or store, a pause that grows while the failures last, so an outage
    // of Telegram or of the disk does not become a busy loop.
    let mut backoff = telegram_backoff();
    let allowed = [
        AllowedUpdate::Message,
        AllowedUpdate::CallbackQuery,
        AllowedUpdate::InlineQuery,
        AllowedUpdate::ChosenInlineResult,
    ];
    loop {
        let poll = bot
            .get_updates()
            .offset(offset)
            .timeout(POLL_TIMEOUT_SECS)
            .allowed_updates(allowed);
        let updates = tokio::select! {
            () = shutdown.cancelled() => return,
            result = poll.send() => result,
        };
        let outcome = match updates {
            Ok(updates) => {
                metrics::telegram_contact_at(intake.clock.now_ms());
                store_polled(intake, updates, &mut offset).await
            }
            Err(error) => {
                metrics::error("telegram_poll");
                tracing::warn!(error = %crate::telegram::errors::loggable(&error), "polling Telegram failed; retrying");
                PollOutcome::Failed
            }
        };
        if !leadership.is_held().await {
            tracing::warn!("lost the database connection that holds the polling; standing by");
            return;
        }
        if outcome == PollOutcome::Stored {
            backoff.reset();
            continue;
        }
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep(backoff.next_delay()) => {}
        }
    }
}

/// How one poll went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PollOutcome {
    /// Its updates (if any) are stored: the next poll confirms them and comes at once.
    Stored,
    /// Polling or storing failed: the updates are fetched again after a pause.
    Failed,
}

/// Stores one poll's updates and moves the offset past them, which confirms them to Telegram
/// with the next poll.
async fn store_polled(intake: &Intake, updates: Vec<Update>, offset: &mut i32) -> PollOutcome {
    let next = updates.iter().map(|update| update.id.0 as i32 + 1).max();
    match intake.accept_batch(updates).await {
        Ok(()) => {
            if let Some(next) = next {
                *offset = (*offset).max(next);
            }
            PollOutcome::Stored
        }
        Err(error) => {
            metrics::error("database");
            tracing::error!(error = ?error, "could not store updates; they will be fetched again");
            PollOutcome::Failed
        }
    }
}

/// A fresh webhook secret: 32 hex digits, 128 bits from the operating system's random source.
pub fn random_webhook_secret() -> anyhow::Result<crate::secret::Secret> {
    let mut bytes = [0_u8; 16];
    getrandom::fill(&mut bytes)
        .map_err(|error| anyhow::anyhow!("no randomness for the webhook secret: {error}"))?;
    let secret: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    Ok(crate::secret::Secret::new(secret))
}

/// Counts an update taken in, and says so when Telegram sent one teloxide cannot read.
fn note_received(update: &Update) {
    metrics::update_received();
    if matches!(update.kind, teloxide::types::UpdateKind::Error(_)) {
        tracing::warn!(
            update_id = update.id.0,
            "Telegram sent an update telemem cannot read; ignoring it"
        );
    }
}

/// Webhook calls whose updates are stored together at most.
const WEBHOOK_BATCH: usize = 64;

/// One webhook call's update, waiting to be stored; told whether it was.
struct WebhookUpdate {
    update: Update,
    stored: tokio::sync::oneshot::Sender<bool>,
}

/// Stores the updates of the webhook calls that came in while the last ones were being stored,
/// in one transaction, and hands them on in the order they came: under load one commit serves
/// many calls, as one poll's updates share one. Each call is answered only once its update is
/// stored. When a batch cannot be stored, each of its updates is tried alone, so that an update
/// the database refuses fails only its own call (Telegram sends it again).
async fn store_webhook_updates(intake: Intake, mut calls: mpsc::Receiver<WebhookUpdate>) {
    let mut batch = Vec::with_capacity(WEBHOOK_BATCH);
    while calls.recv_many(&mut batch, WEBHOOK_BATCH).await > 0 {
        let (updates, callers): (Vec<Update>, Vec<_>) = batch
            .drain(..)
            .map(|call| (call.update, call.stored))
            .unzip();
        if updates.len() > 1
            && let Ok(recorded) = intake.record(&updates).await
        {
            intake.hand_on(updates, &recorded).await;
            for caller in callers {
                let _ = caller.send(true);
            }
            continue;
        }
        for (update, caller) in updates.into_iter().zip(callers) {
            let stored = match intake.record(std::slice::from_ref(&update)).await {
                Ok(recorded) => {
                    intake.hand_on(vec![update], &recorded).await;
                    true
                }
                Err(error) => {
                    // Telegram retries a failed webhook call, so the update is not lost.
                    metrics::error("database");
                    tracing::error!(error = ?error, "could not store a webhook update");
                    false
                }
            };
            let _ = caller.send(stored);
        }
    }
}

/// The largest webhook body taken: Telegram's updates are a few kilobytes, so anything near this
/// is not from Telegram.
pub const WEBHOOK_BODY_LIMIT: usize = 1024 * 1024;

/// The webhook endpoint: checks the secret token, stores the update, then answers 200. Starts
/// the task that stores the calls' updates ([`store_webhook_updates`]); it ends with the router.
pub fn webhook_router(path: &str, intake: Intake, secret: crate::secret::Secret) -> Router {
    let (calls, received) = mpsc::channel(WEBHOOK_BATCH);
    tokio::spawn(store_webhook_updates(intake.clone(), received));
    Router::new()
        .route(path, post(receive_webhook))
        .layer(DefaultBodyLimit::max(WEBHOOK_BODY_LIMIT))
        .with_state(WebhookState {
            clock: intake.clock,
            secret,
            calls,
        })
}

/// What the webhook endpoint needs: the clock, the secret and the storing task.
#[derive(Clone)]
struct WebhookState {
    clock: Arc<dyn Clock>,
    secret: crate::secret::Secret,
    calls: mpsc::Sender<WebhookUpdate>,
}

/// Whether `headers` carry `secret`. Compared in constant time, so the time taken to refuse a
/// guess tells nothing about how much of it was right.
fn has_secret(headers: &HeaderMap, secret: &crate::secret::Secret) -> bool {
    headers
        .get(SECRET_HEADER)
        .is_some_and(|presented| bool::from(presented.as_bytes().ct_eq(secret.expose().as_bytes())))
}

async fn receive_webhook(
    State(state): State<WebhookState>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    // The secret first: a caller without it gets nothing parsed.
    if !has_secret(&headers, &state.secret) {
        metrics::error("webhook_secret");
        tracing::warn!("rejected a webhook call without the right secret token");
        return StatusCode::UNAUTHORIZED;
    }
    let update = match serde_json::from_slice::<Update>(&body) {
        Ok(update) => update,
        Err(error) => {
            // Where it went wrong, not serde's message, which quotes the value it choked on.
            tracing::warn!(
                category = ?error.classify(),
                line = error.line(),
                column = error.column(),
                "rejected a webhook call whose body is not an update"
            );
            return StatusCode::BAD_REQUEST;
        }
    };
    metrics::telegram_contact_at(state.clock.now_ms());
    note_received(&update);
    let (stored, answer) = tokio::sync::oneshot::channel();
    let call = WebhookUpdate { update, stored };
    // The storing task ends only with the router; no answer means it is shutting down.
    match state.calls.send(call).await {
        Ok(()) if answer.await == Ok(true) => StatusCode::OK,
        _ => StatusCode::SERVICE_UNAVAILABLE,
    }
}
