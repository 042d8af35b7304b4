//! Specifications of the Mini App's API and its ways in from the chat, against the real bot
//! serving it on 127.0.0.1: who may call it (Telegram's signed init data, the access rules), that
//! every route reads and changes only the caller's own memory, what each route does to the
//! database, the admin view for admins alone, the page's security headers, and the buttons under
//! `/memory` and `/settings`. The page itself is driven in a real browser in `webapp_browser.rs`.

use reqwest::Method;
use serde_json::{Value, json};
use telemem::storage::UserId;

use crate::support::bot_harness::{ALICE, BOB, CAROL, GROUP};
use crate::support::command_line::{printed_by, run_telemem, stderr_of};
use crate::support::fake_telegram::BOT_TOKEN;
use crate::support::waiting::PATIENCE;
use crate::support::webapp::{
    AppBot, init_data_for, private, signed_at, summarized_session, unix_now,
};

/// An admin (ADMIN_USERS) in the specs below.
const ADMIN: i64 = 777;
/// Someone on no list.
const STRANGER: i64 = 999;
/// A group ALICE never wrote in.
const GROUP_WITHOUT_ALICE: i64 = -100_777;

async fn start() -> AppBot {
    AppBot::start(&["--admin-users", &ADMIN.to_string()]).await
}

/// Adds a note for `init_data`'s person through the API; its id.
async fn add_note(app: &AppBot, init_data: &str, text: &str) -> i64 {
    let (status, note) = app
        .send_json(
            Method::POST,
            "/app/api/notes",
            init_data,
            json!({ "text": text }),
        )
        .await;
    assert_eq!(status, 201, "{note}");
    note["id"].as_i64().expect("the note's id")
}

#[tokio::test]
async fn a_signed_sign_in_names_the_person_their_chats_and_the_pages_sentences_in_their_language() {
    let app = start().await;
    let (status, me) = app
        .get_json("/app/api/me", &init_data_for(ALICE, "de"))
        .await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["user_id"], ALICE);
    assert_eq!(me["lang"], "de");
    assert_eq!(me["is_admin"], false);
    assert_eq!(me["name"], format!("Test {ALICE}"));
    assert_eq!(me["chats"][0]["chat_id"], ALICE);
    assert_eq!(me["chats"][0]["private"], true);
    assert_eq!(me["chats"][0]["title"], "Privater Chat mit mir");
    let strings = me["strings"].as_object().expect("the page's sentences");
    assert!(!strings.is_empty());
    assert!(
        strings.keys().all(|id| id.starts_with("app-")),
        "{strings:?}"
    );
}

