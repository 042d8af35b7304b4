-- What a chat turn reads before it stores the user's message, in one statement
-- (the PostgreSQL arm of Store::turn_start in storage/sessions.rs; the SQLite twin is src/storage/sql/turn_start.sql):
-- $1 chat id, $2 user id, $3 summaries since (ms), $4 summary count, $5 history since (ms),
-- $6 history's most messages. A negative count means no limit, as SQLite reads it.
SELECT (SELECT persona FROM user_settings WHERE user_id = $2) AS "persona?",
       (SELECT model FROM user_settings WHERE user_id = $2) AS "model?",
       (SELECT time_zone FROM user_settings WHERE user_id = $2) AS "time_zone?",
       EXISTS (SELECT 1 FROM incognito_conversations WHERE chat_id = $1 AND user_id = $2)
           AS "incognito!",
       session.id AS "session_id?",
       session.last_activity_at AS "last_activity_at_ms?",
       (SELECT coalesce(json_agg(json_build_object(
                   'id', id, 'note', note, 'created_at_ms', created_at,
                   'confirmed_at_ms', confirmed_at, 'added_by_hand', added_by_hand,
                   'valid_from_ms', valid_from, 'earlier', coalesce(earlier, '[]')::json)
                   ORDER BY created_at, id), '[]')::text
        FROM user_notes
        WHERE chat_id = $1 AND user_id = $2) AS "notes!",
       (SELECT coalesce(json_agg(json_build_object(
                   'session_id', session_id, 'chat_id', chat_id,
                   'user_id', user_id, 'summary', summary,
                   'created_at_ms', created_at,
                   'session_started_at_ms', started_at,
                   'session_last_activity_at_ms', last_activity_at)
                   ORDER BY created_at, session_id), '[]')::text
        FROM (SELECT summary.session_id, summary.chat_id, summary.user_id,
                     summary.summary, summary.created_at,
                     summarized.started_at, summarized.last_activity_at
              FROM session_summaries AS summary
              JOIN sessions AS summarized ON summarized.id = summary.session_id
              WHERE summary.chat_id = $1 AND summary.user_id = $2
                AND summary.created_at >= $3
              ORDER BY summary.created_at DESC, summary.session_id DESC
              LIMIT CASE WHEN $4::bigint >= 0 THEN $4 END) AS latest_summaries)
           AS "summaries!",
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
FROM (SELECT 1) AS one
LEFT JOIN sessions AS session
    ON session.chat_id = $1 AND session.user_id = $2 AND session.closed_at IS NULL
