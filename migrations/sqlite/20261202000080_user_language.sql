-- The language a person's Telegram app last reported (`language_code`, an IETF tag such as `de`
-- or `pt-br`), so that what the bot sends on its own, outside an answer, can be in their language.
-- NULL: never reported (a person seen only before this column, or a client that sends none).
ALTER TABLE user_settings ADD COLUMN language_code TEXT;
