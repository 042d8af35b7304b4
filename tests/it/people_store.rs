//! Specifications of the store's per-person bookkeeping and the admins' decisions, on real SQLite
//! files: daily usage (counted as messages are stored, by whichever path stores them) and stored
//! bytes (kept by triggers), the trim of one person's oldest
//! sessions, access rules, token limits, alerts about strangers and the cap's notices; the
//! pictures and seconds of speech per day, and the voice setting.

use telemem::storage::{
    AccessRule, AccessRuleRecord, ChatId, ConversationKey, MediaUsed, NewMessage, NoteUpdate, Role,
    TokenLimitRecord, UserId,
};

use crate::support::database::{ALICE_KEY, BOB_KEY, TestDb, daily_usage_rows, message_in};
use crate::support::times::{DAY_MS, HOUR_MS, MIDNIGHT_MS};

/// Alice in a group: the same person as [`ALICE_KEY`], another chat.
const ALICE_IN_GROUP: ConversationKey = ConversationKey {
    chat_id: ChatId(-5),
    user_id: ALICE_KEY.user_id,
};

/// Stores a reply of `key` in `session_id` at `at_ms` that cost `tokens_in` and `tokens_out`.
async fn reply(db: &TestDb, key: ConversationKey, session_id: i64, at_ms: i64, tokens: (i64, i64)) {
    db.store
        .add_message(&NewMessage {
            role: Role::Assistant,
            created_at_ms: at_ms,
            tokens_in: tokens.0,
            tokens_out: tokens.1,
            ..message_in(key, session_id, "a reply")
        })
        .await
        .unwrap();
}

/// Alice's messages and replies over two days in two chats, and Bob's on the second day.
async fn two_days_of_use(db: &TestDb) {
    let private = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let group = db.session(ALICE_IN_GROUP, MIDNIGHT_MS).await;
    let bob = db.session(BOB_KEY, MIDNIGHT_MS).await;
    db.message(
        ALICE_KEY,
        private,
        Role::User,
        "hello",
        MIDNIGHT_MS + HOUR_MS,
    )
    .await;
    reply(db, ALICE_KEY, private, MIDNIGHT_MS + HOUR_MS, (100, 20)).await;
    reply(
        db,
        ALICE_IN_GROUP,
        group,
        MIDNIGHT_MS + 2 * HOUR_MS,
        (30, 5),
    )
    .await;
    reply(
        db,
        ALICE_KEY,
        private,
        MIDNIGHT_MS + DAY_MS + HOUR_MS,
        (7, 0),
    )
    .await;
    db.message(BOB_KEY, bob, Role::User, "hi", MIDNIGHT_MS + DAY_MS)
        .await;
    reply(db, BOB_KEY, bob, MIDNIGHT_MS + DAY_MS, (1, 1)).await;
}

#[tokio::test]
async fn daily_usage_counts_a_persons_messages_and_tokens_per_utc_day_in_all_chats() {
    let db = TestDb::new().await;
    two_days_of_use(&db).await;

    let alice = ALICE_KEY.user_id;
    let first_day = db.store.tokens_and_limit(alice, MIDNIGHT_MS).await.unwrap();
    assert_eq!((first_day.tokens_used, first_day.own_limit), (155, None));
    let today = MIDNIGHT_MS + DAY_MS;
    let usage = db
        .store
        .usage_by_person(MIDNIGHT_MS, today, None)
        .await
        .unwrap();
    let rows: Vec<(UserId, i64, i64, i64)> = usage
        .iter()
        .map(|person| {
            (
                person.user_id,
                person.messages,
                person.tokens,
                person.tokens_today,
            )
        })
        .collect();
    assert_eq!(rows, [(alice, 1, 162, 7), (BOB_KEY.user_id, 1, 2, 2)]);
    let only_bob = db
        .store
        .usage_by_person(MIDNIGHT_MS, today, Some(BOB_KEY.user_id))
        .await
        .unwrap();
    assert_eq!(only_bob.len(), 1);
    assert_eq!(only_bob[0].user_id, BOB_KEY.user_id);
}

/// What one write of a turn stores.
#[derive(Clone, Copy)]
enum Sent {
    /// The person's message, carried by this Telegram message.
    Message(i64),
    /// A reply that cost these tokens, in and out.
    Reply(i64, i64),
}

