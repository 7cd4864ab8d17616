//! What an app gives Claude. `ui/update-model-context`: the page keeps the latest of each app and
//! sends it once, with the user's next message, as text blocks after the user's own — so the
//! request the timeline shows is exactly what Claude reads. `ui/message`: text the app asks to
//! send as the user's next message, which the user agrees to first.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::Value;

use protocol::claude::{Block, Message, Role};

/// The most text an app may give Claude in one context or one message.
pub const MAX_CHARS: usize = 8_000;

/// The latest context an app gave for Claude.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelContext {
    /// The app's lane name.
    pub app: String,
    pub text: String,
}

impl ModelContext {
    /// Reads an update (`content` text blocks and `structuredContent`, as JSON text).
    pub fn read(app: &str, params: &Value) -> Result<ModelContext, String> {
        let mut parts = texts(params.get("content"))?;
        if let Some(structured) = params.get("structuredContent").filter(|v| !v.is_null()) {
            parts.push(structured.to_string());
        }
        let text = bounded(parts.join("\n"))?;
        Ok(ModelContext { app: app.to_owned(), text })
    }

    /// The block Claude receives for it.
    fn block(&self) -> Block {
        Block::text(format!("[Context from the MCP App \"{}\" (ui/update-model-context)]\n{}", self.app, self.text))
    }
}

/// The text of a `ui/message` (a user message with text blocks only).
pub fn read_message(params: &Value) -> Result<String, String> {
    match params.get("role").and_then(Value::as_str) {
        Some("user") => {}
        other => return Err(format!("a ui/message must have role \"user\", not {}", other.unwrap_or("none"))),
    }
    bounded(texts(params.get("content"))?.join("\n\n"))
}

/// The user's message with the apps' latest contexts after it.
pub fn with_contexts(text: String, contexts: &[ModelContext]) -> Message {
    let mut content = vec![Block::text(text)];
    content.extend(contexts.iter().map(ModelContext::block));
    Message { role: Role::User, content }
}

/// The text blocks of `content` (one block or a list); any other kind is refused, named.
fn texts(content: Option<&Value>) -> Result<Vec<String>, String> {
    let blocks: Vec<&Value> = match content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list.iter().collect(),
        Some(one) => vec![one],
    };
    blocks
        .into_iter()
        .map(|b| match (b.get("type").and_then(Value::as_str), b.get("text").and_then(Value::as_str)) {
            (Some("text"), Some(text)) => Ok(text.to_owned()),
            (kind, _) => Err(format!("only text blocks are taken, not {}", kind.unwrap_or("a block without a type"))),
        })
        .collect()
}

fn bounded(text: String) -> Result<String, String> {
    let chars = text.chars().count();
    if text.trim().is_empty() {
        Err("it holds no text".into())
    } else if chars > MAX_CHARS {
        Err(format!("{chars} characters is over the {MAX_CHARS} an app may give Claude"))
    } else {
        Ok(text)
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_context_goes_after_the_users_text_named_by_its_app() {
        let c = ModelContext::read(
            "chart · demo #1",
            &json!({ "content": [{ "type": "text", "text": "The user reads mcp." }], "structuredContent": { "note": "mcp" } }),
        )
        .unwrap();
        let m = with_contexts("What is it about?".into(), &[c]);
        assert_eq!(m.content.len(), 2);
        assert_eq!(m.content[0].as_text(), Some("What is it about?"));
        assert_eq!(
            m.content[1].as_text(),
            Some(
                "[Context from the MCP App \"chart · demo #1\" (ui/update-model-context)]\nThe user reads mcp.\n{\"note\":\"mcp\"}"
            )
        );
    }

    #[test]
    fn a_message_is_user_text_only_and_bounded() {
        assert_eq!(
            read_message(&json!({ "role": "user", "content": [{ "type": "text", "text": "Hi" }] })).unwrap(),
            "Hi"
        );
        assert!(read_message(&json!({ "role": "assistant", "content": [] })).unwrap_err().contains("role \"user\""));
        let image = json!({ "role": "user", "content": [{ "type": "image", "data": "…" }] });
        assert!(read_message(&image).unwrap_err().contains("not image"));
        let long = json!({ "role": "user", "content": { "type": "text", "text": "x".repeat(MAX_CHARS + 1) } });
        assert!(read_message(&long).unwrap_err().contains("over the 8000"));
        assert!(read_message(&json!({ "role": "user", "content": [] })).unwrap_err().contains("no text"));
    }
}
