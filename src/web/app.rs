//! The page frame: header, settings and servers on the left, chat and timeline in the middle,
//! the detail pane and dialogs on top.

use leptos::prelude::*;

use super::chat::ChatPanel;
use super::dialogs::Dialogs;
use super::servers::ServersPanel;
use super::settings_panel::SettingsPanel;
use super::state::Services;
use super::theme::ThemeToggle;
use super::timeline::{DetailPane, TimelinePanel};

#[component]
pub fn App() -> impl IntoView {
    let svc = Services::provide();
    let demo = move || svc.settings.data.with(|d| d.demo);
    // While a dialog waits for an answer, the page behind it is inert: no focus, no clicks.
    let behind = move || svc.dialogs.queue.with(|q| !q.is_empty()).then_some("");
    view! {
        <a class="skip-link" href="#timeline" inert=behind>"Skip to timeline"</a>
        <header class="topbar" inert=behind>
            <h1 class="brand">"Loopscope"</h1>
            <p class="tagline">"Watch Claude call tools through MCP, one phase at a time."</p>
            <Show when=demo>
                <span class="badge info" title="Answers come from a scripted demo model in this page, not from Claude">"Demo model"</span>
            </Show>
            <ThemeToggle/>
        </header>
        <div class="workspace" inert=behind>
            <aside class="sidebar" aria-label="Settings and servers">
                <SettingsPanel/>
                <ServersPanel/>
            </aside>
            <main class="stage">
                <ChatPanel/>
                <TimelinePanel/>
                <DetailPane/>
            </main>
        </div>
        <Dialogs/>
    }
}
