//! A real browser for the page's tests: Debian's headless Chromium, driven through ChromeDriver
//! (WebDriver over plain HTTP on 127.0.0.1) with `fantoccini`. [`Browser::start`] starts
//! ChromeDriver on a free port and opens one session with a phone-sized window and a fresh
//! profile; the helpers open a URL, wait for an element, click, type, read text, run a script
//! and take a screenshot, each failing the test with what it was looking for.
//!
//! Chromium runs as root here, so without its sandbox, and with the flags that keep it off the
//! network (this machine has none but loopback). On a machine without `/usr/bin/chromium` and
//! `/usr/bin/chromedriver` ([`scripts/install-browser`] installs them), `start` answers `None`
//! after one line on stderr, and the browser tests pass without running, like the PostgreSQL
//! variants.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

use super::waiting::{PATIENCE, eventually};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The page's viewport in CSS pixels: a phone's, as Telegram shows the page.
pub const WINDOW: (u32, u32) = (420, 860);

/// Chromium's flags: headless, as root without the sandbox, and nothing that reaches out to
/// Google's servers at start (they are unreachable here, and every try is logged as an error).
const CHROMIUM_FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

/// One headless Chromium session; ChromeDriver and its browser are stopped when this is dropped
/// ([`Browser::close`] ends the session politely first).
pub struct Browser {
    client: Client,
    _driver: Driver,
    _profile: tempfile::TempDir,
    _turn: tokio::sync::OwnedSemaphorePermit,
}

/// One browser at a time in this test binary: Chromium is many processes, and on a small
/// machine running the whole suite, several at once would make every page slow to answer.
fn turns() -> std::sync::Arc<tokio::sync::Semaphore> {
    static TURNS: std::sync::OnceLock<std::sync::Arc<tokio::sync::Semaphore>> =
        std::sync::OnceLock::new();
    TURNS
        .get_or_init(|| std::sync::Arc::new(tokio::sync::Semaphore::new(1)))
        .clone()
}

/// The ChromeDriver child process, leading its own process group so that stopping the group
/// also stops the Chromium it started.
struct Driver(Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let group = format!("-{}", self.0.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.0.wait();
    }
}

/// Whether this machine has Chromium and ChromeDriver; says once on stderr when not.
pub fn available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let found = Path::new(CHROMIUM).exists() && Path::new(CHROMEDRIVER).exists();
        if !found {
            eprintln!(
                "browser tests skipped: no {CHROMIUM} and {CHROMEDRIVER} on this machine \
                 (scripts/install-browser installs Debian's chromium and chromium-driver)"
            );
        }
        found
    })
}

impl Browser {
    /// A new browser session, or `None` when this machine has no Chromium ([`available`]).
    pub async fn start() -> Option<Browser> {
        if !available() {
            return None;
        }
        let turn = turns()
            .acquire_owned()
            .await
            .expect("the browsers' semaphore is never closed");
        let port = free_port();
        let driver = start_driver(port);
        let address = format!("127.0.0.1:{port}");
        let listening = eventually(
            || async { tokio::net::TcpStream::connect(&address).await.is_ok() },
            PATIENCE,
        )
        .await;
        assert!(listening, "chromedriver did not listen on {address}");
        let profile = tempfile::tempdir().expect("a temporary Chromium profile");
        let client = ClientBuilder::new(HttpConnector::new())
            .capabilities(capabilities(profile.path()))
            .connect(&format!("http://{address}"))
            .await
            .expect("start a Chromium session through chromedriver");
        Some(Browser {
            client,
            _driver: driver,
            _profile: profile,
            _turn: turn,
        })
    }

    /// Opens `url` as a new document and waits until it has loaded. (Going from a blank page:
    /// a URL that differs from the open one only in its fragment would not load the page again.)
    pub async fn open(&self, url: &str) {
        for url in ["about:blank", url] {
            self.client
                .goto(url)
                .await
                .unwrap_or_else(|e| panic!("open {url}: {e}"));
        }
    }

    /// The first element `selector` (CSS) finds, once there is one; fails the test after
    /// [`PATIENCE`].
    pub async fn wait_for(&self, selector: &str) -> Element {
        let found = std::cell::RefCell::new(None);
        let appeared = eventually(
            || async {
                let element = self.client.find(Locator::Css(selector)).await.ok();
                let is_there = element.is_some();
                *found.borrow_mut() = element;
                is_there
            },
            PATIENCE,
        )
        .await;
        match found.into_inner() {
            Some(element) if appeared => element,
            _ => panic!(
                "no element {selector} appeared; the page shows: {}",
                self.page_text().await
            ),
        }
    }

    /// Waits until some element `selector` finds shows `text` among its own text; fails the
    /// test after [`PATIENCE`].
    pub async fn wait_for_text(&self, selector: &str, text: &str) {
        let shown = eventually(
            || async { self.texts(selector).await.iter().any(|t| t.contains(text)) },
            PATIENCE,
        )
        .await;
        assert!(
            shown,
            "no {selector} showed {text:?}; they show {:?}",
            self.texts(selector).await
        );
    }

