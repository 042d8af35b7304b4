//! What is read aloud of an answer: the model writes Markdown (and a front end may add HTML), a
//! speech server reads every character, so the marks go and the words stay ([`speakable_text`]);
//! code blocks are left out, since nobody wants a listing spelled out. A speech server takes a
//! bounded input (OpenAI: 4096 characters), so longer text is cut into parts at paragraph, then
//! sentence, then word boundaries ([`parts_for_speech`]), each read as one voice note.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// The words of `markdown` without its marks: emphasis, headings, links (their text stays),
/// HTML tags and code blocks go; paragraphs and list items end with a line break.
pub fn speakable_text(markdown: &str) -> String {
    let mut spoken = String::new();
    let mut in_code_block = false;
    for event in Parser::new(markdown) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Text(text) | Event::Code(text) if !in_code_block => spoken.push_str(&text),
            Event::SoftBreak | Event::HardBreak => spoken.push(' '),
            Event::End(TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item) => spoken.push('\n'),
            _ => {}
        }
    }
    without_html_tags(&spoken)
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// `text` without anything between `<` and `>` that looks like a tag (`<b>`, `</i>`, `<br/>`).
fn without_html_tags(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find('<') {
        kept.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        let is_tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/');
        match after.find('>') {
            Some(end) if is_tag => rest = &after[end + 1..],
            _ => {
                kept.push('<');
                rest = after;
            }
        }
    }
    kept.push_str(rest);
    kept
}

/// `text` in parts of at most `max_chars` characters, cut where a listener would pause: between
/// paragraphs, else between sentences, else between words, else (a word longer than a part)
/// anywhere. Parts are trimmed and never empty.
pub fn parts_for_speech(text: &str, max_chars: usize) -> Vec<String> {
    let max_chars = max_chars.max(1);
    let mut parts = Vec::new();
    let mut current = String::new();
    for piece in pieces(text, max_chars) {
        let joined = current.chars().count() + 1 + piece.chars().count();
        if !current.is_empty() && joined > max_chars {
            parts.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(if piece.starts_with('\n') { '\n' } else { ' ' });
        }
        current.push_str(piece.trim());
    }
    if !current.is_empty() {
        parts.push(current);
    }
    parts
}

/// The smallest units [`parts_for_speech`] packs: sentences (a paragraph's first one marked by
/// a leading line break), cut further at words and then characters where one is too long.
fn pieces(text: &str, max_chars: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    for (index, paragraph) in text
        .split('\n')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .enumerate()
    {
        for (sentence_index, sentence) in sentences(paragraph).into_iter().enumerate() {
            let marked = if index > 0 && sentence_index == 0 {
                format!("\n{sentence}")
            } else {
                sentence.to_owned()
            };
            if sentence.chars().count() <= max_chars {
                pieces.push(marked);
            } else {
                pieces.extend(words_within(sentence, max_chars));
            }
        }
    }
    pieces
}

/// A paragraph's sentences: each ends after `.`, `!`, `?` or `…` followed by a space.
fn sentences(paragraph: &str) -> Vec<&str> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut chars = paragraph.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        let ends = matches!(c, '.' | '!' | '?' | '…')
            && chars.peek().is_some_and(|(_, next)| next.is_whitespace());
        if ends {
            let end = index + c.len_utf8();
            sentences.push(paragraph[start..end].trim());
            start = end;
        }
    }
    let rest = paragraph[start..].trim();
    if !rest.is_empty() {
        sentences.push(rest);
    }
    sentences
}

/// A sentence too long for one part, as its words; a word longer than a part, in slices.
fn words_within(sentence: &str, max_chars: usize) -> Vec<String> {
    let mut words = Vec::new();
    for word in sentence.split_whitespace() {
        let chars: Vec<char> = word.chars().collect();
        words.extend(chars.chunks(max_chars).map(|slice| slice.iter().collect()));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_and_html_marks_are_not_read_but_their_words_are() {
        let markdown = "# Plan\n\nBuy **milk** and [bread](https://example.com).\n\n\
                        ```rust\nfn main() {}\n```\n\n- one <b>two</b>\n- `three`";
        assert_eq!(
            speakable_text(markdown),
            "Plan\nBuy milk and bread.\none two\nthree"
        );
        assert_eq!(speakable_text("1 < 2 and 3 > 2"), "1 < 2 and 3 > 2");
    }

    #[test]
    fn long_text_is_cut_between_paragraphs_then_sentences_then_words() {
        let text = "First sentence here. Second one follows.\nA new paragraph.";
        assert_eq!(
            parts_for_speech(text, 45),
            [
                "First sentence here. Second one follows.",
                "A new paragraph."
            ]
        );
        assert_eq!(
            parts_for_speech(text, 25),
            [
                "First sentence here.",
                "Second one follows.",
                "A new paragraph."
            ]
        );
        assert_eq!(
            parts_for_speech("one two three four", 9),
            ["one two", "three", "four"]
        );
        assert_eq!(parts_for_speech("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert!(parts_for_speech("  \n ", 10).is_empty());
    }

    #[test]
    fn every_part_fits_and_nothing_is_lost() {
        let text = "Ein Satz. ".repeat(900) + "Ещё одно предложение!";
        let parts = parts_for_speech(&text, 4096);
        assert!(parts.iter().all(|part| part.chars().count() <= 4096));
        let words = |text: &str| text.split_whitespace().count();
        assert_eq!(
            parts.iter().map(|part| words(part)).sum::<usize>(),
            words(&text)
        );
    }
}
