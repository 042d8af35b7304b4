//! Crash-safe intake of Telegram updates, by long polling or by webhook.
//!
//! teloxide's own listeners confirm an update to Telegram (the next `getUpdates` offset, or the
//! webhook's 200) before the bot has done anything with it, so a crash loses it. Here an update
//! from an allowed user is first stored with its payload (`processed_updates`, state `received`);
//! only then does the next poll confirm it, or the webhook call get its answer. Handlers mark it
//! `replying` just before the reply goes out and `done` after. On start, updates still `received`
//! are handled again; one left `replying` may already have reached the user and is not answered
//! twice. An update id seen before is dropped, so a redelivery is never answered again.
//!
//! Updates from people not on the allow list are passed on without being stored (they only get
//! a refusal), so nothing of theirs is kept.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use teloxide::prelude::*;
use teloxide::types::{AllowedUpdate, Update};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::clock::Clock;
use crate::metrics;
use crate::storage::{Store, UpdateState};
use crate::telegram::TelegramApi;
use crate::telegram::access::AccessPolicy;
use crate::telegram::connect::telegram_backoff;

/// How long one `getUpdates` call waits for updates (Telegram's long polling).
const POLL_TIMEOUT_SECS: u32 = 10;

/// Unfinished updates older than this are not handled again after a restart: an answer a day
/// late is worse than none.
const REPLAY_WINDOW_MS: i64 = 24 * 60 * 60 * 1_000;

/// Updates taken in but not yet handed to the scheduler, which takes them at once (it queues them
/// per person), so this fills only if the scheduler itself falls behind.
const QUEUE_CAPACITY: usize = 1_024;

/// The header Telegram sends with every webhook call when a secret token was registered.
pub const SECRET_HEADER: &str = "x-telegram-bot-api-secret-token";

/// An update handed to the scheduler.
#[derive(Debug)]
pub struct Incoming {
    pub update: Update,
    /// Left unfinished by the last run: it was let in then, so the per-user limits do not apply.
    pub replayed: bool,
}

/// Stores updates and hands them to the scheduler; cheap to clone.
#[derive(Clone)]
pub struct Intake {
    store: Store,
    clock: Arc<dyn Clock>,
    access: Arc<AccessPolicy>,
    sender: mpsc::Sender<Incoming>,
    /// Updates recorded before this run started are the last run's; later ones are this run's.
    started_at_ms: i64,
}

impl Intake {
    /// The intake and the channel the scheduler reads from.
    pub fn new(
        store: Store,
        clock: Arc<dyn Clock>,
        access: Arc<AccessPolicy>,
    ) -> (Self, mpsc::Receiver<Incoming>) {
        let (sender, receiver) = mpsc::channel(QUEUE_CAPACITY);
        let started_at_ms = clock.now_ms();
        let intake = Self {
            store,
            clock,
            access,
            sender,
            started_at_ms,
        };
        (intake, receiver)
    }

    /// Hands the updates left unfinished by the last run to the scheduler again, before any new
    /// one (call it before polling starts). Returns how many were handed over.
    pub async fn replay_unfinished(&self) -> anyhow::Result<usize> {
        let since_ms = self.started_at_ms - REPLAY_WINDOW_MS;
        let mut replayed = 0;
        for unfinished in self
            .store
            .unfinished_updates(since_ms, self.started_at_ms)
            .await?
        {
            let update = unfinished
                .payload
                .as_deref()
                .and_then(|payload| serde_json::from_str::<Update>(payload).ok());
            match (unfinished.state, update) {
                (UpdateState::Received, Some(update)) => {
                    tracing::info!(
                        update_id = unfinished.update_id,
                        "handling an update left unfinished by the last run"
                    );
                    self.forward(update, true).await;
                    replayed += 1;
                }
                (UpdateState::Replying, _) => {
                    tracing::warn!(
                        update_id = unfinished.update_id,
                        "the last run stopped while replying; not replying twice"
                    );
                    self.store
                        .set_update_state(unfinished.update_id, UpdateState::Done)
                        .await?;
                }
                _ => {
                    self.store
                        .set_update_state(unfinished.update_id, UpdateState::Done)
                        .await?
                }
            }
        }
        Ok(replayed)
    }

    /// [`Intake::replay_unfinished`], logging the outcome.
    pub async fn replay_unfinished_logged(&self) {
        match self.replay_unfinished().await {
            Ok(0) => {}
            Ok(count) => tracing::info!(count, "handled updates left unfinished by the last run"),
            Err(error) => tracing::error!(error = ?error, "could not read the unfinished updates"),
        }
    }

    /// Takes in one update: stores it first (allowed users only), then hands it on. A redelivered
    /// update is dropped. Fails only if the database cannot store it; then the caller must not
    /// confirm it to Telegram.
    pub async fn accept(&self, update: Update) -> anyhow::Result<()> {
        self.accept_batch(vec![update]).await
    }

