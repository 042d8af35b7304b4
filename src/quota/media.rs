//! The daily limits on what costs most besides tokens: pictures drawn (`USER_DAILY_IMAGES`) and
//! seconds of speech made (`USER_DAILY_TTS_SECONDS`), per person per UTC day in all their chats,
//! counted in `daily_usage` (`storage/media_usage.rs`). Checked before any call to a speech or
//! image server, so a person past a limit costs nothing; `ADMIN_USERS` are exempt. A call
//! started under the limit finishes, even if its seconds end past it.

use anyhow::Context;

use super::{DAY_MS, Quota};
use crate::clock::start_of_utc_day_ms;
use crate::storage::{MediaUsed, UserId};

/// What a limit counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediaKind {
    /// Pictures drawn.
    Images,
    /// Seconds of speech made.
    SpeechSeconds,
}

/// One kind's use today against its limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaAllowance {
    pub used: u64,
    /// `None`: no limit.
    pub limit: Option<u64>,
}

/// A person's pictures and speech today, for `/stats` and the Mini App.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaToday {
    pub images: MediaAllowance,
    pub speech_seconds: MediaAllowance,
}

/// A person past one of the limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MediaLimitReached {
    pub kind: MediaKind,
    pub used: u64,
    pub limit: u64,
    /// The next 00:00 UTC.
    pub resets_at_ms: i64,
    pub now_ms: i64,
}

impl Quota {
    fn media_limit(&self, user_id: UserId, kind: MediaKind) -> Option<u64> {
        if self.settings.exempt.contains(&user_id) {
            return None;
        }
        match kind {
            MediaKind::Images => self.settings.daily_images,
            MediaKind::SpeechSeconds => self.settings.daily_speech_seconds,
        }
    }

    /// Whether `user_id` may have more of `kind` today: `Err` with the limit reached when not.
    /// Without a limit for them, nothing is read.
    pub async fn check_media(
        &self,
        user_id: UserId,
        kind: MediaKind,
    ) -> anyhow::Result<Result<(), MediaLimitReached>> {
        let Some(limit) = self.media_limit(user_id, kind) else {
            return Ok(Ok(()));
        };
        let now_ms = self.clock.now_ms();
        let today = self.media_today_at(user_id, now_ms).await?;
        let used = match kind {
            MediaKind::Images => today.images.used,
            MediaKind::SpeechSeconds => today.speech_seconds.used,
        };
        if used < limit {
            return Ok(Ok(()));
        }
        Ok(Err(MediaLimitReached {
            kind,
            used,
            limit,
            resets_at_ms: start_of_utc_day_ms(now_ms) + DAY_MS,
            now_ms,
        }))
    }

    /// `user_id`'s pictures and speech today, against their limits.
    pub async fn media_today(&self, user_id: UserId) -> anyhow::Result<MediaToday> {
        self.media_today_at(user_id, self.clock.now_ms()).await
    }

    async fn media_today_at(&self, user_id: UserId, now_ms: i64) -> anyhow::Result<MediaToday> {
        let used = self
            .store
            .media_used(user_id, start_of_utc_day_ms(now_ms))
            .await
            .context("cannot read today's pictures and speech")?;
        let allowance = |used: i64, kind| MediaAllowance {
            used: used.max(0) as u64,
            limit: self.media_limit(user_id, kind),
        };
        Ok(MediaToday {
            images: allowance(used.images, MediaKind::Images),
            speech_seconds: allowance(used.speech_seconds, MediaKind::SpeechSeconds),
        })
    }

    /// Counts what was made for `user_id` today.
    pub async fn count_media(&self, user_id: UserId, used: MediaUsed) -> anyhow::Result<()> {
        let today_ms = start_of_utc_day_ms(self.clock.now_ms());
        self.store
            .count_media_use(user_id, today_ms, used)
            .await
            .context("cannot count the pictures and speech used")
    }
}
