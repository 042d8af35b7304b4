//! Fuzzes the Markdown-to-Telegram-HTML renderer and the splitter: for any input they must not
//! panic, every part must fit Telegram's limit, and no visible text may be lost by splitting.
#![no_main]

use libfuzzer_sys::fuzz_target;
use telemem::telegram::render::{markdown_to_telegram_html, split_for_telegram, split_plain_text};

const LIMIT: usize = 4_096;

/// The text a user sees of Telegram HTML produced by the renderer: tags dropped, the four
/// entities the renderer emits decoded.
fn visible(html: &str) -> String {
    let mut text = String::new();
    let mut in_tag = false;
    for character in html.chars() {
        match character {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => text.push(character),
            _ => {}
        }
    }
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
}

fuzz_target!(|data: &[u8]| {
    let Ok(markdown) = std::str::from_utf8(data) else { return };
    let html = markdown_to_telegram_html(markdown);
    let parts = split_for_telegram(&html, LIMIT);
    for part in &parts {
        assert!(visible(part).encode_utf16().count() <= LIMIT, "a part is over the limit");
    }
    let joined: String = parts.iter().map(|part| visible(part)).collect();
    assert_eq!(joined, visible(&html), "splitting lost or reordered text");

    let plain = split_plain_text(markdown, LIMIT);
    assert_eq!(plain.concat(), markdown, "plain splitting lost or reordered text");
});