    /// [`Intake::accept`] for one poll's updates, stored in one transaction, handed on in order.
    pub async fn accept_batch(&self, updates: Vec<Update>) -> anyhow::Result<()> {
        let mut to_store = Vec::new();
        for update in &updates {
            metrics::update_received();
            if update
                .from()
                .is_some_and(|user| self.access.is_allowed(user.id.0 as i64))
            {
                to_store.push((i64::from(update.id.0), serde_json::to_string(update)?));
            }
        }
        let is_new: std::collections::HashMap<i64, bool> = if to_store.is_empty() {
            Default::default()
        } else {
            match self
                .store
                .record_updates(&to_store, self.clock.now_ms())
                .await
            {
                Ok(new) => to_store.iter().map(|(id, _)| *id).zip(new).collect(),
                // Storage is full: keeping the updates back would only fetch them again forever.
                // Handing them on lets the users hear that storage is full.
                Err(error) if crate::storage::is_storage_full(&error) => {
                    tracing::warn!(
                        count = to_store.len(),
                        "storage is full; handling updates without storing them"
                    );
                    Default::default()
                }
                Err(error) => return Err(error.into()),
            }
        };
        for update in updates {
            if is_new.get(&i64::from(update.id.0)) == Some(&false) {
                tracing::info!(update_id = update.id.0, "dropped an update delivered twice");
                continue;
            }
            self.forward(update, false).await;
        }
        Ok(())
    }

    async fn forward(&self, update: Update, replayed: bool) {
        // Fails only when the scheduler has stopped; the update stays stored for the next run.
        if self
            .sender
            .send(Incoming { update, replayed })
            .await
            .is_err()
        {
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
/// next `getUpdates` call confirms it.
pub async fn run_polling<B: TelegramApi>(bot: B, intake: Intake, shutdown: CancellationToken) {
    intake.replay_unfinished_logged().await;
    if let Err(error) = bot.delete_webhook().await {
        tracing::warn!(error = %error, "could not remove a webhook before polling");
    }
    let mut offset: i32 = 0;
    // After a failed poll or store, a pause that grows while the failures last, so an outage
    // of Telegram or of the disk does not become a busy loop.
    let mut backoff = telegram_backoff();
    let allowed = [AllowedUpdate::Message, AllowedUpdate::CallbackQuery];
    loop {
        let poll = bot
            .get_updates()
            .offset(offset)
            .timeout(POLL_TIMEOUT_SECS)
            .allowed_updates(allowed);
        let updates = tokio::select! {
            () = shutdown.cancelled() => break,
            result = poll.send() => result,
        };
        let stored = match updates {
            Ok(updates) => {
                metrics::telegram_contact_at(intake.clock.now_ms());
                store_polled(&intake, updates, &mut offset).await
            }
            Err(error) => {
                metrics::error("telegram_poll");
                tracing::warn!(error = %error, "polling Telegram failed; retrying");
                false
            }
        };
        if stored {
            backoff.reset();
            continue;
        }
        tokio::select! {
            () = shutdown.cancelled() => break,
            () = tokio::time::sleep(backoff.next_delay()) => {}
        }
    }
    tracing::debug!("polling stopped");
}

/// Stores one poll's updates and moves the offset past them, which confirms them to Telegram
/// with the next poll. Returns whether they were stored; if not, they are fetched again.
async fn store_polled(intake: &Intake, updates: Vec<Update>, offset: &mut i32) -> bool {
    let next = updates.iter().map(|update| update.id.0 as i32 + 1).max();
    match intake.accept_batch(updates).await {
        Ok(()) => {
            if let Some(next) = next {
                *offset = (*offset).max(next);
            }
            true
        }
        Err(error) => {
            metrics::error("database");
            tracing::error!(error = ?error, "could not store updates; they will be fetched again");
            false
        }
    }
}

/// A fresh webhook secret: 32 hex digits from four independently, randomly keyed hashers (the
/// standard library seeds each `RandomState` from the operating system's randomness), so no extra
/// crate is needed for 128 unpredictable bits.
pub fn random_webhook_secret() -> crate::secret::Secret {
    use std::hash::{BuildHasher, Hasher};
    let mut secret = String::with_capacity(64);
    for part in 0..4_u64 {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(part);
        secret.push_str(&format!("{:016x}", hasher.finish()));
    }
    crate::secret::Secret::new(secret)
}

/// The webhook endpoint: checks the secret token, stores the update, then answers 200.
pub fn webhook_router(path: &str, intake: Intake, secret: crate::secret::Secret) -> Router {
    Router::new()
        .route(path, post(receive_webhook))
        .with_state((intake, secret))
}

async fn receive_webhook(
    State((intake, secret)): State<(Intake, crate::secret::Secret)>,
    headers: HeaderMap,
    Json(update): Json<Update>,
) -> StatusCode {
    let presented = headers
        .get(SECRET_HEADER)
        .and_then(|value| value.to_str().ok());
    if presented != Some(secret.expose()) {
        metrics::error("webhook_secret");
        tracing::warn!("rejected a webhook call without the right secret token");
        return StatusCode::UNAUTHORIZED;
    }
    metrics::telegram_contact_at(intake.clock.now_ms());
    match intake.accept(update).await {
        Ok(()) => StatusCode::OK,
        Err(error) => {
            // Telegram retries a failed webhook call, so the update is not lost.
            metrics::error("database");
            tracing::error!(error = ?error, "could not store a webhook update");
            StatusCode::SERVICE_UNAVAILABLE
        }
    }
}
