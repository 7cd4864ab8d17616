//! The user's settings as the page keeps them (saved without the key), what makes them ready
//! for a turn, and the engine's Claude settings built from them. Validation lives here, not in
//! the form: the form only forwards what the user typed.

use serde::{Deserialize, Serialize};

use super::claude::listed::Listed;
use super::claude::server_tools::ServerTool;
use super::claude::thinking::{MIN_BUDGET, Thinking};
use super::claude::tool_flags::ToolFlags;
use super::claude::{ClaudeSettings, DEFAULT_BASE_URL, DEFAULT_MODEL, ToolChoiceMode};
use super::demo::DEMO_BASE_URL;
use super::limits::{Limits, OutOfBounds};
use super::url_policy::{self, Trust};

/// Why a turn cannot start with these settings, said as what to do about it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotReady {
    #[error("Add your Claude API key in Settings, or switch on the demo model to try the loop without one.")]
    NoKey,
    /// The base URL would carry the key somewhere the URL policy refuses.
    #[error(
        "The base URL \"{url}\" cannot carry your key: {why}. Use https:// (or http:// for a server on this machine)."
    )]
    BaseUrl { url: String, why: url_policy::UrlRefusal },
    #[error("Choose a model in Settings.")]
    NoModel,
}

/// The bounds the settings form offers, and the engine enforces.
pub const MAX_TOKENS_RANGE: (u32, u32) = (1, 64_000);
pub const MAX_ROUNDS_RANGE: (u32, u32) = (1, 50);

/// Saved as JSON (serde's derived writer) and read back by hand ([`UserSettings::read`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UserSettings {
    /// Use the scripted demo model instead of the Claude API (no key needed).
    pub demo: bool,
    pub base_url: String,
    pub model: String,
    pub max_tokens: u32,
    pub system: String,
    pub tool_choice: ToolChoiceMode,
    /// The tool a `tool` choice names.
    pub tool_choice_name: String,
    pub parallel_tool_use: bool,
    pub thinking: Thinking,
    /// Tools the API runs itself (web search, web fetch, code execution).
    pub server_tools: Vec<ServerTool>,
    /// `strict`, `eager_input_streaming` and `defer_loading`, per tool.
    pub tool_flags: ToolFlags,
    /// Ask before every tool call (C-31).
    pub ask_before_tools: bool,
    pub max_iterations: u32,
    pub remember_key: bool,
    /// What a stranger may make the page read or do (`engine::limits`).
    pub limits: Limits,
}

impl Default for UserSettings {
    fn default() -> Self {
        Self {
            demo: false,
            base_url: DEFAULT_BASE_URL.into(),
            model: DEFAULT_MODEL.into(),
            max_tokens: 1024,
            system: String::new(),
            tool_choice: ToolChoiceMode::Auto,
            tool_choice_name: String::new(),
            parallel_tool_use: true,
            thinking: Thinking::default(),
            server_tools: Vec::new(),
            tool_flags: ToolFlags::default(),
            ask_before_tools: false,
            max_iterations: 10,
            remember_key: false,
            limits: Limits::default(),
        }
    }
}

/// Read field by field, each from its own part of the JSON: a field that an older or newer
/// version wrote differently, or that someone edited badly, falls back to its default and the
/// others are kept, where serde's derived reader lost every setting for one bad field. (It was
/// also 10.8 KB of the page's first chunk; docs/size.md.) A field's own type keeps its serde
/// reader, through an owned `Value` as the page reads everything.
impl<'de> Deserialize<'de> for UserSettings {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = serde_json::Value::deserialize(deserializer)?;
        UserSettings::from_saved(value)
            .map(|(settings, _)| settings)
            .ok_or_else(|| serde::de::Error::custom("the saved settings are not a JSON object"))
    }
}

impl UserSettings {
    /// Saved settings as the page may use them: read field by field, then every number brought
    /// within the bounds the settings screen enforces (saved values are a stranger's: another
    /// page of this origin can write them), each one changed named for the user.
    pub fn from_saved(value: serde_json::Value) -> Option<(Self, Vec<OutOfBounds>)> {
        Some(UserSettings::read(value)?.within_bounds())
    }

    /// What the user is told, once, of saved numbers that were out of bounds.
    pub fn out_of_bounds_notice(changed: &[OutOfBounds]) -> Option<String> {
        if changed.is_empty() {
            return None;
        }
        let each: Vec<String> = changed.iter().map(ToString::to_string).collect();
        Some(format!(
            "Saved settings held values the settings screen never allows, and were brought within its bounds (another \
             page of this site can write them): {}. Settings shows what is used now.",
            each.join("; ")
        ))
    }