#[tokio::test]
async fn a_wrong_changed_expired_or_missing_sign_in_gets_401_and_nothing_else() {
    let app = start().await;
    let valid = init_data_for(ALICE, "en");
    let tampered = valid.replace(&format!("%22id%22%3A{ALICE}"), &format!("%22id%22%3A{BOB}"));
    assert_ne!(
        tampered, valid,
        "the test changes the user in the signed data"
    );
    let wrong_token = signed_at(ALICE, "en", unix_now(), "654321:ANOTHER-bot");
    let expired = signed_at(ALICE, "en", unix_now() - 86_400 - 60, BOT_TOKEN);
    for (case, init_data) in [
        ("tampered", Some(tampered.as_str())),
        ("wrong token", Some(wrong_token.as_str())),
        ("expired", Some(expired.as_str())),
        ("empty", Some("")),
        ("missing", None),
    ] {
        for path in ["/app/api/me", "/app/api/memory", "/app/api/admin"] {
            let response = app.call(Method::GET, path, init_data, None).await;
            assert_eq!(response.status(), 401, "{case} {path}");
            assert_eq!(response.headers()["www-authenticate"], "tma");
            let body: Value = response.json().await.expect("a JSON error");
            assert_eq!(body, json!({ "error": "unauthorized" }), "{case} {path}");
        }
    }
    let (status, _) = app.get_json("/app/api/me", &valid).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_allowed_age_of_a_sign_in_is_a_setting() {
    let app = AppBot::start(&["--webapp-max-age-secs", "60"]).await;
    let two_minutes_old = signed_at(ALICE, "en", unix_now() - 120, BOT_TOKEN);
    let (status, _) = app.get_json("/app/api/me", &two_minutes_old).await;
    assert_eq!(status, 401);
}

#[tokio::test]
async fn a_stranger_or_a_blocked_person_is_refused_on_every_route() {
    let app = start().await;
    let stranger = init_data_for(STRANGER, "en");
    for (method, path) in every_route(1) {
        let response = app
            .call(
                method.clone(),
                &path,
                Some(&stranger),
                Some(json!({ "text": "x" })),
            )
            .await;
        assert_eq!(response.status(), 403, "{method} {path}");
        let body: Value = response.json().await.expect("a JSON refusal");
        assert_eq!(body["error"], "forbidden");
        assert!(
            body["message"].as_str().unwrap().contains("private"),
            "told why, in their language: {body}"
        );
    }
    let (status, _) = app
        .send_json(
            Method::POST,
            "/app/api/admin/access",
            &init_data_for(ADMIN, "en"),
            json!({ "user_id": CAROL, "action": "block" }),
        )
        .await;
    assert_eq!(status, 200);
    let (status, _) = app
        .get_json("/app/api/me", &init_data_for(CAROL, "en"))
        .await;
    assert_eq!(status, 403, "a block counts at once in the app");
}

/// Every route of the API, with `id` where a route names a note or a summary.
fn every_route(id: i64) -> Vec<(Method, String)> {
    vec![
        (Method::GET, "/app/api/me".to_owned()),
        (Method::GET, "/app/api/memory".to_owned()),
        (Method::POST, "/app/api/notes".to_owned()),
        (Method::PUT, format!("/app/api/notes/{id}")),
        (Method::DELETE, format!("/app/api/notes/{id}")),
        (Method::DELETE, format!("/app/api/summaries/{id}")),
        (Method::GET, "/app/api/search?q=x".to_owned()),
        (Method::GET, "/app/api/settings".to_owned()),
        (Method::PUT, "/app/api/settings".to_owned()),
        (Method::GET, "/app/api/export".to_owned()),
        (Method::POST, "/app/api/export/send".to_owned()),
        (Method::GET, "/app/api/usage".to_owned()),
        (Method::GET, "/app/api/admin".to_owned()),
        (Method::POST, "/app/api/admin/access".to_owned()),
        (Method::POST, "/app/api/admin/limit".to_owned()),
    ]
}

#[tokio::test]
async fn notes_added_changed_and_removed_in_the_app_are_the_persons_notes_in_the_database() {
    let app = start().await;
    let alice = init_data_for(ALICE, "en");
    let id = add_note(&app, &alice, "Lives in Berlin").await;
    let notes = app.bot.store.notes(private(ALICE)).await.unwrap();
    assert_eq!(notes.len(), 1);
    assert!(notes[0].added_by_hand);
    assert_eq!(notes[0].note, "Lives in Berlin");

    let (status, changed) = app
        .send_json(
            Method::PUT,
            &format!("/app/api/notes/{id}"),
            &alice,
            json!({ "text": "Lives in   Hamburg\nnow" }),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["text"], "Lives in Hamburg now");
    let notes = app.bot.store.notes(private(ALICE)).await.unwrap();
    assert_eq!(notes[0].note, "Lives in Hamburg now");

    let (status, memory) = app.get_json("/app/api/memory", &alice).await;
    assert_eq!(status, 200);
    assert_eq!(memory["notes"][0]["text"], "Lives in Hamburg now");
    assert_eq!(memory["notes"][0]["by_hand"], true);

    let (status, refusal) = app
        .send_json(
            Method::POST,
            "/app/api/notes",
            &alice,
            json!({ "text": "  " }),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        refusal["error"].as_str().unwrap().contains("/remember"),
        "{refusal}"
    );

    let removed = app
        .call(
            Method::DELETE,
            &format!("/app/api/notes/{id}"),
            Some(&alice),
            None,
        )
        .await;
    assert_eq!(removed.status(), 204);
    assert!(
        app.bot
            .store
            .notes(private(ALICE))
            .await
            .unwrap()
            .is_empty()
    );
    let again = app
        .call(
            Method::DELETE,
            &format!("/app/api/notes/{id}"),
            Some(&alice),
            None,
        )
        .await;
    assert_eq!(again.status(), 404);
}

#[tokio::test]
async fn nobody_reads_or_changes_another_persons_notes_summaries_history_or_export() {
    let app = start().await;
    let alice = init_data_for(ALICE, "en");
    let bob = init_data_for(BOB, "en");
    let note_id = add_note(&app, &alice, "Alice's door code is 4711").await;
    let session_id = summarized_session(&app, ALICE, "Alice planned the lighthouse trip.").await;

    // BOB names ALICE's private chat, where he has no memory: not found, as any chat of his
    // that does not exist; in his own private chat, nothing of ALICE's.
    let (status, _) = app
        .get_json(&format!("/app/api/memory?chat={ALICE}"), &bob)
        .await;
    assert_eq!(status, 404);
    let (status, memory) = app.get_json("/app/api/memory", &bob).await;
    assert_eq!(status, 200);
    assert_eq!(memory, json!({ "notes": [], "summaries": [] }));
    for chat in [String::new(), format!("?chat={ALICE}")] {
        let put = app
            .send_json(
                Method::PUT,
                &format!("/app/api/notes/{note_id}{chat}"),
                &bob,
                json!({ "text": "changed by Bob" }),
            )
            .await;
        assert_eq!(put.0, 404, "{chat}");
        let delete = app
            .call(
                Method::DELETE,
                &format!("/app/api/notes/{note_id}{chat}"),
                Some(&bob),
                None,
            )
            .await;
        assert_eq!(delete.status(), 404, "{chat}");
        let summary = app
            .call(
                Method::DELETE,
                &format!("/app/api/summaries/{session_id}{chat}"),
                Some(&bob),
                None,
            )
            .await;
        assert_eq!(summary.status(), 404, "{chat}");
    }
    let separator = |chat: &str| if chat.is_empty() { "?" } else { "&" };
    for chat in [String::new(), format!("?chat={ALICE}")] {
        let (status, found) = app
            .get_json(
                &format!(
                    "/app/api/search{chat}{}q=lighthouse+door+code",
                    separator(&chat)
                ),
                &bob,
            )
            .await;
        if chat.is_empty() {
            assert_eq!(found["results"], json!([]));
        } else {
            assert_eq!(status, 404, "{found}");
        }
        let export = app
            .call(
                Method::GET,
                &format!("/app/api/export{chat}{}format=json", separator(&chat)),
                Some(&bob),
                None,
            )
            .await;
        let expected = if chat.is_empty() { 400 } else { 404 };
        assert_eq!(
            export.status(),
            expected,
            "nothing of BOB's to export {chat}"
        );
    }
    let (_, usage) = app.get_json("/app/api/usage", &bob).await;
    assert!(
        usage["days"]
            .as_array()
            .unwrap()
            .iter()
            .all(|day| day["tokens"] == 0)
    );
    let (status, _) = app.get_json("/app/api/admin", &bob).await;
    assert_eq!(status, 403);

    // All of it is still ALICE's, and hers to see.
    let notes = app.bot.store.notes(private(ALICE)).await.unwrap();
    assert_eq!(notes[0].note, "Alice's door code is 4711");
    let (_, memory) = app.get_json("/app/api/memory", &alice).await;
    assert_eq!(memory["summaries"][0]["id"], session_id);
    assert_eq!(
        memory["summaries"][0]["text"],
        "Alice planned the lighthouse trip."
    );
    let (_, found) = app.get_json("/app/api/search?q=lighthouse", &alice).await;
    let texts: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|result| result["text"].as_str())
        .collect();
    assert!(
        texts.iter().any(|text| text.contains("lighthouse")),
        "{found}"
    );
}

