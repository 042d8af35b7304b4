//! What voice answers and pictures cost a person, counted per UTC day beside their messages and
//! tokens in `daily_usage` (`images`, `speech_seconds`), for `USER_DAILY_IMAGES`,
//! `USER_DAILY_TTS_SECONDS`, `/stats`, `/usage` and the Mini App; and how the person wants their
//! answers (`user_settings.voice_replies`, `/voice`).
//!
//! A picture counts once it was drawn, a voice note with its whole seconds once it was made:
//! what the servers were paid for, whether or not Telegram then took it.

use super::Result;
use super::Store;
use super::UserId;

/// Pictures drawn and seconds of speech made for one person on one day.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MediaUsed {
    pub images: i64,
    pub speech_seconds: i64,
}

impl Store {
    /// What `user_id` used of pictures and speech on the UTC day starting at `day_start_ms`.
    pub async fn media_used(&self, user_id: UserId, day_start_ms: i64) -> Result<MediaUsed> {
        let used = run!(
            self.reader.fetch_optional,
            query_as!(
                MediaUsed,
                sql = r#"SELECT images AS "images!: i64", speech_seconds AS "speech_seconds!: i64"
                         FROM daily_usage WHERE user_id = $1 AND day_start_at = $2"#,
                user_id.0,
                day_start_ms,
            ),
        )?;
        Ok(used.unwrap_or_default())
    }

    /// Adds `used` to what `user_id` used on the UTC day starting at `day_start_ms`.
    pub async fn count_media_use(
        &self,
        user_id: UserId,
        day_start_ms: i64,
        used: MediaUsed,
    ) -> Result<()> {
        run!(
            self.writer.execute,
            query!(
                sql = "INSERT INTO daily_usage (user_id, day_start_at, images, speech_seconds)
                       VALUES ($1, $2, $3, $4)
                       ON CONFLICT (user_id, day_start_at) DO UPDATE
                           SET images = daily_usage.images + excluded.images,
                               speech_seconds = daily_usage.speech_seconds
                                                + excluded.speech_seconds",
                user_id.0,
                day_start_ms,
                used.images,
                used.speech_seconds,
            ),
        )?;
        Ok(())
    }

    /// How `user_id` wants their answers (`on`, `off`, `auto`), if they chose.
    pub async fn voice_replies(&self, user_id: UserId) -> Result<Option<String>> {
        let chosen = run!(
            self.reader.fetch_optional,
            query_scalar!(
                sql = "SELECT voice_replies FROM user_settings WHERE user_id = $1",
                user_id.0,
            ),
        )?;
        Ok(chosen.flatten())
    }

    /// Stores how `user_id` wants their answers; `None` goes back to the default.
    pub async fn set_voice_replies(
        &self,
        user_id: UserId,
        mode: Option<&str>,
        now_ms: i64,
    ) -> Result<()> {
        run!(
            self.writer.execute,
            query!(
                sqlite =
                    "INSERT INTO user_settings (user_id, voice_replies, created_at, last_active_at)
                          VALUES (?1, ?2, ?3, ?3)
                          ON CONFLICT (user_id) DO UPDATE
                              SET voice_replies = excluded.voice_replies,
                                  last_active_at = max(last_active_at, excluded.last_active_at)",
                postgres =
                    "INSERT INTO user_settings (user_id, voice_replies, created_at, last_active_at)
                            VALUES ($1, $2, $3, $3)
                            ON CONFLICT (user_id) DO UPDATE
                                SET voice_replies = excluded.voice_replies,
                                    last_active_at = greatest(user_settings.last_active_at,
                                                              excluded.last_active_at)",
                user_id.0,
                mode,
                now_ms,
            ),
        )?;
        Ok(())
    }
}
