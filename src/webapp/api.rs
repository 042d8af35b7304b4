//! The Mini App's API for everyone: who they are and their chats, their notes and session
//! summaries, a search of their memory, their settings, an export, and their tokens per day.
//! Every route takes the [`Person`] from the init data and reads or changes only their own
//! conversation: the chat named by `?chat=` (their private chat with the bot when absent) with
//! their own user id.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequestParts, Path, Query, State};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use teloxide::payloads::SendDocumentSetters;

use super::limits::ExportTurn;
use super::{ApiError, Person, WebApp};
use crate::conversation::{ExportFile, ExportFormat, FoundKind, NoteAddition, Persona};
use crate::i18n;
use crate::ids::ConversationKey;
use crate::memory::notes::NoteText;
use crate::replies;
use crate::storage::{ChatId, DayTokens, NoteRecord, Role, SummaryRecord};
use crate::time_zone::TimeZone;

/// The most summaries the memory view lists.
const SUMMARIES_SHOWN: i64 = 100;

/// The most results a search shows.
const SEARCH_RESULTS: usize = 20;

/// The longest search text read; the rest is ignored.
const SEARCH_MAX_CHARS: usize = 500;

/// Days of the usage chart, today included.
pub(super) const USAGE_DAYS: i64 = 30;

/// `?chat=`: one of the person's chats; their private chat with the bot when absent.
#[derive(Debug, Deserialize)]
pub(super) struct ChatQuery {
    chat: Option<i64>,
}

impl ChatQuery {
    /// The person's conversation in the chat asked for: their private chat, or a chat where
    /// they have a memory already; any other chat is not found. Every query is keyed by the
    /// person's own id anyway; this keeps the app from starting conversations in made-up
    /// chats (and so from going round the per-chat limits).
    async fn key(&self, app: &WebApp, person: &Person) -> Result<ConversationKey, ApiError> {
        let chat_id = ChatId(self.chat.unwrap_or(person.user_id.0));
        if chat_id.0 != person.user_id.0 {
            let chats = app
                .0
                .conversations
                .chats_of(person.user_id)
                .await
                .map_err(person.failed())?;
            if !chats.contains(&chat_id) {
                return Err(ApiError::NotFound);
            }
        }
        Ok(ConversationKey {
            chat_id,
            user_id: person.user_id,
        })
    }
}

/// The person and their conversation in the chat `?chat=` names ([`ChatQuery::key`]): what every
/// route about one conversation starts from.
pub(super) struct InChat {
    person: Person,
    key: ConversationKey,
}

impl FromRequestParts<WebApp> for InChat {
    /// A bad `?chat=` is answered as axum answers a bad query; the rest as [`ApiError`]s.
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &WebApp) -> Result<Self, Response> {
        let person = Person::from_request_parts(parts, app)
            .await
            .map_err(IntoResponse::into_response)?;
        let Query(chat) = Query::<ChatQuery>::from_request_parts(parts, app)
            .await
            .map_err(IntoResponse::into_response)?;
        let key = chat
            .key(app, &person)
            .await
            .map_err(IntoResponse::into_response)?;
        Ok(Self { person, key })
    }
}

#[derive(Serialize)]
pub(super) struct Me {
    user_id: i64,
    name: String,
    lang: &'static str,
    is_admin: bool,
    time_zone: &'static str,
    chats: Vec<ChatEntry>,
    strings: std::collections::BTreeMap<&'static str, String>,
}

#[derive(Serialize)]
struct ChatEntry {
    chat_id: i64,
    title: String,
    private: bool,
}

/// `GET /app/api/me`: the person, their chats (the private one first) and the page's sentences
/// in their language.
pub(super) async fn me(State(app): State<WebApp>, person: Person) -> Result<Json<Me>, ApiError> {
    let conversations = &app.0.conversations;
    let chats = conversations
        .chats_of(person.user_id)
        .await
        .map_err(person.failed())?;
    let private = ChatId(person.user_id.0);
    let chats = std::iter::once(private)
        .chain(chats.into_iter().filter(|chat| *chat != private))
        .map(|chat_id| ChatEntry {
            chat_id: chat_id.0,
            title: if chat_id == private {
                replies::app_private_chat(person.lang)
            } else {
                replies::app_group_chat(person.lang, chat_id.0)
            },
            private: chat_id == private,
        })
        .collect();
    let zone = conversations
        .time_zone(person.user_id)
        .await
        .map_err(person.failed())?;
    let name = match &person.user.last_name {
        Some(last) => format!("{} {last}", person.user.first_name),
        None => person.user.first_name.clone(),
    };
    Ok(Json(Me {
        user_id: person.user_id.0,
        name,
        lang: person.lang.code(),
        is_admin: person.is_admin,
        time_zone: zone.zone.name(),
        chats,
        strings: i18n::app_strings(person.lang),
    }))
}

