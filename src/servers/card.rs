//! One server: its connection as the engine knows it, its failure, revision and actions; once
//! connected, what it said about itself and tabs to explore it (`connected.rs`, drawn by the agent
//! chunk that connected it). A server whose saved headers were not remembered asks for them
//! before it connects, instead of connecting without them.

use leptos::prelude::*;

use super::auth::relevant;
use super::credential_pairs;
use super::explore::{LogTab, PromptsTab, ResourcesTab};
use super::tools::ToolsTab;
use crate::chunks::OnDemand;
use crate::state::{ServerEntry, use_services};
use crate::widgets::{Disclosure, FailureBox};
use engine::mcp::{Connection, RevisionChoice};
use protocol::mcp::Revision;

/// The card's tabs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Tools,
    Resources,
    Prompts,
    Log,
    Faults,
}

impl Tab {
    /// What the tab shows, in a sentence ("Loading the server's tools…").
    pub(super) fn what(self) -> &'static str {
        match self {
            Tab::Tools => "server's tools",
            Tab::Resources => "server's resources",
            Tab::Prompts => "server's prompts",
            Tab::Log => "server's log",
            Tab::Faults => "fault controls",
        }
    }
}

fn choice_value(c: RevisionChoice) -> &'static str {
    match c {
        RevisionChoice::Auto => "auto",
        RevisionChoice::Pin(r) => r.as_str(),
    }
}

fn choice_from(value: &str) -> RevisionChoice {
    Revision::parse(value).map_or(RevisionChoice::Auto, RevisionChoice::Pin)
}

/// The status dot's class.
fn dot_class(c: &Connection) -> &'static str {
    match c {
        Connection::Connected => "dot connected",
        Connection::Connecting | Connection::Reconnecting => "dot connecting",
        Connection::Unreachable(_) | Connection::SessionLost(_) | Connection::Failed(_) => "dot failed",
        Connection::Disconnected => "dot disconnected",
    }
}

/// The headers a reloaded server was saved with, to enter again (their values were not kept).
#[component]
fn HeadersAgain(entry: ServerEntry) -> impl IntoView {
    let svc = use_services();
    let names = entry.data.with_untracked(|d| d.header_names.clone());
    let text = RwSignal::new(engine::server_address::blank_lines(&names));
    let remember = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let id = entry.id.clone();
    let field = format!("server-{id}-headers-again");
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match credential_pairs(&text.get_untracked(), true) {
            Ok(h) => {
                error.set(None);
                entry.update(|d| d.remember_headers = remember.get_untracked() && !h.is_empty());
                svc.connect(id.clone(), h);
            }
            Err(e) => error.set(Some(e)),
        }
    };
    view! {
        <form class="headers-again" on:submit=submit aria-label="Enter this server's headers again">
            <p class="warn" role="status">{format!(
                "This server was added with {} ({}), whose values were not saved. Enter them again to connect; \
                 connecting without them would fail or act as someone else.",
                if names.len() == 1 { "a header" } else { "headers" },
                names.join(", ")
            )}</p>
            <label for=field.clone()>"Headers, one per line"</label>
            <textarea id=field rows="2" spellcheck="false" prop:value=move || text.get()
                on:input=move |ev| text.set(event_target_value(&ev))></textarea>
            <label class="check">
                <input type="checkbox" prop:checked=move || remember.get() on:change=move |ev| remember.set(event_target_checked(&ev))/>
                "Remember these headers on this device"
            </label>
            <Show when=move || remember.get()>
                <p class="warn">"Stored unencrypted in this browser's localStorage: anyone with this profile can read them."</p>
            </Show>
            {move || error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
            <button type="submit" class="primary">"Connect with these headers"</button>
        </form>
    }
}

