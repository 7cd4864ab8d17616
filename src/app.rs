//! The page frame: header, settings and servers on the left, chat and timeline in the middle,
//! the detail pane and dialogs on top.

use leptos::prelude::*;

use super::chat::ChatPanel;
use super::dialogs::Dialogs;
use super::presenter::PresenterToggle;
use super::servers::ServersPanel;
use super::settings_panel::SettingsPanel;
use super::state::Services;
use super::theme::ThemeToggle;
use super::timeline::{EVENTS_ID, TimelinePanel};
use super::workshop::{LessonBanner, PausedBanner, ViewingBanner, WorkshopPanel};
use wasm_bindgen::JsCast;

/// A link that moves focus to `target` (the timeline's section when it has no rows yet).
#[component]
fn SkipLink(target: &'static str, text: &'static str) -> impl IntoView {
    let jump = move |ev: leptos::ev::MouseEvent| {
        ev.prevent_default();
        let doc = document();
        let el = doc.get_element_by_id(target).or_else(|| doc.get_element_by_id("timeline"));
        if let Some(el) = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
            if el.tab_index() < 0 {
                el.set_tab_index(-1);
            }
            let _ = el.focus();
        }
    };
    view! { <a class="skip-link" href=format!("#{target}") on:click=jump>{text}</a> }
}

#[component]
pub fn App() -> impl IntoView {
    let svc = Services::provide();
    let demo = move || svc.settings.data.with(|d| d.demo);
    // While a dialog waits for an answer, the page behind it is inert: no focus, no clicks.
    let behind = move || svc.dialogs.queue.with(|q| !q.is_empty()).then_some("");
    view! {
        // Each main area one key away from the top of the page (then Enter).
        <nav class="skip-links" aria-label="Skip to" inert=behind>
            <SkipLink target="composer" text="Skip to the message box"/>
            <SkipLink target=EVENTS_ID text="Skip to the timeline"/>
            <SkipLink target="server-url" text="Skip to adding a server"/>
        </nav>
        <header class="topbar" inert=behind>
            <h1 class="brand">"Loopscope"</h1>
            <p class="tagline">"Watch Claude call tools through MCP, one phase at a time."</p>
            <Show when=demo>
                <span class="badge info" title="Answers come from a scripted demo model in this page, not from Claude">"Demo model"</span>
            </Show>
            <PresenterToggle/>
            <ThemeToggle/>
        </header>
        <div class="workspace" inert=behind>
            <aside class="sidebar" aria-label="Settings and servers">
                <LessonBanner/>
                <SettingsPanel/>
                <ServersPanel/>
                <WorkshopPanel/>
            </aside>
            <main class="stage">
                <PausedBanner/>
                <ViewingBanner/>
                <crate::chunks::OnDemandWhen when=Signal::derive(move || svc.conversation.comparison.with(Option::is_some))
                    what="comparison" load=crate::chunks::comparison/>
                <ChatPanel/>
                <TimelinePanel/>
            </main>
        </div>
        <Dialogs/>
    }
}
