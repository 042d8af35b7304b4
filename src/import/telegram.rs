//! Telegram Desktop's chat export (`result.json` of "Export chat history", JSON format): an
//! object with the chat's `name`, `type`, `id` and its `messages`.
//!
//! The file is read as a stream: each message becomes the little we keep (its time, sender and
//! text) as soon as it is read, so a 100 MB export is never in memory as JSON. Service messages
//! (joins, pins, calls) are skipped. A message's text is its `text` (a string, or a list of
//! strings and `{type, text}` pieces, joined); media without text become the markers live chat
//! stores (`[photo]`, `[voice]`, …), a sticker its emoji. Times come from `date_unixtime` (UTC
//! seconds); `date` is local time without a zone and is not used.
//!
//! The person is the sender whose `from_id` is [`Senders::person`]; the assistant side is the
//! one other sender, or the one named when the chat has several (their messages are skipped).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, Read};
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{History, ImportError, Senders, storable_text};
use crate::attachments::{self, Spoken};
use crate::storage::{ImportMessage, Role};

/// One message of the export, as much as an import keeps.
struct Kept {
    id: i64,
    time_ms: i64,
    from_id: String,
    text: String,
}

/// The export, as much as an import keeps.
#[derive(Default)]
struct Export {
    chat_id: Option<i64>,
    messages: Vec<Kept>,
    /// Senders by `from_id`: their name and how many messages they sent.
    senders: HashMap<String, (String, usize)>,
    service: usize,
    empty: usize,
    /// Whether this is a whole-account export (`chats`) rather than one chat's.
    account: bool,
}

/// Reads the export in `input`; the first fault refuses the whole file.
pub fn read(
    input: impl BufRead,
    senders: &Senders,
    latest_ms: i64,
) -> Result<History, ImportError> {
    let line = Rc::new(Cell::new(1));
    let fault = RefCell::new(None);
    let reader = CountingLines {
        inner: input,
        line: Rc::clone(&line),
    };
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let seed = ExportSeed {
        latest_ms,
        line: &line,
        fault: &fault,
    };
    let export = seed
        .deserialize(&mut deserializer)
        .and_then(|export| deserializer.end().map(|()| export))
        .map_err(|error| ImportError::Telegram(fault.take().unwrap_or(error.to_string())))?;
    if export.account {
        return Err(ImportError::Telegram(
            "this is a whole-account export: export one chat (its ⋮ menu, \"Export chat \
             history\", format JSON) and import its result.json"
                .to_owned(),
        ));
    }
    let Some(chat_id) = export.chat_id else {
        return Err(ImportError::Telegram(
            "the export has no chat `id`: is it a Telegram Desktop chat export (result.json)?"
                .to_owned(),
        ));
    };
    let assistant = assistant_of(&export, senders)?;
    let mut history = History::default();
    for _ in 0..export.service {
        history.skip("service messages");
    }
    for _ in 0..export.empty {
        history.skip("messages without text or media");
    }
    for kept in export.messages {
        let role = if kept.from_id == senders.person {
            Role::User
        } else if Some(&kept.from_id) == assistant.as_ref() {
            Role::Assistant
        } else {
            history.skip("messages of other senders");
            continue;
        };
        history.messages.push(ImportMessage {
            role,
            content: kept.text,
            created_at_ms: kept.time_ms,
            import_key: format!("telegram:{chat_id}:{}", kept.id),
        });
    }
    Ok(history)
}

/// The `from_id` of the assistant side, after checking that the person is in the export.
fn assistant_of(export: &Export, senders: &Senders) -> Result<Option<String>, ImportError> {
    let mut others: Vec<&String> = export
        .senders
        .keys()
        .filter(|from_id| **from_id != senders.person)
        .collect();
    others.sort();
    let listed = || {
        let mut all: Vec<String> = export
            .senders
            .iter()
            .map(|(from_id, (name, count))| format!("{from_id} ({name}, {count} messages)"))
            .collect();
        all.sort();
        all.join(", ")
    };
    if !export.senders.contains_key(&senders.person) {
        return Err(ImportError::Telegram(format!(
            "no message of the export is from {} (the person): its senders are {}; name the \
             person's with --me <from_id>",
            senders.person,
            listed()
        )));
    }
    match (&senders.assistant, others.as_slice()) {
        (Some(assistant), _) if others.contains(&assistant) => Ok(Some(assistant.clone())),
        (Some(assistant), _) => Err(ImportError::Telegram(format!(
            "no message of the export is from {assistant} (--assistant): its senders are {}",
            listed()
        ))),
        (None, []) => Ok(None),
        (None, [only]) => Ok(Some((*only).clone())),
        (None, _) => Err(ImportError::Telegram(format!(
            "the chat has more than two senders ({}): name the assistant side with \
             --assistant <from_id>; the other senders' messages are then skipped",
            listed()
        ))),
    }
}

