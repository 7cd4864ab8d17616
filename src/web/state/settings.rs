//! The user's settings. Kept in localStorage, except the API key: that stays in memory unless
//! the user opts in to "remember on this device", and "Forget" removes it everywhere.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use super::storage;
use crate::engine::claude::{ClaudeSettings, DEFAULT_BASE_URL, DEFAULT_MODEL, ToolChoiceMode};
use crate::engine::demo::DEMO_BASE_URL;

const SETTINGS_KEY: &str = "loopscope.settings";
const API_KEY_KEY: &str = "loopscope.api-key";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SettingsData {
    /// Use the scripted demo model instead of the Claude API (no key needed).
    pub demo: bool,
    pub base_url: String,
    pub model: String,
    pub max_tokens: u32,
    pub system: String,
    pub tool_choice: String,
    pub parallel_tool_use: bool,
    /// Ask before every tool call (C-31).
    pub ask_before_tools: bool,
    pub max_iterations: u32,
    pub remember_key: bool,
}

impl Default for SettingsData {
    fn default() -> Self {
        Self {
            demo: false,
            base_url: DEFAULT_BASE_URL.into(),
            model: DEFAULT_MODEL.into(),
            max_tokens: 1024,
            system: String::new(),
            tool_choice: "auto".into(),
            parallel_tool_use: true,
            ask_before_tools: false,
            max_iterations: 10,
            remember_key: false,
        }
    }
}

#[derive(Clone, Copy)]
pub struct Settings {
    pub data: RwSignal<SettingsData>,
    pub api_key: RwSignal<String>,
}

impl Settings {
    /// Loads what was saved and keeps saving changes.
    pub fn load() -> Self {
        let data: SettingsData =
            storage::get(SETTINGS_KEY).and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default();
        let key = if data.remember_key { storage::get(API_KEY_KEY).unwrap_or_default() } else { String::new() };
        let settings = Settings { data: RwSignal::new(data), api_key: RwSignal::new(key) };
        // Effects only mirror state to storage (the outside world); they never write signals.
        Effect::new(move |_| {
            let d = settings.data.get();
            if let Ok(json) = serde_json::to_string(&d) {
                storage::set(SETTINGS_KEY, &json);
            }
        });
        Effect::new(move |_| {
            let (remember, key) = (settings.data.with(|d| d.remember_key), settings.api_key.get());
            if remember && !key.is_empty() {
                storage::set(API_KEY_KEY, &key);
            } else {
                storage::remove(API_KEY_KEY);
            }
        });
        settings
    }

    pub fn update(&self, f: impl FnOnce(&mut SettingsData)) {
        self.data.update(f);
    }

    /// Clears the key from memory and from this device.
    pub fn forget_key(&self) {
        self.api_key.set(String::new());
        self.data.update(|d| d.remember_key = false);
        storage::remove(API_KEY_KEY);
    }

    /// Whether a turn can start, and if not, what to do.
    pub fn ready(&self) -> Result<(), String> {
        let d = self.data.get_untracked();
        if d.demo {
            return Ok(());
        }
        if self.api_key.get_untracked().trim().is_empty() {
            return Err(
                "Add your Claude API key in Settings, or switch on the demo model to try the loop without one.".into(),
            );
        }
        if !(d.base_url.starts_with("https://") || d.base_url.starts_with("http://")) {
            return Err(format!(
                "The base URL \"{}\" must start with https:// (or http:// for a local server).",
                d.base_url
            ));
        }
        if d.model.trim().is_empty() {
            return Err("Choose a model in Settings.".into());
        }
        Ok(())
    }

    /// The settings the engine's Claude client takes.
    pub fn claude(&self) -> ClaudeSettings {
        let d = self.data.get_untracked();
        ClaudeSettings {
            base_url: if d.demo { DEMO_BASE_URL.into() } else { d.base_url.trim().to_owned() },
            api_key: if d.demo { "demo".into() } else { self.api_key.get_untracked().trim().to_owned() },
            model: if d.demo { "demo-model".into() } else { d.model.trim().to_owned() },
            max_tokens: d.max_tokens.max(1),
            system: d.system,
            tool_choice: ToolChoiceMode::parse(&d.tool_choice),
            parallel_tool_use: d.parallel_tool_use,
            ..ClaudeSettings::default()
        }
    }
}
