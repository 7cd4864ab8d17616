//! Presenter view: larger text for a projector (a room reads the chat, the timeline and the
//! paused payload from the back). A display preference, remembered in localStorage like the
//! theme; `?presenter` in the address turns it on for a workshop link or an embedded page.

use leptos::prelude::*;

const KEY: &str = "loopscope.presenter";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn initial() -> bool {
    let search = location().search().unwrap_or_default();
    let asked = engine::encoding::form_decode(&search).iter().any(|(k, _)| k == "presenter");
    asked || storage().and_then(|s| s.get_item(KEY).ok().flatten()).as_deref() == Some("on")
}

fn apply(on: bool) {
    if let Some(root) = document().document_element() {
        let _ = if on { root.set_attribute("data-presenter", "") } else { root.remove_attribute("data-presenter") };
    }
}

/// The header's switch for presenter view.
#[component]
pub fn PresenterToggle() -> impl IntoView {
    let on = RwSignal::new(initial());
    apply(on.get_untracked());
    let toggle = move |_| {
        let next = !on.get_untracked();
        on.set(next);
        apply(next);
        if let Some(s) = storage() {
            let _ = s.set_item(KEY, if next { "on" } else { "off" });
        }
    };
    view! {
        <button type="button" class="presenter-toggle" on:click=toggle aria-pressed=move || on.get().to_string()
            title="Larger text for a projector">"Presenter view"</button>
    }
}