/// Counts the lines of what it reads, so that a fault found in a message just read can name its
/// line (serde_json reads one byte at a time, so the count is where the parser is).
struct CountingLines<R> {
    inner: R,
    line: Rc<Cell<usize>>,
}

impl<R: Read> Read for CountingLines<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        let newlines = buffer[..read].iter().filter(|&&byte| byte == b'\n').count();
        self.line.set(self.line.get() + newlines);
        Ok(read)
    }
}

/// Reads the export's top-level object, keeping the chat id and the messages. A fault in a
/// message is described in `fault`, where it is known which message it is.
struct ExportSeed<'a> {
    latest_ms: i64,
    line: &'a Cell<usize>,
    fault: &'a RefCell<Option<String>>,
}

impl<'de> DeserializeSeed<'de> for ExportSeed<'_> {
    type Value = Export;

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<Export, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ExportSeed<'_> {
    type Value = Export;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a Telegram chat export: an object with `id` and `messages`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Export, A::Error> {
        let mut export = Export::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "id" => export.chat_id = Some(map.next_value()?),
                "messages" => map.next_value_seed(MessagesSeed {
                    latest_ms: self.latest_ms,
                    line: self.line,
                    fault: self.fault,
                    export: &mut export,
                })?,
                "chats" => {
                    export.account = true;
                    map.next_value::<IgnoredAny>()?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(export)
    }
}

/// Reads the `messages` list into an [`Export`], one message at a time.
struct MessagesSeed<'a> {
    latest_ms: i64,
    line: &'a Cell<usize>,
    fault: &'a RefCell<Option<String>>,
    export: &'a mut Export,
}

impl<'de> DeserializeSeed<'de> for MessagesSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for MessagesSeed<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a list of messages")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut index = 0_usize;
        loop {
            let raw = match seq.next_element::<RawMessage>() {
                Ok(Some(raw)) => raw,
                Ok(None) => return Ok(()),
                // serde_json's message names the line and column.
                Err(error) => {
                    self.fault
                        .replace(Some(format!("message #{index}: {error}")));
                    return Err(error);
                }
            };
            if raw.kind != "message" {
                self.export.service += 1;
            } else {
                match raw.keep(self.latest_ms) {
                    Ok(Some(kept)) => self.export.add(kept, raw.from.as_deref()),
                    Ok(None) => self.export.empty += 1,
                    Err(reason) => {
                        let line = self.line.get();
                        let fault =
                            format!("message #{index} (id {}, line {line}): {reason}", raw.id);
                        self.fault.replace(Some(fault.clone()));
                        return Err(de::Error::custom(fault));
                    }
                }
            }
            index += 1;
        }
    }
}

impl Export {
    fn add(&mut self, kept: Kept, from: Option<&str>) {
        let sender = self
            .senders
            .entry(kept.from_id.clone())
            .or_insert_with(|| (from.unwrap_or_default().to_owned(), 0));
        sender.1 += 1;
        self.messages.push(kept);
    }
}

/// A message of the export, with the fields an import reads.
#[derive(serde::Deserialize)]
struct RawMessage {
    id: i64,
    #[serde(rename = "type")]
    kind: String,
    date_unixtime: Option<String>,
    from: Option<String>,
    from_id: Option<String>,
    #[serde(default)]
    text: Text,
    photo: Option<String>,
    file: Option<String>,
    file_name: Option<String>,
    media_type: Option<String>,
    sticker_emoji: Option<String>,
    forwarded_from: Option<String>,
}

/// A message's text: a string, or pieces (plain strings and formatted `{type, text}` ones).
#[derive(Default, serde::Deserialize)]
#[serde(untagged)]
enum Text {
    #[default]
    Missing,
    Plain(String),
    Pieces(Vec<Piece>),
}

