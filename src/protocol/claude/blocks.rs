//! Messages and content blocks.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

impl Message {
    pub fn user_text(text: impl Into<String>) -> Self {
        Message { role: Role::User, content: vec![Block::text(text)] }
    }

    /// The `tool_use` blocks, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.content.iter().filter_map(|b| match b {
            Block::Known(KnownBlock::ToolUse(t)) => Some(t),
            _ => None,
        })
    }

    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResult> {
        self.content.iter().filter_map(|b| match b {
            Block::Known(KnownBlock::ToolResult(t)) => Some(t),
            _ => None,
        })
    }

    /// All text blocks joined, for display.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                Block::Known(KnownBlock::Text(t)) => Some(t.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }
}

/// A content block; types this client does not know are kept whole and sent back unchanged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Block {
    Known(KnownBlock),
    Unknown(Value),
}

impl Block {
    pub fn text(text: impl Into<String>) -> Self {
        Block::Known(KnownBlock::Text(Text { text: text.into(), extra: Map::new() }))
    }

    pub fn type_name(&self) -> String {
        match self {
            Block::Known(k) => serde_json::to_value(k)
                .ok()
                .and_then(|v| v.get("type").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or_default(),
            Block::Unknown(v) => v.get("type").and_then(Value::as_str).unwrap_or("unknown").to_owned(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum KnownBlock {
    Text(Text),
    Image(Media),
    Document(Media),
    ToolUse(ToolUse),
    ToolResult(ToolResult),
    Thinking(Thinking),
    RedactedThinking(RedactedThinking),
}

/// Every block keeps the fields this client does not model (`extra`), so an assistant message
/// goes back to the API exactly as it came.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Text {
    pub text: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An image or document: `source` is `{type: "base64", media_type, data}`, `{type: "text", …}`
/// or `{type: "url", url}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Media {
    pub source: Value,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    pub id: String,
    pub name: String,
    pub input: Value,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub tool_use_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ToolResultContent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ToolResult {
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }
}

/// A string, or blocks (text, image, document, search_result).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    Text(String),
    Blocks(Vec<Block>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Thinking {
    pub thinking: String,
    #[serde(default)]
    pub signature: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RedactedThinking {
    pub data: String,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One fixture per variant; the exhaustive match makes a new variant fail to compile until
    /// it has one.
    #[test]
    fn every_block_round_trips_verbatim() {
        let fixtures = [
            json!({"type":"text","text":"hi","citations":[{"type":"char_location","cited_text":"x"}]}),
            json!({"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}),
            json!({"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"AAAA"},"title":"t"}),
            json!({"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Tokyo"},"caller":{"type":"direct"}}),
            json!({"type":"tool_result","tool_use_id":"toolu_1","content":"Sunny","is_error":true}),
            json!({"type":"thinking","thinking":"hmm","signature":"sig"}),
            json!({"type":"redacted_thinking","data":"opaque"}),
        ];
        for f in fixtures {
            let block: Block = serde_json::from_value(f.clone()).unwrap();
            let Block::Known(known) = &block else { panic!("{f} parsed as unknown") };
            match known {
                KnownBlock::Text(_)
                | KnownBlock::Image(_)
                | KnownBlock::Document(_)
                | KnownBlock::ToolUse(_)
                | KnownBlock::ToolResult(_)
                | KnownBlock::Thinking(_)
                | KnownBlock::RedactedThinking(_) => {}
            }
            assert_eq!(serde_json::to_value(&block).unwrap(), f);
        }
    }

    #[test]
    fn unknown_blocks_survive_unchanged() {
        let server_tool = json!({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"q"}});
        let block: Block = serde_json::from_value(server_tool.clone()).unwrap();
        assert!(matches!(block, Block::Unknown(_)));
        assert_eq!(block.type_name(), "server_tool_use");
        assert_eq!(serde_json::to_value(&block).unwrap(), server_tool);
    }

    #[test]
    fn tool_result_content_is_a_string_or_blocks() {
        let r: ToolResult =
            serde_json::from_value(json!({"tool_use_id":"t","content":[{"type":"text","text":"a"}]})).unwrap();
        assert!(matches!(r.content, Some(ToolResultContent::Blocks(ref b)) if b.len() == 1));
        assert!(!r.is_error());
    }
}
