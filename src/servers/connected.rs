//! What a connected server's card shows: what the server said of itself, and the tabs to explore
//! it. A server is connected only by the agent chunk's code, so these are drawn by it too
//! (`chunks::server_info`, `chunks::server_tabs`); the card's frame — its name, state, failure,
//! revision and actions — is the first screen's (`card.rs`).

use leptos::prelude::*;

use super::card::Tab;
use crate::chunks::OnDemand;
use crate::state::ServerEntry;
use crate::widgets::FailureBox;
use protocol::mcp::Revision;

/// The server's name and version, protocol revision and why, capabilities, server stream, and
/// its instructions.
#[component]
pub fn ServerInfo(entry: ServerEntry) -> impl IntoView {
    let data = entry.data;
    move || {
        data.with(|d| d.info.clone().map(|i| (i, d.why.clone()))).map(|(info, why)| {
            let modern = Revision::parse(&info.protocol_version).is_some_and(Revision::is_modern);
            let caps = engine::mcp::declared::capabilities_line(&info.capabilities);
            let shape = if modern { "no handshake, no session: each request says its version" } else { "initialize handshake and a session" };
            view! {
                <dl class="server-info">
                    <dt>"Server"</dt><dd>{format!("{} {}", info.server_info.name, info.server_info.version)}</dd>
                    <dt>"Protocol"</dt><dd><strong>{info.protocol_version.clone()}</strong>{format!(" · {shape}")}</dd>
                    <dt>"Why"</dt><dd class="why">{why}</dd>
                    <dt>"Capabilities"</dt><dd>{caps}</dd>
                    <dt>"Server stream"</dt><dd>{move || data.with(|d| d.stream.clone()).unwrap_or_else(|| "—".into())}</dd>
                </dl>
                {info.instructions.clone().map(|text| view! {
                    <details class="instructions"><summary>"Instructions"</summary><p class="prose">{text}</p></details>
                })}
            }
        })
    }
}

/// The lists that failed, and the tabs: tools, resources, prompts, log (the explore chunk's)
/// and faults (the workshop chunk's). `tab` is the card's, so a reconnect keeps the tab open.
#[component]
pub fn ServerTabs(entry: ServerEntry, tab: RwSignal<Tab>) -> impl IntoView {
    let data = entry.data;
    let tab_entry = StoredValue::new(entry);
    view! {
        {move || data.with(|d| d.list_failures.clone()).into_iter().map(|(what, failure)| view! {
            <p class="list-failed">{format!("{what} failed:")}</p>
            <FailureBox failure/>
        }).collect_view()}
        {move || data.with(|d| d.tools.as_ref().and_then(|t| engine::agent::destructive_note(&t.tools))).map(|note| view! {
            <div class="destructive" role="note">
                <p>{note}</p>
                <label class="check">
                    <input type="checkbox" prop:checked=move || data.with(|d| d.destructive_allowed)
                        on:change=move |ev| data.update(|d| d.destructive_allowed = event_target_checked(&ev))/>
                    "Let them run without asking (until you untick this or reload the page)"
                </label>
            </div>
        })}
        <div class="tabs" role="tablist" aria-label="Explore this server">
            {[(Tab::Tools, "Tools"), (Tab::Resources, "Resources"), (Tab::Prompts, "Prompts"), (Tab::Log, "Log"), (Tab::Faults, "Faults")]
                .into_iter()
                .map(|(t, name)| view! {
                    <button type="button" role="tab" aria-selected=move || (tab.get() == t).to_string()
                        class:active=move || tab.get() == t on:click=move |_| tab.set(t)>{name}</button>
                })
                .collect_view()}
        </div>
        <div class="tab-panel" role="tabpanel">
            {move || {
                let entry = tab_entry.get_value();
                match tab.get() {
                    Tab::Faults => view! {
                        <OnDemand what=Tab::Faults.what() load=move || crate::chunks::server_faults(entry.clone())/>
                    }
                    .into_any(),
                    t => view! { <OnDemand what=t.what() load=move || crate::chunks::server_tab(entry.clone(), t)/> }.into_any(),
                }
            }}
        </div>
    }
}
