//! Servers: add one by URL (with optional headers), see each one's state, and explore what it
//! offers. The page's own functions are listed as a server of their own.

mod auth;
mod bridge;
mod card;
mod connected;
mod explore;
mod tools;

pub use auth::AuthSection;
pub use bridge::bridge_view;

/// Which of the bridge's views to show (`servers/bridge.rs`, in the explore chunk).
#[derive(Clone)]
pub enum BridgeView {
    /// The consent screen for the bridge the page's address offered.
    Offer,
    /// A command line typed where an address goes (the text, the address's own problem).
    Command { text: String, problem: String },
    /// The ways out for a server the browser may not read.
    Reach { url: String },
}
pub use card::{Tab, tab_view};
pub use connected::{ServerInfo, ServerTabs};
pub use tools::LocalTools;

use leptos::prelude::*;

use super::state::use_services;
use engine::demo::DEMO_SERVER_URL;
use engine::server_address::{self, Credential};

/// Credentials lines (`Name: value`, `?name: value` for a query parameter) as the page keeps
/// them: (line name, value) pairs.
pub(super) fn credential_pairs(text: &str, values_required: bool) -> Result<Vec<(String, String)>, String> {
    server_address::parse_lines(text, values_required)
        .map(|c| c.iter().map(Credential::to_pair).collect())
        .map_err(|e| e.to_string())
}

#[component]
pub fn ServersPanel() -> impl IntoView {
    let svc = use_services();
    let url = RwSignal::new(String::new());
    let label = RwSignal::new(String::new());
    let headers = RwSignal::new(String::new());
    let remember = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    // What was typed when it is not an address but may be a command line (the explore chunk's
    // code tells, and answers with the bridge command): (the text, the address's problem).
    let command = RwSignal::new(None::<(String, String)>);
    // What the last add moved out of the address (a key in the query, a password), said once.
    let moved = RwSignal::new(None::<String>);
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        // The engine reads the address: the URL policy, and secrets moved out of it.
        command.set(None);
        let typed = url.get_untracked();
        let address = match server_address::prepare(&typed) {
            Ok(a) => a,
            Err(e) if typed.trim().contains(' ') => {
                error.set(None);
                command.set(Some((typed, e.to_string())));
                return;
            }
            Err(e) => {
                error.set(Some(e.to_string()));
                return;
            }
        };
        if let Some(conflict) = svc.servers.conflict(&address.url, &label.get_untracked()) {
            error.set(Some(conflict));
            return;
        }
        match credential_pairs(&headers.get_untracked(), false) {
            Err(e) => error.set(Some(e)),
            Ok(mut pairs) => {
                error.set(None);
                pairs.extend(address.moved.iter().map(Credential::to_pair));
                moved.set(address.moved_note());
                svc.add_server(address.url, label.get_untracked(), pairs, remember.get_untracked());
                url.set(String::new());
                label.set(String::new());
                headers.set(String::new());
                remember.set(false);
            }
        }
    };
    let entries = move || svc.servers.list.get();
    let has_demo = move || svc.servers.list.with(|l| l.iter().any(|s| s.url == DEMO_SERVER_URL));

    view! {
        <section id="servers" class="panel" aria-labelledby="servers-title">
            <h2 id="servers-title">"Servers"</h2>
            <crate::chunks::OnDemandWhen when=Signal::derive(move || svc.servers.offer.with(Option::is_some))
                what="bridge's offer" load=|| crate::chunks::bridge(BridgeView::Offer)/>
            <form class="add-server" on:submit=add aria-label="Add an MCP server">
                <div class="field">
                    <label for="server-url">"MCP server URL, or a stdio server's command"</label>
                    // Text, not type="url": a command line must reach the form's own answer.
                    <input id="server-url" type="text" inputmode="url" autocomplete="off" placeholder="http://127.0.0.1:3001/mcp"
                        spellcheck="false"
                        prop:value=move || url.get() on:input=move |ev| url.set(event_target_value(&ev))/>
                </div>
                <details>
                    <summary>"Label and headers"</summary>
                    <div class="field">
                        <label for="server-label">"Label (tool name prefix)"</label>
                        <input id="server-label" placeholder="from the server's name"
                            prop:value=move || label.get() on:input=move |ev| label.set(event_target_value(&ev))/>
                    </div>
                    <div class="field">
                        <label for="server-headers">"Headers, one per line ("<code>"?name: value"</code>" for a query parameter)"</label>
                        <textarea id="server-headers" rows="2" spellcheck="false" placeholder="Authorization: Bearer …"
                            prop:value=move || headers.get() on:input=move |ev| headers.set(event_target_value(&ev))></textarea>
                        <span class="hint">"Kept in memory only unless you tick below; always masked in the timeline."</span>
                        <label class="check">
                            <input type="checkbox" prop:checked=move || remember.get()
                                on:change=move |ev| remember.set(event_target_checked(&ev))/>
                            "Remember these headers on this device"
                        </label>
                        <Show when=move || remember.get()>
                            <p class="warn">"Stored unencrypted in this browser's localStorage: anyone with this profile can read them."</p>
                        </Show>
                    </div>
                </details>
                <button type="submit" class="primary">"Connect"</button>
                {move || error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
                {move || command.get().map(|(text, problem)| view! {
                    <crate::chunks::OnDemand what="bridge command"
                        load=move || crate::chunks::bridge(BridgeView::Command { text: text.clone(), problem: problem.clone() })/>
                })}
                {move || moved.get().map(|m| view! { <p class="hint" role="status">{m}</p> })}
            </form>
            <Show when=move || !has_demo()>
                <p class="demo-server">
                    <button type="button" on:click=move |_| svc.add_demo_server()>
                        "Add the demo server"
                    </button>
                    <span class="hint">" No server at hand? A small MCP server that runs in this page, with a tool for each outcome: a result, a JSON-RPC error, isError and HTTP 504."</span>
                </p>
            </Show>
            <ul class="server-list" aria-label="Connected servers">
                <li><card::LocalCard/></li>
                <For each=entries key=|e| e.id.clone() let:entry>
                    <li><card::ServerCard entry=entry/></li>
                </For>
            </ul>
        </section>
    }
}
