//! What voice answers, `/tts`, `/voice` and `/image` say: the settings, the refusals (no server,
//! empty or overlong input, a daily limit, a safety refusal with the server's reason, a timeout, a
//! failure), and the lines `/stats` and `/usage` add for pictures and speech.

use super::numbers::{human_duration, thousands};
use super::plain;
use crate::clock::format_utc_ms;
use crate::i18n::Lang;
use crate::quota::media::{MediaAllowance, MediaLimitReached, MediaToday};
use crate::voice_mode::VoiceMode;

/// `/voice`: how answers come now, and how to change it.
pub fn voice_state(lang: Lang, mode: VoiceMode) -> String {
    say!(lang, "voice-state", mode = mode.as_str())
}

/// `/voice on|off|auto` was stored.
pub fn voice_set(lang: Lang, mode: VoiceMode) -> String {
    say!(lang, "voice-set", mode = mode.as_str())
}

/// `telemem chat` cannot play speech or show pictures.
pub fn terminal_cannot_send_media(lang: Lang) -> String {
    plain(lang, "terminal-cannot-send-media")
}

pub fn speech_not_set_up(lang: Lang) -> String {
    plain(lang, "speech-not-set-up")
}

pub fn tts_usage(lang: Lang) -> String {
    plain(lang, "tts-usage")
}

pub fn tts_too_long(lang: Lang, length: usize, max: usize) -> String {
    say!(lang, "tts-too-long", length, max)
}

pub fn speech_failed(lang: Lang) -> String {
    plain(lang, "speech-failed")
}

pub fn image_not_set_up(lang: Lang) -> String {
    plain(lang, "image-not-set-up")
}

pub fn image_usage(lang: Lang) -> String {
    plain(lang, "image-usage")
}

pub fn image_description_too_long(lang: Lang, length: usize, max: usize) -> String {
    say!(lang, "image-too-long", length, max)
}

/// The image server's safety system refused; `reason` is its own words.
pub fn image_unsafe(lang: Lang, reason: &str) -> String {
    if reason.is_empty() {
        return plain(lang, "image-unsafe-no-reason");
    }
    say!(lang, "image-unsafe", reason)
}

pub fn image_timed_out(lang: Lang) -> String {
    plain(lang, "image-timed-out")
}

pub fn image_failed(lang: Lang) -> String {
    plain(lang, "image-failed")
}

/// The notice for a person past `USER_DAILY_IMAGES`.
pub fn image_limit_reached(lang: Lang, reached: &MediaLimitReached) -> String {
    media_limit_reached(lang, "image-limit-reached", reached)
}

/// The notice for a person past `USER_DAILY_TTS_SECONDS`.
pub fn speech_limit_reached(lang: Lang, reached: &MediaLimitReached) -> String {
    media_limit_reached(lang, "speech-limit-reached", reached)
}

fn media_limit_reached(lang: Lang, id: &str, reached: &MediaLimitReached) -> String {
    let wait_secs = ((reached.resets_at_ms - reached.now_ms).max(0) / 1_000) as u64;
    say!(
        lang,
        id,
        limit = thousands(lang, reached.limit),
        resets_at = format_utc_ms(reached.resets_at_ms),
        wait = human_duration(lang, wait_secs)
    )
}

/// `/stats`' lines for today's pictures and speech: only those the bot offers.
pub fn media_today(lang: Lang, today: &MediaToday, images: bool, speech: bool) -> String {
    let line = |id: &str, allowance: &MediaAllowance| {
        let used = thousands(lang, allowance.used);
        match allowance.limit {
            Some(limit) => say!(
                lang,
                &format!("{id}-limited"),
                used,
                limit = thousands(lang, limit)
            ),
            None => say!(lang, id, used),
        }
    };
    let mut lines = Vec::new();
    if images {
        lines.push(line("stats-images-today", &today.images));
    }
    if speech {
        lines.push(line("stats-speech-today", &today.speech_seconds));
    }
    lines.join("\n")
}

/// `/usage`' line for a person's pictures and seconds of speech over the days shown.
pub fn usage_media(lang: Lang, images: i64, speech_seconds: i64) -> String {
    say!(
        lang,
        "usage-media",
        images = thousands(lang, images.max(0) as u64),
        seconds = thousands(lang, speech_seconds.max(0) as u64)
    )
}
