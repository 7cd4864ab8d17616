//! Content blocks: what tool results, prompt messages and sampling messages carry. Kept as the
//! JSON the server sent, with typed views, so block types we do not know yet survive (C-29).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ContentBlock(pub Value);

/// A `resource_link` (2025-06-18).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    pub uri: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
}

/// The contents of a resource: text, or a base64 `blob`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceContents {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock(json!({"type": "text", "text": text.into()}))
    }

    pub fn kind(&self) -> &str {
        self.0.get("type").and_then(Value::as_str).unwrap_or("unknown")
    }

    fn field(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    pub fn as_text(&self) -> Option<&str> {
        if self.kind() == "text" { self.field("text") } else { None }
    }

    /// `(base64 data, mime type)` of an `image` or `audio` block.
    pub fn media(&self) -> Option<(&str, &str)> {
        matches!(self.kind(), "image" | "audio").then_some(())?;
        Some((self.field("data")?, self.field("mimeType")?))
    }

    pub fn resource_link(&self) -> Option<ResourceLink> {
        if self.kind() != "resource_link" {
            return None;
        }
        serde_json::from_value(self.0.clone()).ok()
    }

    /// The contents of an embedded `resource` block.
    pub fn resource(&self) -> Option<ResourceContents> {
        if self.kind() != "resource" {
            return None;
        }
        serde_json::from_value(self.0.get("resource")?.clone()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_views_and_unknown_types() {
        let b = |v: Value| -> ContentBlock { serde_json::from_value(v).unwrap() };
        assert_eq!(b(json!({"type":"text","text":"hi"})).as_text(), Some("hi"));
        assert_eq!(
            b(json!({"type":"image","data":"AAAA","mimeType":"image/png"})).media(),
            Some(("AAAA", "image/png"))
        );
        assert_eq!(b(json!({"type":"image","data":"AAAA"})).media(), None, "a broken block has no view");
        assert_eq!(
            b(json!({"type":"resource_link","uri":"file:///a","name":"a"})).resource_link().unwrap().uri,
            "file:///a"
        );
        assert_eq!(
            b(json!({"type":"resource","resource":{"uri":"n://1","text":"one"}})).resource().unwrap().text.as_deref(),
            Some("one")
        );
        let unknown = json!({"type":"hologram","frames":3});
        assert_eq!(b(unknown.clone()).kind(), "hologram");
        assert_eq!(serde_json::to_value(b(unknown.clone())).unwrap(), unknown);
    }
}
