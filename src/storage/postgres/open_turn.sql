-- A chat turn's start in one statement (Store::open_turn in storage/sessions.rs, PostgreSQL): what
-- turn_start.sql reads, and, unless the conversation is in incognito, the user's message stored in
-- its session: the open one while it was last active within the idle time, else a new one (the
-- idle one closed at its last activity). Every read sees the conversation as it was before the
-- statement, so the history does not hold the new message.
-- $1 chat id, $2 user id, $3 summaries since (ms), $4 summary count, $5 history since (ms),
-- $6 history's most messages, $7 now (ms), $8 session idle time (ms), $9 the message's text,
-- $10 its Telegram message id, $11 how many of the latest summaries of all time to read beside,
-- $12 whether to open the session and store the message at all (false: Store::turn_start, which
-- only reads). A negative count means no limit, as SQLite reads it.
--
-- The new session is inserted only once the idle one is closed (`created` reads `closed`), so the
-- one-open-session index sees it closed. It inserts nothing when another replica opened a session
-- meanwhile, and the message is not inserted when the same Telegram message is stored already:
-- then "message_id" is NULL and the caller takes the statement-by-statement way.
WITH incognito AS (
         SELECT EXISTS (SELECT 1 FROM incognito_conversations
                        WHERE chat_id = $1 AND user_id = $2) AS on_),
     opening AS (
         SELECT $12::boolean AND NOT on_ AS stores FROM incognito),
     open_session AS (
         SELECT id, last_activity_at FROM sessions
         WHERE chat_id = $1 AND user_id = $2 AND closed_at IS NULL),
     kept AS (
         SELECT id FROM open_session
         WHERE $7 - last_activity_at <= $8 AND (SELECT stores FROM opening)),
     closed AS (
         UPDATE sessions SET closed_at = last_activity_at
         WHERE chat_id = $1 AND user_id = $2 AND closed_at IS NULL
           AND (SELECT stores FROM opening) AND NOT EXISTS (SELECT 1 FROM kept)
         RETURNING id),
     created AS (
         INSERT INTO sessions (chat_id, user_id, started_at, last_activity_at)
         SELECT $1, $2, $7, $7
         FROM (SELECT count(*) FROM closed) AS closing
         WHERE (SELECT stores FROM opening) AND NOT EXISTS (SELECT 1 FROM kept)
         ON CONFLICT (chat_id, user_id) WHERE closed_at IS NULL DO NOTHING
         RETURNING id),
     session AS (
         SELECT id FROM kept UNION ALL SELECT id FROM created),
     stored AS (
         INSERT INTO messages
             (chat_id, user_id, session_id, role, content, created_at,
              tokens_in, tokens_out, telegram_message_id, update_id)
         SELECT $1, $2, session.id, 'user', $9, $7, 0, 0, $10, NULL
         FROM session
         ON CONFLICT DO NOTHING
         RETURNING id),
     -- The latest summaries of all time, as many as either list takes: the ones since $3 are
     -- among them, first in this order.
     latest_summaries AS (
         SELECT json_build_object(
                    'session_id', summary.session_id, 'chat_id', summary.chat_id,
                    'user_id', summary.user_id, 'summary', summary.summary,
                    'created_at_ms', summary.created_at,
                    'session_started_at_ms', summarized.started_at,
                    'session_last_activity_at_ms', summarized.last_activity_at) AS entry,
                summary.created_at, summary.session_id,
                row_number() OVER (ORDER BY summary.created_at DESC, summary.session_id DESC)
                    AS place
         FROM session_summaries AS summary
         JOIN sessions AS summarized ON summarized.id = summary.session_id
         WHERE summary.chat_id = $1 AND summary.user_id = $2
         ORDER BY summary.created_at DESC, summary.session_id DESC
         LIMIT CASE WHEN $4::bigint >= 0 AND $11::bigint >= 0 THEN greatest($4, $11) END)
SELECT (SELECT persona FROM user_settings WHERE user_id = $2) AS "persona?",
       (SELECT model FROM user_settings WHERE user_id = $2) AS "model?",
       (SELECT time_zone FROM user_settings WHERE user_id = $2) AS "time_zone?",
       (SELECT on_ FROM incognito) AS "incognito!",
       (SELECT id FROM open_session) AS "open_session_id?",
       (SELECT last_activity_at FROM open_session) AS "open_session_last_activity_at_ms?",
       (SELECT id FROM session) AS "session_id?",
       (SELECT id FROM stored) AS "message_id?",
       (SELECT coalesce(json_agg(json_build_object(
                   'id', id, 'note', note, 'created_at_ms', created_at,
                   'confirmed_at_ms', confirmed_at, 'added_by_hand', added_by_hand,
                   'valid_from_ms', valid_from, 'earlier', coalesce(earlier, '[]')::json)
                   ORDER BY created_at, id), '[]')::text
        FROM user_notes
        WHERE chat_id = $1 AND user_id = $2) AS "notes!",
       (SELECT coalesce(json_agg(entry ORDER BY created_at, session_id), '[]')::text
        FROM latest_summaries
        WHERE created_at >= $3 AND ($4::bigint < 0 OR place <= $4)) AS "summaries!",
       (SELECT coalesce(json_agg(entry ORDER BY created_at, session_id), '[]')::text
        FROM latest_summaries
        WHERE $11::bigint < 0 OR place <= $11) AS "older_summaries!",
       (SELECT coalesce(json_agg(json_build_object(
                   'id', id, 'chat_id', chat_id, 'user_id', user_id,
                   'session_id', session_id, 'role', role, 'content', content,
                   'created_at_ms', created_at, 'tokens_in', tokens_in,
                   'tokens_out', tokens_out,
                   'telegram_message_id', telegram_message_id)
                   ORDER BY created_at, id), '[]')::text
        FROM (SELECT * FROM messages
              WHERE chat_id = $1 AND user_id = $2 AND created_at >= $5
              ORDER BY created_at DESC, id DESC
              LIMIT CASE WHEN $6::bigint >= 0 THEN $6 END) AS latest_messages)
           AS "history!",
       EXISTS (SELECT 1 FROM messages
               WHERE chat_id = $1 AND user_id = $2 AND created_at < $5)
           AS "has_messages_before_window!"