#[tokio::test]
async fn a_summary_removed_in_the_app_is_gone_and_not_written_again() {
    let app = start().await;
    let alice = init_data_for(ALICE, "en");
    let session_id = summarized_session(&app, ALICE, "They planned a trip.").await;
    let removed = app
        .call(
            Method::DELETE,
            &format!("/app/api/summaries/{session_id}"),
            Some(&alice),
            None,
        )
        .await;
    assert_eq!(removed.status(), 204);
    let (_, memory) = app.get_json("/app/api/memory", &alice).await;
    assert_eq!(memory["summaries"], json!([]));
    let waiting = app
        .bot
        .store
        .sessions_awaiting_summary(unix_now() * 1000 + 3_600_000, 10)
        .await
        .unwrap();
    assert!(waiting.iter().all(|session| session.id != session_id));
}

#[tokio::test]
async fn settings_change_together_or_not_at_all_and_a_bad_value_says_why() {
    let app = AppBot::start(&["--llm-models", "small,large"]).await;
    let alice = init_data_for(ALICE, "en");
    let (status, settings) = app.get_json("/app/api/settings", &alice).await;
    assert_eq!(status, 200, "{settings}");
    assert_eq!(settings["persona"], Value::Null);
    assert_eq!(settings["incognito"], false);
    assert_eq!(settings["time_zone"], Value::Null);
    assert!(
        settings["models"]
            .as_array()
            .unwrap()
            .contains(&json!("large"))
    );

    let (status, refusal) = app
        .send_json(
            Method::PUT,
            "/app/api/settings",
            &alice,
            json!({ "persona": "Be brief.", "time_zone": "Mars/Olympus" }),
        )
        .await;
    assert_eq!(status, 400);
    assert!(
        refusal["error"].as_str().unwrap().contains("Mars/Olympus"),
        "{refusal}"
    );
    let (_, unchanged) = app.get_json("/app/api/settings", &alice).await;
    assert_eq!(
        unchanged["persona"],
        Value::Null,
        "nothing is changed by a refused request"
    );

    let (status, changed) = app
        .send_json(
            Method::PUT,
            "/app/api/settings",
            &alice,
            json!({ "persona": "Be brief.", "time_zone": "europe/berlin", "model": "large",
                    "incognito": true }),
        )
        .await;
    assert_eq!(status, 200, "{changed}");
    assert_eq!(changed["persona"], "Be brief.");
    assert_eq!(changed["time_zone"], "Europe/Berlin");
    assert_eq!(changed["model"], "large");
    assert_eq!(changed["incognito"], true);
    let stored = app
        .bot
        .store
        .user_settings(UserId(ALICE))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.persona.as_deref(), Some("Be brief."));
    assert_eq!(stored.model.as_deref(), Some("large"));
    assert!(app.bot.store.is_incognito(private(ALICE)).await.unwrap());

    let (_, reset) = app
        .send_json(
            Method::PUT,
            "/app/api/settings",
            &alice,
            json!({ "persona": null, "time_zone": "" }),
        )
        .await;
    assert_eq!(reset["persona"], Value::Null);
    assert_eq!(reset["time_zone"], Value::Null);
    assert_eq!(reset["model"], "large", "what the request left out stays");
}

