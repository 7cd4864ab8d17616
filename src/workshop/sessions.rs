//! Recorded sessions on the page: export and import (the Workshop panel), the banner of a
//! session being viewed, and a replay's comparison with its recording.

use leptos::prelude::*;

use crate::state::use_services;
use engine::session::TurnDiff;

#[component]
pub fn SessionChoices() -> impl IntoView {
    let svc = use_services();
    let open = move |ev: leptos::ev::Event| {
        let max = svc.settings.data.with_untracked(|d| d.limits.file_bytes);
        super::with_file_text(ev, max, move |text| match text {
            Ok(text) => svc.import_session(&text),
            Err(why) => svc.sessions.problem.set(Some(format!("That file cannot be opened: {why}."))),
        })
    };
    view! {
        <div class="sessions">
            <button type="button" on:click=move |_| svc.export_session()>"Export this session"</button>
            <label class="file-choice">"Open a recorded session… "
                <input type="file" accept=".json,application/json" on:change=open/>
            </label>
            <p class="muted">"A session file holds the settings, the servers, the conversation and the whole trace: \
                never the key, a header value or a token (docs/session.md)."</p>
            {move || svc.sessions.problem.get().map(|p| view! { <p class="form-error" role="alert">{p}</p> })}
        </div>
    }
}

/// What a replay may reach without asking (the recording is a stranger's: docs/security.md).
fn replay_words(agreed: Vec<String>) -> String {
    let reach = if agreed.is_empty() {
        "none of your servers is one it names, so every call to a server asks you first".to_owned()
    } else {
        format!("calls to the servers it names ({}) run; a call to any other server asks you first", agreed.join(", "))
    };
    format!("A replay sends its recorded messages to your model: {reach}.")
}

/// Where a recorded session being viewed, its replay and the comparison show; their banners
/// are a chunk, loaded when a session is first opened.
#[component]
pub fn ViewingBanner() -> impl IntoView {
    let s = use_services().sessions;
    let any = move || s.viewing.with(Option::is_some) || s.replaying.get() || s.comparison.with(Option::is_some);
    view! { <crate::chunks::OnDemandWhen when=Signal::derive(any) what="recorded session" load=crate::chunks::viewing/> }
}

/// The banner of a recorded session being viewed.
#[component]
pub fn ViewingBody() -> impl IntoView {
    let svc = use_services();
    view! {
        {move || svc.sessions.viewing.get().map(|v| view! {
            <section class="viewing" role="region" aria-labelledby="viewing-title">
                <h2 id="viewing-title">"A recorded session"</h2>
                <p>{format!(
                    "Exported {}, {} {}. Read-only: shown as recorded, with no key and no network. Click any arrow for its details.",
                    svc.recorded_when(v.exported_at_ms), v.turns, if v.turns == 1 { "turn" } else { "turns" }
                )}</p>
                <p class="hint">{replay_words(svc.replay_agreed_names())}</p>
                {svc.sessions.has_own().then(|| view! {
                    <p class="hint">"Your own conversation is set aside: closing this brings it back; a replay starts a new one in its place."</p>
                })}
                <div class="card-actions">
                    <button type="button" class="primary" on:click=move |_| svc.replay_session()>
                        "Replay it against your servers and model"
                    </button>
                    <button type="button" on:click=move |_| svc.close_session()>"Close it"</button>
                </div>
            </section>
        })}
        <Show when=move || svc.sessions.replaying.get()>
            <section class="viewing" role="status"><p>"Replaying the recorded session, turn by turn…"</p></section>
        </Show>
        {move || svc.sessions.comparison.get().map(|diffs| view! { <Comparison diffs/> })}
    }
}

fn side(v: &Option<String>) -> String {
    v.clone().unwrap_or_else(|| "—".into())
}

#[component]
fn Comparison(diffs: Vec<TurnDiff>) -> impl IntoView {
    let svc = use_services();
    let changed = diffs.iter().filter(|d| !d.unchanged()).count();
    view! {
        <section class="viewing comparison" role="region" aria-labelledby="comparison-title">
            <h2 id="comparison-title">"The replay next to the recording"</h2>
            <p>{format!("{} {}, {changed} changed.", diffs.len(), if diffs.len() == 1 { "turn" } else { "turns" })}</p>
            <ol class="turn-diffs">
                {diffs.into_iter().map(|d| {
                    let verdict = if d.unchanged() { "unchanged" } else { "changed" };
                    view! {
                        <li class=verdict>
                            <p><strong>{d.user.clone()}</strong>" — "{verdict}</p>
                            {(!d.tools_added.is_empty() || !d.tools_removed.is_empty()).then(|| view! {
                                <p>{format!("tools array: added {}; removed {}",
                                    if d.tools_added.is_empty() { "none".into() } else { d.tools_added.join(", ") },
                                    if d.tools_removed.is_empty() { "none".into() } else { d.tools_removed.join(", ") })}</p>
                            })}
                            <table class="diff">
                                <thead><tr><th></th><th>"Recorded"</th><th>"Replayed"</th></tr></thead>
                                <tbody>
                                    {d.calls.iter().map(|(a, b)| view! {
                                        <tr class:differs=a != b><th>"call"</th><td>{side(a)}</td><td>{side(b)}</td></tr>
                                    }).collect_view()}
                                    {d.results.iter().map(|(a, b)| view! {
                                        <tr class:differs=a != b><th>"result"</th><td>{side(a)}</td><td>{side(b)}</td></tr>
                                    }).collect_view()}
                                </tbody>
                            </table>
                        </li>
                    }
                }).collect_view()}
            </ol>
            <button type="button" on:click=move |_| svc.sessions.comparison.set(None)>"Close the comparison"</button>
        </section>
    }
}
