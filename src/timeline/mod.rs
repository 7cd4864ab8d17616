//! The timeline: a sequence diagram of everything that happened, one lane per participant, one
//! arrow per message, grouped into the four phases. Virtualised: only the rows in view exist
//! in the DOM, so 10,000 events scroll as smoothly as 10.

mod detail;
pub(crate) mod rows;
pub(crate) mod tasks;

pub use detail::DetailPane;
pub use rows::EVENTS_ID;

use leptos::prelude::*;

use crate::state::use_services;
use engine::agent::Breakpoint;
use engine::timeline::{phase_story, phase_title};

#[component]
pub fn TimelinePanel() -> impl IntoView {
    let svc = use_services();
    let trace = svc.trace;
    let count = move || trace.with_timeline(|t| t.rows().len());
    view! {
        <section id="timeline" class="panel timeline" aria-labelledby="timeline-title">
            <div class="panel-head">
                <h2 id="timeline-title">"Timeline"</h2>
                <ol class="phase-legend" aria-label="The four phases (press one to stop the loop there)">
                    {(1..=4u8).map(|p| {
                        let at = Breakpoint::of_phase(p).expect("a breakpoint per phase");
                        let set = move || svc.pausing.is_set(at);
                        view! {
                            <li class=format!("phase-{p}")>
                                <button type="button" class="phase-chip" title=phase_story(p) aria-pressed=move || set().to_string()
                                    aria-label=format!("Stop at phase {p}: {}", at.describe())
                                    on:click=move |_| svc.pausing.toggle(at)>
                                    {move || if set() { "● " } else { "" }}{format!("{p} {}", phase_title(p))}
                                </button>
                            </li>
                        }
                    }).collect_view()}
                </ol>
                <span class="muted counts" aria-live="off">{move || format!("{} events · {} rows", trace.len(), count())}</span>
                <button type="button" class="link" on:click=move |_| trace.clear() prop:disabled=move || trace.is_empty()>
                    "Clear"
                </button>
            </div>
            <Show when=move || !trace.is_empty() fallback=|| view! {
                <div class="empty">
                    <p>"Nothing has happened yet. Connect a server or send a message: every HTTP request, \
                        JSON-RPC message and Claude stream will appear here, phase by phase."</p>
                    <ol class="phase-stories" aria-label="What happens in each phase">
                        {(1..=4u8).map(|p| view! {
                            <li class=format!("phase-{p}")><strong>{format!("{p} {}", phase_title(p))}</strong>" — "{phase_story(p)}</li>
                        }).collect_view()}
                    </ol>
                </div>
            }>
                // The rows, and the projection that builds them, come with the agent chunk (the
                // first events come from its code): the first screen carries neither.
                <crate::chunks::OnDemand what="timeline's rows" load=move || crate::chunks::timeline_rows(trace)/>
            </Show>
            // The pane is a chunk, loaded when a row is first opened.
            <crate::chunks::OnDemandWhen when=Signal::derive(move || svc.trace.selected.with(Option::is_some))
                what="details" load=crate::chunks::detail/>
        </section>
    }
}
