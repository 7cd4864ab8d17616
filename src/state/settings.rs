//! The user's settings. Kept in localStorage, except the API key: that stays in memory unless
//! the user opts in to "remember on this device", and "Forget" removes it everywhere.

use leptos::prelude::*;

use super::storage;
use engine::claude::ClaudeSettings;
use engine::claude::listed::Listed;
pub use engine::settings::UserSettings as SettingsData;

pub(super) const SETTINGS_KEY: &str = "loopscope.settings";
pub(super) const API_KEY_KEY: &str = "loopscope.api-key";

#[derive(Clone, Copy)]
pub struct Settings {
    pub data: RwSignal<SettingsData>,
    pub api_key: RwSignal<String>,
    /// The models the Models API listed for this key (not saved: asked again when wanted).
    pub listed: RwSignal<Vec<Listed>>,
}

/// Saved settings as the page may use them (`SettingsData::from_saved`: every number within
/// the settings screen's bounds), and the sentence that names what was not.
pub(super) fn read(text: &str) -> Option<(SettingsData, Option<String>)> {
    let (data, changed) = storage::read_json::<serde_json::Value>(text).and_then(SettingsData::from_saved)?;
    Some((data, SettingsData::out_of_bounds_notice(&changed)))
}

impl Settings {
    /// Loads what was saved and keeps saving changes; with what was saved out of bounds (to
    /// say once: the next save writes the bounded values).
    pub fn load() -> (Self, Option<String>) {
        let (data, out_of_bounds) = storage::get(SETTINGS_KEY).as_deref().and_then(read).unwrap_or_default();
        let key = if data.remember_key { storage::get(API_KEY_KEY).unwrap_or_default() } else { String::new() };
        let settings =
            Settings { data: RwSignal::new(data), api_key: RwSignal::new(key), listed: RwSignal::new(Vec::new()) };
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
        (settings, out_of_bounds)
    }

    pub fn update(&self, f: impl FnOnce(&mut SettingsData)) {
        self.data.update(f);
    }

    /// Clears the key from memory and from this device.
    pub fn forget_key(&self) {
        self.api_key.set(String::new());
        self.listed.set(Vec::new());
        self.data.update(|d| d.remember_key = false);
        storage::remove(API_KEY_KEY);
    }

    /// Whether a turn can start, and if not, what to do.
    pub fn ready(&self) -> Result<(), engine::settings::NotReady> {
        self.data.with_untracked(|d| self.api_key.with_untracked(|k| d.ready(k)))
    }

    /// The settings the engine's Claude client takes.
    pub fn claude(&self) -> ClaudeSettings {
        self.data
            .with_untracked(|d| self.api_key.with_untracked(|k| self.listed.with_untracked(|l| d.claude_listed(k, l))))
    }
}