/// What `sent` stores in `key`'s conversation, session `session_id`, at `at_ms`.
fn turn_message(
    key: ConversationKey,
    session_id: i64,
    at_ms: i64,
    sent: Sent,
) -> NewMessage<'static> {
    let (role, telegram_message_id, tokens_in, tokens_out) = match sent {
        Sent::Message(telegram_message_id) => (Role::User, Some(telegram_message_id), 0, 0),
        Sent::Reply(tokens_in, tokens_out) => (Role::Assistant, None, tokens_in, tokens_out),
    };
    NewMessage {
        role,
        created_at_ms: at_ms,
        tokens_in,
        tokens_out,
        telegram_message_id,
        ..message_in(key, session_id, "a message of a turn")
    }
}

#[tokio::test]
async fn daily_usage_of_a_combined_round_counts_each_stored_message_once_by_person_and_day() {
    let db = TestDb::new().await;
    let private = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let group = db.session(ALICE_IN_GROUP, MIDNIGHT_MS).await;
    let bob = db.session(BOB_KEY, MIDNIGHT_MS).await;
    let next_day = MIDNIGHT_MS + DAY_MS;
    // Stored in a round of its own, then handed over again (an update handled again after a
    // crash).
    let seen_before = turn_message(ALICE_KEY, private, MIDNIGHT_MS + HOUR_MS, Sent::Message(7));
    db.store.add_user_message_once(&seen_before).await.unwrap();
    // Alice on two days in two chats, Bob on the second day, and two repeats: the message stored
    // before, and one the round itself holds twice.
    let round = [
        turn_message(
            ALICE_KEY,
            private,
            MIDNIGHT_MS + 2 * HOUR_MS,
            Sent::Message(8),
        ),
        seen_before.clone(),
        turn_message(
            ALICE_KEY,
            private,
            MIDNIGHT_MS + 2 * HOUR_MS,
            Sent::Reply(100, 20),
        ),
        turn_message(
            ALICE_IN_GROUP,
            group,
            MIDNIGHT_MS + 3 * HOUR_MS,
            Sent::Message(9),
        ),
        turn_message(
            ALICE_IN_GROUP,
            group,
            MIDNIGHT_MS + 3 * HOUR_MS,
            Sent::Reply(30, 5),
        ),
        turn_message(ALICE_KEY, private, next_day + HOUR_MS, Sent::Message(10)),
        turn_message(BOB_KEY, bob, next_day + 2 * HOUR_MS, Sent::Message(8)),
        turn_message(ALICE_KEY, private, next_day + HOUR_MS, Sent::Message(10)),
        turn_message(ALICE_KEY, private, next_day + HOUR_MS, Sent::Reply(7, 0)),
        turn_message(BOB_KEY, bob, next_day + 2 * HOUR_MS, Sent::Reply(1, 1)),
    ];

    // All handed over before the store's task runs: one round.
    let outcomes = futures_util::future::join_all(round.iter().map(|message| async {
        match message.role {
            Role::User => db.store.add_user_message_once(message).await,
            _ => db.store.add_reply(message, None).await.map(|id| (id, true)),
        }
    }))
    .await;

    let stored: Vec<bool> = outcomes
        .iter()
        .map(|outcome| outcome.as_ref().unwrap().1)
        .collect();
    let repeats: Vec<usize> = (0..stored.len()).filter(|&index| !stored[index]).collect();
    // Which of the two copies in the round is stored first is PostgreSQL's choice.
    assert!(matches!(repeats[..], [1, 5] | [1, 7]), "{repeats:?}");
    let (alice, bob) = (ALICE_KEY.user_id.0, BOB_KEY.user_id.0);
    assert_eq!(
        daily_usage_rows(&db.url).await,
        [
            (alice, MIDNIGHT_MS, 3, 155),
            (alice, next_day, 1, 7),
            (bob, next_day, 1, 2),
        ]
    );
}

#[tokio::test]
async fn daily_usage_of_a_round_written_write_by_write_counts_the_writes_stored_alone() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    // The first write's session does not exist: the round is written again write by write.
    let orphan = turn_message(ALICE_KEY, 999_999, MIDNIGHT_MS, Sent::Message(1));
    let beside = turn_message(ALICE_KEY, session, MIDNIGHT_MS, Sent::Message(2));
    let reply = turn_message(ALICE_KEY, session, MIDNIGHT_MS, Sent::Reply(40, 2));

    let (orphan, beside, reply) = tokio::join!(
        db.store.add_user_message_once(&orphan),
        db.store.add_user_message_once(&beside),
        db.store.add_reply(&reply, None),
    );

    assert!(orphan.is_err(), "{orphan:?}");
    assert!(beside.unwrap().1);
    reply.unwrap();
    let alice = ALICE_KEY.user_id.0;
    assert_eq!(
        daily_usage_rows(&db.url).await,
        [(alice, MIDNIGHT_MS, 1, 42)]
    );
}

