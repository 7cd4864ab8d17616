//! One server: status, what it said about itself, and tabs to explore it.

use leptos::prelude::*;

use super::explore::{LogTab, PromptsTab, ResourcesTab};
use super::tools::{LocalTools, ToolsTab};
use crate::web::state::{Status, use_services};
use crate::web::widgets::{Disclosure, FailureBox};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Tools,
    Resources,
    Prompts,
    Log,
}

#[component]
pub fn ServerCard(id: String) -> impl IntoView {
    let svc = use_services();
    let view_id = id.clone();
    let server = Memo::new(move |_| svc.servers.list.with(|l| l.iter().find(|s| s.id == view_id).cloned()));
    let tab = RwSignal::new(Tab::Tools);
    let open = RwSignal::new(true);
    let sid = StoredValue::new(id.clone());
    let status_text = move || match server.get().map(|s| s.status) {
        Some(Status::Connecting) => "connecting…",
        Some(Status::Connected) => "connected",
        Some(Status::Failed(_)) => "failed",
        _ => "disconnected",
    };
    let connected = move || server.with(|s| s.as_ref().is_some_and(|s| s.status == Status::Connected));
    let (title_id, labelled_by) = (format!("server-{id}-title"), format!("server-{id}-title"));

    view! {
        <article class="server-card" aria-labelledby=labelled_by>
            <header class="server-head">
                <span class=move || format!("dot {}", status_text().trim_end_matches('…'))
                    aria-hidden="true"></span>
                <h3 id=title_id>{move || server.with(|s| s.as_ref().map(|s| if s.label.is_empty() { s.url.clone() } else { s.label.clone() }))}</h3>
                <span class="status">{status_text}</span>
                <Disclosure open=open what="details"/>
            </header>
            <p class="server-url">{move || server.with(|s| s.as_ref().map(|s| s.url.clone()))}</p>
            {move || server.get().and_then(|s| match s.status {
                Status::Failed(f) => Some(view! { <FailureBox failure=f/> }),
                _ => None,
            })}
            <Show when=move || open.get()>
                {move || server.get().and_then(|s| s.info).map(|info| {
                    let caps = info.capabilities.names().join(", ");
                    view! {
                        <dl class="server-info">
                            <dt>"Server"</dt><dd>{format!("{} {}", info.server_info.name, info.server_info.version)}</dd>
                            <dt>"Protocol"</dt><dd>{info.protocol_version.clone()}</dd>
                            <dt>"Capabilities"</dt><dd>{if caps.is_empty() { "none".to_owned() } else { caps }}</dd>
                            <dt>"Server stream"</dt><dd>{move || server.with(|s| s.as_ref().and_then(|s| s.stream.clone()).unwrap_or_else(|| "—".into()))}</dd>
                        </dl>
                        {info.instructions.clone().map(|text| view! {
                            <details class="instructions"><summary>"Instructions"</summary><p class="prose">{text}</p></details>
                        })}
                    }
                })}
                <div class="card-actions">
                    <Show when=connected fallback=move || view! {
                        <button type="button" on:click=move |_| svc.connect(sid.get_value(), Vec::new())>"Connect"</button>
                    }>
                        <button type="button" on:click=move |_| svc.disconnect(sid.get_value())>"Disconnect"</button>
                    </Show>
                    <button type="button" class="danger" on:click=move |_| svc.remove_server(sid.get_value())>"Remove"</button>
                </div>
                <Show when=connected>
                    <div class="tabs" role="tablist" aria-label="Explore this server">
                        {[(Tab::Tools, "Tools"), (Tab::Resources, "Resources"), (Tab::Prompts, "Prompts"), (Tab::Log, "Log")]
                            .into_iter()
                            .map(|(t, name)| view! {
                                <button type="button" role="tab" aria-selected=move || (tab.get() == t).to_string()
                                    class:active=move || tab.get() == t on:click=move |_| tab.set(t)>{name}</button>
                            })
                            .collect_view()}
                    </div>
                    <div class="tab-panel" role="tabpanel">
                        {move || match tab.get() {
                            Tab::Tools => view! { <ToolsTab id=sid.get_value()/> }.into_any(),
                            Tab::Resources => view! { <ResourcesTab id=sid.get_value()/> }.into_any(),
                            Tab::Prompts => view! { <PromptsTab id=sid.get_value()/> }.into_any(),
                            Tab::Log => view! { <LogTab id=sid.get_value()/> }.into_any(),
                        }}
                    </div>
                </Show>
            </Show>
        </article>
    }
}

/// The page's own functions, shown like a server: the "local function" route of phase 3.
#[component]
pub fn LocalCard() -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <article class="server-card local" aria-labelledby="local-title">
            <header class="server-head">
                <span class="dot connected" aria-hidden="true"></span>
                <h3 id="local-title">"Local functions"</h3>
                <span class="status">"in this page"</span>
                <Disclosure open=open what="local functions"/>
            </header>
            <Show when=move || open.get()>
                <LocalTools/>
            </Show>
        </article>
    }
}
