//! The tools telemem itself offers: what each is called, what the model is told it does, the
//! JSON Schema of its arguments, and reading the arguments the model wrote into a typed
//! [`BuiltinCall`]. Running them needs the conversation (its memory, its notes, its reminders),
//! so that happens in `conversation/tools.rs`.

use std::sync::{Arc, LazyLock};

use chrono::{DateTime, FixedOffset};
use serde_json::{Value, json};

use crate::llm::ToolSpec;

pub const SEARCH_MEMORY: &str = "search_memory";
pub const REMEMBER: &str = "remember";
pub const SET_REMINDER: &str = "set_reminder";
pub const SET_TIMEZONE: &str = "set_timezone";
pub const GENERATE_IMAGE: &str = "generate_image";

/// Longest note or reminder text the model may store, in characters (as `/remember` allows).
pub const MAX_TEXT_CHARS: usize = 500;

/// Which built-in tools a turn may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltinOffer {
    /// `search_memory` and `remember`: not in incognito, where nothing is read or stored.
    pub memory: bool,
    /// `set_reminder` and `set_timezone`: not in incognito, where nothing is stored.
    pub reminders: bool,
}

/// A built-in tool call with its arguments read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuiltinCall {
    SearchMemory {
        query: String,
    },
    Remember {
        text: String,
    },
    SetReminder {
        text: String,
        at: DateTime<FixedOffset>,
    },
    SetTimeZone {
        zone: String,
    },
    GenerateImage {
        description: String,
    },
}

/// The built-in tools `offer` allows, as the model is offered them.
pub fn specs(offer: BuiltinOffer) -> Vec<Arc<ToolSpec>> {
    let mut specs = Vec::new();
    if offer.memory {
        specs.push(Arc::new(ToolSpec {
            name: SEARCH_MEMORY.to_owned(),
            description: "Search this person's own earlier conversations, session summaries and \
                          notes for something the conversation so far does not show. Returns \
                          dated excerpts, newest first; older ones may be out of date."
                .to_owned(),
            parameters: object_schema(&[("query", "What to look for, in the person's words.")]),
        }));
        specs.push(Arc::new(ToolSpec {
            name: REMEMBER.to_owned(),
            description: "Keep a lasting note about this person (a fact, a preference) that \
                          every later conversation will see. Only when they ask you to remember \
                          something, or clearly would want it kept."
                .to_owned(),
            parameters: object_schema(&[("text", "The note, one short sentence.")]),
        }));
    }
    if offer.reminders {
        specs.push(Arc::new(ToolSpec {
            name: SET_REMINDER.to_owned(),
            description: "Send this person a reminder in this chat at a given time. Use their \
                          time zone (in the system prompt) for times they give in words like \
                          \"tomorrow at 9\"."
                .to_owned(),
            parameters: object_schema(&[
                (
                    "text",
                    "What to remind them of, as they should read it then.",
                ),
                (
                    "at",
                    "When: an RFC 3339 date-time with its UTC offset, e.g. \
                     2026-03-28T09:00:00+01:00.",
                ),
            ]),
        }));
        specs.push(Arc::new(ToolSpec {
            name: SET_TIMEZONE.to_owned(),
            description: "Set this person's time zone, once they have told you where they are, \
                          so that times they give in words mean their local time."
                .to_owned(),
            parameters: object_schema(&[(
                "zone",
                "An IANA time zone name, such as Europe/Berlin or America/New_York.",
            )]),
        }));
    }
    specs
}

/// `generate_image`, offered apart from the others: only with an image server, and only to a
/// person who has pictures left today. Built once: a turn shares it.
pub fn image_spec() -> Arc<ToolSpec> {
    static IMAGE_SPEC: LazyLock<Arc<ToolSpec>> = LazyLock::new(|| {
        Arc::new(ToolSpec {
            name: GENERATE_IMAGE.to_owned(),
            description: "Draw a picture and send it to this person as a photo. Only when they \
                          ask for a picture. Describe it fully in one text (subject, style, \
                          colours): the image model sees nothing of the conversation."
                .to_owned(),
            parameters: object_schema(&[("description", "What to draw, in full.")]),
        })
    });
    Arc::clone(&IMAGE_SPEC)
}

/// A JSON Schema object whose `properties` are all required strings.
fn object_schema(properties: &[(&str, &str)]) -> Value {
    let described: serde_json::Map<String, Value> = properties
        .iter()
        .map(|(name, description)| {
            let property = json!({"type": "string", "description": description});
            ((*name).to_owned(), property)
        })
        .collect();
    let required: Vec<&str> = properties.iter().map(|(name, _)| *name).collect();
    json!({"type": "object", "properties": described, "required": required})
}

