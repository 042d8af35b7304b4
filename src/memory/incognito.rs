//! The only memory an incognito conversation has: its last few turns, kept in this process and
//! nowhere else, so that a question can follow up on the answer before it. Bounded per
//! conversation by age and by count, and forgotten when incognito is switched off (or on again),
//! when the process ends, or once they are older than the window. Nothing here touches storage.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use crate::ids::ConversationKey;

/// One incognito exchange: what the person wrote and what the model answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncognitoTurn {
    pub question: String,
    pub question_at_ms: i64,
    pub answer: String,
    pub answered_at_ms: i64,
}

/// The recent incognito turns of every conversation; shared by all turns of the process.
#[derive(Debug)]
pub struct IncognitoMemory {
    window_ms: i64,
    max_turns: usize,
    turns: Mutex<HashMap<ConversationKey, VecDeque<IncognitoTurn>>>,
}

impl IncognitoMemory {
    /// Keeps at most `max_turns` turns per conversation, none answered more than `window_ms` ago.
    pub fn new(window_ms: i64, max_turns: usize) -> Self {
        Self {
            window_ms,
            max_turns,
            turns: Mutex::default(),
        }
    }

    /// The conversation's turns still kept at `now_ms`, oldest first.
    pub fn recent(&self, key: ConversationKey, now_ms: i64) -> Vec<IncognitoTurn> {
        let oldest_kept_ms = now_ms.saturating_sub(self.window_ms);
        self.lock()
            .get(&key)
            .map(|turns| {
                turns
                    .iter()
                    .filter(|turn| turn.answered_at_ms >= oldest_kept_ms)
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Keeps `turn` as the conversation's newest, dropping what no longer fits; also forgets
    /// the turns of every conversation past the window, so that the memory holds no more than
    /// the conversations of the last few minutes.
    pub fn remember(&self, key: ConversationKey, turn: IncognitoTurn, now_ms: i64) {
        if self.max_turns == 0 || self.window_ms == 0 {
            return;
        }
        let oldest_kept_ms = now_ms.saturating_sub(self.window_ms);
        let mut all = self.lock();
        all.retain(|_, turns| {
            turns.retain(|kept| kept.answered_at_ms >= oldest_kept_ms);
            !turns.is_empty()
        });
        let turns = all.entry(key).or_default();
        turns.push_back(turn);
        while turns.len() > self.max_turns {
            turns.pop_front();
        }
    }

    /// Forgets the conversation's turns.
    pub fn forget(&self, key: ConversationKey) {
        self.lock().remove(&key);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ConversationKey, VecDeque<IncognitoTurn>>> {
        // Held for map operations that cannot panic: never poisoned in practice, and the map is
        // still sound if it were.
        self.turns
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::storage::{ChatId, UserId};

    const ALICE: ConversationKey = ConversationKey {
        chat_id: ChatId(1),
        user_id: UserId(1),
    };
    const BOB: ConversationKey = ConversationKey {
        chat_id: ChatId(2),
        user_id: UserId(2),
    };

    fn turn(text: &str, at_ms: i64) -> IncognitoTurn {
        IncognitoTurn {
            question: text.to_owned(),
            question_at_ms: at_ms,
            answer: format!("answer to {text}"),
            answered_at_ms: at_ms,
        }
    }

    fn questions(turns: &[IncognitoTurn]) -> Vec<&str> {
        turns.iter().map(|turn| turn.question.as_str()).collect()
    }

    #[test]
    fn only_the_last_turns_within_the_window_are_kept_per_conversation() {
        let memory = IncognitoMemory::new(60_000, 2);
        memory.remember(ALICE, turn("one", 0), 0);
        memory.remember(ALICE, turn("two", 10_000), 10_000);
        memory.remember(ALICE, turn("three", 20_000), 20_000);
        memory.remember(BOB, turn("bob's", 20_000), 20_000);

        assert_eq!(questions(&memory.recent(ALICE, 20_000)), ["two", "three"]);
        assert_eq!(questions(&memory.recent(ALICE, 75_000)), ["three"]);
        assert_eq!(questions(&memory.recent(BOB, 20_000)), ["bob's"]);
        assert!(memory.recent(ALICE, 90_000).is_empty());
    }

    #[test]
    fn forgetting_one_conversation_leaves_the_others() {
        let memory = IncognitoMemory::new(60_000, 5);
        memory.remember(ALICE, turn("alice's", 0), 0);
        memory.remember(BOB, turn("bob's", 0), 0);

        memory.forget(ALICE);

        assert!(memory.recent(ALICE, 0).is_empty());
        assert_eq!(questions(&memory.recent(BOB, 0)), ["bob's"]);
    }

    #[test]
    fn conversations_past_the_window_are_dropped_when_another_turn_is_kept() {
        let memory = IncognitoMemory::new(60_000, 5);
        memory.remember(ALICE, turn("old", 0), 0);
        memory.remember(BOB, turn("new", 120_000), 120_000);

        assert_eq!(memory.lock().len(), 1);
    }

    #[test]
    fn with_no_window_or_no_turns_nothing_is_kept() {
        for memory in [IncognitoMemory::new(0, 5), IncognitoMemory::new(60_000, 0)] {
            memory.remember(ALICE, turn("one", 0), 0);
            assert!(memory.recent(ALICE, 0).is_empty());
        }
    }
}