#[tokio::test]
async fn the_export_is_the_chats_history_as_a_file_and_usage_counts_the_persons_tokens() {
    let app = start().await;
    let alice = init_data_for(ALICE, "en");
    app.bot
        .telegram
        .send_text(ALICE, ALICE, "remember the blue kite");
    app.bot.wait_for_messages(ALICE, 1).await;
    let export = app
        .call(
            Method::GET,
            "/app/api/export?format=json",
            Some(&alice),
            None,
        )
        .await;
    assert_eq!(export.status(), 200);
    let disposition = export.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        disposition.contains("telemem-history.json"),
        "{disposition}"
    );
    let file: Value = export.json().await.unwrap();
    assert_eq!(file["messages"][0]["content"], "remember the blue kite");
    let markdown = app
        .call(
            Method::GET,
            "/app/api/export?format=markdown",
            Some(&alice),
            None,
        )
        .await
        .text()
        .await
        .unwrap();
    assert!(markdown.contains("remember the blue kite"));

    let (status, sent) = app
        .send_json(
            Method::POST,
            "/app/api/export/send?format=markdown",
            &alice,
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{sent}");
    let documents = app.bot.telegram.documents_in(ALICE);
    assert_eq!(documents.len(), 1, "sent to the private chat alone");
    assert!(String::from_utf8_lossy(&documents[0].bytes).contains("remember the blue kite"));
    let (status, _) = app
        .send_json(
            Method::POST,
            "/app/api/export/send",
            &init_data_for(BOB, "en"),
            json!({}),
        )
        .await;
    assert_eq!(status, 400, "BOB has nothing to export");
    assert!(app.bot.telegram.documents_in(BOB).is_empty());

    let (status, usage) = app.get_json("/app/api/usage", &alice).await;
    assert_eq!(status, 200);
    let days = usage["days"].as_array().unwrap();
    assert_eq!(days.len(), 30);
    let today = days.last().unwrap()["tokens"].as_i64().unwrap();
    assert!(today > 0, "{usage}");
    assert_eq!(usage["today"], today);
    assert!(days.windows(2).all(|pair| {
        pair[1]["day_ms"].as_i64().unwrap() - pair[0]["day_ms"].as_i64().unwrap() == 86_400_000
    }));
}

