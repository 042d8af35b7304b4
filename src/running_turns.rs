//! The chat turns running right now, at most one per conversation, each with a token that stops
//! it: how `/cancel`, the Stop button and Ctrl-C in `telemem chat` reach a turn while it runs.
//! A stop request does not wait for the turn (the Telegram scheduler runs it beside the
//! conversation's queue, not in it): it only cancels the turn's token, and the turn, which waits
//! for its model call and the token together, drops the call at once. Telegram-free; it must not
//! decide what a stopped turn keeps (that is [`crate::conversation`]'s business).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

use crate::ids::ConversationKey;

/// The registry of running turns; cheap to clone, clones share it.
#[derive(Clone, Debug, Default)]
pub struct RunningTurns {
    turns: Arc<Mutex<HashMap<ConversationKey, Registered>>>,
    next_id: Arc<AtomicU64>,
}

/// A turn as the registry knows it.
#[derive(Debug)]
struct Registered {
    /// Tells this registration from a later one of the same conversation.
    id: u64,
    /// What the front end started the turn for (Telegram: the update it answers), so that a stale
    /// Stop button cannot stop a later turn.
    origin: Option<i64>,
    stop: CancellationToken,
}

/// One running turn: registered until dropped.
#[derive(Debug)]
pub struct RunningTurn {
    turns: RunningTurns,
    key: ConversationKey,
    id: u64,
    stop: CancellationToken,
}

impl RunningTurns {
    /// Registers the turn of `key` started for `origin`. One conversation runs one turn at a time
    /// (the front ends see to that); should another be registered anyway, the newer one is the
    /// one a stop request reaches.
    pub fn start(&self, key: ConversationKey, origin: Option<i64>) -> RunningTurn {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let stop = CancellationToken::new();
        let registered = Registered {
            id,
            origin,
            stop: stop.clone(),
        };
        self.lock().insert(key, registered);
        RunningTurn {
            turns: self.clone(),
            key,
            id,
            stop,
        }
    }

    /// Stops the turn running in `key`'s conversation, only if it was started for `origin` when
    /// that is given. Returns whether there was such a turn to stop.
    pub fn stop(&self, key: ConversationKey, origin: Option<i64>) -> bool {
        let turns = self.lock();
        let Some(running) = turns.get(&key) else {
            return false;
        };
        if origin.is_some() && running.origin != origin {
            return false;
        }
        running.stop.cancel();
        true
    }

    /// Whether a turn of `key`'s conversation is running.
    pub fn is_running(&self, key: ConversationKey) -> bool {
        self.lock().contains_key(&key)
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<ConversationKey, Registered>> {
        // Held for one map operation, which cannot panic: never poisoned in practice, and the
        // map is still sound if it were.
        self.turns
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl RunningTurn {
    /// Whether a stop was asked for.
    pub fn is_stopped(&self) -> bool {
        self.stop.is_cancelled()
    }

    /// Resolves once a stop is asked for.
    pub async fn stopped(&self) {
        self.stop.cancelled().await;
    }
}

impl Drop for RunningTurn {
    fn drop(&mut self) {
        let mut turns = self.turns.lock();
        if turns
            .get(&self.key)
            .is_some_and(|running| running.id == self.id)
        {
            turns.remove(&self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{ChatId, UserId};

    /// The group Alice and Bob both talk in: each has a conversation of their own there.
    const GROUP: ChatId = ChatId(1);
    const ALICE: ConversationKey = ConversationKey {
        chat_id: GROUP,
        user_id: UserId(1),
    };
    const BOB: ConversationKey = ConversationKey {
        chat_id: GROUP,
        user_id: UserId(2),
    };

    #[test]
    fn a_stop_reaches_only_the_running_turn_of_that_conversation() {
        let turns = RunningTurns::default();
        let alice = turns.start(ALICE, Some(10));

        assert!(!turns.stop(BOB, None), "Bob has nothing running");
        assert!(!alice.is_stopped());
        assert!(turns.stop(ALICE, None));
        assert!(alice.is_stopped());
    }

    #[test]
    fn a_stop_for_another_origin_leaves_the_turn_running() {
        let turns = RunningTurns::default();
        let turn = turns.start(ALICE, Some(11));

        assert!(!turns.stop(ALICE, Some(10)), "a stale button");
        assert!(!turn.is_stopped());
        assert!(turns.stop(ALICE, Some(11)));
        assert!(turn.is_stopped());
    }

    #[test]
    fn a_finished_turn_is_no_longer_running_and_cannot_be_stopped() {
        let turns = RunningTurns::default();
        let turn = turns.start(ALICE, None);
        assert!(turns.is_running(ALICE));

        drop(turn);

        assert!(!turns.is_running(ALICE));
        assert!(!turns.stop(ALICE, None));
    }

    #[test]
    fn an_older_registration_ending_late_leaves_the_newer_one_registered() {
        let turns = RunningTurns::default();
        let older = turns.start(ALICE, Some(1));
        let newer = turns.start(ALICE, Some(2));

        drop(older);

        assert!(turns.is_running(ALICE));
        assert!(turns.stop(ALICE, None));
        assert!(newer.is_stopped());
    }
}
