//! Runs the handler tree ([`super::schema`]) over the updates the intake hands on, fairly.
//!
//! Each person in each chat has a queue of their own: their updates are handled strictly in
//! order, and one person's backlog never holds back anybody else's. `MAX_TURNS_IN_FLIGHT` slots
//! bound the updates being handled at once; a queue takes a slot for one update at a time and
//! then gives it back, and waiting queues get slots first come, first served, so a person with a
//! hundred messages waiting takes turns with everyone else. teloxide's own dispatcher keeps a queue
//! per chat too, but waits for room when one of them is full, which stalls every chat behind one
//! flooding person; this scheduler never waits for room, because the per-user limits
//! ([`super::limits`]) keep each queue short.
//!
//! Waiting updates are kept as the bare, boxed `Update`, not as a started handler, so the memory a
//! backlog takes is the update itself (about 2 KB a message) and a small waiting task.
//!
//! A request to stop an answer (`/cancel`, a press on Stop: [`stop::is_stop_request`]) joins no
//! queue and needs no slot: queued, it would wait for the very turn it means to stop. It asks
//! nothing of the model, so the per-user limits do not count it either.
//!
//! Shutdown: no update starts once it begins; the ones being handled get a grace period
//! (`SHUTDOWN_GRACE_SECS`) and are then stopped. Every update not finished stays `received` (or
//! `replying`) in the database and is handled after the next start.

use std::collections::{HashMap, VecDeque};
use std::ops::ControlFlow;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use futures_util::FutureExt;
use teloxide::dispatching::UpdateHandler;
use teloxide::dptree::di::DependencyMap;
use teloxide::types::{Me, Update, UpdateKind};
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::clock::Clock;
use crate::ids::ConversationKey;
use crate::metrics;
use crate::replies;
use crate::storage;
use crate::telegram::access::{AccessPolicy, is_addressed_to_bot};
use crate::telegram::bot::TelegramBot;
use crate::telegram::delivery::{ReplyTarget, send_plain_text};
use crate::telegram::identity;
use crate::telegram::intake::{Incoming, Intake};
use crate::telegram::limits::{Admission, Limit, LimitSettings, UserLimits};
use crate::telegram::{inline, stop};

/// How the scheduler runs.
#[derive(Clone, Debug)]
pub struct SchedulerSettings {
    /// Updates handled at once; the model's latency is what keeps turns in flight, so this is
    /// what a slow model can serve in parallel.
    pub max_in_flight: usize,
    pub limits: LimitSettings,
    /// How long the updates being handled may take to finish once shutdown begins.
    pub shutdown_grace: Duration,
}

/// Whose queue an update joins: the conversation it belongs to
/// ([`identity::update_conversation_key`]). Updates without one are not queued.
type QueueKey = ConversationKey;

/// An update waiting in a queue, with the person its admission was counted for.
struct Queued {
    update: Box<Update>,
    counted_for: Option<storage::UserId>,
    /// See [`Incoming::in_order`].
    in_order: bool,
}

/// Everything needed to handle updates.
pub struct Scheduler {
    bot: TelegramBot,
    handler: Arc<UpdateHandler<anyhow::Error>>,
    dependencies: Arc<DependencyMap>,
    intake: Intake,
    access: Arc<AccessPolicy>,
    me: Me,
    clock: Arc<dyn Clock>,
    settings: SchedulerSettings,
}

/// What the queues' workers share.
struct Shared {
    queues: Mutex<HashMap<QueueKey, VecDeque<Queued>>>,
    limits: Mutex<UserLimits>,
    slots: Semaphore,
    /// No update starts once this is cancelled.
    stopping: CancellationToken,
    /// Updates being handled are stopped when this is cancelled (the grace period is over).
    abort: CancellationToken,
}

/// Locks a mutex whose data stays consistent even if a holder panicked (every critical section
/// here is a few map operations that cannot panic halfway).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The parts of a [`Scheduler`]; a struct so that the call site names them.
pub struct SchedulerParts {
    pub bot: TelegramBot,
    pub handler: UpdateHandler<anyhow::Error>,
    pub dependencies: DependencyMap,
    pub intake: Intake,
    pub access: Arc<AccessPolicy>,
    pub me: Me,
    pub clock: Arc<dyn Clock>,
    pub settings: SchedulerSettings,
}

