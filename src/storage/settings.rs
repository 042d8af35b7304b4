//! Per-user settings: the persona, the preferred model and the language last seen.

#[cfg(feature = "sqlite")]
use super::SqliteStore;
#[cfg_attr(not(feature = "sqlite"), allow(unused_imports))]
use super::UserId;

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

#[cfg(feature = "sqlite")]
impl SqliteStore {
    /// The user's settings, or `None` for a user never seen.
    pub async fn user_settings(
        &self,
        user_id: UserId,
    ) -> Result<Option<UserSettings>, sqlx::Error> {
        sqlx::query_as!(
            UserSettings,
            r#"SELECT user_id AS "user_id!", persona, model, language_code,
                      created_at AS created_at_ms, last_active_at AS last_active_at_ms
               FROM user_settings WHERE user_id = ?1"#,
            user_id,
        )
        .fetch_optional(&mut *self.reader().await?)
        .await
    }

    /// Sets the user's persona; `None` goes back to the default behaviour.
    pub async fn set_persona(
        &self,
        user_id: UserId,
        persona: Option<&str>,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
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
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(())
    }

    /// Sets the user's preferred model; `None` goes back to the configured default.
    pub async fn set_model(
        &self,
        user_id: UserId,
        model: Option<&str>,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
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
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(())
    }

    /// Records the language code the user's Telegram app reported; `None` forgets it.
    pub async fn set_language_code(
        &self,
        user_id: UserId,
        language_code: Option<&str>,
        now_ms: i64,
    ) -> Result<(), sqlx::Error> {
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
        .execute(&mut *self.writer().await?)
        .await?;
        Ok(())
    }

    /// Deletes the user's settings entirely (persona and model).
    pub async fn clear_user_settings(&self, user_id: UserId) -> Result<bool, sqlx::Error> {
        let result = sqlx::query!("DELETE FROM user_settings WHERE user_id = ?1", user_id)
            .execute(&mut *self.writer().await?)
            .await?;
        Ok(result.rows_affected() > 0)
    }
}
