//! Content blocks: what tool results, prompt messages and sampling messages carry.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A content block. Types we do not know (newer protocol versions add them) are kept whole in
/// `Unknown` so they can be shown and mapped to a placeholder instead of failing (C-29).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ContentBlock {
    Known(KnownContent),
    Unknown(Value),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum KnownContent {
    Text {
        text: String,
    },
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Audio {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    ResourceLink(ResourceLink),
    /// An embedded resource.
    Resource {
        resource: ResourceContents,
    },
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Known(KnownContent::Text { text: text.into() })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceLink {
    pub uri: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
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
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One fixture per variant; the exhaustive match makes a new variant fail to compile here
    /// until it has a fixture.
    #[test]
    fn every_variant_round_trips() {
        let fixtures = [
            json!({"type":"text","text":"hi"}),
            json!({"type":"image","data":"AAAA","mimeType":"image/png"}),
            json!({"type":"audio","data":"AAAA","mimeType":"audio/wav"}),
            json!({"type":"resource_link","uri":"file:///a","name":"a","mimeType":"text/plain"}),
            json!({"type":"resource","resource":{"uri":"file:///b","text":"b"}}),
        ];
        for f in fixtures {
            let block: ContentBlock = serde_json::from_value(f.clone()).unwrap();
            let ContentBlock::Known(known) = &block else { panic!("{f} parsed as unknown") };
            match known {
                KnownContent::Text { .. }
                | KnownContent::Image { .. }
                | KnownContent::Audio { .. }
                | KnownContent::ResourceLink(_)
                | KnownContent::Resource { .. } => {}
            }
            assert_eq!(serde_json::to_value(&block).unwrap(), f);
        }
    }

    #[test]
    fn unknown_types_are_kept_whole() {
        let v = json!({"type":"hologram","frames":3});
        let block: ContentBlock = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(block, ContentBlock::Unknown(v));
        // A known type with a missing field is kept too rather than failing the whole result.
        let broken = json!({"type":"image","data":"AAAA"});
        assert!(matches!(serde_json::from_value(broken).unwrap(), ContentBlock::Unknown(_)));
    }
}