/// The call `name` with `arguments` as a built-in tool: `None` when no built-in tool has that
/// name, an error (for the model to read) when the arguments are not what the tool takes.
pub fn parse(name: &str, arguments: &Value) -> Option<Result<BuiltinCall, String>> {
    let call = match name {
        SEARCH_MEMORY => {
            text_argument(arguments, "query").map(|query| BuiltinCall::SearchMemory { query })
        }
        REMEMBER => text_argument(arguments, "text").map(|text| BuiltinCall::Remember { text }),
        SET_REMINDER => text_argument(arguments, "text").and_then(|text| {
            let at = text_argument(arguments, "at")?;
            let at = DateTime::parse_from_rfc3339(at.trim()).map_err(|_| {
                format!(
                    "`at` must be an RFC 3339 date-time with its UTC offset, such as \
                     2026-03-28T09:00:00+01:00; got {at:?}"
                )
            })?;
            Ok(BuiltinCall::SetReminder { text, at })
        }),
        SET_TIMEZONE => {
            text_argument(arguments, "zone").map(|zone| BuiltinCall::SetTimeZone { zone })
        }
        GENERATE_IMAGE => text_argument(arguments, "description")
            .map(|description| BuiltinCall::GenerateImage { description }),
        _ => return None,
    };
    Some(call)
}

/// The string argument `name`, trimmed, non-empty and within [`MAX_TEXT_CHARS`].
fn text_argument(arguments: &Value, name: &str) -> Result<String, String> {
    let Value::Object(map) = arguments else {
        return Err("the arguments must be a JSON object".to_owned());
    };
    let text = match map.get(name) {
        Some(Value::String(text)) => text.trim(),
        Some(_) => return Err(format!("`{name}` must be a string")),
        None => return Err(format!("`{name}` is missing")),
    };
    if text.is_empty() {
        return Err(format!("`{name}` is empty"));
    }
    let length = text.chars().count();
    if length > MAX_TEXT_CHARS {
        return Err(format!(
            "`{name}` has {length} characters; at most {MAX_TEXT_CHARS} are accepted"
        ));
    }
    Ok(text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The specs of the built-in tools when memory and reminders are offered or not.
    fn specs_offering(memory: bool, reminders: bool) -> Vec<Arc<ToolSpec>> {
        specs(BuiltinOffer { memory, reminders })
    }

    fn names(specs: &[Arc<ToolSpec>]) -> Vec<&str> {
        specs.iter().map(|spec| spec.name.as_str()).collect()
    }

    #[test]
    fn every_offered_tool_has_an_object_schema_requiring_its_arguments() {
        let all = specs_offering(true, true);
        assert_eq!(
            names(&all),
            [SEARCH_MEMORY, REMEMBER, SET_REMINDER, SET_TIMEZONE]
        );
        let reminder = &all[2].parameters;
        assert_eq!(reminder["type"], "object");
        assert_eq!(reminder["required"], json!(["text", "at"]));
        assert_eq!(reminder["properties"]["at"]["type"], "string");
    }

    #[test]
    fn only_the_tools_offered_are_specified() {
        let offered = specs_offering(false, true);
        assert_eq!(names(&offered), [SET_REMINDER, SET_TIMEZONE]);
    }

    #[test]
    fn arguments_are_read_into_a_typed_call() {
        let call = parse(
            SET_REMINDER,
            &json!({"text": " water plants ", "at": "2026-03-28T09:00:00+01:00"}),
        );
        let Some(Ok(BuiltinCall::SetReminder { text, at })) = call else {
            panic!("a reminder call: {call:?}");
        };
        assert_eq!(text, "water plants");
        assert_eq!(at.timestamp_millis(), 1_774_684_800_000);
        assert_eq!(
            parse(SEARCH_MEMORY, &json!({"query": "parcel"})),
            Some(Ok(BuiltinCall::SearchMemory {
                query: "parcel".to_owned()
            }))
        );
        assert_eq!(parse("orders__find", &json!({})), None);
    }

    #[test]
    fn wrong_arguments_are_explained_to_the_model() {
        let explain = |name, arguments| parse(name, &arguments).unwrap().unwrap_err();
        assert!(explain(REMEMBER, json!({})).contains("`text` is missing"));
        assert!(explain(REMEMBER, json!({"text": 5})).contains("must be a string"));
        assert!(explain(REMEMBER, json!("text")).contains("JSON object"));
        assert!(explain(REMEMBER, json!({"text": "x".repeat(501)})).contains("at most 500"));
        assert!(
            explain(SET_REMINDER, json!({"text": "a", "at": "tomorrow 9:00"})).contains("RFC 3339")
        );
        // Without an offset the time would mean a different moment in every zone.
        assert!(
            explain(
                SET_REMINDER,
                json!({"text": "a", "at": "2026-03-28T09:00:00"})
            )
            .contains("RFC 3339")
        );
    }
}
