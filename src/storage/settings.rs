//! Per-user settings: the persona, the preferred model and the language last seen.

use super::UserId;
#[cfg(feature = "postgres")]
use super::postgres::messages::storable;
use super::{Backend, Store};

/// A user's settings as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserSettings {
    pub user_id: UserId,
    pub persona: Option<String>,
    pub model: Option<String>,
    /// The language code the person's Telegram app last reported.
    pub language_code: Option<String>,
    pub created_at_ms: i64,
    pub last_active_at_ms: i64,
}

impl Store {
    /// The user's settings, or `None` for a user never seen.
    pub async fn user_settings(
        &self,
        user_id: UserId,
    ) -> Result<Option<UserSettings>, sqlx::Error> {
        run!(
            self,
            reader.fetch_optional,
            sqlite = sqlx::query_as!(
                UserSettings,
                r#"SELECT user_id AS "user_id!", persona, model, language_code,
                          created_at AS created_at_ms, last_active_at AS last_active_at_ms
                   FROM user_settings WHERE user_id = ?1"#,
                user_id,
            ),
            postgres = sqlx::query_as!(
                UserSettings,
                r#"SELECT user_id, persona, model, language_code,
                          created_at AS created_at_ms, last_active_at AS last_active_at_ms
                   FROM user_settings WHERE user_id = $1"#,
                user_id.0,
            ),
        )
    }

    /// Sets the user's persona; `None` goes back to the default behaviour.
    pub async fn set_persona(
        &self,
        user_id: UserId,
        persona: Option<&str>,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                sqlx::query!(
                    r#"INSERT INTO user_settings (user_id, persona, created_at, last_active_at)
                       VALUES (?1, ?2, ?3, ?3)
                       ON CONFLICT (user_id) DO UPDATE
                           SET persona = excluded.persona,
                               last_active_at = max(last_active_at, excluded.last_active_at)"#,
                    user_id,
                    persona,
                    now_ms,
                )
                .execute(&mut *db.writer().await?)
                .await?;
                Ok(())
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let persona = persona.map(storable);
                sqlx::query!(
                    r#"INSERT INTO user_settings (user_id, persona, created_at, last_active_at)
                       VALUES ($1, $2, $3, $3)
                       ON CONFLICT (user_id) DO UPDATE
                           SET persona = excluded.persona,
                               last_active_at = greatest(user_settings.last_active_at,
                                                         excluded.last_active_at)"#,
                    user_id.0,
                    persona.as_deref(),
                    now_ms,
                )
                .execute(&db.pool)
                .await?;
                Ok(())
            }
        }
    }

    /// Sets the user's preferred model; `None` goes back to the configured default.
    pub async fn set_model(
        &self,
        user_id: UserId,
        model: Option<&str>,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                sqlx::query!(
                    r#"INSERT INTO user_settings (user_id, model, created_at, last_active_at)
                       VALUES (?1, ?2, ?3, ?3)
                       ON CONFLICT (user_id) DO UPDATE
                           SET model = excluded.model,
                               last_active_at = max(last_active_at, excluded.last_active_at)"#,
                    user_id,
                    model,
                    now_ms,
                )
                .execute(&mut *db.writer().await?)
                .await?;
                Ok(())
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let model = model.map(storable);
                sqlx::query!(
                    r#"INSERT INTO user_settings (user_id, model, created_at, last_active_at)
                       VALUES ($1, $2, $3, $3)
                       ON CONFLICT (user_id) DO UPDATE
                           SET model = excluded.model,
                               last_active_at = greatest(user_settings.last_active_at,
                                                         excluded.last_active_at)"#,
                    user_id.0,
                    model.as_deref(),
                    now_ms,
                )
                .execute(&db.pool)
                .await?;
                Ok(())
            }
        }
    }

    /// Records the language code the user's Telegram app reported; `None` forgets it.
    pub async fn set_language_code(
        &self,
        user_id: UserId,
        language_code: Option<&str>,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
        match &self.backend {
            #[cfg(feature = "sqlite")]
            Backend::Sqlite(db) => {
                sqlx::query!(
                    r#"INSERT INTO user_settings (user_id, language_code, created_at, last_active_at)
                       VALUES (?1, ?2, ?3, ?3)
                       ON CONFLICT (user_id) DO UPDATE
                           SET language_code = excluded.language_code,
                               last_active_at = max(last_active_at, excluded.last_active_at)"#,
                    user_id,
                    language_code,
                    now_ms,
                )
                .execute(&mut *db.writer().await?)
                .await?;
                Ok(())
            }
            #[cfg(feature = "postgres")]
            Backend::Postgres(db) => {
                let language_code = language_code.map(storable);
                sqlx::query!(
                    r#"INSERT INTO user_settings (user_id, language_code, created_at, last_active_at)
                       VALUES ($1, $2, $3, $3)
                       ON CONFLICT (user_id) DO UPDATE
                           SET language_code = excluded.language_code,
                               last_active_at = greatest(user_settings.last_active_at,
                                                         excluded.last_active_at)"#,
                    user_id.0,
                    language_code.as_deref(),
                    now_ms,
                )
                .execute(&db.pool)
                .await?;
                Ok(())
            }
        }
    }

    /// Deletes the user's settings entirely (persona and model).
    pub async fn clear_user_settings(&self, user_id: UserId) -> Result<bool, sqlx::Error> {
        let result = run!(
            self,
            writer.execute,
            sqlite = sqlx::query!("DELETE FROM user_settings WHERE user_id = ?1", user_id),
            postgres = sqlx::query!("DELETE FROM user_settings WHERE user_id = $1", user_id.0),
        )?;
        Ok(result > 0)
    }
}
