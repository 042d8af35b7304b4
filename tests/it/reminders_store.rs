//! Specifications of the stored reminders, on real SQLite files and PostgreSQL: a person's limit
//! holds even for adds racing each other, only the person's own waiting reminders are listed and
//! cancelled, a due reminder is claimed by one claimant at a time, a lapsed claim by another,
//! and a failed send is retried later or given up; `/clear` and the purge take theirs.

use std::collections::HashMap;

use telemem::storage::{ChatId, ConversationKey, NewReminder, ReminderAdded, UserId};

use crate::support::database::{ALICE_KEY, BOB_KEY, TestDb};
use crate::support::times::{DAY_MS, HOUR_MS, MIDNIGHT_MS};

/// Alice in a group: the same person as [`ALICE_KEY`], another chat.
const ALICE_IN_GROUP: ConversationKey = ConversationKey {
    chat_id: ChatId(-5),
    user_id: ALICE_KEY.user_id,
};

async fn add(db: &TestDb, key: ConversationKey, text: &str, due_at_ms: i64) -> i64 {
    let reminder = NewReminder {
        key,
        text,
        due_at_ms,
        created_at_ms: MIDNIGHT_MS,
    };
    match db.store.add_reminder(&reminder, 1_000).await.unwrap() {
        ReminderAdded::Added { id } => id,
        ReminderAdded::LimitReached => panic!("under the limit"),
    }
}

fn texts(reminders: &[telemem::storage::Reminder]) -> Vec<&str> {
    reminders
        .iter()
        .map(|reminder| reminder.text.as_str())
        .collect()
}

#[tokio::test]
async fn a_persons_waiting_reminders_are_listed_soonest_first_in_every_chat_and_no_one_elses() {
    let db = TestDb::new().await;
    add(&db, ALICE_KEY, "later", MIDNIGHT_MS + 2 * HOUR_MS).await;
    add(&db, ALICE_IN_GROUP, "sooner", MIDNIGHT_MS + HOUR_MS).await;
    add(&db, BOB_KEY, "bob's", MIDNIGHT_MS + HOUR_MS).await;

    let alices = db.store.pending_reminders(ALICE_KEY.user_id).await.unwrap();
    let in_private = db.store.reminders_of(ALICE_KEY).await.unwrap();

    assert_eq!(texts(&alices), ["sooner", "later"]);
    assert_eq!(alices[0].chat_id, ALICE_IN_GROUP.chat_id);
    assert_eq!(texts(&in_private), ["later"]);
}

#[tokio::test]
async fn the_limit_holds_for_adds_racing_each_other() {
    let db = TestDb::new().await;
    let adds = (0..20).map(|number| {
        let store = db.store.clone();
        async move {
            let text = format!("reminder {number}");
            let reminder = NewReminder {
                key: ALICE_KEY,
                text: &text,
                due_at_ms: MIDNIGHT_MS + HOUR_MS,
                created_at_ms: MIDNIGHT_MS,
            };
            store.add_reminder(&reminder, 5).await.unwrap()
        }
    });
    let outcomes = futures_util::future::join_all(adds).await;
    let added = outcomes
        .iter()
        .filter(|outcome| matches!(outcome, ReminderAdded::Added { .. }))
        .count();

    assert_eq!(added, 5);
    let pending = db.store.pending_reminders(ALICE_KEY.user_id).await.unwrap();
    assert_eq!(pending.len(), 5);
}

#[tokio::test]
async fn only_the_persons_own_waiting_reminder_can_be_cancelled() {
    let db = TestDb::new().await;
    let id = add(&db, ALICE_KEY, "call Anna", MIDNIGHT_MS + HOUR_MS).await;

    let by_bob = db.store.cancel_reminder(BOB_KEY.user_id, id).await.unwrap();
    let by_alice = db
        .store
        .cancel_reminder(ALICE_KEY.user_id, id)
        .await
        .unwrap();
    let again = db
        .store
        .cancel_reminder(ALICE_KEY.user_id, id)
        .await
        .unwrap();
    let claimed = db
        .store
        .claim_due_reminders("a", MIDNIGHT_MS + DAY_MS, 60_000, 10)
        .await
        .unwrap();

    assert!(!by_bob);
    assert!(by_alice);
    assert!(!again);
    assert!(claimed.is_empty(), "a cancelled reminder is never sent");
    let being_sent = add(&db, ALICE_KEY, "being sent", MIDNIGHT_MS).await;
    db.store
        .claim_due_reminders("a", MIDNIGHT_MS, 60_000, 10)
        .await
        .unwrap();
    assert!(
        !db.store
            .cancel_reminder(ALICE_KEY.user_id, being_sent)
            .await
            .unwrap(),
        "one being sent cannot be cancelled"
    );
}

