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

/// One replica in webhook mode on its own port; with its webhook's URL.
fn spawn_replica(around: &Surroundings) -> (BotProcess, String) {
    let http_addr = format!("127.0.0.1:{}", free_port());
    let hook = format!("http://{http_addr}/telegram/hook");
    let bot = around.spawn_bot(&[
        ("HTTP_ADDR", &http_addr),
        ("TELEGRAM_WEBHOOK_URL", &hook),
        ("TELEGRAM_WEBHOOK_SECRET", WEBHOOK_SECRET),
        ("REPLICA_LEASE_SECS", "2"),
    ]);
    (bot, hook)
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let around = Surroundings::start().await;
        around
            .llm
            .set_responder(Arc::new(|body| answer_to(&question_in(body))));
        around.llm.set_default_delay(Duration::from_millis(300));
        let (mut first, first_hook) = spawn_replica(&around);
        let (second, second_hook) = spawn_replica(&around);
        around
            .telegram
            .wait_for(
                |calls| {
                    calls
                        .iter()
                        .filter(|call| call.method == "setWebhook")
                        .count()
                        >= 2
                },
                PATIENCE,
            )
            .await;

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
