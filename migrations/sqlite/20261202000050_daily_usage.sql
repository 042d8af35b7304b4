-- What each person used per UTC day, across all their chats: the messages they sent and the
-- tokens their turns cost (as stored on each reply: the provider's figures, or the estimate when
-- the provider reports none). The daily token limit (USER_DAILY_TOKEN_LIMIT, /limit) is checked
-- against it before every turn, and /stats, /users and /usage read it.
--
-- It is kept apart from `messages` so that /clear, which deletes a person's history, does not
-- hand them back the day's tokens, and so that a person's use is one short read rather than a
-- walk over all their messages in every chat. It holds counts only, never text; the purge
-- deletes days older than PURGE_AFTER_SECS. `day_start_at` is the day's 00:00 UTC.
CREATE TABLE daily_usage (
    user_id      INTEGER NOT NULL,
    day_start_at INTEGER NOT NULL,
    messages     INTEGER NOT NULL DEFAULT 0,
    tokens       INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, day_start_at)
) WITHOUT ROWID;

-- Serves /users and /usage (everyone's last days) and the purge.
CREATE INDEX daily_usage_by_day ON daily_usage (day_start_at);

INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
SELECT user_id, created_at - created_at % 86400000, sum(role = 'user'),
       sum(tokens_in + tokens_out)
FROM messages
GROUP BY 1, 2;

-- Counted in the statement that stores the message, like the other bookkeeping of a turn.
CREATE TRIGGER messages_count_daily_usage AFTER INSERT ON messages BEGIN
    INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
    VALUES (new.user_id, new.created_at - new.created_at % 86400000, new.role = 'user',
            new.tokens_in + new.tokens_out)
    ON CONFLICT (user_id, day_start_at) DO UPDATE
        SET messages = messages + excluded.messages, tokens = tokens + excluded.tokens;
END;