    fn within_bounds(mut self) -> (Self, Vec<OutOfBounds>) {
        let (limits, mut changed) = self.limits.within_bounds();
        self.limits = limits;
        let mut bound = |label: &'static str, value: &mut u32, (lo, hi): (u32, u32)| {
            let used = (*value).clamp(lo, hi);
            if used != *value {
                changed.push(OutOfBounds {
                    label,
                    saved: u64::from(*value),
                    used: u64::from(used),
                    range: (u64::from(lo), u64::from(hi)),
                });
                *value = used;
            }
        };
        bound("Max tokens", &mut self.max_tokens, MAX_TOKENS_RANGE);
        bound("Max tool rounds", &mut self.max_iterations, MAX_ROUNDS_RANGE);
        bound("Budget tokens", &mut self.thinking.budget_tokens, (MIN_BUDGET, MAX_TOKENS_RANGE.1));
        (self, changed)
    }

    /// The settings a JSON object holds, each missing or unreadable field at its default; `None`
    /// if it is not an object.
    fn read(value: serde_json::Value) -> Option<Self> {
        let serde_json::Value::Object(mut map) = value else { return None };
        let mut take = |key: &str| map.remove(key);
        fn or<T: serde::de::DeserializeOwned>(value: Option<serde_json::Value>, default: T) -> T {
            value.and_then(|v| serde_json::from_value(v).ok()).unwrap_or(default)
        }
        let d = UserSettings::default();
        Some(UserSettings {
            demo: or(take("demo"), d.demo),
            base_url: or(take("base_url"), d.base_url),
            model: or(take("model"), d.model),
            max_tokens: or(take("max_tokens"), d.max_tokens),
            system: or(take("system"), d.system),
            tool_choice: or(take("tool_choice"), d.tool_choice),
            tool_choice_name: or(take("tool_choice_name"), d.tool_choice_name),
            parallel_tool_use: or(take("parallel_tool_use"), d.parallel_tool_use),
            thinking: or(take("thinking"), d.thinking),
            server_tools: or(take("server_tools"), d.server_tools),
            tool_flags: or(take("tool_flags"), d.tool_flags),
            ask_before_tools: or(take("ask_before_tools"), d.ask_before_tools),
            max_iterations: or(take("max_iterations"), d.max_iterations),
            remember_key: or(take("remember_key"), d.remember_key),
            limits: or(take("limits"), d.limits),
        })
    }
}

/// A whole number the user typed, within `range`; out-of-range numbers are brought into it.
pub fn bounded(text: &str, range: (u32, u32)) -> Option<u32> {
    text.trim().parse::<u64>().ok().map(|n| n.clamp(range.0 as u64, range.1 as u64) as u32)
}

impl UserSettings {
    /// Whether a turn can start with `api_key`, and if not, what to do.
    pub fn ready(&self, api_key: &str) -> Result<(), NotReady> {
        if self.demo {
            return Ok(());
        }
        if api_key.trim().is_empty() {
            return Err(NotReady::NoKey);
        }
        // The key goes wherever the base URL says: https, or plain http only on this machine
        // (a local proxy), never in the clear across a network.
        if let Err(why) = url_policy::check(self.base_url.trim(), Trust::Stranger) {
            return Err(NotReady::BaseUrl { url: self.base_url.trim().to_owned(), why });
        }
        if self.model.trim().is_empty() {
            return Err(NotReady::NoModel);
        }
        Ok(())
    }

    /// The settings the Claude client takes; the demo model when demo mode is on.
    pub fn claude(&self, api_key: &str) -> ClaudeSettings {
        ClaudeSettings {
            base_url: if self.demo { DEMO_BASE_URL.into() } else { self.base_url.trim().to_owned() },
            api_key: if self.demo { "demo".into() } else { api_key.trim().to_owned() },
            model: if self.demo { "demo-model".into() } else { self.model.trim().to_owned() },
            max_tokens: self.max_tokens.clamp(MAX_TOKENS_RANGE.0, MAX_TOKENS_RANGE.1),
            system: self.system.clone(),
            tool_choice: self.tool_choice,
            tool_choice_name: self.tool_choice_name.clone(),
            parallel_tool_use: self.parallel_tool_use,
            // The demo model ignores thinking settings: they are for the real API.
            thinking: if self.demo { Thinking::default() } else { self.thinking },
            // The demo model runs web search only (canned results); the other server tools are
            // the real API's.
            server_tools: if self.demo {
                self.server_tools.iter().copied().filter(|t| *t == ServerTool::WebSearch).collect()
            } else {
                self.server_tools.clone()
            },
            tool_flags: self.tool_flags.clone(),
            limits: self.limits,
            ..ClaudeSettings::default()
        }
    }

