//! The Models API's word on a model (`GET /v1/models`): what the key may use and what each model
//! supports, read from its `capabilities`. When the chosen model was listed, a request that asks
//! for something it says the model does not support is stopped before sending, with the API's
//! own list as the reason; otherwise Loopscope's table (`models.rs`) decides, as before.

use serde_json::Value;

use super::thinking::{Thinking, ThinkingMode};
use protocol::claude::ModelInfo;

/// How many pages of models one listing reads at most (a page is up to 1,000 models).
pub const MAX_PAGES: usize = 5;

/// One model as the Models API lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    pub id: String,
    pub display_name: String,
    pub max_input_tokens: Option<u64>,
    pub max_tokens: Option<u64>,
    /// The `thinking.type`s it supports, when the API says.
    pub thinking: Option<Vec<String>>,
    /// The effort levels it supports, when the API says.
    pub effort: Option<Vec<String>>,
    /// Whether it supports strict tools and JSON outputs, when the API says.
    pub structured_outputs: Option<bool>,
}

/// A request the Models API says this model cannot take.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ListedRule {
    #[error("the Models API lists {model} with thinking {supported}, not \"{asked}\"")]
    Thinking { model: String, asked: &'static str, supported: String },
    #[error("the Models API lists {model} with effort {supported}, not \"{asked}\"")]
    Effort { model: String, asked: &'static str, supported: String },
    #[error("the Models API lists {model} without structured outputs, which strict tools need")]
    Strict { model: String },
}

/// The names under `capabilities.<key>` (or `<key>.types`) marked `supported: true`, if the
/// API described it at all.
fn supported(caps: &Value, key: &str) -> Option<Vec<String>> {
    let node = caps.get(key)?;
    let map = node.get("types").unwrap_or(node).as_object()?;
    let on = |v: &Value| v.get("supported").and_then(Value::as_bool) == Some(true);
    // In the order the documentation gives them, whatever order the JSON object had; names
    // Loopscope does not know follow, as they came.
    let mut names: Vec<String> =
        ORDER.iter().filter(|o| map.get(**o).is_some_and(on)).map(|o| (*o).to_owned()).collect();
    names.extend(map.iter().filter(|(k, v)| on(v) && !ORDER.contains(&k.as_str())).map(|(k, _)| k.clone()));
    Some(names)
}

/// Thinking types, then effort levels, as the documentation orders them.
const ORDER: [&str; 8] = ["adaptive", "enabled", "disabled", "low", "medium", "high", "xhigh", "max"];

fn list(names: &[String]) -> String {
    if names.is_empty() { "none".to_owned() } else { names.join(", ") }
}

impl Listed {
    pub fn from_info(info: &ModelInfo) -> Self {
        let caps = &info.capabilities;
        Listed {
            id: info.id.clone(),
            display_name: info.display_name.clone(),
            max_input_tokens: info.max_input_tokens,
            max_tokens: info.max_tokens,
            thinking: supported(caps, "thinking"),
            effort: supported(caps, "effort"),
            structured_outputs: caps.pointer("/structured_outputs/supported").and_then(Value::as_bool),
        }
    }

    /// A line for the model field: the name, the limits and what it supports.
    pub fn summary(&self) -> String {
        let mut parts = vec![if self.display_name.is_empty() { self.id.clone() } else { self.display_name.clone() }];
        if let Some(n) = self.max_input_tokens {
            parts.push(format!("{} tokens in", crate::num::grouped(n)));
        }
        if let Some(n) = self.max_tokens {
            parts.push(format!("{} out", crate::num::grouped(n)));
        }
        if let Some(t) = &self.thinking {
            parts.push(format!("thinking: {}", list(t)));
        }
        if let Some(e) = &self.effort {
            parts.push(format!("effort: {}", list(e)));
        }
        match self.structured_outputs {
            Some(true) => parts.push("strict tools".into()),
            Some(false) => parts.push("no strict tools".into()),
            None => {}
        }
        parts.join(" · ")
    }

    /// Whether a request with `thinking` (and strict tools, if `strict`) is one this model takes,
    /// by the API's own list. What the API did not describe is not checked here.
    pub fn check(&self, thinking: &Thinking, strict: bool) -> Result<(), ListedRule> {
        let asked = match thinking.mode {
            ThinkingMode::ModelDefault => None,
            ThinkingMode::Off => Some("disabled"),
            ThinkingMode::Adaptive => Some("adaptive"),
            ThinkingMode::Budget => Some("enabled"),
        };
        if let (Some(asked), Some(types)) = (asked, &self.thinking)
            && !types.iter().any(|t| t == asked)
        {
            return Err(ListedRule::Thinking { model: self.id.clone(), asked, supported: list(types) });
        }
        if let (Some(effort), Some(levels)) = (thinking.effort, &self.effort)
            && !levels.iter().any(|l| l == effort.as_str())
        {
            return Err(ListedRule::Effort { model: self.id.clone(), asked: effort.as_str(), supported: list(levels) });
        }
        if strict && self.structured_outputs == Some(false) {
            return Err(ListedRule::Strict { model: self.id.clone() });
        }
        Ok(())
    }
}

/// The line under the model field: what the Models API said about `id` when it listed models,
/// with what Loopscope's table adds; Loopscope's table alone otherwise.
pub fn describe_model(id: &str, listed: &[Listed]) -> String {
    let id = id.trim();
    let known = super::models::Model::find(id);
    match (listed.iter().find(|m| m.id == id), known) {
        (Some(l), Some(m)) => format!("{id}: {} (Models API) · {}.", l.summary(), m.summary()),
        (Some(l), None) => format!("{id}: {} (Models API).", l.summary()),
        (None, _) if !listed.is_empty() => {
            format!("{id} is not among the {} models the Models API listed for this key: sent as typed.", listed.len())
        }
        (None, Some(m)) => format!("{}: {}.", m.id, m.summary()),
        (None, None) => "Not in Loopscope's list: sent as typed, and the API decides what it accepts.".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claude::thinking::Effort;
    use serde_json::json;

    fn info(caps: Value) -> ModelInfo {
        ModelInfo::from_value(&json!({"id": "claude-next-6", "display_name": "Claude Next 6",
            "max_input_tokens": 1_000_000, "max_tokens": 128_000, "capabilities": caps}))
        .unwrap()
    }

    #[test]
    fn capabilities_are_read_and_enforced_only_where_the_api_described_them() {
        let listed = Listed::from_info(&info(json!({
            "thinking": {"supported": true, "types": {"adaptive": {"supported": true}, "enabled": {"supported": false}}},
            "effort": {"supported": true, "max": {"supported": true}, "low": {"supported": true}},
            "structured_outputs": {"supported": false}
        })));
        assert_eq!(listed.thinking.as_deref(), Some(&["adaptive".to_owned()][..]));
        assert_eq!(
            listed.summary(),
            "Claude Next 6 · 1,000,000 tokens in · 128,000 out · thinking: adaptive · effort: low, max · no strict tools"
        );
        let budget = Thinking { mode: ThinkingMode::Budget, ..Thinking::default() };
        assert_eq!(
            listed.check(&budget, false).unwrap_err().to_string(),
            "the Models API lists claude-next-6 with thinking adaptive, not \"enabled\""
        );
        let medium = Thinking { mode: ThinkingMode::Adaptive, effort: Some(Effort::Medium), ..Thinking::default() };
        assert!(matches!(listed.check(&medium, false), Err(ListedRule::Effort { asked: "medium", .. })));
        assert!(matches!(listed.check(&Thinking::default(), true), Err(ListedRule::Strict { .. })));
        assert_eq!(listed.check(&Thinking::default(), false), Ok(()));
        // A model listed without capabilities is not checked at all.
        let bare = Listed::from_info(&info(Value::Null));
        assert_eq!(bare.check(&budget, true), Ok(()));
        assert_eq!(bare.summary(), "Claude Next 6 · 1,000,000 tokens in · 128,000 out");
    }

    #[test]
    fn the_model_line_prefers_the_apis_word_and_says_when_a_model_is_not_listed() {
        let listed = [Listed::from_info(&info(Value::Null))];
        assert!(describe_model("claude-next-6", &listed).ends_with("(Models API)."));
        assert!(describe_model("claude-opus-5-5", &listed).contains("not among the 1 models"));
        assert!(describe_model("claude-opus-5-5", &[]).starts_with("claude-opus-5-5: always thinks"));
        assert!(describe_model("mystery", &[]).starts_with("Not in Loopscope's list"));
    }
}