    /// Whether `selector` finds an element now, without waiting.
    pub async fn has(&self, selector: &str) -> bool {
        self.client.find(Locator::Css(selector)).await.is_ok()
    }

    /// The visible text of every element `selector` finds now.
    pub async fn texts(&self, selector: &str) -> Vec<String> {
        let Ok(elements) = self.client.find_all(Locator::Css(selector)).await else {
            return Vec::new();
        };
        let mut texts = Vec::with_capacity(elements.len());
        for element in elements {
            texts.push(element.text().await.unwrap_or_default());
        }
        texts
    }

    /// The visible text of the first element `selector` finds, once there is one.
    pub async fn text(&self, selector: &str) -> String {
        let element = self.wait_for(selector).await;
        element
            .text()
            .await
            .unwrap_or_else(|e| panic!("read the text of {selector}: {e}"))
    }

    /// Clicks the first element `selector` finds, once there is one.
    pub async fn click(&self, selector: &str) {
        let element = self.wait_for(selector).await;
        element
            .click()
            .await
            .unwrap_or_else(|e| panic!("click {selector}: {e}"));
    }

    /// Chooses the option of value `value` in the select `selector` finds, once there is one.
    pub async fn select(&self, selector: &str, value: &str) {
        let element = self.wait_for(selector).await;
        element
            .select_by_value(value)
            .await
            .unwrap_or_else(|e| panic!("choose {value} in {selector}: {e}"));
    }

    /// Replaces the text in the input or text area `selector` finds with `text`, as typed.
    pub async fn type_into(&self, selector: &str, text: &str) {
        let element = self.wait_for(selector).await;
        element
            .clear()
            .await
            .unwrap_or_else(|e| panic!("clear {selector}: {e}"));
        element
            .send_keys(text)
            .await
            .unwrap_or_else(|e| panic!("type into {selector}: {e}"));
    }

    /// Runs `script` (a function body; `return` gives its value) in the page.
    pub async fn execute(&self, script: &str) -> serde_json::Value {
        self.client
            .execute(script, Vec::new())
            .await
            .unwrap_or_else(|e| panic!("run {script:?} in the page: {e}"))
    }

    /// The milliseconds from the start of the navigation to the performance mark `name`, once the
    /// page has set it.
    pub async fn mark_ms(&self, name: &str) -> f64 {
        let script = format!(
            "const m = performance.getEntriesByName({name:?}, 'mark')[0]; \
             return m ? m.startTime : null;"
        );
        let at = std::cell::Cell::new(None);
        let marked = eventually(
            || async {
                at.set(self.execute(&script).await.as_f64());
                at.get().is_some()
            },
            PATIENCE,
        )
        .await;
        assert!(marked, "the page set no performance mark {name}");
        at.get().unwrap_or_default()
    }

    /// Writes a PNG picture of the window to `path`, creating its folder.
    pub async fn screenshot(&self, path: &Path) {
        let png = self
            .client
            .screenshot()
            .await
            .unwrap_or_else(|e| panic!("take a screenshot: {e}"));
        if let Some(folder) = path.parent() {
            std::fs::create_dir_all(folder).expect("the screenshot's folder");
        }
        std::fs::write(path, png).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    /// Ends the session and closes Chromium.
    pub async fn close(self) {
        let _ = self.client.close().await;
    }

    /// All the text the page shows, for failure messages.
    async fn page_text(&self) -> String {
        self.texts("body").await.join("\n")
    }
}

/// A port on 127.0.0.1 nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("the free port").port()
}

fn start_driver(port: u16) -> Driver {
    use std::os::unix::process::CommandExt;
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .expect("start chromedriver");
    Driver(child)
}

/// The session's capabilities: Chromium with [`CHROMIUM_FLAGS`], a [`WINDOW`]-sized window and
/// the fresh profile in `profile`.
fn capabilities(profile: &Path) -> serde_json::Map<String, serde_json::Value> {
    let mut args: Vec<String> = CHROMIUM_FLAGS.iter().map(|flag| flag.to_string()).collect();
    args.push(format!("--window-size={},{}", WINDOW.0, WINDOW.1));
    args.push(format!("--user-data-dir={}", profile.display()));
    // A headless window is at least 500 pixels wide: the phone's size is emulated instead.
    let phone = serde_json::json!({
        "deviceMetrics": { "width": WINDOW.0, "height": WINDOW.1, "pixelRatio": 1, "mobile": true },
    });
    let options = serde_json::json!({
        "browserName": "chrome",
        "goog:chromeOptions": { "binary": CHROMIUM, "args": args, "mobileEmulation": phone },
    });
    match options {
        serde_json::Value::Object(map) => map,
        _ => unreachable!("a JSON object literal"),
    }
}
