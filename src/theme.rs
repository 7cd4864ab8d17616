//! Light and dark theme: follows the system until the user picks one, then remembers the pick
//! (a display preference, not a secret, so it is kept in localStorage).

use leptos::prelude::*;

const KEY: &str = "loopscope.theme";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    fn other(self) -> Self {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
        }
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn initial() -> Theme {
    let saved = storage().and_then(|s| s.get_item(KEY).ok().flatten());
    match saved.as_deref() {
        Some("dark") => Theme::Dark,
        Some("light") => Theme::Light,
        _ => {
            let dark = web_sys::window()
                .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
                .is_some_and(|m| m.matches());
            if dark { Theme::Dark } else { Theme::Light }
        }
    }
}

/// The event a theme change is announced with (an MCP App shown is told: `app_frame.rs`).
pub const CHANGED: &str = "loopscope-theme";

fn apply(theme: Theme) {
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-theme", theme.as_str());
    }
    if let (Some(w), Ok(changed)) = (web_sys::window(), web_sys::Event::new(CHANGED)) {
        let _ = w.dispatch_event(&changed);
    }
}

/// The header's theme switch.
#[component]
pub fn ThemeToggle() -> impl IntoView {
    let theme = RwSignal::new(initial());
    apply(theme.get_untracked());
    let toggle = move |_| {
        let next = theme.get_untracked().other();
        theme.set(next);
        apply(next);
        if let Some(s) = storage() {
            let _ = s.set_item(KEY, next.as_str());
        }
    };
    view! {
        <button
            type="button"
            class="theme-toggle"
            on:click=toggle
            aria-label=move || format!("Switch to {} theme", theme.get().other().as_str())
        >
            {move || if theme.get() == Theme::Dark { "☀ Light" } else { "☾ Dark" }}
        </button>
    }
}
