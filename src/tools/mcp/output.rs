//! Translations between MCP's shapes and the model's: a server's tool becomes a [`ToolSpec`]
//! (with a schema the providers accept), a tool's result becomes a [`ToolOutput`] of bounded
//! text.
//!
//! Only text reaches the model from here: pictures, sounds and binary resources are named with
//! their type and size, so a large blob never fills the context.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents, Tool};
use serde_json::{Map, Value};

use crate::llm::ToolSpec;
use crate::tools::ToolOutput;

/// `tool` offered under `name`.
pub fn tool_spec(name: String, tool: &Tool) -> ToolSpec {
    let description = tool
        .description
        .as_deref()
        .or(tool.title.as_deref())
        .unwrap_or(&tool.name)
        .to_owned();
    ToolSpec {
        name,
        description,
        parameters: parameters(tool.input_schema.as_ref()),
    }
}

/// The tool's input schema as the providers want it: an object schema with `properties` (OpenAI
/// rejects one without, which MCP allows for tools taking no arguments), without the `$schema`
/// draft marker some OpenAI-compatible servers refuse.
fn parameters(schema: &Map<String, Value>) -> Value {
    let mut schema = schema.clone();
    schema.remove("$schema");
    schema.insert("type".to_owned(), Value::String("object".to_owned()));
    if !schema.get("properties").is_some_and(Value::is_object) {
        schema.insert("properties".to_owned(), Value::Object(Map::new()));
    }
    Value::Object(schema)
}

/// The result of a call as the model reads it, at most `max_chars` characters plus a note
/// saying how long it was.
pub fn tool_output(result: &CallToolResult, max_chars: usize) -> ToolOutput {
    let parts: Vec<String> = result.content.iter().map(block_text).collect();
    let mut text = parts.join("\n");
    if text.is_empty()
        && let Some(structured) = &result.structured_content
    {
        text = structured.to_string();
    }
    let text = cut(text, max_chars);
    if result.is_error == Some(true) {
        ToolOutput::error(text)
    } else {
        ToolOutput::ok(text)
    }
}

fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => placeholder("image", &image.mime_type, &image.data),
        ContentBlock::Audio(audio) => placeholder("audio", &audio.mime_type, &audio.data),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { text, .. } => text.clone(),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => {
                let mime_type = mime_type.as_deref().unwrap_or("application/octet-stream");
                format!("{uri} {}", placeholder("resource", mime_type, blob))
            }
            _ => "[a resource of an unknown kind]".to_owned(),
        },
        ContentBlock::ResourceLink(link) => format!("[resource {} {}]", link.name, link.uri),
        _ => "[content of an unknown kind]".to_owned(),
    }
}

/// "[image image/png, 12 KB]" for base64 `data`.
fn placeholder(kind: &str, mime_type: &str, data: &str) -> String {
    let bytes = data.len() / 4 * 3;
    format!("[{kind} {mime_type}, {} KB]", bytes.div_ceil(1024))
}

/// `text` cut to `max_chars` characters (on a character boundary), with a note of its length.
fn cut(mut text: String, max_chars: usize) -> String {
    let Some((end, _)) = text.char_indices().nth(max_chars) else {
        return text;
    };
    let length = text.chars().count();
    text.truncate(end);
    text.push_str(&format!("\n[cut: the result was {length} characters]"));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_result_is_cut_on_a_character_boundary_with_its_length() {
        assert_eq!(cut("ééé".to_owned(), 3), "ééé");
        assert_eq!(
            cut("éééé".to_owned(), 3),
            "ééé\n[cut: the result was 4 characters]"
        );
    }

    #[test]
    fn a_schema_without_properties_gets_an_empty_object_of_them() {
        let mut schema = Map::new();
        schema.insert("type".to_owned(), Value::String("object".to_owned()));
        assert_eq!(
            parameters(&schema),
            serde_json::json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn pictures_are_named_with_their_type_and_size() {
        let data = "A".repeat(16_384);
        assert_eq!(
            placeholder("image", "image/png", &data),
            "[image image/png, 12 KB]"
        );
    }
}
