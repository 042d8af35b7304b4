//! The Mini App: a page Telegram opens inside the chat (from a button under `/memory` and
//! `/settings`, or the chat's menu button), where a person looks at and changes what the bot
//! remembers about them, and admins see everyone's usage and decide who may use the bot. Served
//! by the bot's own HTTP listener: the page and its script and style are compiled into the
//! binary (`page/`) and served at `/app/`, its JSON API under `/app/api/` (`api.rs` for everyone,
//! `admin.rs` for admins).
//!
//! Who is asking is proved by Telegram's init data in every API call's `Authorization: tma
//! <initData>` header (`init_data.rs`), never by a cookie, so no other site can make a browser
//! call the API for someone (no CSRF). The person is the init data's `user`, allowed by the same
//! rules as in chat ([`AccessList`]); every read and change is keyed by that person's own
//! conversation, so nobody reaches another person's data. Answers carry a strict
//! Content-Security-Policy: the page runs only its own script and fetches only from here.

mod admin;
mod api;
pub mod init_data;
pub mod limits;

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{delete, get, post, put};

use crate::access_list::{AccessList, Verdict};
use crate::clock::Clock;
use crate::config::duration_ms;
use crate::conversation::Conversations;
use crate::i18n::Lang;
use crate::storage::UserId;
use crate::telegram::TelegramBot;
use init_data::{InitDataKey, WebAppUser};
use limits::{ApiLimitSettings, ApiLimits, Limited};

/// What the Mini App is built from.
pub struct WebAppParts {
    pub conversations: Conversations,
    /// The same list the chat's access checks and the admin commands use, so a change made in
    /// either counts in both at once.
    pub access: Arc<AccessList>,
    /// The bot's token: init data is signed with a key made from it.
    pub bot_token: String,
    pub max_age: Duration,
    /// What one person may ask of the API.
    pub limits: ApiLimitSettings,
    pub clock: Arc<dyn Clock>,
    /// Sends an export to the person's private chat, where Telegram's in-app browsers cannot
    /// save a file the page made; `None`: exports are downloaded only.
    pub bot: Option<TelegramBot>,
}

/// The Mini App's shared state; cheap to clone.
#[derive(Clone)]
pub struct WebApp(Arc<Inner>);

struct Inner {
    conversations: Conversations,
    access: Arc<AccessList>,
    key: InitDataKey,
    max_age_ms: i64,
    limits: ApiLimits,
    clock: Arc<dyn Clock>,
    bot: Option<TelegramBot>,
}

/// The routes of the page and the API, to merge into the HTTP server's router.
pub fn router(parts: WebAppParts) -> Router {
    let state = WebApp(Arc::new(Inner {
        conversations: parts.conversations,
        access: parts.access,
        key: InitDataKey::for_bot_token(&parts.bot_token),
        max_age_ms: duration_ms(parts.max_age),
        limits: ApiLimits::new(parts.limits),
        clock: parts.clock,
        bot: parts.bot,
    }));
    let api = Router::new()
        .route("/me", get(api::me))
        .route("/memory", get(api::memory))
        .route("/notes", post(api::add_note))
        .route(
            "/notes/{id}",
            put(api::change_note).delete(api::remove_note),
        )
        .route("/summaries/{id}", delete(api::remove_summary))
        .route("/search", get(api::search))
        .route("/settings", get(api::settings).put(api::change_settings))
        .route("/export", get(api::export))
        .route("/export/send", post(api::send_export))
        .route("/usage", get(api::usage))
        .route("/admin", get(admin::overview))
        .route("/admin/access", post(admin::change::<admin::AccessChange>))
        .route("/admin/limit", post(admin::change::<admin::LimitChange>))
        .fallback(|| async { ApiError::NotFound })
        .layer(axum::middleware::map_response(no_store));
    Router::new()
        // Relative, so that a proxy's path before `/app` is kept.
        .route("/app", get(|| async { Redirect::permanent("app/") }))
        .route("/app/", get(page::index))
        .route("/app/app.js", get(page::script))
        .route("/app/app.css", get(page::style))
        .nest("/app/api", api)
        .layer(axum::middleware::map_response(secure_headers))
        .with_state(state)
}

/// The page's files, compiled in.
mod page {
    use axum::http::header;
    use axum::response::IntoResponse;

    const INDEX: &str = include_str!("page/index.html");
    const SCRIPT: &str = include_str!("page/app.js");
    const STYLE: &str = include_str!("page/app.css");

    /// Revalidated on every open: a new release's page is never mixed with an old script.
    const CACHE: &str = "no-cache";

    pub(super) async fn index() -> impl IntoResponse {
        (
            [
                (header::CONTENT_TYPE, "text/html; charset=utf-8"),
                (header::CACHE_CONTROL, CACHE),
            ],
            INDEX,
        )
    }