#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Piece {
    Plain(String),
    Formatted { text: String },
}

impl RawMessage {
    /// The message as kept, `None` when it has nothing to remember, or what is wrong with it.
    fn keep(&self, latest_ms: i64) -> Result<Option<Kept>, String> {
        let time_ms = self.time_ms()?;
        if time_ms > latest_ms {
            return Err(format!("date_unixtime {time_ms} ms is in the future"));
        }
        let text = storable_text(&self.text_with_media());
        if text.is_empty() {
            return Ok(None);
        }
        let text = match &self.forwarded_from {
            Some(source) => format!("[forwarded from {}] {text}", source.trim()),
            None => text,
        };
        Ok(Some(Kept {
            id: self.id,
            time_ms,
            from_id: self.from_id.clone().unwrap_or_else(|| "unknown".to_owned()),
            text,
        }))
    }

    fn time_ms(&self) -> Result<i64, String> {
        let Some(seconds) = &self.date_unixtime else {
            return Err("no `date_unixtime`: export again with a current Telegram Desktop".into());
        };
        seconds
            .trim()
            .parse::<i64>()
            .ok()
            .and_then(|seconds| seconds.checked_mul(1_000))
            .ok_or_else(|| format!("`date_unixtime` \"{seconds}\" is not a number of seconds"))
    }

    fn plain_text(&self) -> String {
        match &self.text {
            Text::Missing => String::new(),
            Text::Plain(text) => text.clone(),
            Text::Pieces(pieces) => pieces
                .iter()
                .map(|piece| match piece {
                    Piece::Plain(text) | Piece::Formatted { text } => text.as_str(),
                })
                .collect(),
        }
    }

    /// The text as live chat would have stored it: a marker for the media, then the caption.
    fn text_with_media(&self) -> String {
        let caption = self.plain_text();
        if self.photo.is_some() {
            return attachments::photo_message(&caption);
        }
        let marked = |marker: &str| match caption.trim() {
            "" => marker.to_owned(),
            caption => format!("{marker} {caption}"),
        };
        match self.media_type.as_deref() {
            Some("voice_message") => attachments::spoken_message(Spoken::Voice, &caption),
            Some("audio_file") => attachments::spoken_message(Spoken::Audio, &caption),
            Some("video_message") => attachments::spoken_message(Spoken::VideoNote, &caption),
            Some("sticker") => marked(self.sticker_emoji.as_deref().unwrap_or("[sticker]")),
            Some("video_file") => marked("[video]"),
            Some("animation") => marked("[animation]"),
            _ if self.file.is_some() || self.file_name.is_some() => {
                let name = self.file_name.as_deref().unwrap_or("file");
                marked(&attachments::document::document_marker(name))
            }
            _ => caption,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;

    fn person() -> Senders {
        Senders {
            person: "user42".to_owned(),
            assistant: None,
        }
    }

    fn export(messages: &str) -> String {
        format!(
            "{{\n \"name\": \"Old Bot\",\n \"type\": \"bot_chat\",\n \"id\": 777,\n \
             \"messages\": [\n{messages}\n ]\n}}"
        )
    }

    const TWO_MESSAGES: &str = r#"
  {"id": 1, "type": "service", "date": "2024-05-01T11:00:00", "date_unixtime": "1714554000",
   "actor": "Me", "actor_id": "user42", "action": "pin_message", "text": ""},
  {"id": 2, "type": "message", "date": "2024-05-01T11:00:05", "date_unixtime": "1714554005",
   "from": "Me", "from_id": "user42",
   "text": ["my parcel number is ", {"type": "bold", "text": "XK-1234"}, "!"]},
  {"id": 3, "type": "message", "date": "2024-05-01T11:00:09", "date_unixtime": "1714554009",
   "from": "Old Bot", "from_id": "user900", "text": "Noted."}"#;

    #[test]
    fn messages_keep_their_times_senders_and_joined_text() {
        let history = read(export(TWO_MESSAGES).as_bytes(), &person(), NOW).unwrap();
        let messages = &history.messages;
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].content, "my parcel number is XK-1234!");
        assert_eq!(messages[0].role, Role::User);
        assert_eq!(messages[0].created_at_ms, 1_714_554_005_000);
        assert_eq!(messages[0].import_key, "telegram:777:2");
        assert_eq!(messages[1].role, Role::Assistant);
        assert_eq!(history.skipped, [("service messages".to_owned(), 1)]);
    }