#[tokio::test]
async fn an_admin_sees_everyones_usage_and_the_strangers_and_decides_as_with_the_commands() {
    let app = start().await;
    let admin = init_data_for(ADMIN, "en");
    app.bot.telegram.send_text(ALICE, ALICE, "hello");
    app.bot.wait_for_messages(ALICE, 1).await;
    app.bot.telegram.send_text(STRANGER, STRANGER, "let me in");
    app.bot.wait_for_messages(STRANGER, 1).await;

    let overview = || async { app.get_json("/app/api/admin", &admin).await.1 };
    let seen = crate::support::waiting::eventually(
        || async { !overview().await["strangers"].as_array().unwrap().is_empty() },
        PATIENCE,
    )
    .await;
    assert!(seen, "the stranger is listed");
    let shown = overview().await;
    assert_eq!(shown["days"].as_array().unwrap().len(), 30);
    let alice_row = shown["people"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["user_id"] == ALICE)
        .expect("ALICE's usage")
        .clone();
    assert!(alice_row["tokens"].as_i64().unwrap() > 0);
    assert_eq!(alice_row["access"], "allowed");
    assert_eq!(shown["strangers"][0]["user_id"], STRANGER);
    assert_eq!(shown["strangers"][0]["access"], "stranger");

    let (status, allowed) = app
        .send_json(
            Method::POST,
            "/app/api/admin/access",
            &admin,
            json!({ "user_id": STRANGER, "action": "allow" }),
        )
        .await;
    assert_eq!(status, 200);
    assert!(
        allowed["message"]
            .as_str()
            .unwrap()
            .contains(&STRANGER.to_string())
    );
    let (status, _) = app
        .get_json("/app/api/me", &init_data_for(STRANGER, "en"))
        .await;
    assert_eq!(status, 200, "allowed in the app at once");
    app.bot.telegram.send_text(STRANGER, STRANGER, "am I in?");
    app.bot.wait_for_text(STRANGER, "am I in?").await;

    let (status, limited) = app
        .send_json(
            Method::POST,
            "/app/api/admin/limit",
            &admin,
            json!({ "user_id": ALICE, "limit": 5000 }),
        )
        .await;
    assert_eq!(status, 200, "{limited}");
    assert!(
        limited["message"].as_str().unwrap().contains("5"),
        "{limited}"
    );
    let limit = app
        .bot
        .store
        .token_limit(UserId(ALICE))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(limit.daily_tokens, Some(5000));
    assert_eq!(limit.set_by, UserId(ADMIN));
    let (_, usage) = app
        .get_json("/app/api/usage", &init_data_for(ALICE, "en"))
        .await;
    assert_eq!(usage["limit"], 5000);

    let (status, _) = app
        .send_json(
            Method::POST,
            "/app/api/admin/limit",
            &admin,
            json!({ "user_id": ALICE, "limit": "lots" }),
        )
        .await;
    assert_eq!(
        status, 200,
        "an unusable limit is answered with how to use it"
    );
    let (status, _) = app
        .send_json(
            Method::POST,
            "/app/api/admin/access",
            &admin,
            json!({ "user_id": ADMIN, "action": "block" }),
        )
        .await;
    assert_eq!(status, 200);
    let (status, _) = app.get_json("/app/api/me", &admin).await;
    assert_eq!(status, 200, "an admin cannot block themselves");
}

