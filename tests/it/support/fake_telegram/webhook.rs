//! Telegram calling webhooks: a pump that posts every new update to the bots' webhooks as they
//! come, in turn (a load balancer in front of replicas), noting when each was handed out, as
//! `getUpdates` does for a polling bot.

use std::sync::Arc;

use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{FakeTelegram, Handout};

/// Header carrying the webhook's secret token, as Telegram sends it.
const SECRET_HEADER: &str = "X-Telegram-Bot-Api-Secret-Token";

impl FakeTelegram {
    /// Posts each update sent from now on to one of `hooks`, taking them in turn, with `secret`.
    /// A post that fails is tried on the next webhook, as a balancer would. Runs until the
    /// returned task is aborted.
    pub fn push_to_webhooks(&self, hooks: Vec<String>, secret: String) -> JoinHandle<()> {
        let shared = Arc::clone(&self.shared);
        tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut changes = shared.changes.subscribe();
            let mut next = 0_usize;
            loop {
                let updates: Vec<serde_json::Value> = {
                    let mut state = shared.lock();
                    let updates: Vec<_> = state.pending_updates.drain(..).collect();
                    let at = Instant::now();
                    for update in &updates {
                        let update_id = update["update_id"].as_i64().unwrap_or(0);
                        state.handouts.push(Handout { update_id, at });
                    }
                    updates
                };
                for update in updates {
                    let first = next % hooks.len();
                    next += 1;
                    let (client, hooks, secret) = (client.clone(), hooks.clone(), secret.clone());
                    tokio::spawn(async move {
                        for attempt in 0..hooks.len() {
                            let hook = &hooks[(first + attempt) % hooks.len()];
                            let posted = client
                                .post(hook)
                                .header(SECRET_HEADER, &secret)
                                .json(&update)
                                .send()
                                .await;
                            if posted.is_ok_and(|response| response.status().is_success()) {
                                return;
                            }
                        }
                    });
                }
                if changes.changed().await.is_err() {
                    return;
                }
            }
        })
    }
}