#[tokio::test]
async fn only_due_reminders_are_claimed_and_a_claim_holds_until_its_lease_ends() {
    let db = TestDb::new().await;
    let due = add(&db, ALICE_KEY, "due", MIDNIGHT_MS).await;
    add(&db, BOB_KEY, "tomorrow", MIDNIGHT_MS + DAY_MS).await;
    let now = MIDNIGHT_MS + 1;

    let first = db
        .store
        .claim_due_reminders("a", now, 60_000, 10)
        .await
        .unwrap();
    let while_held = db
        .store
        .claim_due_reminders("b", now + 59_000, 60_000, 10)
        .await
        .unwrap();
    let lapsed = db
        .store
        .claim_due_reminders("b", now + 60_000, 60_000, 10)
        .await
        .unwrap();
    let late_sender = db
        .store
        .reminder_sent(due, "a", now + 61_000, 7)
        .await
        .unwrap();
    let taker = db
        .store
        .reminder_sent(due, "b", now + 61_000, 8)
        .await
        .unwrap();
    let next = db.store.next_reminder_due_ms().await.unwrap();

    assert_eq!(first.len(), 1);
    assert_eq!((first[0].id, first[0].attempts), (due, 1));
    assert_eq!(first[0].user_id, ALICE_KEY.user_id);
    assert!(while_held.is_empty());
    assert_eq!(lapsed.len(), 1);
    assert_eq!(lapsed[0].attempts, 2);
    assert!(
        !late_sender,
        "a claim taken over is not the first claimant's to mark"
    );
    assert!(taker);
    assert_eq!(next, Some(MIDNIGHT_MS + DAY_MS));
    let exported = db.store.reminders_of(ALICE_KEY).await.unwrap();
    assert_eq!(exported[0].state, "sent");
}

/// A sender renews its claim before each try to send: renewed in time, nobody else can claim
/// the reminder; once another claimant took it over, the first may not send it.
#[tokio::test]
async fn a_claim_renewed_before_a_send_holds_and_one_taken_over_cannot_be_renewed() {
    let db = TestDb::new().await;
    let first = add(&db, ALICE_KEY, "first", MIDNIGHT_MS).await;
    let second = add(&db, BOB_KEY, "second", MIDNIGHT_MS).await;
    let now = MIDNIGHT_MS + 1;
    let store = &db.store;
    let claimed = store
        .claim_due_reminders("a", now, 60_000, 10)
        .await
        .unwrap();

    // "a" sends the first one at once, then a flood wait outlasts the lease before the second.
    let first_renewed = store
        .renew_reminder_claim(first, "a", now + 1_000, 60_000)
        .await
        .unwrap();
    let taken_over = store
        .claim_due_reminders("b", now + 60_500, 60_000, 10)
        .await
        .unwrap();
    let second_renewed = store
        .renew_reminder_claim(second, "a", now + 90_000, 60_000)
        .await
        .unwrap();
    let first_still_held = store
        .renew_reminder_claim(first, "a", now + 90_000, 60_000)
        .await
        .unwrap();
    let cancelled = add(&db, ALICE_KEY, "cancelled", MIDNIGHT_MS + DAY_MS).await;
    store
        .cancel_reminder(ALICE_KEY.user_id, cancelled)
        .await
        .unwrap();
    let cancelled_renewed = store
        .renew_reminder_claim(cancelled, "a", now, 60_000)
        .await
        .unwrap();

    assert_eq!(claimed.len(), 2);
    assert!(first_renewed);
    let taken: Vec<i64> = taken_over.iter().map(|reminder| reminder.id).collect();
    assert_eq!(taken, [second], "the renewed claim held");
    assert!(!second_renewed, "taken over by b: a must not send it");
    assert!(first_still_held, "a lapsed claim nobody took is still a's");
    assert!(!cancelled_renewed);
}

#[tokio::test]
async fn a_reminder_not_sent_is_claimable_again_after_its_retry_time_or_given_up() {
    let db = TestDb::new().await;
    let retried = add(&db, ALICE_KEY, "retried", MIDNIGHT_MS).await;
    let given_up = add(&db, BOB_KEY, "given up", MIDNIGHT_MS).await;
    db.store
        .claim_due_reminders("a", MIDNIGHT_MS, 60_000, 10)
        .await
        .unwrap();

    db.store
        .reminder_not_sent(retried, "a", Some(MIDNIGHT_MS + HOUR_MS))
        .await
        .unwrap();
    db.store
        .reminder_not_sent(given_up, "a", None)
        .await
        .unwrap();
    let before = db
        .store
        .claim_due_reminders("a", MIDNIGHT_MS + HOUR_MS - 1, 60_000, 10)
        .await
        .unwrap();
    let next = db.store.next_reminder_due_ms().await.unwrap();
    let after = db
        .store
        .claim_due_reminders("a", MIDNIGHT_MS + HOUR_MS, 60_000, 10)
        .await
        .unwrap();

    assert!(before.is_empty());
    assert_eq!(next, Some(MIDNIGHT_MS + HOUR_MS));
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].id, retried);
    assert_eq!(
        after[0].due_at_ms, MIDNIGHT_MS,
        "its time stays, for the late mark"
    );
    let bobs = db.store.reminders_of(BOB_KEY).await.unwrap();
    assert_eq!(bobs[0].state, "failed");
}