#[component]
pub fn ServerCard(entry: ServerEntry) -> impl IntoView {
    let svc = use_services();
    let tab = RwSignal::new(Tab::Tools);
    let open = RwSignal::new(true);
    let sid = StoredValue::new(entry.id.clone());
    let state = entry.state;
    let status_text = move || state.with(Connection::label);
    let data = entry.data;
    let usable = move || state.with(Connection::in_turns) && data.with(|d| d.info.is_some());
    let busy = move || state.with(|s| matches!(s, Connection::Connecting | Connection::Reconnecting));
    let title_id = format!("server-{}-title", entry.id);
    let labelled_by = title_id.clone();
    let name_entry = entry.clone();
    let missing = move || data.with(|d| d.headers_missing);
    let again = entry.clone();
    let held = StoredValue::new(entry.clone());

    view! {
        <article class="server-card" aria-labelledby=labelled_by>
            <header class="server-head">
                <span class=move || state.with(dot_class) aria-hidden="true"></span>
                <h3 id=title_id>{move || engine::text::visible_cut(&name_entry.name(), 80).0}</h3>
                <span class="status" role="status">{status_text}</span>
                <Disclosure open=open what="details"/>
            </header>
            <p class="server-url">{entry.url.clone()}</p>
            {data.with_untracked(|d| d.address_warning.clone()).map(|w| view! { <p class="warn">{w}</p> })}
            <Show when=missing>
                <HeadersAgain entry=again.clone()/>
            </Show>
            {move || state.with(|s| s.failure().cloned().map(|f| {
                let advice = s.advice();
                view! {
                    <FailureBox failure=f/>
                    {advice.map(|a| view! { <p class="hint">{a}</p> })}
                }
            }))}
            {
                let url = entry.url.clone();
                let blocked = move || data.with(|d| d.cors_blocked) && state.with(|s| s.failure().is_some());
                view! {
                    <Show when=blocked>
                        <OnDemand what="ways to reach it" load={
                            let url = url.clone();
                            move || crate::chunks::bridge(super::BridgeView::Reach { url: url.clone() })
                        }/>
                    </Show>
                }
            }
            {
                let (shown, section) = (entry.clone(), StoredValue::new(entry.clone()));
                view! {
                    <Show when=move || relevant(&shown)>
                        <OnDemand what="sign-in" load=move || crate::chunks::sign_in(section.get_value())/>
                    </Show>
                }
            }
            <Show when=move || open.get()>
                // What a connected server said of itself: the agent chunk's code, which connected it.
                <Show when=move || data.with(|d| d.info.is_some())>
                    <OnDemand what="server's details" load=move || crate::chunks::server_info(held.get_value())/>
                </Show>
                <div class="field inline revision">
                    <label for=format!("server-{}-revision", sid.get_value())>"Revision"</label>
                    <select id=format!("server-{}-revision", sid.get_value())
                        title="Pin a protocol revision to compare how the same server is spoken to under each"
                        prop:value=move || data.with(|d| choice_value(d.revision))
                        on:change=move |ev| svc.pin_revision(sid.get_value(), choice_from(&event_target_value(&ev)))>
                        <option value="auto" title="The newest revision both sides speak">"Automatic"</option>
                        {Revision::ALL.map(|r| view! { <option value=r.as_str()>{r.as_str()}</option> }).collect_view()}
                    </select>
                </div>
                <div class="card-actions">
                    // One button that does what the state calls for: disconnect a live connection,
                    // or (re)connect with the headers this page load has.
                    <Show when=move || !(missing() && state.with(|s| *s == Connection::Disconnected))>
                        <button type="button" prop:disabled=busy on:click=move |_| {
                            if state.with_untracked(|s| *s == Connection::Connected) {
                                svc.disconnect(sid.get_value())
                            } else {
                                svc.reconnect(sid.get_value())
                            }
                        }>
                            {move || match state.get() {
                                Connection::Connected => "Disconnect",
                                Connection::Disconnected => "Connect",
                                _ => "Reconnect",
                            }}
                        </button>
                    </Show>
                    <button type="button" class="danger" on:click=move |_| svc.remove_server(sid.get_value())>"Remove"</button>
                </div>
                <Show when=usable>
                    <OnDemand what="server's tabs" load=move || crate::chunks::server_tabs(held.get_value(), tab)/>
                </Show>
            </Show>
        </article>
    }
}

/// A tab of the card, built in the explore chunk (src/chunks/).
pub fn tab_view(entry: ServerEntry, tab: Tab) -> AnyView {
    match tab {
        Tab::Tools => view! { <ToolsTab entry/> }.into_any(),
        Tab::Resources => view! { <ResourcesTab entry/> }.into_any(),
        Tab::Prompts => view! { <PromptsTab entry/> }.into_any(),
        Tab::Log => view! { <LogTab entry/> }.into_any(),
        // The Faults tab is the workshop chunk's (`ServerCard` mounts it from there).
        Tab::Faults => ().into_any(),
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
                <OnDemand what="local functions" load=crate::chunks::local_tools/>
            </Show>
        </article>
    }
}
