//! Speaking answers, free of Telegram: how a person wants their answers (`/voice on|off|auto`,
//! auto by default: spoken when they spoke), and reading text aloud for them within their daily
//! seconds ([`Conversations::speak`]), for a voice answer and `/tts`. The front end sends the
//! voice notes; a failure here never takes the text answer away, which is sent first.

use crate::llm::speech::{OpusAudio, SpeechClient, SpeechError, speakable_text};
use crate::metrics;
use crate::quota::media::{MediaKind, MediaLimitReached};
use crate::storage::{MediaUsed, UserId};
use crate::voice_mode::VoiceMode;

use super::Conversations;

/// Why text was not read aloud.
#[derive(Debug, thiserror::Error)]
pub enum SpeakRefusal {
    #[error("no speech server is configured")]
    NotConfigured,
    #[error("nothing to read aloud")]
    NothingToRead,
    #[error("{length} characters is more than the {max} read aloud at once")]
    TooLong { length: usize, max: usize },
    #[error("the daily seconds of speech are used up")]
    LimitReached(MediaLimitReached),
    #[error("speech failed: {0}")]
    Failed(#[from] SpeechError),
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl Conversations {
    /// The same conversations, reading text aloud with `speech`.
    pub fn with_speech(mut self, speech: SpeechClient) -> Self {
        self.speech = Some(speech);
        self
    }

    /// Whether text can be read aloud (a speech server is configured).
    pub fn can_speak(&self) -> bool {
        self.speech.is_some()
    }

    /// How `user_id` wants their answers.
    pub async fn voice_mode(&self, user_id: UserId) -> anyhow::Result<VoiceMode> {
        let stored = self.store.voice_replies(user_id).await?;
        Ok(stored
            .as_deref()
            .and_then(VoiceMode::parse)
            .unwrap_or_default())
    }

    /// Stores how `user_id` wants their answers.
    pub async fn set_voice_mode(&self, user_id: UserId, mode: VoiceMode) -> anyhow::Result<()> {
        let now_ms = self.clock.now_ms();
        self.store
            .set_voice_replies(user_id, Some(mode.as_str()), now_ms)
            .await?;
        Ok(())
    }

    /// Whether the answer to `user_id`'s question (`spoken` or written) is spoken too: a speech
    /// server is configured and their `/voice` asks for it. A failed read counts as no.
    pub async fn speaks_answer_to(&self, user_id: UserId, spoken: bool) -> bool {
        if !self.can_speak() {
            return false;
        }
        match self.voice_mode(user_id).await {
            Ok(mode) => mode.speaks_answer(spoken),
            Err(error) => {
                tracing::warn!(error = ?error, "could not read the voice setting");
                false
            }
        }
    }

    /// `markdown` read aloud for `user_id`, in as many voice notes as the speech server's input
    /// limit needs, within their daily seconds (checked before the first call, counted after the
    /// audio is made).
    pub async fn speak(
        &self,
        user_id: UserId,
        markdown: &str,
    ) -> Result<Vec<OpusAudio>, SpeakRefusal> {
        let speech = self.speech.as_ref().ok_or(SpeakRefusal::NotConfigured)?;
        let text = speakable_text(markdown);
        if text.is_empty() {
            return Err(SpeakRefusal::NothingToRead);
        }
        let length = text.chars().count();
        if length > speech.max_text_chars() {
            metrics::speech_call("too_long");
            let max = speech.max_text_chars();
            return Err(SpeakRefusal::TooLong { length, max });
        }
        if let Err(reached) = self
            .quota
            .check_media(user_id, MediaKind::SpeechSeconds)
            .await?
        {
            metrics::media_refused("speech");
            return Err(SpeakRefusal::LimitReached(reached));
        }
        let mut clips = Vec::new();
        let mut failure = None;
        for part in speech.parts_of(&text) {
            match speech.speak(&part).await {
                Ok(clip) => clips.push(clip),
                Err(error) => {
                    metrics::speech_call(error.kind());
                    failure = Some(error);
                    break;
                }
            }
        }
        // What was made is counted even when a later part failed: the server made it.
        let seconds: u64 = clips.iter().map(OpusAudio::whole_seconds).sum();
        if seconds > 0 {
            metrics::speech_made(clips.len(), seconds);
            let used = MediaUsed {
                images: 0,
                speech_seconds: i64::try_from(seconds).unwrap_or(i64::MAX),
            };
            self.quota.count_media(user_id, used).await?;
        }
        match failure {
            Some(error) => Err(error.into()),
            None => Ok(clips),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_speaks_only_to_a_spoken_question() {
        assert!(VoiceMode::Auto.speaks_answer(true));
        assert!(!VoiceMode::Auto.speaks_answer(false));
        assert!(VoiceMode::On.speaks_answer(false));
        assert!(!VoiceMode::Off.speaks_answer(true));
        assert_eq!(VoiceMode::parse(" ON "), Some(VoiceMode::On));
        assert_eq!(VoiceMode::parse("loud"), None);
    }
}
