//! A test-side stand-in for Telegram's `parse_mode=HTML` parser: [`visible_text`] accepts what
//! the Bot API accepts and returns the text the user would see, or rejects with the Bot API's
//! own wording. It follows the tag and attribute rules of Telegram's parser (TDLib's
//! `parse_html`) and is deliberately *stricter* about `&`: Telegram keeps an unknown entity as
//! literal text, but a renderer that leaves a bare `&` unescaped is buggy, so here it is an error.
//!
//! Used by the render property tests and by the fake Bot API server; it is not production code.

/// Prefix Telegram puts in front of every HTML parsing error.
pub const PARSE_ERROR_PREFIX: &str = "Bad Request: can't parse entities: ";

/// Tags Telegram's HTML parse mode accepts (`span` only as `class="tg-spoiler"`).
const SUPPORTED_TAGS: [&str; 16] = [
    "a",
    "b",
    "strong",
    "i",
    "em",
    "u",
    "ins",
    "s",
    "strike",
    "del",
    "span",
    "tg-spoiler",
    "tg-emoji",
    "code",
    "pre",
    "blockquote",
];

/// The visible text of Telegram HTML, or the Bot API's error description for it.
pub fn visible_text(html: &str) -> Result<String, String> {
    Parser {
        html,
        bytes: html.as_bytes(),
        position: 0,
        open_tags: Vec::new(),
        text: String::new(),
    }
    .run()
    .map_err(|detail| format!("{PARSE_ERROR_PREFIX}{detail}"))
}

/// Length as Telegram measures it: UTF-16 code units.
pub fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

struct Parser<'a> {
    html: &'a str,
    bytes: &'a [u8],
    position: usize,
    open_tags: Vec<String>,
    text: String,
}

