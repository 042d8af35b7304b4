-- Incognito turns store no messages, so the trigger that counts a stored message's tokens in
-- `daily_usage` never sees them; their counts arrive in `incognito_token_usage` instead. Adding
-- them to `daily_usage` as well keeps the daily token limit, /stats, /users and /usage true for
-- people who chat in incognito. Each write to `incognito_token_usage` is one answered turn.
CREATE TRIGGER incognito_tokens_count_in_daily_usage AFTER INSERT ON incognito_token_usage BEGIN
    INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
    VALUES (new.user_id, new.day_start_at, 1, new.tokens_in + new.tokens_out)
    ON CONFLICT (user_id, day_start_at) DO UPDATE
        SET messages = messages + 1, tokens = tokens + excluded.tokens;
END;

CREATE TRIGGER incognito_token_updates_count_in_daily_usage
AFTER UPDATE OF tokens_in, tokens_out ON incognito_token_usage BEGIN
    INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
    VALUES (new.user_id, new.day_start_at, 1,
            (new.tokens_in + new.tokens_out) - (old.tokens_in + old.tokens_out))
    ON CONFLICT (user_id, day_start_at) DO UPDATE
        SET messages = messages + 1, tokens = tokens + excluded.tokens;
END;
