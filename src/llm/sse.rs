//! An incremental parser for server-sent events (the `text/event-stream` format both providers
//! stream in). It owns only the wire format: bytes in, [`SseEvent`]s out. It knows nothing about
//! what an event means (`[DONE]`, `message_stop`): that belongs to the provider modules.
//!
//! Network chunks are arbitrary slices of the stream, so a line, an event or even one UTF-8
//! character may arrive in pieces; the parser keeps the unfinished tail in a buffer and decodes a
//! line only once it is complete.

/// One dispatched event: its `event:` name, if any, and its `data:` lines joined with `\n`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

/// Turns a byte stream into events; feed it with [`SseParser::push`] as chunks arrive.
#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the line that has not ended yet.
    unfinished_line: Vec<u8>,
    /// The previous chunk ended with `\r`, so a `\n` starting the next one belongs to it.
    skip_leading_newline: bool,
    /// Fields of the event being assembled.
    event_name: Option<String>,
    data_lines: Vec<String>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Consumes one chunk and returns the events it completed, in order.
    pub fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.skip_leading_newline {
            self.skip_leading_newline = false;
            if let Some(after) = rest.strip_prefix(b"\n") {
                rest = after;
            }
        }
        // The spec allows `\n`, `\r\n` and a lone `\r` as line endings.
        while let Some(end) = rest.iter().position(|&byte| byte == b'\n' || byte == b'\r') {
            self.unfinished_line.extend_from_slice(&rest[..end]);
            let line = std::mem::take(&mut self.unfinished_line);
            if let Some(event) = self.process_line(&line) {
                events.push(event);
            }
            let ended_with_carriage_return = rest[end] == b'\r';
            rest = &rest[end + 1..];
            if ended_with_carriage_return {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.skip_leading_newline = true,
                }
            }
        }
        self.unfinished_line.extend_from_slice(rest);
        events
    }

    /// Call when the stream has ended: returns the last event if the server closed the
    /// connection without the blank line that should end it. Being lenient here costs nothing,
    /// because a cut-off event is caught one level up (its JSON does not parse, or the provider's
    /// end marker is missing).
    pub fn finish(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.unfinished_line);
        if let Some(event) = self.process_line(&line) {
            return Some(event);
        }
        self.dispatch()
    }

    fn process_line(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        let line = String::from_utf8_lossy(line);
        if line.starts_with(':') {
            // A comment, typically a keep-alive such as `: ping`.
            return None;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event_name = Some(value.to_owned()),
            "data" => self.data_lines.push(value.to_owned()),
            // `id` and `retry` only matter for browsers that reconnect; unknown fields are
            // ignored, as the spec requires.
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event_name = self.event_name.take();
        if self.data_lines.is_empty() {
            // The spec drops events without data (a lone `event:` line dispatches nothing).
            return None;
        }
        let data = std::mem::take(&mut self.data_lines).join("\n");
        Some(SseEvent {
            event: event_name,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(text: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: text.to_owned(),
        }
    }

    fn parse_in_chunks(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut events: Vec<SseEvent> = chunks.iter().flat_map(|c| parser.push(c)).collect();
        events.extend(parser.finish());
        events
    }

    #[test]
    fn a_complete_event_in_one_chunk_is_dispatched() {
        assert_eq!(parse_in_chunks(&[b"data: hello\n\n"]), vec![data("hello")]);
    }

    #[test]
    fn an_event_split_across_chunks_mid_line_is_reassembled() {
        let events = parse_in_chunks(&[b"data: {\"a\"", b":1}\n", b"\ndata: next\n\n"]);
        assert_eq!(events, vec![data("{\"a\":1}"), data("next")]);
    }

    #[test]
    fn a_utf8_character_split_across_chunks_survives() {
        let bytes = "data: héllo\n\n".as_bytes();
        // Split inside the two-byte `é`.
        let (first, second) = bytes.split_at(8);
        assert_eq!(parse_in_chunks(&[first, second]), vec![data("héllo")]);
    }

    #[test]
    fn every_byte_in_its_own_chunk_still_parses() {
        let text = "event: message_start\r\ndata: {}\r\n\r\n: ping\n\ndata: [DONE]\n\n";
        let chunks: Vec<&[u8]> = text.as_bytes().chunks(1).collect();
        let events = parse_in_chunks(&chunks);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: Some("message_start".to_owned()),
                    data: "{}".to_owned()
                },
                data("[DONE]"),
            ]
        );
    }

    #[test]
    fn multi_line_data_is_joined_with_newlines() {
        let events = parse_in_chunks(&[b"data: first\ndata:second\ndata\n\n"]);
        assert_eq!(events, vec![data("first\nsecond\n")]);
    }

    #[test]
    fn crlf_and_lone_cr_line_endings_are_accepted() {
        let events = parse_in_chunks(&[b"data: a\r\n\r\ndata: b\r\rdata: c\r", b"\n\r\n"]);
        assert_eq!(events, vec![data("a"), data("b"), data("c")]);
    }

    #[test]
    fn comments_and_events_without_data_dispatch_nothing() {
        let events = parse_in_chunks(&[b": ping\n\nevent: ping\n\nid: 7\nretry: 10\n\n"]);
        assert_eq!(events, vec![]);
    }

    #[test]
    fn the_event_name_applies_only_to_its_own_event() {
        let events = parse_in_chunks(&[b"event: ping\ndata: {}\n\ndata: plain\n\n"]);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: Some("ping".to_owned()),
                    data: "{}".to_owned()
                },
                data("plain"),
            ]
        );
    }

    #[test]
    fn a_last_event_without_its_blank_line_is_returned_at_the_end() {
        assert_eq!(parse_in_chunks(&[b"data: [DONE]"]), vec![data("[DONE]")]);
        assert_eq!(parse_in_chunks(&[b"data: [DONE]\n"]), vec![data("[DONE]")]);
    }

    #[test]
    fn an_empty_stream_has_no_events() {
        assert_eq!(parse_in_chunks(&[]), vec![]);
    }
}
