-- telemem's schema on PostgreSQL: the same tables, columns and meanings as the SQLite migrations
-- (migrations/sqlite), with PostgreSQL's types. Times are integer UTC milliseconds (BIGINT), as
-- everywhere in telemem. Telegram ids are BIGINT.

CREATE TABLE user_settings (
    user_id        BIGINT PRIMARY KEY,
    persona        TEXT,
    model          TEXT,
    language_code  TEXT,
    created_at     BIGINT NOT NULL,
    last_active_at BIGINT NOT NULL
);

CREATE TABLE sessions (
    id               BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id          BIGINT  NOT NULL,
    user_id          BIGINT  NOT NULL,
    started_at       BIGINT  NOT NULL,
    last_activity_at BIGINT  NOT NULL,
    closed_at        BIGINT,
    summarized       BOOLEAN NOT NULL DEFAULT false,
    summary_attempts BIGINT  NOT NULL DEFAULT 0,
    summary_retry_at BIGINT,
    CHECK (last_activity_at >= started_at)
);
CREATE UNIQUE INDEX sessions_one_open_per_conversation
    ON sessions (chat_id, user_id) WHERE closed_at IS NULL;
CREATE INDEX sessions_by_conversation ON sessions (chat_id, user_id, started_at);
CREATE INDEX sessions_by_last_activity ON sessions (last_activity_at);
CREATE INDEX sessions_awaiting_summary ON sessions (closed_at)
    WHERE closed_at IS NOT NULL AND NOT summarized;
CREATE INDEX sessions_open_by_activity ON sessions (last_activity_at) WHERE closed_at IS NULL;
CREATE INDEX sessions_by_user_activity ON sessions (user_id, last_activity_at);

-- `search_vector`: the message's words for recall (the `simple` configuration: lowercased,
-- no stemming and no stop words, in every language alike; memory/recall.rs picks the words and
-- prefixes to look for). Recall reads it through the conversation's index only, so a search
-- costs in proportion to that conversation, never to everyone's messages.
CREATE TABLE messages (
    id                  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id             BIGINT NOT NULL,
    user_id             BIGINT NOT NULL,
    session_id          BIGINT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    role                TEXT   NOT NULL CHECK (role IN ('user', 'assistant', 'system')),
    content             TEXT   NOT NULL,
    created_at          BIGINT NOT NULL,
    tokens_in           BIGINT NOT NULL DEFAULT 0,
    tokens_out          BIGINT NOT NULL DEFAULT 0,
    telegram_message_id BIGINT,
    update_id           BIGINT,
    search_vector       tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED,
    -- When the server stored the row (ms): the embedder's mark passes a message only once it is
    -- this old, because ids are handed out before commit and a lower id may commit later.
    stored_at           BIGINT NOT NULL DEFAULT (extract(epoch FROM clock_timestamp()) * 1000)::bigint
);
CREATE INDEX messages_by_conversation_time ON messages (chat_id, user_id, created_at);
CREATE INDEX messages_by_conversation_id ON messages (chat_id, user_id, id);
CREATE INDEX messages_by_time ON messages (created_at);
CREATE INDEX messages_by_session ON messages (session_id);
CREATE UNIQUE INDEX messages_one_per_telegram_message ON messages (chat_id, telegram_message_id)
    WHERE role = 'user' AND telegram_message_id IS NOT NULL;

