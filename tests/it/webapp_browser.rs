//! The Mini App's page in a real browser (headless Chromium through ChromeDriver), against the
//! real bot serving it on 127.0.0.1, opened as Telegram opens it: `/app/#tgWebAppData=<signed
//! init data>`. A person edits a note and the database has the edit; the admin view is there for
//! an admin only; without a valid sign-in the page says to open it from Telegram. One spec also
//! shows every view, writing their screenshots to `docs/screenshots/` when
//! `TELEMEM_SCREENSHOTS=1`, and prints how soon the notes appear and how many bytes the page is.
//! On a machine without Chromium these pass without running (`support::browser`).

use std::path::PathBuf;

use telemem::storage::{ChatId, ConversationKey, UserId};

use crate::support::bot_harness::{ALICE, BOB};
use crate::support::browser::Browser;
use crate::support::waiting::{PATIENCE, eventually};
use crate::support::webapp::{AppBot, init_data_for, private, summarized_session, unix_now};

/// An admin (ADMIN_USERS) in the specs below.
const ADMIN: i64 = 777;
/// Someone on no list.
const STRANGER: i64 = 999;
/// A group ALICE is in.
const GROUP: i64 = -100123;

/// A browser and a bot serving the Mini App with [`ADMIN`] as its admin; `None` without Chromium.
async fn start() -> Option<(Browser, AppBot)> {
    let browser = Browser::start().await?;
    let app = AppBot::start(&["--admin-users", &ADMIN.to_string()]).await;
    Some((browser, app))
}

/// Stores `text` as a note `user_id` wrote in their private chat.
async fn note(app: &AppBot, user_id: i64, text: &str) {
    app.bot
        .store
        .add_note_by_hand(private(user_id), text, unix_now() * 1000)
        .await
        .expect("add a note");
}

#[tokio::test]
async fn a_note_edited_in_the_page_is_the_edited_note_in_the_database() {
    let Some((browser, app)) = start().await else {
        return;
    };
    note(&app, ALICE, "Lives in Berlin").await;

    browser
        .open(&app.page_url(&init_data_for(ALICE, "en")))
        .await;
    browser
        .wait_for_text("li.note .note-text", "Lives in Berlin")
        .await;
    browser.click("li.note .note-edit").await;
    browser
        .type_into("li.note .note-editor", "Lives in Hamburg")
        .await;
    browser.click("li.note .note-save").await;

    browser
        .wait_for_text("li.note .note-text", "Lives in Hamburg")
        .await;
    let notes = app.bot.store.notes(private(ALICE)).await.unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].note, "Lives in Hamburg");
    assert!(notes[0].added_by_hand);
    assert_eq!(notes[0].earlier[0].note, "Lives in Berlin");
    browser.close().await;
}

#[tokio::test]
async fn a_note_added_in_the_page_is_stored_for_the_chat_shown() {
    let Some((browser, app)) = start().await else {
        return;
    };

    browser
        .open(&app.page_url(&init_data_for(ALICE, "en")))
        .await;
    browser.wait_for("#notes-empty:not([hidden])").await;
    browser
        .type_into("#note-add-text", "Prefers tea to coffee")
        .await;
    browser.click("#note-add").await;

    browser
        .wait_for_text("li.note .note-text", "Prefers tea to coffee")
        .await;
    let notes = app.bot.store.notes(private(ALICE)).await.unwrap();
    assert_eq!(notes[0].note, "Prefers tea to coffee");
    browser.close().await;
}

#[tokio::test]
async fn the_chat_chosen_in_the_page_shows_that_chats_notes() {
    let Some((browser, app)) = start().await else {
        return;
    };
    note(&app, ALICE, "Lives in Berlin").await;
    let group = ConversationKey {
        chat_id: ChatId(GROUP),
        user_id: UserId(ALICE),
    };
    let now_ms = unix_now() * 1000;
    let store = &app.bot.store;
    store
        .add_note_by_hand(group, "Organises the book club", now_ms)
        .await
        .unwrap();

    browser
        .open(&app.page_url(&init_data_for(ALICE, "en")))
        .await;
    browser
        .wait_for_text("li.note .note-text", "Lives in Berlin")
        .await;
    assert_eq!(browser.texts("#chat option").await.len(), 2);
    browser.select("#chat", &GROUP.to_string()).await;

    browser
        .wait_for_text("li.note .note-text", "Organises the book club")
        .await;
    assert_eq!(browser.texts("li.note").await.len(), 1);
    browser.close().await;
}

