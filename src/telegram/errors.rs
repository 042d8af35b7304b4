//! Telegram's errors as they can be logged: an answer teloxide could not read is described by
//! where its JSON went wrong, never by its text, which can hold a person's words.

use teloxide::RequestError;

/// `error` as it can be logged: an answer teloxide could not read is described by where the JSON
/// went wrong, without the JSON (the raw answer, and serde's message, which quotes the value it
/// choked on, can hold a person's words).
pub fn loggable(error: &RequestError) -> String {
    match error {
        RequestError::InvalidJson { source, .. } => format!(
            "cannot read Telegram's answer: {:?} error at line {}, column {}",
            source.classify(),
            source.line(),
            source.column()
        ),
        other => other.to_string(),
    }
}

/// [`loggable`] for an error chain: the contexts above a Telegram error, then the error as it can
/// be logged; any other chain in full.
pub fn loggable_chain(error: &anyhow::Error) -> String {
    let telegram = error
        .chain()
        .position(|cause| cause.downcast_ref::<RequestError>().is_some());
    let Some(position) = telegram else {
        return format!("{error:#}");
    };
    let mut parts: Vec<String> = error
        .chain()
        .take(position)
        .map(ToString::to_string)
        .collect();
    if let Some(request) = error
        .chain()
        .nth(position)
        .and_then(|cause| cause.downcast_ref::<RequestError>())
    {
        parts.push(loggable(request));
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn unreadable_answer() -> RequestError {
        let raw = r#"{"ok":true,"result":{"text":"my PIN is 4321"#;
        let source = serde_json::from_str::<serde_json::Value>(raw).unwrap_err();
        RequestError::InvalidJson {
            source: Arc::new(source),
            raw: raw.into(),
        }
    }

    #[test]
    fn an_unreadable_answer_is_logged_without_its_text() {
        let logged = loggable(&unreadable_answer());
        assert!(!logged.contains("4321"), "{logged}");
        assert!(
            logged.starts_with("cannot read Telegram's answer: Eof error"),
            "{logged}"
        );
    }

    #[test]
    fn a_chain_keeps_its_contexts_and_loses_only_the_answer_text() {
        let error = anyhow::Error::new(unreadable_answer()).context("could not send the reply");
        let logged = loggable_chain(&error);
        assert!(
            logged.starts_with("could not send the reply: cannot read"),
            "{logged}"
        );
        assert!(!logged.contains("4321"), "{logged}");
        let plain = anyhow::anyhow!("the model call failed").context("turn");
        assert_eq!(loggable_chain(&plain), "turn: the model call failed");
    }
}