impl Scheduler {
    pub fn new(parts: SchedulerParts) -> Self {
        Self {
            bot: parts.bot,
            handler: Arc::new(parts.handler),
            dependencies: Arc::new(parts.dependencies),
            intake: parts.intake,
            access: parts.access,
            me: parts.me,
            clock: parts.clock,
            settings: parts.settings,
        }
    }

    /// Handles the updates from `updates` until `shutdown` is cancelled or the intake is gone,
    /// then lets the updates being handled finish within the grace period.
    pub async fn run(self, mut updates: mpsc::Receiver<Incoming>, shutdown: CancellationToken) {
        let this = Arc::new(self);
        let shared = Arc::new(Shared {
            queues: Mutex::new(HashMap::new()),
            limits: Mutex::new(UserLimits::new(this.settings.limits.clone())),
            slots: Semaphore::new(this.settings.max_in_flight.max(1)),
            stopping: CancellationToken::new(),
            abort: CancellationToken::new(),
        });
        let tasks = TaskTracker::new();
        loop {
            let incoming = tokio::select! {
                biased;
                () = shutdown.cancelled() => break,
                incoming = updates.recv() => incoming,
            };
            match incoming {
                Some(incoming) => this.admit(incoming, &shared, &tasks),
                None => break,
            }
        }
        // From here the intake's hand-overs fail at once; those updates stay stored.
        updates.close();
        shared.stopping.cancel();
        tasks.close();
        if tokio::time::timeout(this.settings.shutdown_grace, tasks.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                grace_secs = this.settings.shutdown_grace.as_secs_f64(),
                "the grace period is over; the updates still being handled are stopped and \
                 handled again after the next start"
            );
            shared.abort.cancel();
            tasks.wait().await;
        }
    }

    /// Applies the per-user limits to a new update and queues it, or turns it away.
    fn admit(self: &Arc<Self>, incoming: Incoming, shared: &Arc<Shared>, tasks: &TaskTracker) {
        let Incoming {
            update,
            replayed,
            in_order,
            elsewhere,
        } = incoming;
        if stop::is_stop_request(&update, &self.me) {
            tasks.spawn(Arc::clone(self).work_stop_request(update, Arc::clone(shared)));
            return;
        }
        let counted_for = match self.limited_sender(&update) {
            None => None,
            Some(user_id) if replayed => {
                lock(&shared.limits).admit_unconditionally(user_id);
                Some(user_id)
            }
            Some(user_id) => {
                match lock(&shared.limits).admit(user_id, self.clock.now_ms(), elsewhere) {
                    Admission::Accepted => Some(user_id),
                    Admission::Refused { limit, notify } => {
                        metrics::update_limited(limit_label(limit));
                        tasks.spawn(Arc::clone(self).turn_away(update, limit, notify));
                        return;
                    }
                }
            }
        };
        let queued = Queued {
            update,
            counted_for,
            in_order,
        };
        let Some(key) = identity::update_conversation_key(&queued.update) else {
            tasks.spawn(Arc::clone(self).work_unqueued(queued, Arc::clone(shared)));
            return;
        };
        let mut queues = lock(&shared.queues);
        if let Some(queue) = queues.get_mut(&key) {
            queue.push_back(queued);
            return;
        }
        queues.insert(key, VecDeque::from([queued]));
        drop(queues);
        tasks.spawn(Arc::clone(self).work_queue(key, Arc::clone(shared)));
    }

    /// The identity a message counts against: the sender ([`identity::sender_id`]) of a message
    /// for the bot from an allowed identity. Everything else (button presses, group chatter,
    /// strangers) is not limited.
    fn limited_sender(&self, update: &Update) -> Option<storage::UserId> {
        match &update.kind {
            UpdateKind::Message(message) => {
                let sender = identity::sender_id(message)?;
                let from_admin = self.access.is_admin(sender);
                (self.access.is_allowed(sender)
                    && is_addressed_to_bot(message, &self.me, from_admin))
                .then_some(sender)
            }
            // A chosen inline result is a turn of the person's private chat, counted like one.
            UpdateKind::ChosenInlineResult(chosen) => {
                let sender = identity::user_id(&chosen.from);
                self.access.is_allowed(sender).then_some(sender)
            }
            _ => None,
        }
    }

    /// Handles one queue's updates one after the other, a slot each, until it is empty.
    async fn work_queue(self: Arc<Self>, key: QueueKey, shared: Arc<Shared>) {
        loop {
            let next = {
                let mut queues = lock(&shared.queues);
                let next = queues.get_mut(&key).and_then(VecDeque::pop_front);
                if next.is_none() {
                    queues.remove(&key);
                }
                next
            };
            let Some(queued) = next else { return };
            // Boxed, like the handling below: a conversation's task waits for a slot for most of
            // its life, and should hold only a pointer to the larger state of these meanwhile
            // (a thousand people writing at once are a thousand such tasks).
            Box::pin(self.intake.wait_for_earlier_updates(
                &queued.update,
                queued.in_order,
                &shared.stopping,
            ))
            .await;
            let permit = tokio::select! {
                () = shared.stopping.cancelled() => return,
                permit = shared.slots.acquire() => permit,
            };
            if permit.is_err() || shared.stopping.is_cancelled() {
                return;
            }
            Box::pin(self.handle(queued, &shared)).await;
        }
    }

    /// Handles an update that belongs to no queue.
    async fn work_unqueued(self: Arc<Self>, queued: Queued, shared: Arc<Shared>) {
        let _permit = tokio::select! {
            () = shared.stopping.cancelled() => return,
            permit = shared.slots.acquire() => permit,
        };
        self.handle(queued, &shared).await;
    }

    /// Handles a request to stop an answer at once, beside every queue and without a slot.
    async fn work_stop_request(self: Arc<Self>, update: Box<Update>, shared: Arc<Shared>) {
        let queued = Queued {
            update,
            counted_for: None,
            in_order: true,
        };
        self.handle(queued, &shared).await;
    }

    /// Runs the handler tree on one update, stopping it if the grace period runs out. A handler
    /// that fails or panics is logged; the other queues go on.
    async fn handle(&self, queued: Queued, shared: &Shared) {
        let update_id = i64::from(queued.update.id.0);
        let mut dependencies = (*self.dependencies).clone();
        dependencies.insert(*queued.update);
        let handling = AssertUnwindSafe(self.handler.dispatch(dependencies)).catch_unwind();
        let outcome = tokio::select! {
            outcome = handling => Some(outcome),
            () = shared.abort.cancelled() => None,
        };
        match outcome {
            Some(Ok(ControlFlow::Break(Ok(())))) => {}
            Some(Ok(ControlFlow::Break(Err(error)))) => {
                metrics::error("handler");
                tracing::error!(
                    error = crate::telegram::errors::loggable_chain(&error),
                    update_id,
                    "handling an update failed"
                );
            }
            Some(Ok(ControlFlow::Continue(_))) => {
                tracing::debug!(
                    update_id,
                    "ignored an update of a kind the bot does not handle"
                );
                self.intake.done(update_id).await;
            }
            Some(Err(_panic)) => {
                metrics::error("handler_panic");
                tracing::error!(update_id, "handling an update panicked");
            }
            None => tracing::info!(
                update_id,
                "stopped at shutdown; handled after the next start"
            ),
        }
        if let Some(user_id) = queued.counted_for {
            lock(&shared.limits).finished(user_id);
        }
    }

    /// Marks a turned-away update done and, for the first of a burst, tells the person why.
    async fn turn_away(self: Arc<Self>, update: Box<Update>, limit: Limit, notify: bool) {
        let update_id = i64::from(update.id.0);
        tracing::info!(update_id, ?limit, notify, "a message past a per-user limit");
        self.intake.done(update_id).await;
        let notice = |lang| match limit {
            Limit::Pending(max) => replies::too_many_waiting(lang, max),
            Limit::PerMinute(max) => replies::too_many_per_minute(lang, max),
        };
        let message = match &update.kind {
            UpdateKind::Message(message) if notify => message,
            // The person's own inline message waits for its answer: it always shows why not.
            UpdateKind::ChosenInlineResult(chosen) => {
                let lang = identity::user_language(&chosen.from);
                inline::answer_chosen_with_notice(&self.bot, chosen, &notice(lang)).await;
                return;
            }
            _ => return,
        };
        let notice = notice(identity::message_language(message));
        let target = ReplyTarget::answering(message);
        if let Err(error) = send_plain_text(&self.bot, target, &notice).await {
            tracing::warn!(
                error = crate::telegram::errors::loggable(&error),
                "could not send the limit notice"
            );
        }
    }
}

fn limit_label(limit: Limit) -> &'static str {
    match limit {
        Limit::Pending(_) => "pending",
        Limit::PerMinute(_) => "per_minute",
    }
}