#[tokio::test]
async fn claimants_racing_each_claim_every_due_reminder_exactly_once() {
    let db = TestDb::new().await;
    for number in 0..200 {
        add(&db, ALICE_KEY, &format!("r{number}"), MIDNIGHT_MS).await;
    }
    let claimants = (0..8).map(|claimant| {
        let store = db.store.clone();
        async move {
            let name = format!("replica-{}", claimant % 2);
            let mut claimed = Vec::new();
            loop {
                let batch = store
                    .claim_due_reminders(&name, MIDNIGHT_MS, 60_000, 7)
                    .await
                    .unwrap();
                if batch.is_empty() {
                    return claimed;
                }
                claimed.extend(batch.into_iter().map(|reminder| reminder.id));
            }
        }
    });
    let claimed: Vec<i64> = futures_util::future::join_all(claimants)
        .await
        .into_iter()
        .flatten()
        .collect();

    let mut times: HashMap<i64, usize> = HashMap::new();
    for id in &claimed {
        *times.entry(*id).or_default() += 1;
    }
    assert_eq!(times.len(), 200);
    assert!(times.values().all(|count| *count == 1), "claimed twice");
}

#[tokio::test]
async fn clear_takes_the_conversations_reminders_and_the_purge_only_finished_ones() {
    let db = TestDb::new().await;
    add(&db, ALICE_KEY, "private", MIDNIGHT_MS + DAY_MS).await;
    add(&db, ALICE_IN_GROUP, "group", MIDNIGHT_MS + DAY_MS).await;
    let sent = add(&db, BOB_KEY, "sent", MIDNIGHT_MS).await;
    add(&db, BOB_KEY, "waiting", MIDNIGHT_MS + 400 * DAY_MS).await;
    db.store
        .claim_due_reminders("a", MIDNIGHT_MS, 60_000, 10)
        .await
        .unwrap();
    db.store
        .reminder_sent(sent, "a", MIDNIGHT_MS, 1)
        .await
        .unwrap();

    let cleared = db.store.clear_conversation(ALICE_KEY).await.unwrap();
    let purged = db
        .store
        .purge_older_than(MIDNIGHT_MS + 100 * DAY_MS, 10)
        .await
        .unwrap();

    assert_eq!(cleared.reminders, 1);
    assert_eq!(
        texts(&db.store.pending_reminders(ALICE_KEY.user_id).await.unwrap()),
        ["group"]
    );
    assert_eq!(purged.reminders, 1);
    assert_eq!(
        texts(&db.store.reminders_of(BOB_KEY).await.unwrap()),
        ["waiting"]
    );
}

#[tokio::test]
async fn a_time_zone_is_set_read_back_in_the_turn_start_and_cleared() {
    let db = TestDb::new().await;
    let user = UserId(ALICE_KEY.user_id.0);
    let limits = telemem::storage::TurnStartLimits {
        summaries_since_ms: 0,
        summary_count: 3,
        history_since_ms: 0,
        history_max_messages: 10,
    };

    db.store
        .set_setting(
            user,
            telemem::storage::Setting::TimeZone,
            Some("Europe/Berlin"),
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    let settings = db.store.user_settings(user).await.unwrap().unwrap();
    let start = db.store.turn_start(ALICE_KEY, limits).await.unwrap();
    db.store
        .set_setting(user, telemem::storage::Setting::TimeZone, None, MIDNIGHT_MS)
        .await
        .unwrap();
    let cleared = db.store.turn_start(ALICE_KEY, limits).await.unwrap();

    assert_eq!(settings.time_zone.as_deref(), Some("Europe/Berlin"));
    assert_eq!(start.time_zone.as_deref(), Some("Europe/Berlin"));
    assert_eq!(cleared.time_zone, None);
}

crate::postgres_variants!(
    a_persons_waiting_reminders_are_listed_soonest_first_in_every_chat_and_no_one_elses,
    the_limit_holds_for_adds_racing_each_other,
    only_the_persons_own_waiting_reminder_can_be_cancelled,
    only_due_reminders_are_claimed_and_a_claim_holds_until_its_lease_ends,
    a_claim_renewed_before_a_send_holds_and_one_taken_over_cannot_be_renewed,
    a_reminder_not_sent_is_claimable_again_after_its_retry_time_or_given_up,
    claimants_racing_each_claim_every_due_reminder_exactly_once,
    clear_takes_the_conversations_reminders_and_the_purge_only_finished_ones,
    a_time_zone_is_set_read_back_in_the_turn_start_and_cleared,
);