#[tokio::test]
async fn the_page_and_its_files_are_served_under_a_strict_content_security_policy() {
    let app = start().await;
    for (path, content_type) in [
        ("/app/", "text/html"),
        ("/app/app.js", "text/javascript"),
        ("/app/app.css", "text/css"),
    ] {
        let response = app.call(Method::GET, path, None, None).await;
        assert_eq!(response.status(), 200, "{path}");
        let headers = response.headers();
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with(content_type)
        );
        let policy = headers["content-security-policy"].to_str().unwrap();
        assert!(policy.contains("default-src 'none'"), "{policy}");
        assert!(policy.contains("script-src 'self'"), "{policy}");
        assert_eq!(headers["x-content-type-options"], "nosniff");
    }
    // As Telegram opens it: the sign-in in the fragment, which never reaches the server.
    let page = reqwest::Client::builder()
        .no_proxy()
        .build()
        .unwrap()
        .get(app.page_url(&init_data_for(ALICE, "en")))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("app.js"));
    assert!(
        !page.contains("http://") && !page.contains("https://"),
        "nothing from elsewhere"
    );
    let api = app
        .call(
            Method::GET,
            "/app/api/me",
            Some(&init_data_for(ALICE, "en")),
            None,
        )
        .await;
    assert_eq!(api.headers()["cache-control"], "no-store");
    let unknown = app
        .call(
            Method::GET,
            "/app/api/nothing",
            Some(&init_data_for(ALICE, "en")),
            None,
        )
        .await;
    assert_eq!(unknown.status(), 404);
}

#[tokio::test]
async fn with_a_public_url_memory_and_settings_offer_the_app_and_the_menu_button_opens_it() {
    let app = AppBot::start(&["--public-url", "https://bot.example.com/telemem"]).await;
    let telegram = &app.bot.telegram;
    telegram
        .wait_for(
            |calls| {
                calls.iter().any(|call| {
                    call.method == "setChatMenuButton"
                        && call.params["menu_button"]["web_app"]["url"]
                            == "https://bot.example.com/telemem/app/"
                })
            },
            PATIENCE,
        )
        .await;
    telegram.send_text(ALICE, ALICE, "/memory");
    telegram.send_text(ALICE, ALICE, "/settings");
    app.bot.wait_for_messages(ALICE, 2).await;
    let messages = telegram.bot_messages(ALICE);
    let app_url = |index: usize| {
        messages[index].reply_markup.as_ref().expect("a button")["inline_keyboard"][0][0]["web_app"]
            ["url"]
            .clone()
    };
    assert_eq!(
        app_url(0),
        "https://bot.example.com/telemem/app/?view=memory"
    );
    assert_eq!(
        app_url(1),
        "https://bot.example.com/telemem/app/?view=settings"
    );
    assert!(messages[1].text.contains("Model:"), "{}", messages[1].text);
}

#[tokio::test]
async fn without_a_public_url_the_commands_answer_in_text_alone() {
    let app = start().await;
    let telegram = &app.bot.telegram;
    telegram.send_text(ALICE, ALICE, "/settings");
    app.bot.wait_for_messages(ALICE, 1).await;
    let messages = telegram.bot_messages(ALICE);
    assert!(
        messages[0].text.contains("Time zone: UTC (the default)"),
        "{}",
        messages[0].text
    );
    assert!(messages[0].reply_markup.is_none());
    assert!(!crate::support::fake_telegram::called(
        &telegram.calls(),
        "setChatMenuButton"
    ));
}

#[tokio::test]
async fn the_link_telemem_app_link_prints_opens_the_app_as_that_person_in_a_browser_tab() {
    let app = start().await;
    let addr = app.base_url.trim_start_matches("http://");
    let output = run_telemem(
        &app.bot.database_url,
        &["app-link", "--user", &BOB.to_string(), "--http-addr", addr],
        &[("TELOXIDE_TOKEN", BOT_TOKEN)],
    );
    assert!(output.status.success(), "{}", stderr_of(&output));
    let link = printed_by(&output).trim().to_owned();
    let (page, fragment) = link.split_once('#').expect("the sign-in in the fragment");
    assert_eq!(page, format!("{}/app/", app.base_url));
    let init_data = form_urlencoded::parse(fragment.as_bytes())
        .find(|(name, _)| name == "tgWebAppData")
        .map(|(_, value)| value.into_owned())
        .expect("tgWebAppData");
    let (status, me) = app.get_json("/app/api/me", &init_data).await;
    assert_eq!(status, 200, "{me}");
    assert_eq!(me["user_id"], BOB);

    let without_token = run_telemem(&app.bot.database_url, &["app-link", "--user", "1"], &[]);
    assert!(!without_token.status.success());
    assert!(stderr_of(&without_token).contains("TELOXIDE_TOKEN"));
}

