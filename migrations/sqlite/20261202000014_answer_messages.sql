-- The Telegram messages that carry an update's answer (a streamed preview, the parts of a long
-- reply), as a JSON array of message ids in the order the parts read, recorded as Telegram
-- creates them. An update handled again after a crash finishes these messages (edits them to the
-- final text, deletes leftovers, sends only the parts never sent) instead of sending new ones, so
-- a person sees one answer whatever the moment of the crash. NULL: nothing was sent yet, or a
-- single message carried the whole answer (its id is then on the reply in `messages`).
ALTER TABLE processed_updates ADD COLUMN answer_message_ids TEXT;
