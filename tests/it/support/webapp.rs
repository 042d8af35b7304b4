//! The Mini App as its page calls it: a bot started with its HTTP listener (and so the app) on a
//! free port of 127.0.0.1, init data signed for a test person the way Telegram signs it (with the
//! fake Bot API's token), and an HTTP client that sends it in `Authorization: tma ...`.

use reqwest::{Method, Response};
use serde_json::Value;
use telemem::storage::{ChatId, ConversationKey, UserId};
use telemem::webapp::init_data::InitDataKey;

use super::bot_harness::TestBot;
use super::bot_process::free_port;
use super::fake_telegram::BOT_TOKEN;

/// ALICE's and BOB's names in their init data.
pub const FIRST_NAME: &str = "Test";

/// A bot whose Mini App is served; `args` on top of the test bot's.
pub struct AppBot {
    pub bot: TestBot,
    /// `http://127.0.0.1:<port>`.
    pub base_url: String,
    client: reqwest::Client,
}

impl AppBot {
    /// A test bot (ALICE, BOB and CAROL allowed) serving the Mini App, with `args` on top.
    pub async fn start(args: &[&str]) -> Self {
        let http_addr = format!("127.0.0.1:{}", free_port());
        let mut all_args = vec!["--http-addr", &http_addr];
        all_args.extend_from_slice(args);
        let bot = TestBot::start_with_args(&all_args).await;
        let app = Self {
            bot,
            base_url: format!("http://{http_addr}"),
            client: reqwest::Client::builder()
                .no_proxy()
                .build()
                .expect("HTTP client"),
        };
        app.wait_until_served().await;
        app
    }

    async fn wait_until_served(&self) {
        let url = format!("{}/app/", self.base_url);
        let served = super::waiting::eventually(
            || async { self.client.get(&url).send().await.is_ok() },
            super::waiting::PATIENCE,
        )
        .await;
        if !served {
            panic!("the Mini App was not served at {url}");
        }
    }

    /// The page's address for `init_data`, as Telegram opens it (the sign-in in the fragment).
    pub fn page_url(&self, init_data: &str) -> String {
        let fragment: String = form_urlencoded::Serializer::new(String::new())
            .append_pair("tgWebAppData", init_data)
            .append_pair("tgWebAppVersion", "8.0")
            .finish();
        format!("{}/app/#{fragment}", self.base_url)
    }

    /// `method path` with `init_data` (none: no Authorization header) and a JSON `body`.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        init_data: Option<&str>,
        body: Option<Value>,
    ) -> Response {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base_url));
        if let Some(init_data) = init_data {
            request = request.header("Authorization", format!("tma {init_data}"));
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        request.send().await.expect("the Mini App answers")
    }

    /// `GET path` as `init_data`'s person, with its status and JSON body.
    pub async fn get_json(&self, path: &str, init_data: &str) -> (u16, Value) {
        let response = self.call(Method::GET, path, Some(init_data), None).await;
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// `method path` with a JSON body as `init_data`'s person, with its status and JSON body.
    pub async fn send_json(
        &self,
        method: Method,
        path: &str,
        init_data: &str,
        body: Value,
    ) -> (u16, Value) {
        let response = self.call(method, path, Some(init_data), Some(body)).await;
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }
}

/// Init data for `user_id` speaking `language`, signed now with the test bot's token.
pub fn init_data_for(user_id: i64, language: &str) -> String {
    signed_at(user_id, language, unix_now(), BOT_TOKEN)
}

/// Init data for `user_id` signed at `auth_date` (Unix seconds) with `token`.
pub fn signed_at(user_id: i64, language: &str, auth_date: i64, token: &str) -> String {
    let user = serde_json::json!({
        "id": user_id,
        "first_name": FIRST_NAME,
        "last_name": user_id.to_string(),
        "language_code": language,
    })
    .to_string();
    InitDataKey::for_bot_token(token).sign(&[
        ("query_id", "AAHdF6IQAAAAAN0XohDhrOrc"),
        ("user", &user),
        ("auth_date", &auth_date.to_string()),
    ])
}

/// Now, in Unix seconds.
pub fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs() as i64
}

/// `user_id`'s private chat with the bot.
pub fn private(user_id: i64) -> ConversationKey {
    ConversationKey {
        chat_id: ChatId(user_id),
        user_id: UserId(user_id),
    }
}

/// Has `user_id` talk to the bot in their private chat, closes the session and gives it
/// `summary`; the session's id.
pub async fn summarized_session(app: &AppBot, user_id: i64, summary: &str) -> i64 {
    app.bot
        .telegram
        .send_text(user_id, user_id, "Let us plan the lighthouse trip");
    app.bot.wait_for_messages(user_id, 1).await;
    let store = &app.bot.store;
    let session = store
        .open_session(private(user_id))
        .await
        .expect("the store answers")
        .expect("an open session");
    let now_ms = unix_now() * 1000;
    store
        .close_session(private(user_id), now_ms)
        .await
        .expect("the session closes");
    store
        .add_summary(session.id, private(user_id), summary, now_ms)
        .await
        .expect("the summary is stored");
    session.id
}