#[derive(Serialize)]
pub(super) struct Memory {
    notes: Vec<Note>,
    summaries: Vec<Summary>,
}

#[derive(Serialize)]
pub(super) struct Note {
    id: i64,
    text: String,
    since_ms: i64,
    by_hand: bool,
    earlier: Vec<EarlierNote>,
}

#[derive(Serialize)]
struct EarlierNote {
    text: String,
    from_ms: Option<i64>,
    until_ms: i64,
}

impl From<NoteRecord> for Note {
    fn from(note: NoteRecord) -> Self {
        Self {
            id: note.id,
            text: note.note,
            since_ms: note.valid_from_ms,
            by_hand: note.added_by_hand,
            earlier: note
                .earlier
                .into_iter()
                .map(|earlier| EarlierNote {
                    text: earlier.note,
                    from_ms: earlier.from_ms,
                    until_ms: earlier.until_ms,
                })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct Summary {
    id: i64,
    started_ms: i64,
    ended_ms: i64,
    text: String,
}

impl From<SummaryRecord> for Summary {
    fn from(summary: SummaryRecord) -> Self {
        Self {
            id: summary.session_id,
            started_ms: summary.session_started_at_ms,
            ended_ms: summary.session_last_activity_at_ms,
            text: summary.summary,
        }
    }
}

/// `GET /app/api/memory`: the chat's notes and its latest session summaries, the newest first.
pub(super) async fn memory(
    State(app): State<WebApp>,
    InChat { person, key }: InChat,
) -> Result<Json<Memory>, ApiError> {
    let conversations = &app.0.conversations;
    let notes = conversations.notes_of(key).await.map_err(person.failed())?;
    let summaries = conversations
        .summaries_of(key, SUMMARIES_SHOWN)
        .await
        .map_err(person.failed())?;
    Ok(Json(Memory {
        notes: notes.into_iter().map(Note::from).collect(),
        summaries: summaries.into_iter().map(Summary::from).collect(),
    }))
}

/// A note's text, as the page sends it.
#[derive(Deserialize)]
pub(super) struct NoteBody {
    text: String,
}

/// `POST /app/api/notes`: keeps a note the person wrote, as `/remember` does.
pub(super) async fn add_note(
    State(app): State<WebApp>,
    InChat { person, key }: InChat,
    body: Result<Json<NoteBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let note = note_text(&person, body)?;
    let conversations = &app.0.conversations;
    let added = conversations
        .add_note(key, &note)
        .await
        .map_err(person.failed())?;
    if added == NoteAddition::TooMany {
        return Err(ApiError::BadRequest(replies::too_many_notes(person.lang)));
    }
    let status = match added {
        NoteAddition::Added => StatusCode::CREATED,
        NoteAddition::AlreadyKept | NoteAddition::TooMany => StatusCode::OK,
    };
    let notes = conversations.notes_of(key).await.map_err(person.failed())?;
    let kept = notes
        .into_iter()
        .find(|kept| kept.note == note.as_str())
        .ok_or_else(|| person.failed()(anyhow::anyhow!("the note just added is not there")))?;
    Ok((status, Json(Note::from(kept))).into_response())
}

/// `PUT /app/api/notes/{id}`: gives one of the person's notes a new text.
pub(super) async fn change_note(
    State(app): State<WebApp>,
    InChat { person, key }: InChat,
    Path(note_id): Path<i64>,
    body: Result<Json<NoteBody>, JsonRejection>,
) -> Result<Json<Note>, ApiError> {
    let note = note_text(&person, body)?;
    let conversations = &app.0.conversations;
    let changed = conversations
        .change_note(key, note_id, &note)
        .await
        .map_err(person.failed())?;
    if !changed {
        return Err(ApiError::NotFound);
    }
    let notes = conversations.notes_of(key).await.map_err(person.failed())?;
    notes
        .into_iter()
        .find(|kept| kept.id == note_id)
        .map(|kept| Json(Note::from(kept)))
        .ok_or(ApiError::NotFound)
}

/// `DELETE /app/api/notes/{id}`.
pub(super) async fn remove_note(
    State(app): State<WebApp>,
    InChat { person, key }: InChat,
    Path(note_id): Path<i64>,
) -> Result<StatusCode, ApiError> {
    let removed = app.0.conversations.remove_note(key, note_id).await;
    removed_or_not_found(&person, removed)
}

/// `DELETE /app/api/summaries/{id}`: forgets one session's summary.
pub(super) async fn remove_summary(
    State(app): State<WebApp>,
    InChat { person, key }: InChat,
    Path(session_id): Path<i64>,
) -> Result<StatusCode, ApiError> {
    let removed = app.0.conversations.remove_summary(key, session_id).await;
    removed_or_not_found(&person, removed)
}

/// 204 when something was removed, 404 when there was nothing of the person's to remove.
fn removed_or_not_found(
    person: &Person,
    removed: anyhow::Result<bool>,
) -> Result<StatusCode, ApiError> {
    match removed.map_err(person.failed())? {
        true => Ok(StatusCode::NO_CONTENT),
        false => Err(ApiError::NotFound),
    }
}

/// The note in a request's body, checked as `/remember` checks it.
fn note_text(
    person: &Person,
    body: Result<Json<NoteBody>, JsonRejection>,
) -> Result<NoteText, ApiError> {
    let Json(body) = body.map_err(|rejection| ApiError::BadRequest(rejection.body_text()))?;
    NoteText::parse(&body.text).map_err(|problem| {
        ApiError::BadRequest(match problem {
            crate::memory::notes::NoteError::Empty => replies::remember_usage(person.lang),
            crate::memory::notes::NoteError::TooLong { length, max } => {
                replies::note_too_long(person.lang, length, max)
            }
        })
    })
}

#[derive(Deserialize)]
pub(super) struct SearchQuery {
    chat: Option<i64>,
    #[serde(default)]
    q: String,
}

#[derive(Serialize)]
pub(super) struct SearchResults {
    results: Vec<Found>,
}

#[derive(Serialize)]
struct Found {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    text: String,
    at_ms: i64,
}

/// `GET /app/api/search?q=`: the chat's memory for `q`, by words and by meaning, as the model's
/// recall finds it, the newest first.
pub(super) async fn search(
    State(app): State<WebApp>,
    person: Person,
    Query(query): Query<SearchQuery>,
) -> Result<Json<SearchResults>, ApiError> {
    let key = ChatQuery { chat: query.chat }.key(&app, &person).await?;
    let text: String = query.q.trim().chars().take(SEARCH_MAX_CHARS).collect();
    if text.is_empty() {
        return Ok(Json(SearchResults {
            results: Vec::new(),
        }));
    }
    app.0
        .limits
        .admit_search(person.user_id, app.0.clock.now_ms())
        .map_err(person.too_many())?;
    let found = app
        .0
        .conversations
        .search_own_memory(key, &text, i64::MAX, SEARCH_RESULTS)
        .await
        .map_err(person.failed())?;
    let results = found
        .into_iter()
        .map(|found| {
            let (kind, role) = match found.kind {
                FoundKind::Note => ("note", None),
                FoundKind::Summary => ("summary", None),
                FoundKind::Message(role) => ("message", Some(role_name(role))),
            };
            Found {
                kind,
                role,
                text: found.text,
                at_ms: found.at_ms,
            }
        })
        .collect();
    Ok(Json(SearchResults { results }))
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::System => "system",
    }
}

#[derive(Serialize)]
pub(super) struct Settings {
    persona: Option<String>,
    model: String,
    models: Vec<String>,
    incognito: bool,
    time_zone: Option<&'static str>,
    default_time_zone: &'static str,
}

/// `GET /app/api/settings`.
pub(super) async fn settings(
    State(app): State<WebApp>,
    InChat { person, key }: InChat,
) -> Result<Json<Settings>, ApiError> {
    current_settings(&app, &person, key).await.map(Json)
}

async fn current_settings(
    app: &WebApp,
    person: &Person,
    key: ConversationKey,
) -> Result<Settings, ApiError> {
    let conversations = &app.0.conversations;
    let persona = conversations
        .persona(person.user_id)
        .await
        .map_err(person.failed())?;
    let menu = conversations
        .model_menu(person.user_id)
        .await
        .map_err(person.failed())?;
    let incognito = conversations
        .incognito(key)
        .await
        .map_err(person.failed())?;
    let zone = conversations
        .time_zone(person.user_id)
        .await
        .map_err(person.failed())?;
    Ok(Settings {
        persona,
        model: menu.in_use.name,
        models: menu.models,
        incognito,
        time_zone: zone.chosen.then(|| zone.zone.name()),
        default_time_zone: conversations.settings().default_time_zone.name(),
    })
}

/// What `PUT /app/api/settings` may change; what is absent stays. `persona` and `time_zone`
/// set to `null` (or an empty text) go back to the default.
#[derive(Deserialize)]
pub(super) struct SettingsChange {
    #[serde(default, deserialize_with = "present")]
    persona: Option<Option<String>>,
    model: Option<String>,
    incognito: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    time_zone: Option<Option<String>>,
}

/// A field that is present, `null` included, is `Some`.
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// `PUT /app/api/settings`: checks every change first, then makes them; answers the settings
/// as they are now, or why a change cannot be made (nothing is changed then).
pub(super) async fn change_settings(
    State(app): State<WebApp>,
    InChat { person, key }: InChat,
    body: Result<Json<SettingsChange>, JsonRejection>,
) -> Result<Json<Settings>, ApiError> {
    let Json(change) = body.map_err(|rejection| ApiError::BadRequest(rejection.body_text()))?;
    let lang = person.lang;
    let conversations = &app.0.conversations;
    let persona = match change.persona.map(|text| text.unwrap_or_default()) {
        None => None,
        Some(text) if text.trim().is_empty() => Some(None),
        Some(text) => match Persona::parse(&text) {
            Ok(persona) => Some(Some(persona)),
            Err(crate::conversation::PersonaError::TooLong { length, max }) => {
                return Err(ApiError::BadRequest(replies::persona_too_long(
                    lang, length, max,
                )));
            }
            Err(crate::conversation::PersonaError::Empty) => Some(None),
        },
    };
    let time_zone = match change.time_zone.map(|name| name.unwrap_or_default()) {
        None => None,
        Some(name) if name.trim().is_empty() => Some(None),
        Some(name) => match TimeZone::parse(&name) {
            Some(zone) => Some(Some(zone)),
            None => {
                return Err(ApiError::BadRequest(replies::timezone_unknown(
                    lang,
                    name.trim(),
                )));
            }
        },
    };
    let model = match &change.model {
        None => None,
        Some(name) => match conversations.models().find(name) {
            Some(model) => Some(model.to_owned()),
            None => return Err(ApiError::BadRequest(replies::model_unknown(lang, name))),
        },
    };
    if let Some(persona) = persona {
        conversations
            .set_persona(person.user_id, persona.as_ref())
            .await
            .map_err(person.failed())?;
    }
    if let Some(zone) = time_zone {
        conversations
            .set_time_zone(person.user_id, zone)
            .await
            .map_err(person.failed())?;
    }
    if let Some(model) = model {
        conversations
            .choose_model(person.user_id, &model)
            .await
            .map_err(person.failed())?;
    }
    if let Some(on) = change.incognito {
        conversations
            .set_incognito(key, on)
            .await
            .map_err(person.failed())?;
    }
    current_settings(&app, &person, key).await.map(Json)
}

#[derive(Deserialize)]
pub(super) struct ExportQuery {
    chat: Option<i64>,
    #[serde(default)]
    format: String,
}

/// The chat's history as a file, built while the person has no other export being built (the
/// turn is held until the file is delivered).
async fn export_file(
    app: &WebApp,
    person: &Person,
    query: &ExportQuery,
) -> Result<(ExportTurn, ExportFile), ApiError> {
    let key = ChatQuery { chat: query.chat }.key(app, person).await?;
    let turn = app
        .0
        .limits
        .start_export(person.user_id)
        .map_err(person.too_many())?;
    let file = app
        .0
        .conversations
        .export_file(key, ExportFormat::parse(&query.format), person.lang)
        .await
        .map_err(person.failed())?;
    match file {
        Some(file) => Ok((turn, file)),
        None => Err(ApiError::BadRequest(replies::export_empty(person.lang))),
    }
}

/// `GET /app/api/export?format=json|markdown`: the chat's history as a file, as `/export`
/// sends it.
pub(super) async fn export(
    State(app): State<WebApp>,
    person: Person,
    Query(query): Query<ExportQuery>,
) -> Result<Response, ApiError> {
    let (_export, file) = export_file(&app, &person, &query).await?;
    Ok((
        [
            (header::CONTENT_TYPE, file.content_type.to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{}\"", file.file_name),
            ),
        ],
        file.bytes,
    )
        .into_response())
}

/// What sending an export answers: where it went, in the person's language.
#[derive(Serialize)]
pub(super) struct Sent {
    message: String,
}

/// `POST /app/api/export/send?format=json|markdown`: the chat's history as a file, sent by the
/// bot to the person's private chat (Telegram's in-app browsers may not save a file the page
/// makes).
pub(super) async fn send_export(
    State(app): State<WebApp>,
    person: Person,
    Query(query): Query<ExportQuery>,
) -> Result<Json<Sent>, ApiError> {
    let Some(bot) = &app.0.bot else {
        return Err(ApiError::NotFound);
    };
    let (_export, file) = export_file(&app, &person, &query).await?;
    let document = teloxide::types::InputFile::memory(file.bytes).file_name(file.file_name);
    bot.send_document(teloxide::types::ChatId(person.user_id.0), document)
        .caption(replies::export_caption(person.lang))
        .await
        .map_err(|error| {
            person.failed()(anyhow::anyhow!(crate::telegram::errors::loggable(&error)))
        })?;
    Ok(Json(Sent {
        message: replies::app_export_sent(person.lang),
    }))
}

#[derive(Serialize)]
pub(super) struct Usage {
    days: Vec<Day>,
    limit: Option<u64>,
    today: u64,
    /// Pictures drawn today and their limit; `None` when the bot draws none.
    images: Option<MediaFigure>,
    /// Seconds of speech today and their limit; `None` when the bot speaks not.
    speech_seconds: Option<MediaFigure>,
}

#[derive(Serialize)]
pub(super) struct MediaFigure {
    used: u64,
    limit: Option<u64>,
}

impl From<crate::quota::media::MediaAllowance> for MediaFigure {
    fn from(allowance: crate::quota::media::MediaAllowance) -> Self {
        Self {
            used: allowance.used,
            limit: allowance.limit,
        }
    }
}

#[derive(Serialize)]
pub(super) struct Day {
    day_ms: i64,
    tokens: i64,
}

pub(super) fn days(days: Vec<DayTokens>) -> Vec<Day> {
    days.into_iter()
        .map(|day| Day {
            day_ms: day.day_start_ms,
            tokens: day.tokens,
        })
        .collect()
}

/// `GET /app/api/usage`: the person's tokens on each of the last 30 days, in all their chats,
/// and their daily limit; today's pictures and speech where the bot offers them.
pub(super) async fn usage(
    State(app): State<WebApp>,
    person: Person,
) -> Result<Json<Usage>, ApiError> {
    let quota = app.0.conversations.quota();
    let per_day = quota
        .tokens_per_day(USAGE_DAYS, Some(person.user_id))
        .await
        .map_err(person.failed())?;
    let today = quota
        .tokens_today(person.user_id)
        .await
        .map_err(person.failed())?;
    let conversations = &app.0.conversations;
    let media = quota
        .media_today(person.user_id)
        .await
        .map_err(person.failed())?;
    Ok(Json(Usage {
        days: days(per_day),
        limit: today.limit,
        today: today.used,
        images: conversations.can_draw().then(|| media.images.into()),
        speech_seconds: conversations
            .can_speak()
            .then(|| media.speech_seconds.into()),
    }))
}