CREATE TABLE session_summaries (
    session_id BIGINT PRIMARY KEY REFERENCES sessions (id) ON DELETE CASCADE,
    chat_id    BIGINT NOT NULL,
    user_id    BIGINT NOT NULL,
    summary    TEXT   NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX session_summaries_by_conversation
    ON session_summaries (chat_id, user_id, created_at);

-- Updates taken in (telegram/intake.rs). `claimed_by` is the replica answering the update and
-- `lease_until` when its claim lapses unless renewed: an update whose replica died is taken over
-- by another once its lease has lapsed.
CREATE TABLE processed_updates (
    update_id          BIGINT PRIMARY KEY,
    received_at        BIGINT NOT NULL,
    payload            TEXT,
    state              TEXT   NOT NULL DEFAULT 'done'
        CHECK (state IN ('received', 'replying', 'done')),
    answer_message_ids TEXT,
    chat_id            BIGINT,
    user_id            BIGINT,
    claimed_by         TEXT,
    lease_until        BIGINT
);
CREATE INDEX processed_updates_by_time ON processed_updates (received_at);
CREATE INDEX processed_updates_unfinished ON processed_updates (update_id) WHERE state <> 'done';
CREATE INDEX processed_updates_payload_owner ON processed_updates (chat_id, user_id)
    WHERE payload IS NOT NULL;

CREATE TABLE user_notes (
    id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chat_id           BIGINT  NOT NULL,
    user_id           BIGINT  NOT NULL,
    note              TEXT    NOT NULL,
    source_session_id BIGINT REFERENCES sessions (id) ON DELETE SET NULL,
    created_at        BIGINT  NOT NULL,
    -- Last time the summarizer confirmed the note still holds; the purge goes by this.
    confirmed_at      BIGINT  NOT NULL,
    added_by_hand     BOOLEAN NOT NULL DEFAULT false,
    UNIQUE (chat_id, user_id, note)
);
CREATE INDEX user_notes_by_time ON user_notes (confirmed_at);

-- Recall by meaning: see migrations/sqlite/20261202000040_memory_vectors.sql. `vector` is the
-- unit-length embedding scaled to signed bytes.
CREATE TABLE memory_vectors (
    chat_id   BIGINT   NOT NULL,
    user_id   BIGINT   NOT NULL,
    kind      SMALLINT NOT NULL CHECK (kind IN (0, 1)),
    source_id BIGINT   NOT NULL,
    vector    BYTEA    NOT NULL,
    PRIMARY KEY (chat_id, user_id, kind, source_id)
);
CREATE TABLE embedding_progress (
    id               INTEGER PRIMARY KEY CHECK (id = 1),
    model            TEXT,
    messages_through BIGINT NOT NULL
);
INSERT INTO embedding_progress (id, model, messages_through) VALUES (1, NULL, 0);

CREATE TABLE daily_usage (
    user_id      BIGINT NOT NULL,
    day_start_at BIGINT NOT NULL,
    messages     BIGINT NOT NULL DEFAULT 0,
    tokens       BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, day_start_at)
);
CREATE INDEX daily_usage_by_day ON daily_usage (day_start_at);

CREATE TABLE stored_bytes (
    user_id BIGINT PRIMARY KEY,
    bytes   BIGINT NOT NULL
);
CREATE TABLE stored_bytes_notices (
    user_id BIGINT PRIMARY KEY,
    told_at BIGINT NOT NULL
);

CREATE TABLE access_rules (
    user_id    BIGINT PRIMARY KEY,
    rule       TEXT   NOT NULL CHECK (rule IN ('allow', 'block')),
    changed_by BIGINT NOT NULL,
    changed_at BIGINT NOT NULL
);
CREATE TABLE stranger_alerts (
    user_id    BIGINT PRIMARY KEY,
    alerted_at BIGINT NOT NULL
);
CREATE TABLE token_limits (
    user_id      BIGINT PRIMARY KEY,
    daily_tokens BIGINT CHECK (daily_tokens IS NULL OR daily_tokens > 0),
    set_by       BIGINT NOT NULL,
    set_at       BIGINT NOT NULL
);

CREATE TABLE incognito_conversations (
    chat_id  BIGINT NOT NULL,
    user_id  BIGINT NOT NULL,
    since_at BIGINT NOT NULL,
    PRIMARY KEY (chat_id, user_id)
);
CREATE TABLE incognito_token_usage (
    user_id      BIGINT NOT NULL,
    day_start_at BIGINT NOT NULL,
    tokens_in    BIGINT NOT NULL DEFAULT 0,
    tokens_out   BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, day_start_at)
);
CREATE INDEX incognito_token_usage_by_day ON incognito_token_usage (day_start_at);

-- The same triggers as on SQLite: a message keeps its session, its person, its update, the
-- person's daily usage and stored bytes, and its vector current, whoever writes it.

CREATE FUNCTION messages_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sessions SET last_activity_at = greatest(last_activity_at, NEW.created_at)
    WHERE id = NEW.session_id;
    IF NEW.role = 'user' THEN
        INSERT INTO user_settings (user_id, created_at, last_active_at)
        VALUES (NEW.user_id, NEW.created_at, NEW.created_at)
        ON CONFLICT (user_id) DO UPDATE
            SET last_active_at = greatest(user_settings.last_active_at, excluded.last_active_at);
    END IF;
    IF NEW.role = 'assistant' AND NEW.update_id IS NOT NULL THEN
        UPDATE processed_updates SET state = 'replying'
        WHERE update_id = NEW.update_id AND state = 'received';
    END IF;
    INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
    VALUES (NEW.user_id, NEW.created_at - NEW.created_at % 86400000,
            CASE WHEN NEW.role = 'user' THEN 1 ELSE 0 END, NEW.tokens_in + NEW.tokens_out)
    ON CONFLICT (user_id, day_start_at) DO UPDATE
        SET messages = daily_usage.messages + excluded.messages,
            tokens = daily_usage.tokens + excluded.tokens;
    INSERT INTO stored_bytes (user_id, bytes) VALUES (NEW.user_id, octet_length(NEW.content))
    ON CONFLICT (user_id) DO UPDATE SET bytes = stored_bytes.bytes + excluded.bytes;
    RETURN NULL;
END $$;
CREATE TRIGGER messages_after_insert AFTER INSERT ON messages
    FOR EACH ROW EXECUTE FUNCTION messages_after_insert();