    /// The same, with the Models API's word on the chosen model when `listed` names it (never
    /// for the demo model).
    pub fn claude_listed(&self, api_key: &str, listed: &[Listed]) -> ClaudeSettings {
        let mut settings = self.claude(api_key);
        if !self.demo {
            settings.listed = listed.iter().find(|m| m.id == settings.model).cloned();
        }
        settings
    }

    /// The loop's round limit, at least one.
    pub fn rounds(&self) -> u32 {
        self.max_iterations.clamp(MAX_ROUNDS_RANGE.0, MAX_ROUNDS_RANGE.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turn_needs_a_key_an_address_and_a_model_unless_in_demo_mode() {
        let s = UserSettings::default();
        assert!(s.ready("").unwrap_err().to_string().contains("API key"));
        assert_eq!(s.ready("sk-ant-x"), Ok(()));
        let bad = UserSettings { base_url: "api.anthropic.com".into(), ..UserSettings::default() };
        assert!(bad.ready("sk-ant-x").unwrap_err().to_string().contains("https://"));
        let empty_host = UserSettings { base_url: "https://".into(), ..UserSettings::default() };
        assert!(empty_host.ready("sk-ant-x").is_err());
        let cleartext = UserSettings { base_url: "http://proxy.example.com".into(), ..UserSettings::default() };
        assert!(cleartext.ready("sk-ant-x").unwrap_err().to_string().contains("only for this machine"));
        let local = UserSettings { base_url: "http://127.0.0.1:8787".into(), ..UserSettings::default() };
        assert_eq!(local.ready("sk-ant-x"), Ok(()));
        let sneaky = UserSettings { base_url: "https://user:pw@api.example.com".into(), ..UserSettings::default() };
        assert!(sneaky.ready("sk-ant-x").is_err());
        let no_model = UserSettings { model: "  ".into(), ..UserSettings::default() };
        assert!(no_model.ready("sk-ant-x").unwrap_err().to_string().contains("model"));
        let demo = UserSettings { demo: true, base_url: String::new(), ..UserSettings::default() };
        assert_eq!(demo.ready(""), Ok(()));
    }

    /// Every field other than its default, so a field the reader forgot fails the round trip.
    fn changed() -> UserSettings {
        use crate::claude::thinking::ThinkingMode;
        use crate::claude::tool_flags::ToolPick;
        let d = UserSettings::default();
        UserSettings {
            demo: !d.demo,
            base_url: "https://proxy.example.com".into(),
            model: "claude-other".into(),
            max_tokens: 77,
            system: "Be brief.".into(),
            tool_choice: ToolChoiceMode::Any,
            tool_choice_name: "get_weather".into(),
            parallel_tool_use: !d.parallel_tool_use,
            thinking: Thinking { mode: ThinkingMode::Adaptive, budget_tokens: 4096, ..d.thinking },
            server_tools: vec![ServerTool::WebSearch],
            tool_flags: ToolFlags { strict: ToolPick::all(), ..d.tool_flags.clone() },
            ask_before_tools: !d.ask_before_tools,
            max_iterations: 3,
            remember_key: !d.remember_key,
            limits: Limits { body_bytes: 5 * 1024 * 1024, ..d.limits },
        }
    }

    #[test]
    fn saved_numbers_are_brought_within_the_bounds_settings_enforces_and_each_is_named() {
        // Another page of this origin writes limits that switch the defences off.
        let mut json = serde_json::to_value(changed()).unwrap();
        json["limits"]["body_bytes"] = serde_json::json!(4_294_967_295_u64);
        json["limits"]["reconnect_floor_ms"] = serde_json::json!(0);
        json["limits"]["json_depth"] = serde_json::json!(100_000);
        json["max_iterations"] = serde_json::json!(1_000_000);
        let (read, changed) = UserSettings::from_saved(json.clone()).unwrap();
        assert_eq!(read.limits.body_bytes, 256 * 1024 * 1024);
        assert_eq!(read.limits.reconnect_floor_ms, 100);
        assert_eq!(read.limits.json_depth, 120);
        assert_eq!(read.max_iterations, 50);
        let said: Vec<String> = changed.iter().map(ToString::to_string).collect();
        assert_eq!(
            said,
            [
                "Response body (MiB): 4095 saved, outside 1 to 256, so 256 is used",
                "JSON nesting (levels): 100000 saved, outside 8 to 120, so 120 is used",
                "Shortest wait before reopening a stream (ms): 0 saved, outside 100 to 60000, so 100 is used",
                "Max tool rounds: 1000000 saved, outside 1 to 50, so 50 is used",
            ]
        );
        // serde's reader gives the same bounded values; and within bounds, nothing is said.
        assert_eq!(serde_json::from_value::<UserSettings>(json).unwrap(), read);
        assert_eq!(UserSettings::from_saved(serde_json::to_value(&read).unwrap()).unwrap().1, []);
    }

    #[test]
    fn saved_settings_read_back_whole_and_one_bad_field_keeps_the_others() {
        let saved = changed();
        let d = UserSettings::default();
        for (a, b) in [
            (saved.thinking == d.thinking, "thinking"),
            (saved.server_tools == d.server_tools, "server_tools"),
            (saved.tool_flags == d.tool_flags, "tool_flags"),
            (saved.limits == d.limits, "limits"),
            (saved.tool_choice == d.tool_choice, "tool_choice"),
        ] {
            assert!(!a, "the test's {b} is the default: it would not catch a field read wrong");
        }
        let json = serde_json::to_value(&saved).unwrap();
        assert_eq!(serde_json::from_value::<UserSettings>(json.clone()).unwrap(), saved);
        assert_eq!(serde_json::from_str::<UserSettings>(&json.to_string()).unwrap(), saved);

        // A bad field falls back to its default; the rest are kept. Unknown fields are ignored.
        let mut broken = json.clone();
        broken["max_tokens"] = serde_json::json!("lots");
        broken["thinking"] = serde_json::json!({"mode": "sometimes"});
        broken["server_tools"] = serde_json::json!("web_search");
        broken["from_a_newer_version"] = serde_json::json!(true);
        let read: UserSettings = serde_json::from_value(broken).unwrap();
        assert_eq!(read.max_tokens, d.max_tokens);
        assert_eq!(read.thinking, d.thinking);
        assert_eq!(
            read,
            UserSettings {
                max_tokens: d.max_tokens,
                thinking: d.thinking,
                server_tools: d.server_tools.clone(),
                ..saved.clone()
            }
        );
        // Missing fields are defaults; what is not an object is no settings at all.
        assert_eq!(serde_json::from_value::<UserSettings>(serde_json::json!({})).unwrap(), d);
        assert!(serde_json::from_value::<UserSettings>(serde_json::json!([1, 2])).is_err());
        assert!(serde_json::from_value::<UserSettings>(serde_json::json!("demo")).is_err());
    }

    #[test]
    fn numbers_are_bounded_and_the_demo_replaces_claude() {
        assert_eq!(bounded("100000", MAX_TOKENS_RANGE), Some(64_000));
        assert_eq!(bounded(" 0 ", MAX_ROUNDS_RANGE), Some(1));
        assert_eq!(bounded("12", MAX_ROUNDS_RANGE), Some(12));
        assert_eq!(bounded("-3", MAX_ROUNDS_RANGE), None);
        assert_eq!(bounded("ten", MAX_ROUNDS_RANGE), None);
        let demo = UserSettings { demo: true, ..UserSettings::default() }.claude("sk-real");
        assert_eq!((demo.base_url.as_str(), demo.api_key.as_str()), (DEMO_BASE_URL, "demo"));
        let real = UserSettings { max_tokens: 0, ..UserSettings::default() }.claude(" sk-real ");
        assert_eq!((real.api_key.as_str(), real.max_tokens), ("sk-real", 1));
    }

    #[test]
    fn saved_settings_from_before_keep_loading() {
        // tool_choice used to be saved as a string: the same words still load.
        let old = r#"{"demo":false,"tool_choice":"any","max_tokens":2048}"#;
        let s: UserSettings = serde_json::from_str(old).unwrap();
        assert_eq!((s.tool_choice, s.max_tokens, s.model.as_str()), (ToolChoiceMode::Any, 2048, DEFAULT_MODEL));
    }
}
