//! Properties of the Markdown renderer and the splitters, checked against the Telegram HTML
//! validator: whatever the model writes, every part is HTML Telegram accepts, fits the limit,
//! and together the parts show exactly what the unsplit message would have shown.

use proptest::prelude::*;
use telemem::telegram::render::markdown_to_telegram_html;
use telemem::telegram::split::{split_for_telegram, split_plain_text};

use crate::support::telegram_html::{utf16_len, visible_text};

/// Fragments an LLM reply is made of, plus the characters that break naive renderers.
fn markdown_fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,8}",
        3 => Just(" ".to_owned()),
        2 => Just("\n".to_owned()),
        2 => Just("\n\n".to_owned()),
        3 => prop::sample::select(vec![
            "*", "**", "_", "__", "~~", "`", "```", "```rust\n", "\n```\n", "    ", "\t",
            "<", ">", "&", "&amp;", "&nbsp;", "&#x1F600;", "\"", "'", "<b>", "</i>", "<div>",
            "<script>alert(1)</script>", "<!-- c -->", "[link](https://example.com/?a=1&b=2)",
            "[bad](javascript:alert(1))", "[rel](/x)", "<https://auto.link>", "<me@mail.org>",
            "![img](https://i.example/p.png)", "![](https://i.example/q.png)", "# ", "## ",
            "> ", ">> ", "- ", "* ", "1. ", "2) ", "---", "***", "| a | b |\n|---|---|\n| c | d |",
            "|", "\\", "  \n", "😀", "👨\u{200D}👩\u{200D}👧", "👍🏽", "🇺🇦", "שלום עולם", "مرحبا",
            "漢字かなカナ", "한국어", "e\u{301}", "a\u{308}\u{304}", "\u{FEFF}", "\u{0}", "\r\n",
        ])
        .prop_map(str::to_owned),
        1 => "[x]{40,400}",
        1 => "[😀]{10,80}",
    ]
}

fn markdownish() -> impl Strategy<Value = String> {
    prop::collection::vec(markdown_fragment(), 0..80).prop_map(|fragments| fragments.concat())
}

/// Valid Telegram HTML that our renderer never writes: deep nesting, entities for astral
/// characters, attributes with quotes, spoilers.
fn telegram_html() -> impl Strategy<Value = String> {
    let leaf = prop::collection::vec(
        prop::sample::select(vec![
            "word",
            " ",
            "\n",
            "\n\n",
            "&lt;",
            "&gt;",
            "&amp;",
            "&quot;",
            "&#65;",
            "&#x1F600;",
            "😀",
            "e\u{301}",
            "漢字",
            "שלום",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ]),
        1..12,
    )
    .prop_map(|texts| texts.concat());
    leaf.prop_recursive(4, 64, 6, |inner| {
        (
            prop::sample::select(vec![
                ("<b>", "</b>"),
                ("<i>", "</i>"),
                ("<u>", "</u>"),
                ("<s>", "</s>"),
                ("<tg-spoiler>", "</tg-spoiler>"),
                ("<span class=\"tg-spoiler\">", "</span>"),
                ("<a href=\"https://x.y/?q=&quot;a&amp;b&quot;\">", "</a>"),
                ("<code>", "</code>"),
                ("<pre><code class=\"language-rust\">", "</code></pre>"),
                ("<blockquote>", "</blockquote>"),
            ]),
            prop::collection::vec(inner, 1..4),
        )
            .prop_map(|((open, close), children)| format!("{open}{}{close}", children.concat()))
    })
}

/// Splits `html` and checks every promise `split_for_telegram` makes about the parts.
fn assert_split_keeps_its_promises(html: &str, max_len: usize) -> Result<(), TestCaseError> {
    let whole = visible_text(html).map_err(TestCaseError::fail)?;
    let parts = split_for_telegram(html, max_len);
    let mut seen = String::new();
    for part in &parts {
        let visible = visible_text(part)
            .map_err(|error| TestCaseError::fail(format!("{error} in part {part:?}")))?;
        prop_assert!(!part.is_empty());
        prop_assert!(
            utf16_len(&visible) <= max_len,
            "part of {} units over {max_len}: {part:?}",
            utf16_len(&visible)
        );
        prop_assert!(!visible.is_empty() || parts.len() == 1);
        seen.push_str(&visible);
    }
    prop_assert_eq!(seen, whole);
    Ok(())
}

proptest! {
    #[test]
    fn rendered_markdown_is_always_html_telegram_accepts(markdown in markdownish()) {
        let html = markdown_to_telegram_html(&markdown);
        if let Err(error) = visible_text(&html) {
            return Err(TestCaseError::fail(format!("{error}\nmarkdown: {markdown:?}\nhtml: {html:?}")));
        }
    }

    #[test]
    fn split_rendered_markdown_fits_and_shows_the_same_text(
        markdown in markdownish(),
        max_len in 2usize..120,
    ) {
        let html = markdown_to_telegram_html(&markdown);
        assert_split_keeps_its_promises(&html, max_len)?;
    }

    #[test]
    fn split_arbitrary_telegram_html_fits_and_shows_the_same_text(
        html in telegram_html(),
        max_len in 2usize..60,
    ) {
        assert_split_keeps_its_promises(&html, max_len)?;
    }

    #[test]
    fn split_plain_text_round_trips_exactly(text in "(\\PC|\n| ){0,400}", max_len in 2usize..80) {
        let parts = split_plain_text(&text, max_len);
        for part in &parts {
            prop_assert!(!part.is_empty());
            prop_assert!(utf16_len(part) <= max_len);
        }
        prop_assert_eq!(parts.concat(), text);
    }
}

#[test]
fn a_long_reply_is_split_into_few_telegram_sized_messages() {
    let paragraph = "A sentence with **bold**, `code < 1` and an emoji 😀. ".repeat(20);
    let markdown = vec![paragraph.as_str(); 30].join("\n\n");
    let html = markdown_to_telegram_html(&markdown);
    let total = utf16_len(&visible_text(&html).expect("rendered HTML is valid"));

    let parts = split_for_telegram(&html, 4096);

    // Cutting at paragraph ends wastes at most one paragraph's worth of room per message.
    assert!(
        parts.len() <= total / (4096 - 1200) + 1,
        "{} parts",
        parts.len()
    );
    for part in &parts {
        let visible = visible_text(part).expect("every part is valid");
        assert!(utf16_len(&visible) <= 4096);
        assert!(visible.ends_with("\n\n") || part == parts.last().expect("parts"));
    }
}
