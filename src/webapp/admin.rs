//! The Mini App's admin view (`ADMIN_USERS` only; 403 for everyone else): everyone's tokens per
//! day and per person with their limits and access, the strangers the admins were told about,
//! and the admin commands' changes: allow, block, unblock and limits. A change goes through
//! [`commands::admin::answer`], the admin commands' own path, so it is checked, stored and logged
//! exactly as `/allow`, `/block`, `/unblock` and `/limit` are, and answers their sentence.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::api::{Day, USAGE_DAYS, days};
use super::{ApiError, Person, WebApp};
use crate::access_list::Verdict;
use crate::commands::admin::{self, AdminCommand, AdminServices};
use crate::i18n::Lang;
use crate::storage::UserId;

/// The most strangers listed.
const STRANGERS_SHOWN: i64 = 200;

#[derive(Serialize)]
pub(super) struct Overview {
    days: Vec<Day>,
    people: Vec<PersonRow>,
    strangers: Vec<Stranger>,
}

#[derive(Serialize)]
struct PersonRow {
    user_id: i64,
    messages: i64,
    tokens: i64,
    tokens_today: i64,
    limit: Option<u64>,
    access: &'static str,
}

#[derive(Serialize)]
struct Stranger {
    user_id: i64,
    alerted_ms: i64,
    access: &'static str,
}

fn access_name(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Admin => "admin",
        Verdict::Allowed => "allowed",
        Verdict::Blocked => "blocked",
        Verdict::Stranger => "stranger",
    }
}

/// Only admins get past this.
fn admin_only(person: &Person) -> Result<(), ApiError> {
    if person.is_admin {
        Ok(())
    } else {
        Err(ApiError::AdminsOnly(person.lang))
    }
}

/// `GET /app/api/admin`.
pub(super) async fn overview(
    State(app): State<WebApp>,
    person: Person,
) -> Result<Json<Overview>, ApiError> {
    admin_only(&person)?;
    let quota = app.0.conversations.quota();
    let access = &app.0.access;
    let per_day = quota
        .tokens_per_day(USAGE_DAYS, None)
        .await
        .map_err(person.failed())?;
    let usage = quota
        .usage(USAGE_DAYS, None)
        .await
        .map_err(person.failed())?;
    let mut people = Vec::with_capacity(usage.len());
    for used in usage {
        let limit = quota
            .limit_of(used.user_id)
            .await
            .map_err(person.failed())?;
        people.push(PersonRow {
            user_id: used.user_id.0,
            messages: used.messages,
            tokens: used.tokens,
            tokens_today: used.tokens_today,
            limit: limit.tokens,
            access: access_name(access.verdict(used.user_id)),
        });
    }
    let strangers = access
        .strangers(STRANGERS_SHOWN)
        .await
        .map_err(person.failed())?
        .into_iter()
        .map(|alert| Stranger {
            user_id: alert.user_id.0,
            alerted_ms: alert.alerted_at_ms,
            access: access_name(access.verdict(alert.user_id)),
        })
        .collect();
    Ok(Json(Overview {
        days: days(per_day),
        people,
        strangers,
    }))
}

/// What an admin's change answers: the admin command's sentence.
#[derive(Serialize)]
pub(super) struct Changed {
    message: String,
}

/// A change an admin makes on the page: the admin command it stands for.
pub(super) trait Change: DeserializeOwned {
    /// The command, or the command's usage (in `lang`) when the change is not one.
    fn command(self, lang: Lang) -> Result<AdminCommand, ApiError>;
}

/// `POST /app/api/admin/access` ([`AccessChange`]) and `POST /app/api/admin/limit`
/// ([`LimitChange`]): runs the change's admin command as the admin `person`.
pub(super) async fn change<C: Change>(
    State(app): State<WebApp>,
    person: Person,
    body: Result<Json<C>, JsonRejection>,
) -> Result<Json<Changed>, ApiError> {
    admin_only(&person)?;
    let Json(change) = body.map_err(|rejection| ApiError::BadRequest(rejection.body_text()))?;
    let command = change.command(person.lang)?;
    run(&app, &person, command).await
}

#[derive(Deserialize)]
pub(super) struct AccessChange {
    user_id: i64,
    action: AccessAction,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum AccessAction {
    Allow,
    Block,
    Unblock,
}

/// `/allow`, `/block` or `/unblock` for `user_id`.
impl Change for AccessChange {
    fn command(self, _lang: Lang) -> Result<AdminCommand, ApiError> {
        let id = self.user_id.to_string();
        Ok(match self.action {
            AccessAction::Allow => AdminCommand::Allow(id),
            AccessAction::Block => AdminCommand::Block(id),
            AccessAction::Unblock => AdminCommand::Unblock(id),
        })
    }
}

#[derive(Deserialize)]
pub(super) struct LimitChange {
    user_id: i64,
    /// A number of tokens a day, `off` or `default`.
    limit: serde_json::Value,
}

/// `/limit <user_id> <limit>`.
impl Change for LimitChange {
    fn command(self, lang: Lang) -> Result<AdminCommand, ApiError> {
        let usage = || ApiError::BadRequest(crate::replies::limit_usage(lang));
        let limit = match &self.limit {
            serde_json::Value::Number(tokens) if tokens.is_u64() => tokens.to_string(),
            serde_json::Value::String(word) => word.trim().to_owned(),
            _ => return Err(usage()),
        };
        if limit.is_empty() || limit.contains(char::is_whitespace) {
            return Err(usage());
        }
        Ok(AdminCommand::Limit(format!("{} {limit}", self.user_id)))
    }
}

/// Runs the admin command as the admin `person`, answering its sentence.
async fn run(
    app: &WebApp,
    person: &Person,
    command: AdminCommand,
) -> Result<Json<Changed>, ApiError> {
    let services = AdminServices {
        access: &app.0.access,
        quota: app.0.conversations.quota(),
    };
    let message = admin::answer(command, services, UserId(person.user_id.0), person.lang)
        .await
        .map_err(person.failed())?;
    Ok(Json(Changed { message }))
}