#[tokio::test]
async fn an_export_downloaded_from_the_page_is_the_persons_history() {
    let Some((browser, app)) = start().await else {
        return;
    };
    app.bot
        .telegram
        .send_text(ALICE, ALICE, "The lighthouse is on the north cape");
    app.bot.wait_for_messages(ALICE, 1).await;

    browser
        .open(&app.page_url(&init_data_for(ALICE, "en")))
        .await;
    browser.click("#tab-settings").await;
    browser.wait_for("#settings-model option").await;
    // What the page hands the browser to save, read as it is handed over.
    browser
        .execute(
            "window.downloads = []; const make = URL.createObjectURL; \
             URL.createObjectURL = (blob) => { blob.text().then((text) => downloads.push(text)); \
                                               return make(blob); };",
        )
        .await;
    browser.click("#export-json").await;
    browser.click("#export-markdown").await;

    let downloads = std::cell::RefCell::new(serde_json::Value::Null);
    let both = eventually(
        || async {
            let now = browser.execute("return window.downloads;").await;
            let count = now.as_array().map_or(0, Vec::len);
            *downloads.borrow_mut() = now;
            count == 2
        },
        PATIENCE,
    )
    .await;
    let downloads = downloads.into_inner();
    assert!(both, "two downloads: {downloads}");
    for download in downloads.as_array().unwrap() {
        let text = download.as_str().unwrap();
        assert!(
            text.contains("The lighthouse is on the north cape"),
            "{text}"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(downloads[0].as_str().unwrap()).expect("the JSON export");
    assert!(json["messages"].is_array(), "{json}");
    assert_eq!(browser.text("#settings-status").await, "");
    browser.close().await;
}

#[tokio::test]
async fn a_summary_removed_in_the_page_after_a_confirmation_in_the_page_is_gone_from_the_database()
{
    let Some((browser, app)) = start().await else {
        return;
    };
    summarized_session(&app, ALICE, "Planned the lighthouse trip.").await;

    browser
        .open(&app.page_url(&init_data_for(ALICE, "en")))
        .await;
    browser
        .wait_for_text("li.summary", "Planned the lighthouse trip.")
        .await;
    browser.click("li.summary .summary-remove").await;
    browser
        .wait_for_text("li.summary .confirm-question", "Remove this summary?")
        .await;
    assert_eq!(
        app.bot
            .store
            .recent_summaries(private(ALICE), 0, 100)
            .await
            .unwrap()
            .len(),
        1
    );
    browser.click("li.summary .summary-remove-confirm").await;
    browser.wait_for("#summaries-empty:not([hidden])").await;
    let summaries = app
        .bot
        .store
        .recent_summaries(private(ALICE), 0, 100)
        .await
        .unwrap();
    assert!(summaries.is_empty(), "{summaries:?}");
    browser.close().await;
}

#[tokio::test]
async fn the_page_takes_telegrams_theme_colours() {
    let Some((browser, app)) = start().await else {
        return;
    };
    let fragment: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("tgWebAppData", &init_data_for(ALICE, "en"))
        .append_pair("tgWebAppVersion", "8.0")
        .append_pair(
            "tgWebAppThemeParams",
            r##"{"bg_color":"#102030","text_color":"#f0e0d0","button_color":"#ff8800"}"##,
        )
        .finish();

    browser
        .open(&format!("{}/app/#{fragment}", app.base_url))
        .await;
    browser.wait_for("#notes-empty:not([hidden])").await;

    let colours = browser
        .execute(
            "const body = getComputedStyle(document.body); \
             const button = getComputedStyle(document.getElementById('note-add')); \
             return [body.backgroundColor, body.color, button.backgroundColor];",
        )
        .await;
    assert_eq!(
        colours,
        serde_json::json!(["rgb(16, 32, 48)", "rgb(240, 224, 208)", "rgb(255, 136, 0)"])
    );
    browser.close().await;
}

#[tokio::test]
async fn settings_saved_in_the_page_are_stored_and_a_refusal_is_shown() {
    let Some((browser, app)) = start().await else {
        return;
    };

    browser
        .open(&app.page_url(&init_data_for(ALICE, "en")))
        .await;
    browser.click("#tab-settings").await;
    browser.wait_for("#settings-model option").await;
    browser.type_into("#settings-persona", "Be brief.").await;
    browser
        .type_into("#settings-time-zone", "Mars/Olympus")
        .await;
    browser.click("#settings-save").await;
    browser
        .wait_for_text("#settings-status", "Mars/Olympus")
        .await;
    browser
        .type_into("#settings-time-zone", "Europe/Berlin")
        .await;
    browser.click("#settings-save").await;

    browser.wait_for_text("#settings-status", "Saved.").await;
    let stored = app
        .bot
        .store
        .user_settings(UserId(ALICE))
        .await
        .unwrap()
        .expect("ALICE's settings");
    assert_eq!(stored.persona.as_deref(), Some("Be brief."));
    assert_eq!(stored.model, None, "a model left alone stays the default");
    browser.close().await;
}

#[tokio::test]
async fn the_admin_view_is_there_for_an_admin_and_not_for_anyone_else() {
    let Some((browser, app)) = start().await else {
        return;
    };
    app.bot.telegram.send_text(ALICE, ALICE, "hello");
    app.bot.wait_for_messages(ALICE, 1).await;

    browser
        .open(&app.page_url(&init_data_for(ADMIN, "en")))
        .await;
    browser.click("#tab-admin").await;
    browser.wait_for("#view-admin:not([hidden])").await;
    browser
        .wait_for(&format!("#admin-people tr[data-user='{ALICE}']"))
        .await;
    browser
        .click(&format!(
            "#admin-people tr[data-actions-of='{ALICE}'] .access-block"
        ))
        .await;
    browser
        .wait_for_text("#admin-status", &ALICE.to_string())
        .await;
    browser
        .wait_for(&format!(
            "#admin-people tr[data-actions-of='{ALICE}'] .access-unblock"
        ))
        .await;
    let (status, _) = app
        .get_json("/app/api/me", &init_data_for(ALICE, "en"))
        .await;
    assert_eq!(status, 403, "blocked in the page, blocked in the app");

    let bob = init_data_for(BOB, "en");
    browser.open(&app.page_url(&bob)).await;
    browser.wait_for("#tab-memory").await;
    browser.wait_for("#view-memory:not([hidden])").await;
    assert!(!browser.has("#tab-admin").await, "no admin tab for BOB");
    assert!(!browser.has("#view-admin").await, "no admin view for BOB");
    assert!(
        !browser.has("#admin-people").await,
        "no one's usage for BOB"
    );
    let (status, _) = app.get_json("/app/api/admin", &bob).await;
    assert_eq!(status, 403, "the API refuses BOB the admin view too");
    browser.close().await;
}

#[tokio::test]
async fn without_a_valid_sign_in_the_page_says_to_open_it_from_telegram() {
    let Some((browser, app)) = start().await else {
        return;
    };
    let valid = init_data_for(ALICE, "en");
    let tampered = valid.replace(&format!("%22id%22%3A{ALICE}"), &format!("%22id%22%3A{BOB}"));
    assert_ne!(
        tampered, valid,
        "the test changes the user in the signed data"
    );

    for url in [format!("{}/app/", app.base_url), app.page_url(&tampered)] {
        browser.open(&url).await;
        browser
            .wait_for_text("#notice", "Open this page from the bot in Telegram.")
            .await;
        assert!(!browser.has("#top:not([hidden])").await, "no tabs: {url}");
        assert!(!browser.has("li.note").await, "no notes: {url}");
    }
    browser.close().await;
}

/// Where the screenshots go, when `TELEMEM_SCREENSHOTS=1`.
fn screenshot_folder() -> Option<PathBuf> {
    (std::env::var("TELEMEM_SCREENSHOTS").as_deref() == Ok("1"))
        .then(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/screenshots"))
}

#[tokio::test]
async fn every_view_shows_the_admins_data_and_the_notes_appear_soon() {
    let Some((browser, app)) = start().await else {
        return;
    };
    let folder = screenshot_folder();
    fill_memory(&app).await;
    let page = app.page_url(&init_data_for(ADMIN, "en"));

    // The first open in a new browser, then again with Chromium's processes started.
    browser.open(&page).await;
    let cold_ms = browser.mark_ms("notes-shown").await;
    browser.open(&page).await;
    browser
        .wait_for_text("li.note .note-text", "Works as a lighthouse keeper")
        .await;
    let warm_ms = browser.mark_ms("notes-shown").await;
    let bytes = page_bytes(&browser).await;
    println!(
        "first view: notes shown {cold_ms:.0} ms after navigation start in a new browser, \
         {warm_ms:.0} ms on the next open; page {bytes} bytes (HTML + JS + CSS, uncompressed)"
    );
    assert!(bytes < 100_000, "the page is {bytes} bytes");
    browser.wait_for("li.summary").await;
    shoot(&browser, &folder, "memory").await;

    browser.click("#tab-search").await;
    browser.type_into("#search-q", "lighthouse").await;
    browser.click("#search-go").await;
    browser.wait_for("#search-results li").await;
    shoot(&browser, &folder, "search").await;

    browser.click("#tab-settings").await;
    let model_shown = eventually(
        || async { !browser.texts("#settings-model option").await.is_empty() },
        PATIENCE,
    )
    .await;
    assert!(model_shown, "the settings show the models");
    shoot(&browser, &folder, "settings").await;

    browser.click("#tab-usage").await;
    let bars = eventually(
        || async { browser.texts("#usage-chart rect").await.len() == 30 },
        PATIENCE,
    )
    .await;
    assert!(bars, "a bar for each of the 30 days");
    shoot(&browser, &folder, "usage").await;

    browser.click("#tab-admin").await;
    browser
        .wait_for(&format!("#admin-strangers li[data-user='{STRANGER}']"))
        .await;
    browser
        .wait_for(&format!("#admin-people tr[data-user='{ALICE}']"))
        .await;
    shoot(&browser, &folder, "admin").await;
    browser.close().await;
}

/// Gives the admin notes, a summary and usage in their private chat, and has ALICE chat and a
/// stranger write, so that every view has something to show.
async fn fill_memory(app: &AppBot) {
    let summary = "Talked about keeping the lighthouse on the north cape and the winter storms.";
    summarized_session(app, ADMIN, summary).await;
    let telegram = &app.bot.telegram;
    telegram.send_text(ALICE, ALICE, "hello");
    app.bot.wait_for_messages(ALICE, 1).await;
    telegram.send_text(STRANGER, STRANGER, "let me in");
    app.bot.wait_for_messages(STRANGER, 1).await;
    note(app, ADMIN, "Works as a lighthouse keeper").await;
    note(app, ADMIN, "Has a cat called Biscuit").await;
}

/// The bytes of the page's HTML, script and style, as the browser decoded them.
async fn page_bytes(browser: &Browser) -> u64 {
    let script = "return performance.getEntries()
        .filter(e => e.entryType === 'navigation'
            || /\\/app\\/app\\.(js|css)$/.test(e.name))
        .reduce((sum, e) => sum + e.decodedBodySize, 0);";
    browser
        .execute(script)
        .await
        .as_u64()
        .expect("a byte count")
}

/// Writes the window's picture to `folder/<view>.png` when there is a folder.
async fn shoot(browser: &Browser, folder: &Option<PathBuf>, view: &str) {
    if let Some(folder) = folder {
        browser
            .screenshot(&folder.join(format!("{view}.png")))
            .await;
    }
}

#[tokio::test]
async fn the_button_under_settings_opens_the_settings_and_a_view_not_yours_opens_the_memory() {
    let Some((browser, app)) = start().await else {
        return;
    };
    // The address of the button under /settings, with the sign-in Telegram adds.
    let settings = app
        .page_url(&init_data_for(ALICE, "en"))
        .replace("/app/#", "/app/?view=settings#");
    browser.open(&settings).await;
    browser.wait_for("#view-settings:not([hidden])").await;
    browser.wait_for("#settings-model option").await;
    assert!(browser.has("#view-memory[hidden]").await);

    let admin_for_alice = app
        .page_url(&init_data_for(ALICE, "en"))
        .replace("/app/#", "/app/?view=admin#");
    browser.open(&admin_for_alice).await;
    browser.wait_for("#view-memory:not([hidden])").await;
    assert!(!browser.has("#view-admin").await);
    browser.close().await;
}

#[tokio::test]
async fn a_stranger_opening_the_page_is_told_in_their_language_that_the_bot_is_private() {
    let Some((browser, app)) = start().await else {
        return;
    };
    browser
        .open(&app.page_url(&init_data_for(STRANGER, "de")))
        .await;
    browser.wait_for_text("#status", "privat").await;
    assert!(!browser.has("#top:not([hidden])").await, "no tabs");
    browser.close().await;
}

#[tokio::test]
async fn inside_a_telegram_app_the_export_is_sent_to_the_private_chat() {
    let Some((browser, app)) = start().await else {
        return;
    };
    app.bot
        .telegram
        .send_text(ALICE, ALICE, "The lighthouse is on the north cape");
    app.bot.wait_for_messages(ALICE, 1).await;

    // As a Telegram app opens it: it names its platform beside the sign-in.
    let url = format!(
        "{}&tgWebAppPlatform=android",
        app.page_url(&init_data_for(ALICE, "en"))
    );
    browser.open(&url).await;
    browser.click("#tab-settings").await;
    browser.wait_for("#settings-model option").await;
    browser.click("#export-json").await;
    browser
        .wait_for_text("#settings-status", "private chat")
        .await;
    let documents = app.bot.telegram.documents_in(ALICE);
    assert_eq!(documents.len(), 1);
    assert_eq!(
        documents[0].file_name.as_deref(),
        Some("telemem-history.json")
    );
    let file = String::from_utf8_lossy(&documents[0].bytes);
    assert!(file.contains("north cape"), "{file}");
    browser.close().await;
}
