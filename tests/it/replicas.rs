//! Specifications of replicas: several `telemem run` in webhook mode share one PostgreSQL
//! database behind a balancer that may deliver an update to more than one of them. Each message
//! is answered exactly once, even when a replica is killed with SIGKILL in the middle of the load:
//! another replica takes over what it left once its lease lapses. (SQLite has one process per
//! file: these run on PostgreSQL only.)

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::support::bot_harness::WEBHOOK_SECRET;
use crate::support::bot_process::{BotProcess, Surroundings, free_port};
use crate::support::database::on_postgres;
use crate::support::fake_llm::question_in;
use crate::support::fake_telegram::called;
use crate::support::waiting::{PATIENCE, eventually};

/// People writing at once, and messages each.
const PEOPLE: i64 = 8;
const ROUNDS: usize = 6;

/// The round after which the first replica is killed.
const KILLED_AFTER_ROUND: usize = 2;

fn answer_to(question: &str) -> String {
    format!("reply to: {question}")
}

/// One replica in webhook mode on its own port, with `extra_env` on top; with its webhook's URL.
fn spawn_replica_with(around: &Surroundings, extra_env: &[(&str, &str)]) -> (BotProcess, String) {
    let http_addr = format!("127.0.0.1:{}", free_port());
    let hook = format!("http://{http_addr}/telegram/hook");
    let mut env = vec![
        ("HTTP_ADDR", http_addr.as_str()),
        ("TELEGRAM_WEBHOOK_URL", hook.as_str()),
        ("TELEGRAM_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("REPLICA_LEASE_SECS", "2"),
    ];
    env.extend_from_slice(extra_env);
    let bot = around.spawn_bot(&env);
    (bot, hook)
}

/// A runtime of its own for each test: the replicas run beside it as processes.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Waits until both replicas registered their webhook, so are taking updates.
async fn both_started(around: &Surroundings) {
    let registered = |calls: &[crate::support::fake_telegram::Call]| {
        calls
            .iter()
            .filter(|call| call.method == "setWebhook")
            .count()
            >= 2
    };
    around.telegram.wait_for(registered, PATIENCE).await;
}

/// Posts `update` to every webhook in `hooks` at once, as a balancer that retries elsewhere
/// would; a replica that is down simply does not answer.
async fn deliver_to_all(hooks: &[&str], update: &serde_json::Value) {
    let client = reqwest::Client::new();
    let posts = hooks.iter().map(|hook| {
        let post = client
            .post(*hook)
            .header("X-Telegram-Bot-Api-Secret-Token", WEBHOOK_SECRET)
            .timeout(Duration::from_secs(5))
            .json(update)
            .send();
        async move {
            let _ = post.await;
        }
    });
    futures_util::future::join_all(posts).await;
}

fn two_replicas_answer_each_message_once_though_one_is_killed_mid_load() {
    runtime().block_on(async {
        let around = Surroundings::start().await;
        around
            .llm
            .set_responder(Arc::new(|body| answer_to(&question_in(body))));
        around.llm.set_default_delay(Duration::from_millis(300));
        // Each person sends a question a round, faster than they are answered: more wait at once
        // than USER_MAX_PENDING allows, a limit that holds across replicas and is not what this
        // test is about.
        let unlimited = [("USER_MAX_PENDING", "0")];
        let (mut first, first_hook) = spawn_replica_with(&around, &unlimited);
        let (second, second_hook) = spawn_replica_with(&around, &unlimited);
        both_started(&around).await;

        let mut asked: BTreeMap<i64, Vec<String>> = BTreeMap::new();
        for round in 0..ROUNDS {
            for person in 1..=PEOPLE {
                let chat = 1_000 + person;
                let question = format!("question {round} from person {person}");
                around.telegram.send_text(chat, chat, &question);
                asked.entry(chat).or_default().push(question);
            }
            let updates = around.telegram.take_pending_updates();
            if round == KILLED_AFTER_ROUND {
                // The first replica takes this round in alone (the second sees each update
                // again and drops it), and dies while answering it.
                for update in &updates {
                    deliver_to_all(&[&first_hook], update).await;
                }
                for update in &updates {
                    deliver_to_all(&[&second_hook], update).await;
                }
                first.signal("KILL");
                first.wait_for_exit().await;
            } else {
                for update in &updates {
                    deliver_to_all(&[&first_hook, &second_hook], update).await;
                }
            }
        }

        let all_answered = || async {
            asked.iter().all(|(chat, questions)| {
                around.telegram.sent_messages(*chat).len() >= questions.len()
            })
        };
        assert!(
            eventually(all_answered, PATIENCE * 2).await,
            "not every message was answered; the survivor logged:\n{}",
            second.logs()
        );
        // Longer than a lease and a look: an answer sent twice would have come by now.
        tokio::time::sleep(Duration::from_secs(4)).await;
        for (chat, questions) in &asked {
            let mut shown = around.telegram.sent_messages(*chat);
            let mut expected: Vec<String> = questions
                .iter()
                .map(|question| answer_to(question))
                .collect();
            shown.sort();
            expected.sort();
            assert_eq!(shown, expected, "chat {chat}");
        }
        assert!(
            second
                .logs()
                .contains("took over updates another replica left unfinished"),
            "{}",
            second.logs()
        );
        assert!(called(&around.telegram.calls(), "sendMessage"));
    });
}

#[test]
fn on_postgres_two_replicas_answer_each_message_once_though_one_is_killed_mid_load() {
    on_postgres(two_replicas_answer_each_message_once_though_one_is_killed_mid_load);
}

/// Reminders claimed together, the first send held up by a flood wait longer than the claim's
/// lease: the other replica takes the rest over, and each reminder reaches the person once.
fn a_reminder_batch_whose_sending_outlasts_its_lease_is_sent_once_each() {
    const ALICE: i64 = 111;
    const TEXTS: [&str; 3] = ["water the ficus", "call the bank", "buy stamps"];
    runtime().block_on(async {
        let around = Surroundings::start().await;
        let check = [("REMINDERS_CHECK_SECS", "1")];
        let (first, _) = spawn_replica_with(&around, &check);
        let (second, _) = spawn_replica_with(&around, &check);
        both_started(&around).await;
        around.telegram.fail_next(
            "sendMessage",
            crate::support::fake_telegram::Fault::TooManyRequests { retry_after: 5 },
        );
        let store = around.store().await;
        let now_ms = chrono::Utc::now().timestamp_millis();
        for text in TEXTS {
            let reminder = telemem::storage::NewReminder {
                key: telemem::storage::ConversationKey::new(
                    telemem::storage::ChatId(ALICE),
                    telemem::storage::UserId(ALICE),
                ),
                text,
                due_at_ms: now_ms - 1_000,
                created_at_ms: now_ms - 60_000,
            };
            store.add_reminder(&reminder, 50).await.unwrap();
        }

        let all_sent = eventually(
            || async {
                let sent = around.telegram.sent_messages(ALICE);
                TEXTS
                    .iter()
                    .all(|text| sent.iter().any(|message| message.contains(text)))
            },
            PATIENCE,
        )
        .await;
        // Past the flood wait and another lease: a second copy would have come by now.
        tokio::time::sleep(Duration::from_secs(8)).await;
        let sent = around.telegram.sent_messages(ALICE);

        assert!(all_sent, "{sent:?}\n{}\n{}", first.logs(), second.logs());
        for text in TEXTS {
            let copies = sent.iter().filter(|message| message.contains(text)).count();
            assert_eq!(
                copies,
                1,
                "{text}: {sent:?}\n{}\n{}",
                first.logs(),
                second.logs()
            );
        }
        assert!(
            format!("{}{}", first.logs(), second.logs()).contains("Telegram flood control"),
            "a send was held up by the flood wait"
        );
    });
}

#[test]
fn on_postgres_a_reminder_batch_whose_sending_outlasts_its_lease_is_sent_once_each() {
    on_postgres(a_reminder_batch_whose_sending_outlasts_its_lease_is_sent_once_each);
}

/// An admin's decisions made through one replica count on the other from the person's next
/// message, a second later, without a restart: a daily limit, then a block. Neither message
/// reaches the model.
fn an_admins_limit_and_block_through_one_replica_hold_on_the_other_within_a_second() {
    const ADMIN: i64 = 7;
    const ALICE: i64 = 111;
    runtime().block_on(async {
        let around = Surroundings::start().await;
        around
            .llm
            .set_responder(Arc::new(|body| answer_to(&question_in(body))));
        let admins = [("ADMIN_USERS", "7")];
        let (first, first_hook) = spawn_replica_with(&around, &admins);
        let (second, second_hook) = spawn_replica_with(&around, &admins);
        let telegram = &around.telegram;
        both_started(&around).await;
        // Each message goes to one replica only.
        let send = |chat: i64, text: &str, hook: &str| {
            telegram.send_text(chat, chat, text);
            let updates = telegram.take_pending_updates();
            let hook = hook.to_owned();
            async move {
                for update in &updates {
                    deliver_to_all(&[&hook], update).await;
                }
            }
        };
        let replies_to = |chat: i64, count: usize| async move {
            eventually(
                || async { telegram.sent_messages(chat).len() >= count },
                PATIENCE,
            )
            .await
        };

        send(ALICE, "first question", &second_hook).await;
        assert!(replies_to(ALICE, 1).await, "{}", second.logs());
        send(ADMIN, &format!("/limit {ALICE} 1"), &first_hook).await;
        assert!(replies_to(ADMIN, 1).await, "{}", first.logs());
        tokio::time::sleep(Duration::from_secs(1)).await;
        send(ALICE, "second question", &second_hook).await;
        assert!(replies_to(ALICE, 2).await, "{}", second.logs());
        let after_limit = around.llm.requests().len();
        send(ADMIN, &format!("/limit {ALICE} off"), &first_hook).await;
        send(ADMIN, &format!("/block {ALICE}"), &first_hook).await;
        assert!(replies_to(ADMIN, 3).await, "{}", first.logs());
        tokio::time::sleep(Duration::from_secs(1)).await;
        send(ALICE, "third question", &second_hook).await;
        // A blocked person may get a refusal or nothing; give a reply time to come.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let model_calls = around.llm.requests().len();
        let alice_saw = telegram.sent_messages(ALICE);

        assert_eq!(alice_saw[0], answer_to("first question"));
        assert_ne!(
            alice_saw[1],
            answer_to("second question"),
            "the limit held: {alice_saw:?}"
        );
        assert!(
            !alice_saw
                .iter()
                .any(|text| text == &answer_to("third question")),
            "the block held: {alice_saw:?}"
        );
        assert_eq!(after_limit, 1, "the limited message reached no model");
        assert_eq!(model_calls, 1, "the blocked message reached no model");
    });
}

#[test]
fn on_postgres_an_admins_limit_and_block_through_one_replica_hold_on_the_other_within_a_second() {
    on_postgres(an_admins_limit_and_block_through_one_replica_hold_on_the_other_within_a_second);
}

/// A person's messages spread over two replicas count against one per-minute limit: what the
/// other replica took in counts on each.
fn the_per_minute_limit_holds_for_a_person_whose_messages_reach_both_replicas() {
    const ALICE: i64 = 111;
    const PER_MINUTE: usize = 4;
    runtime().block_on(async {
        let around = Surroundings::start().await;
        around
            .llm
            .set_responder(Arc::new(|body| answer_to(&question_in(body))));
        let per_minute = PER_MINUTE.to_string();
        let limits = [
            ("USER_MESSAGES_PER_MINUTE", per_minute.as_str()),
            ("USER_MAX_PENDING", "50"),
        ];
        let (first, first_hook) = spawn_replica_with(&around, &limits);
        let (second, second_hook) = spawn_replica_with(&around, &limits);
        let telegram = &around.telegram;
        both_started(&around).await;

        for round in 0..2 * PER_MINUTE {
            telegram.send_text(ALICE, ALICE, &format!("question {round}"));
            let hook = if round % 2 == 0 {
                &first_hook
            } else {
                &second_hook
            };
            for update in telegram.take_pending_updates() {
                deliver_to_all(&[hook], &update).await;
            }
        }
        let some_refused = eventually(
            || async { telegram.sent_messages(ALICE).len() > PER_MINUTE },
            PATIENCE,
        )
        .await;
        // Time for any answer still on its way.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let answers = telegram
            .sent_messages(ALICE)
            .iter()
            .filter(|text| text.starts_with("reply to: question"))
            .count();
        let model_calls = around.llm.requests().len();

        assert!(some_refused, "{}\n{}", first.logs(), second.logs());
        assert_eq!(answers, PER_MINUTE, "{:?}", telegram.sent_messages(ALICE));
        assert_eq!(model_calls, PER_MINUTE);
    });
}

#[test]
fn on_postgres_the_per_minute_limit_holds_for_a_person_whose_messages_reach_both_replicas() {
    on_postgres(the_per_minute_limit_holds_for_a_person_whose_messages_reach_both_replicas);
}
