//! Text a person gives that must fit a limit (a persona, a note added by hand, a picture's
//! description): one check, and one refusal, for every such text. A leaf: the conversation and
//! memory modules that check their texts, and the front ends that answer a refusal, all use it.

/// Why a text was refused before it was used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LengthError {
    #[error("the text is empty")]
    Empty,
    #[error("the text is {length} characters long; at most {max} are allowed")]
    TooLong { length: usize, max: usize },
}

/// `text` if it is not empty and at most `max` characters long (characters, not bytes: the
/// limits are told to people).
pub fn within_length(text: String, max: usize) -> Result<String, LengthError> {
    let length = text.chars().count();
    if length == 0 {
        return Err(LengthError::Empty);
    }
    if length > max {
        return Err(LengthError::TooLong { length, max });
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_fits_between_one_character_and_its_limit() {
        assert_eq!(within_length("añb".to_owned(), 3), Ok("añb".to_owned()));
        assert_eq!(within_length(String::new(), 3), Err(LengthError::Empty));
        assert_eq!(
            within_length("abcd".to_owned(), 3),
            Err(LengthError::TooLong { length: 4, max: 3 })
        );
    }
}