#[tokio::test]
async fn a_chat_where_the_person_has_no_memory_is_not_found_and_gets_nothing_written() {
    let app = start().await;
    let alice = init_data_for(ALICE, "en");
    for chat in [GROUP_WITHOUT_ALICE, 1, -5] {
        let (status, _) = app
            .send_json(
                Method::POST,
                &format!("/app/api/notes?chat={chat}"),
                &alice,
                json!({ "text": "a note in a chat that is not hers" }),
            )
            .await;
        assert_eq!(status, 404, "chat {chat}");
        let (status, _) = app
            .send_json(
                Method::PUT,
                &format!("/app/api/settings?chat={chat}"),
                &alice,
                json!({ "incognito": true }),
            )
            .await;
        assert_eq!(status, 404, "chat {chat}");
    }
    let (_, me) = app.get_json("/app/api/me", &alice).await;
    assert_eq!(me["chats"].as_array().unwrap().len(), 1, "{me}");

    // A group where she talked to the bot is hers to see.
    app.bot
        .telegram
        .send_group_text(GROUP, ALICE, "hello from the group", true);
    app.bot.wait_for_messages(GROUP, 1).await;
    let (status, _) = app
        .send_json(
            Method::POST,
            &format!("/app/api/notes?chat={GROUP}"),
            &alice,
            json!({ "text": "Organises the group's trips" }),
        )
        .await;
    assert_eq!(status, 201);
    let (_, me) = app.get_json("/app/api/me", &alice).await;
    assert_eq!(me["chats"][1]["chat_id"], GROUP, "{me}");
    assert_eq!(me["chats"][1]["private"], false);
}

/// 200 searches at once from one person: the first ones are answered, the rest get 429 with
/// `Retry-After` and a sentence in their language; the embedding server is asked no more often
/// than the searches let in, someone else still searches, and `/metrics` counts both.
#[tokio::test]
async fn a_flood_of_searches_from_one_person_is_limited_and_bounds_the_embedding_calls() {
    const SEARCHES: usize = 200;
    const SEARCHES_PER_MINUTE: usize = 5;
    let metrics = telemem::metrics::install().expect("the metrics recorder");
    let embeddings = crate::support::fake_embeddings::FakeEmbeddings::start().await;
    let per_minute = SEARCHES_PER_MINUTE.to_string();
    let mut app = AppBot::start(&[
        "--embedding-base-url",
        embeddings.base_url(),
        "--embedding-model",
        "fake-embedding",
        "--webapp-searches-per-minute",
        &per_minute,
    ])
    .await;
    let alice = init_data_for(ALICE, "de");
    let bob = init_data_for(BOB, "en");
    add_note(&app, &alice, "Alice's door code is 4711").await;
    let before = embeddings.requests();

    let searches = (0..SEARCHES).map(|round| {
        let (app, alice) = (&app, &alice);
        async move {
            let path = format!("/app/api/search?q=door+code+{round}");
            let response = app.call(Method::GET, &path, Some(alice), None).await;
            let retry_after = response
                .headers()
                .get("retry-after")
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.parse::<u64>().ok());
            let status = response.status().as_u16();
            let body: Value = response.json().await.unwrap_or(Value::Null);
            (status, retry_after, body)
        }
    });
    let answers = futures_util::future::join_all(searches).await;
    let search_calls = embeddings.requests() - before;
    let (bobs_status, _) = app.get_json("/app/api/search?q=door", &bob).await;
    let rendered = metrics.render();
    app.bot.stop().await;

    let answered = answers.iter().filter(|(status, ..)| *status == 200).count();
    assert_eq!(answered, SEARCHES_PER_MINUTE, "{:?}", &answers[..3]);
    for (status, retry_after, body) in answers.iter().filter(|(status, ..)| *status != 200) {
        assert_eq!(*status, 429, "{body}");
        assert!(retry_after.is_some_and(|seconds| (1..=60).contains(&seconds)));
        assert!(
            body["error"].as_str().unwrap().contains("Bitte warte"),
            "{body}"
        );
    }
    // The searches let in, the one-off calibration of the model (questions, answers, small
    // talk) and the note's own vector, which the background embedder may ask for meanwhile.
    assert!(
        search_calls <= SEARCHES_PER_MINUTE + 4,
        "{search_calls} embedding calls: {:?}",
        embeddings.texts()
    );
    assert_eq!(
        bobs_status, 200,
        "one person's flood does not limit another"
    );
    assert!(rendered.contains("telemem_webapp_limited_total{limit=\"searches\"}"));
    assert!(rendered.contains("telemem_embedding_queries_total{path=\"search\"}"));
}
