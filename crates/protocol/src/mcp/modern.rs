//! The 2026-07-28 revision's own wire types: the per-request `_meta` envelope keys, the
//! revisions this client speaks, `server/discover`'s result, multi round-trip results
//! (`resultType: "input_required"`), and the `subscriptions/listen` filter.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{Implementation, ServerCapabilities};

/// `_meta` keys of the 2026-07-28 envelope.
pub mod meta {
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
}

/// The protocol revisions this client speaks, newest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    V2026_07_28,
    V2025_11_25,
    V2025_06_18,
    V2025_03_26,
}

impl Revision {
    pub const ALL: [Revision; 4] =
        [Revision::V2026_07_28, Revision::V2025_11_25, Revision::V2025_06_18, Revision::V2025_03_26];

    pub fn as_str(self) -> &'static str {
        match self {
            Revision::V2026_07_28 => "2026-07-28",
            Revision::V2025_11_25 => "2025-11-25",
            Revision::V2025_06_18 => "2025-06-18",
            Revision::V2025_03_26 => "2025-03-26",
        }
    }

    pub fn parse(s: &str) -> Option<Revision> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Per-request metadata and no handshake (2026-07-28 and later), as opposed to an
    /// `initialize` handshake and a session.
    pub fn is_modern(self) -> bool {
        self == Revision::V2026_07_28
    }

    /// The newest legacy revision: what `initialize` asks for first.
    pub const LEGACY_LATEST: Revision = Revision::V2025_11_25;
}

/// `server/discover`'s result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    pub supported_versions: Vec<String>,
    #[serde(default)]
    pub capabilities: ServerCapabilities,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    #[serde(default, rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Some servers put it here rather than in `_meta`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Implementation>,
}

impl DiscoverResult {
    /// A result validates as a discover result when it lists its versions (as strings).
    pub fn read(result: &Value) -> Option<DiscoverResult> {
        let list = result.get("supportedVersions")?.as_array()?;
        if list.is_empty() || !list.iter().all(Value::is_string) {
            return None;
        }
        serde_json::from_value(result.clone()).ok()
    }

    /// Who the server says it is (`_meta` serverInfo, else a top-level serverInfo).
    pub fn implementation(&self) -> Option<Implementation> {
        let from_meta = self.meta.as_ref().and_then(|m| m.get(meta::SERVER_INFO)).cloned();
        from_meta.and_then(|v| serde_json::from_value(v).ok()).or_else(|| self.server_info.clone())
    }

    pub fn speaks(&self, r: Revision) -> bool {
        self.supported_versions.iter().any(|v| v == r.as_str())
    }
}

/// A result's `resultType`: absent means complete (older servers never send it).
pub fn input_required(result: &Value) -> bool {
    result.get("resultType").and_then(Value::as_str) == Some("input_required")
}

/// Which change notifications a `subscriptions/listen` stream asks for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tools_list_changed: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prompts_list_changed: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub resources_list_changed: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_subscriptions: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_discover_result_is_recognised_by_its_versions_r08() {
        let r = DiscoverResult::read(&json!({
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "x", "version": "1"}},
            "ttlMs": 3600000, "cacheScope": "public"
        }))
        .unwrap();
        assert!(r.speaks(Revision::V2026_07_28) && r.capabilities.tools.is_some());
        assert_eq!(r.implementation().unwrap().name, "x");
        assert!(DiscoverResult::read(&json!({})).is_none(), "a generic {{}} is not a discover result");
        assert!(DiscoverResult::read(&json!({"supportedVersions": []})).is_none());
        assert!(DiscoverResult::read(&json!({"supportedVersions": [1]})).is_none());
    }

    #[test]
    fn result_types_and_filters() {
        assert!(input_required(&json!({"resultType": "input_required", "requestState": "s"})));
        assert!(!input_required(&json!({"content": []})), "no resultType: complete");
        let f = SubscriptionFilter {
            tools_list_changed: true,
            resource_subscriptions: vec!["a://b".into()],
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(f).unwrap(),
            json!({"toolsListChanged": true, "resourceSubscriptions": ["a://b"]})
        );
        assert_eq!(Revision::parse("2025-06-18"), Some(Revision::V2025_06_18));
        assert!(Revision::V2026_07_28.is_modern() && !Revision::LEGACY_LATEST.is_modern());
    }
}