#[tokio::test]
async fn daily_usage_counts_a_message_stored_alone_and_a_reply_stored_in_place_of_others() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    db.message(ALICE_KEY, session, Role::User, "hello", MIDNIGHT_MS)
        .await;
    reply(&db, ALICE_KEY, session, MIDNIGHT_MS, (100, 20)).await;
    let replaced = db.store.all_messages(ALICE_KEY).await.unwrap()[1].id;
    let next_day = MIDNIGHT_MS + DAY_MS;
    // A retry's answer carries the replaced answer's tokens too, as `finish_retry` stores it.
    let retried = turn_message(ALICE_KEY, session, next_day, Sent::Reply(150, 30));

    db.store
        .replace_replies(&[replaced], &retried, None)
        .await
        .unwrap();

    let alice = ALICE_KEY.user_id.0;
    assert_eq!(
        daily_usage_rows(&db.url).await,
        [(alice, MIDNIGHT_MS, 1, 120), (alice, next_day, 0, 180)],
        "what a reply cost stays counted when the reply is replaced"
    );
}

#[tokio::test]
async fn daily_usage_outlives_clear() {
    let db = TestDb::new().await;
    two_days_of_use(&db).await;
    let alice = ALICE_KEY.user_id;

    db.store.clear_conversation(ALICE_KEY).await.unwrap();

    let after_clear = db.store.tokens_and_limit(alice, MIDNIGHT_MS).await.unwrap();
    assert_eq!(after_clear.tokens_used, 155, "/clear gives no tokens back");
}

#[tokio::test]
async fn the_purge_deletes_usage_days_before_the_cutoffs_day_and_never_today() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    reply(&db, ALICE_KEY, session, MIDNIGHT_MS + HOUR_MS, (10, 0)).await;
    reply(&db, ALICE_KEY, session, MIDNIGHT_MS + 2 * DAY_MS, (20, 0)).await;
    // The cutoff falls on the last day, an hour into it.
    let cutoff = MIDNIGHT_MS + 2 * DAY_MS + HOUR_MS;

    let would = db.store.count_purgeable(cutoff).await.unwrap();
    let purged = db.store.purge_older_than(cutoff, 1).await.unwrap();

    assert_eq!((would.usage_days, purged.usage_days), (1, 1));
    let alice = ALICE_KEY.user_id;
    let first = db.store.tokens_and_limit(alice, MIDNIGHT_MS).await.unwrap();
    let last = db
        .store
        .tokens_and_limit(alice, MIDNIGHT_MS + 2 * DAY_MS)
        .await
        .unwrap();
    assert_eq!((first.tokens_used, last.tokens_used), (0, 20));
}

#[tokio::test]
async fn stored_bytes_follow_every_write_of_messages_and_summaries_and_notes_in_utf8() {
    let db = TestDb::new().await;
    let alice = ALICE_KEY.user_id;
    let bytes = |db: &TestDb| {
        let store = db.store.clone();
        async move { store.stored_bytes(alice).await.unwrap().bytes }
    };
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let bob = db.session(BOB_KEY, MIDNIGHT_MS).await;
    db.message(ALICE_KEY, session, Role::User, "héllo", MIDNIGHT_MS)
        .await;
    db.message(BOB_KEY, bob, Role::User, "Bob's words", MIDNIGHT_MS)
        .await;
    assert_eq!(bytes(&db).await, 6, "é is two bytes");
    db.store
        .add_summary(session, ALICE_KEY, "ab", MIDNIGHT_MS)
        .await
        .unwrap();
    db.store
        .replace_notes(
            ALICE_KEY,
            &[NoteUpdate::new("ñ")],
            session,
            MIDNIGHT_MS,
            MIDNIGHT_MS,
        )
        .await
        .unwrap();
    assert_eq!(bytes(&db).await, 10);
    db.store
        .add_summary(session, ALICE_KEY, "abcd", MIDNIGHT_MS + 1)
        .await
        .unwrap();
    assert_eq!(bytes(&db).await, 12, "a rewritten summary counts once, new");
    db.store
        .replace_notes(ALICE_KEY, &[], session, MIDNIGHT_MS, MIDNIGHT_MS + 2)
        .await
        .unwrap();
    assert_eq!(bytes(&db).await, 10);
    let bob_bytes = db.store.stored_bytes(BOB_KEY.user_id).await.unwrap().bytes;
    assert_eq!(bob_bytes, "Bob's words".len() as i64);
}

