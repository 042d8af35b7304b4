-- Recall by words on PostgreSQL at scale (docs/PERFORMANCE.md): 10,000 people with 200 messages
-- each, then the search of one turn for 2,000 of them, timed inside the server. The search is the
-- query of src/storage/postgres/search.rs with the bench's terms (keep the two alike). Run it on an
-- empty, migrated database:
--
--   url=$(scripts/pg-test-server start --durable); psql "$url" -c 'CREATE DATABASE bench'
--   for m in migrations/postgres/*.sql; do psql "${url%/postgres}/bench" -f "$m"; done
--   psql "${url%/postgres}/bench" -f benches/postgres_recall.sql
\timing on
INSERT INTO sessions (chat_id, user_id, started_at, last_activity_at, closed_at)
SELECT person, person, 0, 0, 1 FROM generate_series(1, 10000) AS person;
INSERT INTO messages (chat_id, user_id, session_id, role, content, created_at)
SELECT s.chat_id, s.user_id, s.id, CASE WHEN n % 2 = 0 THEN 'user' ELSE 'assistant' END,
       (ARRAY['The supplier says the parcel ships on Monday, tracking number ',
              'Remind me to call the delivery service about order ',
              'The tracking page shows the parcel at the depot since day ',
              'My dentist appointment moved to the afternoon of the '])[1 + n % 4] || (s.id * 1000 + n),
       n
FROM sessions AS s CROSS JOIN generate_series(1, 200) AS n;
ANALYZE messages;
CREATE TEMP TABLE timings (ms float8);
DO $$
DECLARE p_chat bigint; p_user bigint; p_operands text[]; p_texts text[]; p_prefixes boolean[];
        p_before bigint := 9223372036854775807; p_limit bigint := 15; started timestamptz; found int;
BEGIN
  p_operands := ARRAY['''supplie'':*', '''tracki'':*', '''deliv'':*', '''parc'':*', '''send''', '''day'''];
  p_texts := ARRAY['supplie','tracki','deliv','parc','send','day'];
  p_prefixes := ARRAY[true,true,true,true,false,false];
  FOR person IN 1..2000 LOOP
    p_chat := 1 + (person * 7919) % 10000; p_user := p_chat;
    started := clock_timestamp();
    SELECT count(*) INTO found FROM (WITH term AS MATERIALIZED (
                   SELECT number, to_tsquery('simple', operand) AS query, is_prefix,
                          tsvector_to_array(to_tsvector('simple', text)) AS words
                   FROM unnest(p_operands::text[], p_texts::text[], p_prefixes::boolean[]) WITH ORDINALITY
                        AS given (operand, text, is_prefix, number)),
               conversation AS MATERIALIZED (
                   SELECT id, search_vector, length(search_vector) AS words
                   FROM messages WHERE chat_id = p_chat AND user_id = p_user),
               totals AS (
                   SELECT count(*)::float8 AS messages,
                          coalesce(avg(words), 0)::float8 AS average_words
                   FROM conversation),
               hit AS MATERIALIZED (
                   SELECT conversation.id, conversation.words, term.number,
                          greatest(1, (SELECT min(occurrences) FROM (
                              SELECT sum(cardinality(entry.positions)) AS occurrences
                              FROM unnest(term.words) AS wanted (word)
                              JOIN unnest(conversation.search_vector) AS entry
                                ON entry.lexeme = wanted.word
                                   OR (term.is_prefix AND starts_with(entry.lexeme, wanted.word))
                              GROUP BY wanted.word) AS per_word))::float8 AS occurrences
                   FROM conversation
                   JOIN term ON numnode(term.query) > 0
                            AND conversation.search_vector @@ term.query),
               rarity AS (
                   SELECT number,
                          greatest(1e-6, ln((totals.messages - count(*) + 0.5) / (count(*) + 0.5)))
                              AS idf
                   FROM hit CROSS JOIN totals GROUP BY number, totals.messages),
               score AS (
                   SELECT hit.id,
                          sum(rarity.idf * hit.occurrences * 2.2
                              / (hit.occurrences + 1.2 * (0.25 + 0.75 * (hit.words + 1)
                                                                / (totals.average_words + 1))))
                              AS score
                   FROM hit JOIN rarity USING (number) CROSS JOIN totals
                   WHERE hit.id < p_before
                   GROUP BY hit.id),
               best AS MATERIALIZED (
                   SELECT id, score FROM score
                   ORDER BY score DESC, id
                   LIMIT CASE WHEN p_limit::bigint >= 0 THEN p_limit END)
               SELECT message.id AS id, message.chat_id AS chat_id,
                      message.user_id AS user_id, message.session_id AS session_id,
                      message.role AS role, message.content AS content,
                      message.created_at AS created_at_ms, message.tokens_in AS tokens_in,
                      message.tokens_out AS tokens_out, message.telegram_message_id
               FROM best JOIN messages AS message ON message.id = best.id
               WHERE message.chat_id = p_chat AND message.user_id = p_user AND message.id < p_before
               ORDER BY best.score DESC, message.id) AS result;
    INSERT INTO timings VALUES (extract(epoch FROM clock_timestamp() - started) * 1000);
  END LOOP;
END $$;
SELECT count(*) AS searches, round(avg(ms)::numeric, 2) AS mean_ms,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p50_ms,
       round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 2) AS p99_ms FROM timings;
