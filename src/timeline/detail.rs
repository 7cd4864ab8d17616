//! The detail pane of one timeline row: every layer the step crossed, "what Claude sees" next
//! to "what the client did", and the raw exchange (headers masked, JSON indented, SSE events).

use leptos::prelude::*;

use crate::state::use_services;
use crate::widgets::Code;
use engine::timeline::{RawStep, ToolStory, TwoSides, request_sides, story_sides, tool_story};
use engine::trace::TraceEvent;

/// One trace event, raw.
fn raw(e: &TraceEvent, limit: usize) -> impl IntoView + use<> {
    let RawStep { title, body, replay } = engine::timeline::raw(e, limit);
    view! {
        <div class="raw-event">
            <h5>{title}</h5>
            {(!body.is_empty()).then(|| view! { <Code text=body label="Raw"/> })}
            {replay.map(|cmd| view! {
                <details class="replay">
                    <summary>"Replay it with curl"</summary>
                    <Code text=cmd label="The request as a curl command"/>
                </details>
            })}
        </div>
    }
}

/// "What Claude sees" next to "What the client did".
fn two_sides(TwoSides { sees, did }: TwoSides) -> impl IntoView {
    view! {
        <div class="side-by-side">
            <div><h4>"What Claude sees"</h4><Code text=sees label="What Claude sees"/></div>
            <div><h4>"What the client did"</h4><Code text=did label="What the client did"/></div>
        </div>
    }
}

/// "Layers crossed" and the two sides of one tool call.
fn story_view(s: ToolStory) -> impl IntoView {
    let sides = story_sides(&s);
    view! {
        <h4>"Layers crossed"</h4>
        <ol class="layers">
            {s.steps.into_iter().map(|st| view! {
                <li class=if st.ok { "ok" } else { "failed" }>
                    <span class="mark" aria-hidden="true">{if st.ok { "✓" } else { "✕" }}</span>
                    <strong>{st.layer.label()}</strong>": "{st.text}
                    <span class="visually-hidden">{if st.ok { " (passed)" } else { " (failed)" }}</span>
                </li>
            }).collect_view()}
        </ol>
        {two_sides(sides)}
    }
}

#[component]
pub fn DetailPane() -> impl IntoView {
    let svc = use_services();
    let trace = svc.trace;
    // Closing (Escape or ✕) gives focus back to the timeline, on the row that opened the pane.
    let close = move || {
        trace.selected.set(None);
        if let Some(list) = document().get_element_by_id(super::EVENTS_ID) {
            use wasm_bindgen::JsCast;
            if let Ok(list) = list.dyn_into::<web_sys::HtmlElement>() {
                let _ = list.focus();
            }
        }
    };
    let close_ref = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if trace.selected.get().is_some() {
            request_animation_frame(move || {
                if let Some(b) = close_ref.try_get_untracked().flatten() {
                    let _ = b.focus();
                }
            });
        }
    });
    // The trace grows every frame while a turn runs; the pane redraws only when what it shows
    // changed: the row (its events, badges, duration), or the story of its tool call. A story
    // only grows, so its size says whether it changed (cheaper than comparing it whole).
    let row = Memo::new(move |_| trace.selected.get().and_then(|i| trace.row(i)));
    let story = Memo::new_with_compare(
        move |_| {
            let id = row.with(|r| r.as_ref().and_then(|r| r.tool_use_id.clone()))?;
            trace.with_events(|events| tool_story(&id, events))
        },
        |old, new| {
            let size = |s: Option<&Option<ToolStory>>| {
                s.and_then(Option::as_ref)
                    .map(|s| (s.tool_use_id.clone(), s.steps.len(), s.rpc.len(), s.received.is_some()))
            };
            size(old) != size(new)
        },
    );
    move || {
        let row = row.get()?;
        let route = row.route_words(&svc.lane_names());
        let limit = trace.limit.get_value();
        let (request, own) = trace.with_events_untracked(|events| {
            let own: Vec<TraceEvent> = row
                .events
                .iter()
                .filter_map(|s| events.binary_search_by_key(s, |e| e.seq).ok().map(|i| events[i].clone()))
                .collect();
            (request_sides(&row, events).map(two_sides), own)
        });
        Some(view! {
            <aside class="detail" role="dialog" aria-modal="false" aria-labelledby="detail-title"
                on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Escape" { close() }>
                <header class="detail-head">
                    <h3 id="detail-title">{row.label.clone()}</h3>
                    <button type="button" node_ref=close_ref on:click=move |_| close() aria-label="Close details">"✕"</button>
                </header>
                <p class="muted">{route}</p>
                {(!row.detail.is_empty()).then(|| view! { <p class="prose">{row.detail.clone()}</p> })}
                <div class="badges">{row.badges.iter().map(|b| view! { <span class="badge">{b.text.clone()}</span> }).collect_view()}</div>
                {move || story.get().map(story_view)}
                {request}
                <h4>"Raw"</h4>
                {own.iter().map(|e| raw(e, limit)).collect_view()}
            </aside>
        })
    }
}
