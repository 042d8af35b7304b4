//! Token counting by a documented estimate rather than a tokenizer: the exact tokenizer depends
//! on the provider and model (and is not public for all of them), while the budget only needs to
//! be right within a few percent.
//!
//! The estimate is `max(utf8_bytes / 4, characters of three or more UTF-8 bytes)`, rounded up.
//! English text averages about four characters per token with common BPE tokenizers; Cyrillic
//! and Greek (two bytes per letter) about two to three letters per token; CJK (three bytes per
//! character) about one to one and a half tokens per character, which `bytes / 4` would
//! underestimate, hence the second term. Every message also costs a few tokens of framing.

/// Tokens a chat message costs beyond its text (role markers, separators).
pub const MESSAGE_OVERHEAD_TOKENS: usize = 4;

/// Estimated tokens of `text`.
pub fn estimate_tokens(text: &str) -> usize {
    estimate_quarter_tokens(text).div_ceil(4)
}

/// [`estimate_tokens`] before it is rounded up, in quarters of a token. The costs of many short
/// lines, summed this way, give the estimate of the lines joined; summed as whole tokens, every
/// line would be rounded up on its own.
pub fn estimate_quarter_tokens(text: &str) -> usize {
    let wide_chars = text.chars().filter(|c| c.len_utf8() >= 3).count();
    text.len().max(4 * wide_chars)
}

/// Estimated tokens of one chat message with its framing.
pub fn estimate_message_tokens(text: &str) -> usize {
    estimate_tokens(text) + MESSAGE_OVERHEAD_TOKENS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_is_about_four_characters_a_token() {
        let text = "Where is the Chemitek parcel? It should arrive on Wednesday.";
        assert_eq!(estimate_tokens(text), text.len().div_ceil(4));
    }

    #[test]
    fn cjk_counts_at_least_a_token_a_character() {
        assert_eq!(estimate_tokens("包裹在哪里"), 5);
    }

    #[test]
    fn quarters_add_up_to_the_joined_text() {
        let lines = ["- 09:00 a", "- 09:01 bb", "包裹"];
        let quarters: usize = lines.iter().map(|line| estimate_quarter_tokens(line)).sum();
        assert_eq!(quarters, 9 + 10 + 8);
        assert_eq!(quarters.div_ceil(4), 7);
        assert_eq!(
            lines
                .iter()
                .map(|line| estimate_tokens(line))
                .sum::<usize>(),
            8
        );
    }

    #[test]
    fn empty_text_is_free() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_message_tokens(""), MESSAGE_OVERHEAD_TOKENS);
    }
}
