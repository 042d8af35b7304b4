//! Per-user settings: the persona, the preferred model, the language last seen and the time
//! zone.

use super::Result;
use super::Store;
use super::UserId;

/// One of a user's settings, set with [`Store::set_setting`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    /// How the bot should answer them (`/persona`).
    Persona,
    /// The model they chose (`/model`).
    Model,
    /// The language code their Telegram app last reported.
    LanguageCode,
    /// Their time zone, an IANA name (`/timezone`).
    TimeZone,
}

impl Setting {
    /// The setting's column in `user_settings`.
    fn column(self) -> &'static str {
        match self {
            Self::Persona => "persona",
            Self::Model => "model",
            Self::LanguageCode => "language_code",
            Self::TimeZone => "time_zone",
        }
    }
}

/// A user's settings as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserSettings {
    pub user_id: UserId,
    /// The person's own instructions for the bot (`/persona`), if any.
    pub persona: Option<String>,
    /// The model they chose with `/model`, whether or not it is still offered.
    pub model: Option<String>,
    /// The language code the person's Telegram app last reported.
    pub language_code: Option<String>,
    /// Their time zone, an IANA name, if they set one.
    pub time_zone: Option<String>,
    pub created_at_ms: i64,
    pub last_active_at_ms: i64,
}

impl Store {
    /// The user's settings, or `None` for a user never seen.
    pub async fn user_settings(&self, user_id: UserId) -> Result<Option<UserSettings>> {
        run!(
            self.reader.fetch_optional,
            query_as!(
                UserSettings,
                sql = r#"SELECT user_id AS "user_id!", persona, model, language_code, time_zone,
                                created_at AS created_at_ms, last_active_at AS last_active_at_ms
                         FROM user_settings WHERE user_id = $1"#,
                user_id.0,
            ),
        )
    }

    /// Sets one of the user's settings; `None` goes back to the default (the default
    /// behaviour, the configured model, no language known). The others keep their values.
    pub async fn set_setting(
        &self,
        user_id: UserId,
        setting: Setting,
        value: Option<&str>,
        now_ms: i64,
    ) -> Result<()> {
        let column = setting.column();
        let value = value.map(|value| self.storable(value));
        let value = value.as_deref();
        run!(
            self.writer.execute,
            query!(
                sqlite = r#"INSERT INTO user_settings
                                (user_id, persona, model, language_code, time_zone, created_at,
                                 last_active_at)
                            VALUES (?1, iif(?2 = 'persona', ?3, NULL), iif(?2 = 'model', ?3, NULL),
                                    iif(?2 = 'language_code', ?3, NULL),
                                    iif(?2 = 'time_zone', ?3, NULL), ?4, ?4)
                            ON CONFLICT (user_id) DO UPDATE
                                SET persona = iif(?2 = 'persona', excluded.persona, persona),
                                    model = iif(?2 = 'model', excluded.model, model),
                                    language_code = iif(?2 = 'language_code', excluded.language_code,
                                                        language_code),
                                    time_zone = iif(?2 = 'time_zone', excluded.time_zone, time_zone),
                                    last_active_at = max(last_active_at, excluded.last_active_at)"#,
                postgres = r#"INSERT INTO user_settings
                                  (user_id, persona, model, language_code, time_zone, created_at,
                                   last_active_at)
                              VALUES ($1, CASE WHEN $2::text = 'persona' THEN $3::text END,
                                      CASE WHEN $2 = 'model' THEN $3 END,
                                      CASE WHEN $2 = 'language_code' THEN $3 END,
                                      CASE WHEN $2 = 'time_zone' THEN $3 END, $4, $4)
                              ON CONFLICT (user_id) DO UPDATE
                                  SET persona = CASE WHEN $2 = 'persona' THEN excluded.persona
                                                     ELSE user_settings.persona END,
                                      model = CASE WHEN $2 = 'model' THEN excluded.model
                                                   ELSE user_settings.model END,
                                      language_code = CASE WHEN $2 = 'language_code'
                                                           THEN excluded.language_code
                                                           ELSE user_settings.language_code END,
                                      time_zone = CASE WHEN $2 = 'time_zone' THEN excluded.time_zone
                                                       ELSE user_settings.time_zone END,
                                      last_active_at = greatest(user_settings.last_active_at,
                                                                excluded.last_active_at)"#,
                user_id.0,
                column,
                value,
                now_ms,
            ),
        )?;
        Ok(())
    }

    /// Deletes the user's settings entirely (persona and model).
    pub async fn clear_user_settings(&self, user_id: UserId) -> Result<bool> {
        delete_person_row!(self, "user_settings", user_id)
    }
}