CREATE FUNCTION messages_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.content IS DISTINCT FROM OLD.content THEN
        UPDATE stored_bytes
        SET bytes = bytes - octet_length(OLD.content) + octet_length(NEW.content)
        WHERE user_id = NEW.user_id;
        DELETE FROM memory_vectors
        WHERE chat_id = OLD.chat_id AND user_id = OLD.user_id AND kind = 0 AND source_id = OLD.id;
    END IF;
    IF NEW.role = 'assistant' AND NEW.update_id IS NOT NULL
       AND NEW.telegram_message_id IS DISTINCT FROM OLD.telegram_message_id THEN
        UPDATE processed_updates SET state = 'done', payload = NULL
        WHERE update_id = NEW.update_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER messages_after_update AFTER UPDATE ON messages
    FOR EACH ROW EXECUTE FUNCTION messages_after_update();

CREATE FUNCTION messages_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE stored_bytes SET bytes = bytes - octet_length(OLD.content) WHERE user_id = OLD.user_id;
    DELETE FROM memory_vectors
    WHERE chat_id = OLD.chat_id AND user_id = OLD.user_id AND kind = 0 AND source_id = OLD.id;
    RETURN NULL;
END $$;
CREATE TRIGGER messages_after_delete AFTER DELETE ON messages
    FOR EACH ROW EXECUTE FUNCTION messages_after_delete();

CREATE FUNCTION session_summaries_after_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sessions SET summarized = true, summary_retry_at = NULL WHERE id = NEW.session_id;
    INSERT INTO stored_bytes (user_id, bytes) VALUES (NEW.user_id, octet_length(NEW.summary))
    ON CONFLICT (user_id) DO UPDATE SET bytes = stored_bytes.bytes + excluded.bytes;
    RETURN NULL;
END $$;
CREATE TRIGGER session_summaries_after_insert AFTER INSERT ON session_summaries
    FOR EACH ROW EXECUTE FUNCTION session_summaries_after_insert();

CREATE FUNCTION session_summaries_after_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.summary IS DISTINCT FROM OLD.summary THEN
        UPDATE stored_bytes
        SET bytes = bytes - octet_length(OLD.summary) + octet_length(NEW.summary)
        WHERE user_id = NEW.user_id;
        DELETE FROM memory_vectors
        WHERE chat_id = OLD.chat_id AND user_id = OLD.user_id AND kind = 1
          AND source_id = OLD.session_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER session_summaries_after_update AFTER UPDATE ON session_summaries
    FOR EACH ROW EXECUTE FUNCTION session_summaries_after_update();

CREATE FUNCTION session_summaries_after_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE stored_bytes SET bytes = bytes - octet_length(OLD.summary) WHERE user_id = OLD.user_id;
    DELETE FROM memory_vectors
    WHERE chat_id = OLD.chat_id AND user_id = OLD.user_id AND kind = 1
      AND source_id = OLD.session_id;
    RETURN NULL;
END $$;
CREATE TRIGGER session_summaries_after_delete AFTER DELETE ON session_summaries
    FOR EACH ROW EXECUTE FUNCTION session_summaries_after_delete();

CREATE FUNCTION user_notes_stored_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO stored_bytes (user_id, bytes) VALUES (NEW.user_id, octet_length(NEW.note))
        ON CONFLICT (user_id) DO UPDATE SET bytes = stored_bytes.bytes + excluded.bytes;
    ELSIF TG_OP = 'UPDATE' THEN
        UPDATE stored_bytes SET bytes = bytes - octet_length(OLD.note) + octet_length(NEW.note)
        WHERE user_id = NEW.user_id;
    ELSE
        UPDATE stored_bytes SET bytes = bytes - octet_length(OLD.note) WHERE user_id = OLD.user_id;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER user_notes_stored_bytes AFTER INSERT OR UPDATE OF note OR DELETE ON user_notes
    FOR EACH ROW EXECUTE FUNCTION user_notes_stored_bytes();

CREATE FUNCTION incognito_tokens_in_daily_usage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO daily_usage (user_id, day_start_at, messages, tokens)
    VALUES (NEW.user_id, NEW.day_start_at, 1,
            CASE WHEN TG_OP = 'INSERT' THEN NEW.tokens_in + NEW.tokens_out
                 ELSE (NEW.tokens_in + NEW.tokens_out) - (OLD.tokens_in + OLD.tokens_out) END)
    ON CONFLICT (user_id, day_start_at) DO UPDATE
        SET messages = daily_usage.messages + 1, tokens = daily_usage.tokens + excluded.tokens;
    RETURN NULL;
END $$;
CREATE TRIGGER incognito_tokens_in_daily_usage
    AFTER INSERT OR UPDATE OF tokens_in, tokens_out ON incognito_token_usage
    FOR EACH ROW EXECUTE FUNCTION incognito_tokens_in_daily_usage();