impl Parser<'_> {
    fn run(mut self) -> Result<String, String> {
        while let Some(&byte) = self.bytes.get(self.position) {
            match byte {
                b'&' => {
                    let (ch, len) =
                        decode_entity(&self.html[self.position..]).ok_or_else(|| {
                            format!("Unsupported HTML entity at byte offset {}", self.position)
                        })?;
                    self.text.push(ch);
                    self.position += len;
                }
                b'<' if self.bytes.get(self.position + 1) == Some(&b'/') => self.end_tag()?,
                b'<' => self.start_tag()?,
                _ => {
                    // `position` only ever advances by whole characters or ASCII syntax.
                    let ch = self.html[self.position..]
                        .chars()
                        .next()
                        .unwrap_or_default();
                    self.text.push(ch);
                    self.position += ch.len_utf8();
                }
            }
        }
        match self.open_tags.last() {
            Some(tag) => Err(format!(
                "Can't find end tag corresponding to start tag \"{tag}\""
            )),
            None => Ok(self.text),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.position).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.position += 1;
        }
    }

    fn start_tag(&mut self) -> Result<(), String> {
        let begin = self.position;
        self.position += 1;
        while self
            .peek()
            .is_some_and(|byte| !is_space(byte) && byte != b'>')
        {
            self.position += 1;
        }
        if self.peek().is_none() {
            return Err(format!("Unclosed start tag at byte offset {begin}"));
        }
        let name = self.html[begin + 1..self.position].to_ascii_lowercase();
        if !SUPPORTED_TAGS.contains(&name.as_str()) {
            return Err(format!(
                "Unsupported start tag \"{name}\" at byte offset {begin}"
            ));
        }
        let mut attributes = Vec::new();
        loop {
            self.skip_spaces();
            match self.peek() {
                None => {
                    return Err(format!(
                        "Unclosed start tag \"{name}\" at byte offset {begin}"
                    ));
                }
                Some(b'>') => break,
                Some(_) => attributes.push(self.attribute(&name, begin)?),
            }
        }
        self.position += 1;
        check_required_attributes(&name, &attributes, begin)?;
        self.open_tags.push(name);
        Ok(())
    }

    /// One `name=value` (or the bare `expandable` of a block quote), positioned at its name.
    fn attribute(&mut self, tag: &str, begin: usize) -> Result<(String, String), String> {
        let name_start = self.position;
        while self
            .peek()
            .is_some_and(|byte| !is_space(byte) && byte != b'=' && byte != b'>')
        {
            self.position += 1;
        }
        let name = self.html[name_start..self.position].to_owned();
        if name.is_empty() {
            return Err(format!(
                "Empty attribute name in the tag \"{tag}\" at byte offset {begin}"
            ));
        }
        self.skip_spaces();
        if self.peek() != Some(b'=') {
            if tag == "blockquote" && name == "expandable" {
                return Ok((name, String::new()));
            }
            return Err(format!(
                "Expected equal sign in declaration of an attribute of the tag \"{tag}\" at byte offset {begin}"
            ));
        }
        self.position += 1;
        self.skip_spaces();
        let value = match self.peek() {
            None => {
                return Err(format!(
                    "Unclosed start tag \"{tag}\" at byte offset {begin}"
                ));
            }
            Some(quote @ (b'"' | b'\'')) => self.quoted_value(quote)?,
            Some(_) => self.name_token()?,
        };
        Ok((name, value))
    }

    fn quoted_value(&mut self, quote: u8) -> Result<String, String> {
        let value_start = self.position + 1;
        let Some(length) = self.bytes[value_start..]
            .iter()
            .position(|&byte| byte == quote)
        else {
            return Err(format!(
                "Unclosed end of attribute value at byte offset {}",
                self.position
            ));
        };
        let raw = &self.html[value_start..value_start + length];
        self.position = value_start + length + 1;
        decode_attribute(raw, value_start)
    }

    /// An unquoted value: letters, digits, `.` and `-` only, as in SGML name tokens.
    fn name_token(&mut self) -> Result<String, String> {
        let token_start = self.position;
        while self
            .peek()
            .is_some_and(|byte| byte.is_ascii_alphanumeric() || byte == b'.' || byte == b'-')
        {
            self.position += 1;
        }
        if self
            .peek()
            .is_some_and(|byte| !is_space(byte) && byte != b'>')
        {
            return Err(format!(
                "Unexpected end of name token at byte offset {token_start}"
            ));
        }
        Ok(self.html[token_start..self.position].to_ascii_lowercase())
    }

    fn end_tag(&mut self) -> Result<(), String> {
        let begin = self.position;
        if self.open_tags.is_empty() {
            return Err(format!("Unexpected end tag at byte offset {begin}"));
        }
        self.position += 2;
        while self
            .peek()
            .is_some_and(|byte| !is_space(byte) && byte != b'>')
        {
            self.position += 1;
        }
        let name = self.html[begin + 2..self.position].to_ascii_lowercase();
        self.skip_spaces();
        if self.peek() != Some(b'>') {
            return Err(format!("Unclosed end tag at byte offset {begin}"));
        }
        self.position += 1;
        let expected = self.open_tags.pop().unwrap_or_default();
        // Telegram accepts `</>` as closing whatever is open.
        if !name.is_empty() && name != expected {
            return Err(format!(
                "Unmatched end tag at byte offset {begin}, expected \"</{expected}>\", found \"</{name}>\""
            ));
        }
        Ok(())
    }
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | b'\x0b' | b'\x0c')
}

fn check_required_attributes(
    tag: &str,
    attributes: &[(String, String)],
    begin: usize,
) -> Result<(), String> {
    let has = |name: &str, value: Option<&str>| {
        attributes
            .iter()
            .any(|(key, found)| key == name && value.is_none_or(|value| found == value))
    };
    match tag {
        "span" if !has("class", Some("tg-spoiler")) => Err(format!(
            "Tag \"span\" must have class \"tg-spoiler\" at byte offset {begin}"
        )),
        "tg-emoji" if !has("emoji-id", None) => Err(format!(
            "Tag \"tg-emoji\" must have attribute \"emoji-id\" at byte offset {begin}"
        )),
        _ => Ok(()),
    }
}

fn decode_attribute(raw: &str, offset: usize) -> Result<String, String> {
    let mut value = String::new();
    let mut position = 0;
    while let Some(ch) = raw[position..].chars().next() {
        if ch == '&' {
            let (decoded, len) = decode_entity(&raw[position..]).ok_or_else(|| {
                format!(
                    "Unsupported HTML entity at byte offset {}",
                    offset + position
                )
            })?;
            value.push(decoded);
            position += len;
        } else {
            value.push(ch);
            position += ch.len_utf8();
        }
    }
    Ok(value)
}

