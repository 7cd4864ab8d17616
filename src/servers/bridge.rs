//! What the page says of the bridge (`loopscope bridge`, docs/bridge.md), all in the explore
//! chunk: the consent screen for a bridge a link offers ([`BridgeOffer`]), the bridge command for
//! a stdio server typed where an address goes ([`CommandHint`]), and the ways out for a server the
//! browser may not read ([`ReachHint`]). The engine decides (`engine::bridge`); these only show.

use leptos::prelude::*;

use super::BridgeView;
use crate::state::use_services;
use engine::bridge::{BridgeInfo, BridgeLink, CommandLine, ask, bridge_command, reach_advice};

/// The view the split point asked for.
pub fn bridge_view(shown: BridgeView) -> AnyView {
    match shown {
        BridgeView::Offer => BridgeOffer().into_any(),
        BridgeView::Command { text, problem } => view! { <CommandHint text problem/> }.into_any(),
        BridgeView::Reach { url } => view! { <ReachHint url/> }.into_any(),
    }
}

/// This page's address without its fragment (what the bridge's `--page` should name).
fn this_page() -> String {
    let href = location().href().unwrap_or_default();
    href.split('#').next().unwrap_or_default().to_owned()
}

/// A command to copy: the text, and a button that puts it on the clipboard.
#[component]
fn CopyLine(text: String, label: &'static str) -> impl IntoView {
    let copied = RwSignal::new(false);
    let copy_text = text.clone();
    let copy = move |_| {
        let clipboard = window().navigator().clipboard();
        let _ = clipboard.write_text(&copy_text);
        copied.set(true);
    };
    view! {
        <div class="copy-line">
            <pre aria-label=label><code>{text}</code></pre>
            <button type="button" on:click=copy>{move || if copied.get() { "Copied" } else { "Copy" }}</button>
        </div>
    }
}

/// The consent screen for a bridge the page's address offered.
#[component]
fn BridgeOffer() -> impl IntoView {
    let svc = use_services();
    let Some(hash) = svc.servers.offer.get_untracked() else { return ().into_any() };
    let dismiss = move |_| svc.servers.offer.set(None);
    let link = match BridgeLink::from_fragment(&hash) {
        Some(Ok(link)) => link,
        Some(Err(e)) => {
            return view! {
                <section class="bridge-offer" role="alert" aria-label="A bridge link">
                    <p class="form-error">{format!("This page was opened with a bridge link that cannot be used: {e}.")}</p>
                    <button type="button" on:click=dismiss>"Dismiss"</button>
                </section>
            }
            .into_any();
        }
        None => return ().into_any(),
    };
    let platform = svc.runtime(|r| r.platform.clone());
    let asked = link.clone();
    let info = LocalResource::new(move || {
        let (platform, link) = (platform.clone(), asked.clone());
        async move { ask::info(&*platform, &link).await }
    });
    let url = link.url.clone();
    let port = url.rsplit(':').next().unwrap_or_default().trim_end_matches("/mcp").to_owned();
    let held = StoredValue::new(link);
    let what = move || {
        info.get().map(|answer| match answer {
            Ok(BridgeInfo { mode, serves, .. }) if mode == "stdio" => view! {
                <p>"It runs this command on your machine, as you, once for each connection:"</p>
                <pre class="bridge-command"><code>{engine::text::visible(&serves)}</code></pre>
            }
            .into_any(),
            Ok(BridgeInfo { serves, .. }) => view! {
                <p>"It relays, unchanged, to the server at "<code>{engine::text::visible(&serves)}</code>" on your machine."</p>
            }
            .into_any(),
            Err(e) => view! { <p class="form-error" role="alert">{format!("The bridge cannot be used: {e}.")}</p> }.into_any(),
        })
    };
    let ready = move || info.get().is_some_and(|a| a.is_ok());
    view! {
        <section class="bridge-offer" aria-labelledby="bridge-offer-title">
            <h3 id="bridge-offer-title">"Connect through the bridge on this machine?"</h3>
            <p>"A link opened this page with "<code>"loopscope bridge"</code>" at "<code>{url}</code>" (port "{port}")."</p>
            {move || if info.get().is_none() { Some(view! { <p class="hint">"Asking the bridge what it serves…"</p> }) } else { None }}
            {what}
            <p class="hint">"What runs is what the bridge itself reports, not what the link says. Its token is kept \
                in memory only, like a header: masked, never saved or exported."</p>
            <div class="card-actions">
                <button type="button" class="primary" prop:disabled=move || !ready()
                    on:click=move |_| svc.connect_bridge(held.get_value(), String::new())>"Connect"</button>
                <button type="button" on:click=dismiss>"Not now"</button>
            </div>
        </section>
    }
    .into_any()
}

/// What to do with a command line typed where a server's address goes, or the address's own
/// problem when it is not one.
#[component]
fn CommandHint(text: String, problem: String) -> impl IntoView {
    let Some(command) = CommandLine::read(&text) else {
        return view! { <p class="form-error" role="alert">{problem}</p> }.into_any();
    };
    let page = this_page();
    let run = bridge_command(&command, &page);
    let checkout = run.replacen("loopscope bridge", "./scripts/bridge", 1);
    view! {
        <div class="bridge-hint" role="status">
            <p>"That is a command: a stdio server, which a page cannot start. Run it through the bridge on your \
                machine, then open the link it prints:"</p>
            <CopyLine text=run label="The bridge command"/>
            <p class="hint">"From a Loopscope checkout, "<code>{checkout}</code>" builds the bridge once and runs it \
                (or "<code>"cargo install --path crates/cli"</code>" puts "<code>"loopscope"</code>" on your PATH)."</p>
        </div>
    }
    .into_any()
}

/// The ways out for a server whose answers the browser would not let the page read.
#[component]
fn ReachHint(url: String) -> impl IntoView {
    let origin = location().origin().unwrap_or_default();
    let advice = reach_advice(&url, &this_page(), &origin);
    view! {
        <div class="reach-hint">
            {match advice.relay {
                Some(relay) => view! {
                    <p>"Reach it as it is, through the bridge on your machine (it adds the headers the browser needs):"</p>
                    <CopyLine text=relay label="The bridge command"/>
                }
                .into_any(),
                None => view! {
                    <p>"The bridge relays only to servers on this machine: this server must send CORS headers itself."</p>
                }
                .into_any(),
            }}
            <p>"Or make the server send them (this page's origin filled in):"</p>
            {advice.fixes.into_iter().map(|fix| view! {
                <h4>{fix.sdk}</h4>
                <pre><code>{fix.code}</code></pre>
            }).collect_view()}
        </div>
    }
}