    pub(super) async fn script() -> impl IntoResponse {
        (
            [
                (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
                (header::CACHE_CONTROL, CACHE),
            ],
            SCRIPT,
        )
    }

    pub(super) async fn style() -> impl IntoResponse {
        (
            [
                (header::CONTENT_TYPE, "text/css; charset=utf-8"),
                (header::CACHE_CONTROL, CACHE),
            ],
            STYLE,
        )
    }
}

/// What every answer under `/app` may do in a browser: run and fetch only this server's files,
/// be framed only by Telegram's web clients, and not be sniffed as another type.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; \
    frame-ancestors https://web.telegram.org https://*.telegram.org";

async fn secure_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// API answers are about one person: no cache keeps them.
async fn no_store(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The person an API call is from, proved by their init data and allowed to use the bot.
pub struct Person {
    pub user: WebAppUser,
    pub user_id: UserId,
    pub lang: Lang,
    pub is_admin: bool,
}

impl FromRequestParts<WebApp> for Person {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &WebApp) -> Result<Self, ApiError> {
        let app = &app.0;
        let raw = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("tma "))
            .unwrap_or_default();
        let data = app
            .key
            .verify(raw, app.clock.now_ms(), app.max_age_ms)
            .map_err(|reason| {
                tracing::debug!(%reason, "a Mini App call was refused");
                ApiError::Unauthorized
            })?;
        let user_id = data.user.user_id();
        let admitted = app.limits.admit_request(user_id, app.clock.now_ms());
        let lang = match data.user.language_code.as_deref() {
            Some(code) => Lang::from_code(Some(code)),
            None => app
                .conversations
                .language(user_id)
                .await
                .unwrap_or_default(),
        };
        let is_admin = match app.access.verdict(user_id) {
            Verdict::Admin => true,
            Verdict::Allowed => false,
            Verdict::Blocked | Verdict::Stranger => return Err(ApiError::NotAllowed(lang)),
        };
        admitted.map_err(|limited| ApiError::TooMany { lang, limited })?;
        Ok(Self {
            user: data.user,
            user_id,
            lang,
            is_admin,
        })
    }
}

/// 403 with `{"error": "forbidden", "message": <why, in the person's language>}`.
fn forbidden(message: String) -> Response {
    let body = serde_json::json!({ "error": "forbidden", "message": message });
    (StatusCode::FORBIDDEN, axum::Json(body)).into_response()
}

/// Why an API call was not answered; every kind answers `{"error": ...}`.
#[derive(Debug)]
pub enum ApiError {
    /// No init data, or not valid: nothing else is said.
    Unauthorized,
    /// A person not allowed to use the bot; told so in their language.
    NotAllowed(Lang),
    /// Not an admin, on an admin route.
    AdminsOnly(Lang),
    NotFound,
    /// Past one of the person's limits ([`limits`]); told when to try again.
    TooMany {
        lang: Lang,
        limited: Limited,
    },
    /// The request cannot be done as asked; the sentence says why, in the person's language.
    BadRequest(String),
    /// Something failed on our side; logged with the person's id, told in a fixed sentence.
    Internal {
        lang: Lang,
        user_id: UserId,
        error: anyhow::Error,
    },
}

impl Person {
    /// The person's call past one of their limits.
    pub fn too_many(&self) -> impl FnOnce(Limited) -> ApiError {
        let lang = self.lang;
        move |limited| ApiError::TooMany { lang, limited }
    }

    /// A failure on our side while serving this person.
    pub fn failed(&self) -> impl FnOnce(anyhow::Error) -> ApiError {
        let (lang, user_id) = (self.lang, self.user_id);
        move |error| ApiError::Internal {
            lang,
            user_id,
            error,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, error) = match self {
            ApiError::Unauthorized => {
                let body = axum::Json(serde_json::json!({ "error": "unauthorized" }));
                let challenge = [(header::WWW_AUTHENTICATE, "tma")];
                return (StatusCode::UNAUTHORIZED, challenge, body).into_response();
            }
            ApiError::NotAllowed(lang) => {
                return forbidden(crate::replies::not_allowed(lang));
            }
            ApiError::AdminsOnly(lang) => {
                return forbidden(crate::replies::only_admins_decide(lang));
            }
            ApiError::NotFound => (StatusCode::NOT_FOUND, "not found".to_owned()),
            ApiError::TooMany { lang, limited } => {
                crate::metrics::webapp_limited(limited.limit);
                let seconds = limited.retry_after_secs;
                let body =
                    serde_json::json!({ "error": crate::replies::app_too_many(lang, seconds) });
                let retry_after = [(header::RETRY_AFTER, seconds.to_string())];
                return (StatusCode::TOO_MANY_REQUESTS, retry_after, axum::Json(body))
                    .into_response();
            }
            ApiError::BadRequest(reason) => (StatusCode::BAD_REQUEST, reason),
            ApiError::Internal {
                lang,
                user_id,
                error,
            } => {
                tracing::error!(error = ?error, user_id = user_id.0, "a Mini App call failed");
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    crate::replies::app_failed(lang),
                )
            }
        };
        (status, axum::Json(serde_json::json!({ "error": error }))).into_response()
    }
}