/// Decodes the entity at the start of `text` (which begins with `&`): the character and the
/// entity's length in bytes. Only the four named entities Telegram documents and numeric ones.
fn decode_entity(text: &str) -> Option<(char, usize)> {
    let end = text.find(';')?;
    let name = &text[1..end];
    let ch = match name {
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "quot" => '"',
        _ => {
            let number = name.strip_prefix('#')?;
            let code = match number.strip_prefix(['x', 'X']) {
                Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    u32::from_str_radix(hex, 16).ok()?
                }
                None if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) => {
                    number.parse().ok()?
                }
                _ => return None,
            };
            char::from_u32(code).filter(|&ch| ch != '\0')?
        }
    };
    Some((ch, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(html: &str) -> String {
        visible_text(html).expect_err("the HTML should be rejected")
    }

    #[test]
    fn supported_tags_and_entities_leave_only_the_visible_text() {
        let html = "<b>bold</b> <strong>s</strong> <i>i</i> <em>e</em> <u>u</u> <ins>n</ins> \
                    <s>s</s> <strike>k</strike> <del>d</del> <tg-spoiler>x</tg-spoiler> \
                    <span class=\"tg-spoiler\">y</span> <a href=\"https://a.b/?x=1&amp;y=2\">l</a> \
                    <code>c</code> <pre><code class=\"language-rust\">p</code></pre> \
                    <blockquote expandable>q</blockquote> <tg-emoji emoji-id=\"5368\">👍</tg-emoji> \
                    &lt;&gt;&amp;&quot;&#65;&#x1F600;";
        assert_eq!(
            visible_text(html).as_deref(),
            Ok("bold s i e u n s k d x y l c p q 👍 <>&\"A😀")
        );
    }

    #[test]
    fn tag_names_are_case_insensitive_and_unquoted_values_are_allowed() {
        assert_eq!(
            visible_text("<B>x</b><code class=language-py>y</CODE>").as_deref(),
            Ok("xy")
        );
    }

    #[test]
    fn an_unknown_tag_is_rejected_with_its_byte_offset() {
        assert_eq!(
            error_of("ab<foo>x</foo>"),
            "Bad Request: can't parse entities: Unsupported start tag \"foo\" at byte offset 2"
        );
    }

    #[test]
    fn a_bare_less_than_sign_is_rejected() {
        assert_eq!(
            error_of("1 < 2"),
            "Bad Request: can't parse entities: Unsupported start tag \"\" at byte offset 2"
        );
        assert_eq!(
            error_of("1 <"),
            "Bad Request: can't parse entities: Unclosed start tag at byte offset 2"
        );
    }

    #[test]
    fn an_unclosed_tag_is_rejected() {
        assert_eq!(
            error_of("<b>bold"),
            "Bad Request: can't parse entities: Can't find end tag corresponding to start tag \"b\""
        );
    }

    #[test]
    fn an_end_tag_without_a_start_tag_is_rejected() {
        assert_eq!(
            error_of("x</b>"),
            "Bad Request: can't parse entities: Unexpected end tag at byte offset 1"
        );
    }

    #[test]
    fn crossed_tags_are_rejected() {
        assert_eq!(
            error_of("<b><i>x</b></i>"),
            "Bad Request: can't parse entities: Unmatched end tag at byte offset 7, \
             expected \"</i>\", found \"</b>\""
        );
    }

    #[test]
    fn unsupported_entities_and_bare_ampersands_are_rejected() {
        assert_eq!(
            error_of("a&nbsp;b"),
            "Bad Request: can't parse entities: Unsupported HTML entity at byte offset 1"
        );
        assert!(error_of("fish & chips").contains("Unsupported HTML entity"));
        assert!(error_of("&#xZZ;").contains("Unsupported HTML entity"));
        assert!(error_of("<a href=\"x&y\">l</a>").contains("Unsupported HTML entity"));
    }

    #[test]
    fn a_span_must_be_a_spoiler() {
        assert!(error_of("<span>x</span>").contains("must have class \"tg-spoiler\""));
    }

    #[test]
    fn attributes_need_values_except_expandable_on_blockquote() {
        assert!(error_of("<b bold>x</b>").contains("Expected equal sign"));
        assert!(error_of("<a href=\"x>l</a>").contains("Unclosed end of attribute value"));
    }

    #[test]
    fn utf16_length_counts_astral_characters_twice() {
        assert_eq!(utf16_len("a😀é"), 4);
    }
}