#[tokio::test]
async fn stored_bytes_of_a_cleared_conversation_are_given_back_and_nobody_elses() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let bob = db.session(BOB_KEY, MIDNIGHT_MS).await;
    db.message(ALICE_KEY, session, Role::User, "héllo", MIDNIGHT_MS)
        .await;
    db.message(BOB_KEY, bob, Role::User, "Bob's words", MIDNIGHT_MS)
        .await;
    db.store
        .add_summary(session, ALICE_KEY, "ab", MIDNIGHT_MS)
        .await
        .unwrap();
    db.store
        .replace_notes(
            ALICE_KEY,
            &[NoteUpdate::new("ñ")],
            session,
            MIDNIGHT_MS,
            MIDNIGHT_MS,
        )
        .await
        .unwrap();

    db.store.clear_conversation(ALICE_KEY).await.unwrap();

    let alice_bytes = db
        .store
        .stored_bytes(ALICE_KEY.user_id)
        .await
        .unwrap()
        .bytes;
    assert_eq!(alice_bytes, 0);
    let bob_bytes = db.store.stored_bytes(BOB_KEY.user_id).await.unwrap().bytes;
    assert_eq!(bob_bytes, "Bob's words".len() as i64);
}

/// A session of `key` from `at_ms` holding two messages of 50 bytes; closed unless `open`.
async fn session_of_100_bytes(db: &TestDb, key: ConversationKey, at_ms: i64, open: bool) -> i64 {
    let session = db.session(key, at_ms).await;
    for offset in [1, 2] {
        db.message(key, session, Role::User, &"y".repeat(50), at_ms + offset)
            .await;
    }
    if !open {
        db.store.close_session(key, at_ms + 3).await.unwrap();
    }
    session
}

#[tokio::test]
async fn trimming_one_person_deletes_their_oldest_closed_sessions_in_all_chats_until_under_the_cap()
{
    let db = TestDb::new().await;
    let hour = |n: i64| MIDNIGHT_MS + n * HOUR_MS;
    let bob = session_of_100_bytes(&db, BOB_KEY, hour(0), false).await;
    let oldest = session_of_100_bytes(&db, ALICE_KEY, hour(2), false).await;
    let in_group = session_of_100_bytes(&db, ALICE_IN_GROUP, hour(3), false).await;
    let newest = session_of_100_bytes(&db, ALICE_KEY, hour(4), false).await;
    // Opened last (starting a session closes the open one), though its activity is older.
    let open = session_of_100_bytes(&db, ALICE_IN_GROUP, hour(1), true).await;
    db.store
        .add_summary(oldest, ALICE_KEY, "gone with it", hour(5))
        .await
        .unwrap();
    let remaining = |session| {
        let store = db.store.clone();
        async move { store.session_messages(session).await.unwrap().len() }
    };

    let counts = db
        .store
        .purge_oldest_sessions_of(ALICE_KEY.user_id, 250, 1)
        .await
        .unwrap();

    assert_eq!(
        (counts.sessions, counts.messages, counts.summaries),
        (2, 4, 1)
    );
    assert_eq!((remaining(oldest).await, remaining(in_group).await), (0, 0));
    assert_eq!((remaining(newest).await, remaining(open).await), (2, 2));
    assert_eq!(remaining(bob).await, 2, "nobody else's sessions");
    let alice = db.store.stored_bytes(ALICE_KEY.user_id).await.unwrap();
    assert_eq!(alice.bytes, 200);

    let nothing_closed_left = db
        .store
        .purge_oldest_sessions_of(ALICE_KEY.user_id, 0, 1)
        .await
        .unwrap();
    assert_eq!(nothing_closed_left.sessions, 1);
    assert_eq!(remaining(open).await, 2, "an open session is never trimmed");
}

