//! Servers: add one by URL (with optional headers), see each one's state, and explore what it
//! offers. The page's own functions are listed as a server of their own.

mod auth;
mod card;
mod explore;
mod tools;

use leptos::prelude::*;

use super::state::use_services;
use crate::engine::demo::DEMO_SERVER_URL;

/// "Name: value" lines → header pairs; a line without a colon is reported.
pub(super) fn parse_headers(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(format!("Header line {} has no \"Name: value\" colon", i + 1));
        };
        let name = name.trim();
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
            return Err(format!("\"{name}\" is not a valid header name"));
        }
        out.push((name.to_owned(), value.trim().to_owned()));
    }
    Ok(out)
}

#[component]
pub fn ServersPanel() -> impl IntoView {
    let svc = use_services();
    let url = RwSignal::new(String::new());
    let label = RwSignal::new(String::new());
    let headers = RwSignal::new(String::new());
    let remember = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let add = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let u = url.get_untracked().trim().to_owned();
        if !(u.starts_with("http://") || u.starts_with("https://")) {
            error.set(Some(
                "Enter the server's Streamable HTTP endpoint, starting with http:// or https:// (often …/mcp).".into(),
            ));
            return;
        }
        if let Some(conflict) = svc.servers.conflict(&u, &label.get_untracked()) {
            error.set(Some(conflict));
            return;
        }
        match parse_headers(&headers.get_untracked()) {
            Err(e) => error.set(Some(e)),
            Ok(h) => {
                error.set(None);
                svc.add_server(u, label.get_untracked(), h, remember.get_untracked());
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
            <form class="add-server" on:submit=add aria-label="Add an MCP server">
                <div class="field">
                    <label for="server-url">"MCP server URL"</label>
                    <input id="server-url" type="url" placeholder="http://127.0.0.1:3001/mcp" spellcheck="false"
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
                        <label for="server-headers">"Headers, one per line"</label>
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

#[cfg(test)]
mod tests {
    use super::parse_headers;

    #[test]
    fn headers_parse_or_say_why() {
        assert_eq!(parse_headers("Authorization: Bearer a:b\n\nX-Team: 7").unwrap().len(), 2);
        assert!(parse_headers("no colon").unwrap_err().contains("line 1"));
        assert!(parse_headers("Bad Name: x").is_err());
    }
}
