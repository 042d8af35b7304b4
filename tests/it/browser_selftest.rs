//! The browser harness itself, on a page of its own: if it can open a page served on 127.0.0.1,
//! click a button, type, read what the page's script wrote and take a screenshot, the page's
//! tests mean something.

use axum::Router;
use axum::response::Html;
use axum::routing::get;

use crate::support::browser::Browser;

const PAGE: &str = r#"<!doctype html>
<meta charset="utf-8">
<title>selftest</title>
<input id="name">
<button id="greet">Greet</button>
<p id="greeting"></p>
<script>
  document.getElementById('greet').addEventListener('click', () => {
    const name = document.getElementById('name').value;
    document.getElementById('greeting').textContent = 'Hello, ' + name + '!';
    performance.mark('greeted');
  });
</script>
"#;

/// Serves [`PAGE`] at `/` on a free port of 127.0.0.1; its address.
async fn serve_page() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind a free port");
    let address = listener.local_addr().expect("the page's address");
    let app = Router::new().route("/", get(|| async { Html(PAGE) }));
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serve the page") });
    format!("http://{address}/")
}

#[tokio::test]
async fn the_browser_clicks_a_button_and_reads_what_the_page_wrote() {
    let Some(browser) = Browser::start().await else {
        return;
    };
    let url = serve_page().await;

    browser.open(&url).await;
    browser.type_into("#name", "Alice").await;
    browser.click("#greet").await;

    browser.wait_for_text("#greeting", "Hello, Alice!").await;
    assert_eq!(browser.text("#greeting").await, "Hello, Alice!");
    assert!(browser.mark_ms("greeted").await > 0.0);
    assert!(!browser.has("#nothing-like-this").await);
    let picture = tempfile::tempdir().unwrap();
    let path = picture.path().join("page.png");
    browser.screenshot(&path).await;
    let png = std::fs::read(&path).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG picture");
    browser.close().await;
}