#[tokio::test]
async fn access_rules_replace_each_other_and_are_deleted_by_person() {
    let db = TestDb::new().await;
    let rule = |rule, changed_by| AccessRuleRecord {
        user_id: UserId(7),
        rule,
        changed_by: UserId(changed_by),
        changed_at_ms: MIDNIGHT_MS,
    };
    db.store
        .set_access_rule(&rule(AccessRule::Allow, 1))
        .await
        .unwrap();
    db.store
        .set_access_rule(&rule(AccessRule::Block, 2))
        .await
        .unwrap();

    assert_eq!(
        db.store.access_rules().await.unwrap(),
        [rule(AccessRule::Block, 2)]
    );
    assert!(db.store.delete_access_rule(UserId(7)).await.unwrap());
    assert!(!db.store.delete_access_rule(UserId(7)).await.unwrap());
    assert!(db.store.access_rules().await.unwrap().is_empty());
}

#[tokio::test]
async fn a_token_limit_of_ones_own_is_a_number_or_none_and_its_deletion_restores_the_default() {
    let db = TestDb::new().await;
    let alice = ALICE_KEY.user_id;
    let limit = |daily_tokens| TokenLimitRecord {
        user_id: alice,
        daily_tokens,
        set_by: UserId(1),
        set_at_ms: MIDNIGHT_MS,
    };
    let own_limit = || {
        let store = db.store.clone();
        async move {
            let row = store.tokens_and_limit(alice, MIDNIGHT_MS).await.unwrap();
            row.own_limit
        }
    };
    assert_eq!(own_limit().await, None);

    db.store.set_token_limit(&limit(Some(500))).await.unwrap();
    assert_eq!(own_limit().await, Some(Some(500)));
    assert_eq!(
        db.store.token_limit(alice).await.unwrap(),
        Some(limit(Some(500)))
    );
    db.store.set_token_limit(&limit(None)).await.unwrap();
    assert_eq!(own_limit().await, Some(None), "no limit at all");
    assert!(db.store.delete_token_limit(alice).await.unwrap());
    assert_eq!(own_limit().await, None);
}

#[tokio::test]
async fn a_stranger_alert_and_a_cap_notice_are_recorded_once_until_the_notice_is_forgotten() {
    let db = TestDb::new().await;
    assert!(
        db.store
            .record_stranger_alert(UserId(9), MIDNIGHT_MS)
            .await
            .unwrap()
    );
    assert!(
        !db.store
            .record_stranger_alert(UserId(9), MIDNIGHT_MS + 1)
            .await
            .unwrap()
    );

    let alice = ALICE_KEY.user_id;
    assert!(!db.store.stored_bytes(alice).await.unwrap().told);
    assert!(
        db.store
            .record_stored_bytes_notice(alice, MIDNIGHT_MS)
            .await
            .unwrap()
    );
    assert!(
        !db.store
            .record_stored_bytes_notice(alice, MIDNIGHT_MS)
            .await
            .unwrap()
    );
    assert!(db.store.stored_bytes(alice).await.unwrap().told);
    db.store.forget_stored_bytes_notice(alice).await.unwrap();
    assert!(!db.store.stored_bytes(alice).await.unwrap().told);
    assert!(
        db.store
            .record_stored_bytes_notice(alice, MIDNIGHT_MS)
            .await
            .unwrap()
    );
}

#[tokio::test]
async fn merging_two_notes_by_hand_leaves_the_stored_bytes_of_one() {
    let db = TestDb::new().await;
    let session = db.session(ALICE_KEY, MIDNIGHT_MS).await;
    let notes = [NoteUpdate::new("ab"), NoteUpdate::new("cdef")];
    db.store
        .replace_notes(ALICE_KEY, &notes, session, MIDNIGHT_MS, MIDNIGHT_MS)
        .await
        .unwrap();
    let first = db.store.notes(ALICE_KEY).await.unwrap()[0].id;

    let merged = db
        .store
        .replace_note_by_hand(ALICE_KEY, first, "cdef", MIDNIGHT_MS + 1)
        .await
        .unwrap();

    assert!(merged);
    let notes = db.store.notes(ALICE_KEY).await.unwrap();
    assert_eq!(notes.len(), 1);
    let bytes = db
        .store
        .stored_bytes(ALICE_KEY.user_id)
        .await
        .unwrap()
        .bytes;
    // The note changed from "ab": that earlier value is the person's data too.
    let earlier = serde_json::to_string(&notes[0].earlier).unwrap();
    assert!(earlier.contains("\"ab\""), "{earlier}");
    assert_eq!(
        bytes,
        4 + earlier.len() as i64,
        "one note of four bytes and what it said before"
    );
}