    #[test]
    fn media_without_text_become_the_markers_of_live_chat() {
        let media = r#"
  {"id": 5, "type": "message", "date_unixtime": "1714554005", "from": "Me", "from_id": "user42",
   "photo": "photos/photo_1.jpg", "width": 10, "height": 10, "text": "my bike"},
  {"id": 6, "type": "message", "date_unixtime": "1714554006", "from": "Me", "from_id": "user42",
   "file": "voice/a.ogg", "media_type": "voice_message", "text": ""},
  {"id": 7, "type": "message", "date_unixtime": "1714554007", "from": "Me", "from_id": "user42",
   "file": "stickers/s.webp", "media_type": "sticker", "sticker_emoji": "👍", "text": ""},
  {"id": 8, "type": "message", "date_unixtime": "1714554008", "from": "Me", "from_id": "user42",
   "file": "files/list.txt", "file_name": "list.txt", "text": "groceries"},
  {"id": 9, "type": "message", "date_unixtime": "1714554009", "from": "Me", "from_id": "user42",
   "forwarded_from": "Anna", "text": "see you at 8"},
  {"id": 10, "type": "message", "date_unixtime": "1714554010", "from": "Me",
   "from_id": "user42", "poll": {"question": "?"}, "text": ""}"#;
        let history = read(export(media).as_bytes(), &person(), NOW).unwrap();
        let texts: Vec<&str> = history.messages.iter().map(|m| &*m.content).collect();
        assert_eq!(
            texts,
            [
                "[photo] my bike",
                "[voice]",
                "👍",
                "[document: list.txt] groceries",
                "[forwarded from Anna] see you at 8"
            ]
        );
        assert_eq!(
            history.skipped,
            [("messages without text or media".to_owned(), 1)]
        );
    }

    #[test]
    fn a_bad_message_is_named_with_its_place_in_the_file() {
        let bad = TWO_MESSAGES.replace("\"date_unixtime\": \"1714554009\",", "");
        let error = read(export(&bad).as_bytes(), &person(), NOW)
            .unwrap_err()
            .to_string();
        assert!(error.contains("message #2 (id 3, line 13)"), "{error}");
        assert!(error.contains("date_unixtime"), "{error}");

        let broken = export(TWO_MESSAGES).replace("\"Noted.\"}", "\"Noted.\"");
        let error = read(broken.as_bytes(), &person(), NOW)
            .unwrap_err()
            .to_string();
        assert!(error.contains("message #2: "), "{error}");
        assert!(error.contains("at line 14 column 2"), "{error}");
    }

    #[test]
    fn senders_must_be_clear() {
        let error = read(
            export(TWO_MESSAGES).as_bytes(),
            &Senders {
                person: "user1".to_owned(),
                assistant: None,
            },
            NOW,
        )
        .unwrap_err()
        .to_string();
        assert!(error.contains("user42 (Me, 1 messages)"), "{error}");
        assert!(error.contains("--me"), "{error}");

        let third = format!(
            "{TWO_MESSAGES},\n  {{\"id\": 4, \"type\": \"message\", \"date_unixtime\": \
             \"1714554010\", \"from\": \"Eve\", \"from_id\": \"user7\", \"text\": \"hi\"}}"
        );
        let error = read(export(&third).as_bytes(), &person(), NOW)
            .unwrap_err()
            .to_string();
        assert!(error.contains("--assistant"), "{error}");
        let named = Senders {
            assistant: Some("user900".to_owned()),
            ..person()
        };
        let history = read(export(&third).as_bytes(), &named, NOW).unwrap();
        assert_eq!(history.messages.len(), 2);
        assert!(
            history
                .skipped
                .contains(&("messages of other senders".to_owned(), 1))
        );
    }

    #[test]
    fn a_whole_account_export_is_refused_with_what_to_do() {
        let account = r#"{"about": "...", "chats": {"about": "", "list": []}}"#;
        let error = read(account.as_bytes(), &person(), NOW)
            .unwrap_err()
            .to_string();
        assert!(error.contains("whole-account export"), "{error}");
    }
}
