-- Voice answers and pictures (/tts, /image, voice answers to voice notes).
--
-- What each person used of them per UTC day, beside their messages and tokens: pictures drawn and
-- whole seconds of speech sent (the length of the Opus audio, read from its last page). They are
-- checked before every call against USER_DAILY_IMAGES and USER_DAILY_TTS_SECONDS, and shown by
-- /stats, /usage and the Mini App. Counts only, never text; the purge deletes old days with the
-- rest of the row.
ALTER TABLE daily_usage ADD COLUMN images BIGINT NOT NULL DEFAULT 0;
ALTER TABLE daily_usage ADD COLUMN speech_seconds BIGINT NOT NULL DEFAULT 0;

-- How a person wants their answers (/voice): 'on' (always spoken too), 'off' (text only) or
-- 'auto' (spoken when they spoke); NULL is the default, auto.
ALTER TABLE user_settings ADD COLUMN voice_replies TEXT
    CHECK (voice_replies IN ('on', 'off', 'auto'));