crate::postgres_variants!(
    daily_usage_counts_a_persons_messages_and_tokens_per_utc_day_in_all_chats,
    daily_usage_of_a_combined_round_counts_each_stored_message_once_by_person_and_day,
    daily_usage_counts_a_message_stored_alone_and_a_reply_stored_in_place_of_others,
    stored_bytes_follow_every_write_of_messages_and_summaries_and_notes_in_utf8,
    access_rules_replace_each_other_and_are_deleted_by_person,
    a_token_limit_of_ones_own_is_a_number_or_none_and_its_deletion_restores_the_default,
    a_stranger_alert_and_a_cap_notice_are_recorded_once_until_the_notice_is_forgotten,
    merging_two_notes_by_hand_leaves_the_stored_bytes_of_one,
    daily_usage_outlives_clear,
    the_purge_deletes_usage_days_before_the_cutoffs_day_and_never_today,
    stored_bytes_of_a_cleared_conversation_are_given_back_and_nobody_elses,
    trimming_one_person_deletes_their_oldest_closed_sessions_in_all_chats_until_under_the_cap,
    pictures_and_speech_are_counted_per_person_and_day_beside_their_messages_and_tokens,
    the_voice_setting_is_stored_per_person_and_forgotten_with_their_settings,
);

#[tokio::test]
async fn pictures_and_speech_are_counted_per_person_and_day_beside_their_messages_and_tokens() {
    let db = TestDb::new().await;
    two_days_of_use(&db).await;
    let alice = ALICE_KEY.user_id;
    let count = |images, speech_seconds| MediaUsed {
        images,
        speech_seconds,
    };
    let today = MIDNIGHT_MS + DAY_MS;

    db.store
        .count_media_use(alice, today, count(1, 0))
        .await
        .unwrap();
    db.store
        .count_media_use(alice, today, count(0, 7))
        .await
        .unwrap();
    db.store
        .count_media_use(alice, today, count(2, 5))
        .await
        .unwrap();
    db.store
        .count_media_use(BOB_KEY.user_id, MIDNIGHT_MS, count(1, 1))
        .await
        .unwrap();

    assert_eq!(
        db.store.media_used(alice, today).await.unwrap(),
        count(3, 12)
    );
    assert_eq!(
        db.store.media_used(alice, MIDNIGHT_MS).await.unwrap(),
        count(0, 0)
    );
    let nobody = UserId(999);
    assert_eq!(
        db.store.media_used(nobody, today).await.unwrap(),
        count(0, 0)
    );
    let usage = db
        .store
        .usage_by_person(MIDNIGHT_MS, today, Some(alice))
        .await
        .unwrap();
    assert_eq!((usage[0].images, usage[0].speech_seconds), (3, 12));
    // The messages and tokens of the same day are untouched by the media counts.
    let before = daily_usage_rows(&db.url).await;
    db.store
        .count_media_use(alice, today, count(1, 1))
        .await
        .unwrap();
    let after = daily_usage_rows(&db.url).await;
    assert_eq!(before, after);
}

#[tokio::test]
async fn the_voice_setting_is_stored_per_person_and_forgotten_with_their_settings() {
    let db = TestDb::new().await;
    let alice = ALICE_KEY.user_id;
    assert_eq!(db.store.voice_replies(alice).await.unwrap(), None);

    db.store
        .set_voice_replies(alice, Some("on"), MIDNIGHT_MS)
        .await
        .unwrap();
    db.store
        .set_voice_replies(BOB_KEY.user_id, Some("off"), MIDNIGHT_MS)
        .await
        .unwrap();
    db.store
        .set_voice_replies(alice, Some("auto"), MIDNIGHT_MS + HOUR_MS)
        .await
        .unwrap();

    assert_eq!(
        db.store.voice_replies(alice).await.unwrap().as_deref(),
        Some("auto")
    );
    assert_eq!(
        db.store
            .voice_replies(BOB_KEY.user_id)
            .await
            .unwrap()
            .as_deref(),
        Some("off")
    );
    db.store.clear_user_settings(alice).await.unwrap();
    assert_eq!(db.store.voice_replies(alice).await.unwrap(), None);
}
