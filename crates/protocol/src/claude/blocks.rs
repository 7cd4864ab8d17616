//! Messages and content blocks. A block is kept as the exact JSON the API sent (or we built),
//! so an assistant message goes back verbatim — text, tool_use, thinking with its signature,
//! and every block type this client does not know — with typed views for the few types
//! the loop reads.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub content: Vec<Block>,
}

/// One content block, verbatim.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Block(pub Value);

/// The `tool_use` fields the loop needs.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolUse {
    pub id: String,
    pub name: String,
    pub input: Value,
}

/// A `tool_result` block: `content` is a string or an array of blocks.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    pub tool_use_id: String,
    pub content: Value,
    pub is_error: bool,
}

impl Block {
    pub fn text(text: impl Into<String>) -> Self {
        Block(json!({"type": "text", "text": text.into()}))
    }

    /// An image or document block with base64 data.
    pub fn media(kind: &str, media_type: &str, data: &str) -> Self {
        Block(json!({"type": kind, "source": {"type": "base64", "media_type": media_type, "data": data}}))
    }

    pub fn kind(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or("unknown")
    }

    fn str_field(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    pub fn as_text(&self) -> Option<&str> {
        if self.kind() == "text" { self.str_field("text") } else { None }
    }

    pub fn tool_use(&self) -> Option<ToolUse> {
        if self.kind() != "tool_use" {
            return None;
        }
        Some(ToolUse {
            id: self.str_field("id")?.to_owned(),
            name: self.str_field("name")?.to_owned(),
            input: self.0.get("input").cloned().unwrap_or(Value::Null),
        })
    }

    /// The server tool call that made this call, when code running on the API's side made it
    /// (programmatic tool calling: `caller.tool_id`); `None` when Claude called directly.
    pub fn caller(&self) -> Option<&str> {
        let caller = self.0.get("caller")?;
        if caller.get("type").and_then(Value::as_str) == Some("direct") {
            return None;
        }
        caller.get("tool_id").and_then(Value::as_str)
    }

    pub fn tool_result(&self) -> Option<ToolResult> {
        if self.kind() != "tool_result" {
            return None;
        }
        Some(ToolResult {
            tool_use_id: self.str_field("tool_use_id")?.to_owned(),
            content: self.0.get("content").cloned().unwrap_or(Value::Null),
            is_error: self.0.get("is_error") == Some(&Value::Bool(true)),
        })
    }
}

impl ToolResult {
    pub fn text(tool_use_id: &str, text: String, is_error: bool) -> Self {
        ToolResult { tool_use_id: tool_use_id.into(), content: Value::String(text), is_error }
    }

    /// The block as sent: `is_error` only when true.
    pub fn to_block(&self) -> Block {
        let mut m = Map::new();
        m.insert("type".into(), "tool_result".into());
        m.insert("tool_use_id".into(), self.tool_use_id.clone().into());
        m.insert("content".into(), self.content.clone());
        if self.is_error {
            m.insert("is_error".into(), true.into());
        }
        Block(Value::Object(m))
    }
}

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Message { role: Role::User, content: vec![Block::text(text)] }
    }

    pub fn tool_uses(&self) -> impl Iterator<Item = ToolUse> + '_ {
        self.content.iter().filter_map(Block::tool_use)
    }

    pub fn tool_results(&self) -> impl Iterator<Item = ToolResult> + '_ {
        self.content.iter().filter_map(Block::tool_result)
    }

    /// All text blocks joined, for display.
    pub fn text(&self) -> String {
        self.content.iter().filter_map(Block::as_text).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_round_trip_verbatim_whatever_their_type() {
        let fixtures = [
            json!({"type":"text","text":"hi","citations":[{"type":"char_location","cited_text":"x"}]}),
            json!({"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Tokyo"},"caller":{"type":"direct"}}),
            json!({"type":"thinking","thinking":"hmm","signature":"sig"}),
            json!({"type":"redacted_thinking","data":"opaque"}),
            json!({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}}),
        ];
        for f in fixtures {
            let b: Block = serde_json::from_value(f.clone()).unwrap();
            assert_eq!(serde_json::to_value(&b).unwrap(), f);
        }
    }

    #[test]
    fn typed_views() {
        let m: Message = serde_json::from_value(json!({"role":"assistant","content":[
            {"type":"text","text":"Let me check."},
            {"type":"tool_use","id":"t1","name":"get_weather","input":{"city":"Tokyo"}}
        ]}))
        .unwrap();
        assert_eq!(m.text(), "Let me check.");
        let uses: Vec<ToolUse> = m.tool_uses().collect();
        assert_eq!(uses[0].input, json!({"city": "Tokyo"}));
        let r = ToolResult::text("t1", "Sunny".into(), true);
        assert_eq!(
            serde_json::to_value(r.to_block()).unwrap(),
            json!({"type":"tool_result","tool_use_id":"t1","content":"Sunny","is_error":true})
        );
        assert_eq!(r.to_block().tool_result(), Some(r));
        let ok = ToolResult {
            tool_use_id: "t".into(),
            content: json!([{"type":"text","text":"a"},{"type":"image"}]),
            is_error: false,
        };
        assert!(ok.to_block().0.get("is_error").is_none());
    }
}
