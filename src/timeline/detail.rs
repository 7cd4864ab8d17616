//! The detail pane of one timeline row: every layer the step crossed, "what Claude sees" next
//! to "what the client did", and the raw exchange (headers masked, JSON indented, SSE events).

use leptos::prelude::*;
use serde_json::Value;

use super::lane_name;
use crate::state::use_services;
use crate::widgets::{Code, pretty, pretty_text};
use engine::limits::bytes as bytes_words;
use engine::num::fixed;
use engine::timeline::{Row, RowKind, ToolStory, tool_story};
use engine::trace::{Direction, RequestBody, TraceEvent, TraceKind};

fn headers_text(h: &engine::platform::Headers) -> String {
    h.iter().map(|(n, v)| format!("{n}: {v}")).collect::<Vec<_>>().join("\n")
}

/// One trace event, raw.
fn raw(e: &TraceEvent) -> impl IntoView + use<> {
    // A request can be replayed from a terminal, as the server saw it: not one whose body the
    // page no longer keeps.
    let replay = match &e.kind {
        TraceKind::HttpRequest { method, url, headers, body, .. } => match body {
            Some(RequestBody::Dropped { .. }) => None,
            body => Some(engine::curl::command(*method, url, headers, body.as_ref().and_then(RequestBody::text))),
        },
        _ => None,
    };
    let (title, body) = match &e.kind {
        TraceKind::HttpRequest { method, url, headers, body, .. } => {
            let body = match body {
                None => String::new(),
                Some(RequestBody::Text(t)) => pretty_text(t),
                Some(RequestBody::Dropped { bytes }) => format!(
                    "(body of {} not kept: the timeline keeps at most {} of details, the newest (Settings → Limits), so this one cannot be replayed)",
                    bytes_words(*bytes as u64),
                    bytes_words(svc_limit() as u64)
                ),
            };
            (format!("HTTP request: {method} {url}"), format!("{}\n\n{body}", headers_text(headers)))
        }
        TraceKind::HttpResponse { status, headers, elapsed_ms, .. } => {
            (format!("HTTP response: {status} after {} ms", fixed(*elapsed_ms, 0)), headers_text(headers))
        }
        TraceKind::HttpBody { body, .. } => ("Response body".into(), pretty_text(body)),
        TraceKind::SseEvent { id, event, data, .. } => (
            format!(
                "SSE event{}{}",
                event.as_ref().map(|e| format!(" \"{e}\"")).unwrap_or_default(),
                id.as_ref().map(|i| format!(" id {i}")).unwrap_or_default()
            ),
            pretty_text(data),
        ),
        TraceKind::HttpStreamEnd { elapsed_ms, .. } => {
            (format!("Stream closed after {} ms", fixed(*elapsed_ms, 0)), String::new())
        }
        TraceKind::DetailDropped { bytes, .. } => (
            "Detail dropped".into(),
            format!(
                "{} were here. The timeline keeps at most {} of bodies and payloads, the newest (Settings → Limits): \
                 this one was older.",
                bytes_words(*bytes),
                bytes_words(svc_limit() as u64)
            ),
        ),
        TraceKind::Rpc { direction, dropped: Some(bytes), message, .. } => (
            format!("JSON-RPC {}", if *direction == Direction::Out { "sent" } else { "received" }),
            format!(
                "{}\n\n(its payload of {} was dropped: the timeline keeps at most {} of details, the newest)",
                pretty(&message.to_value()),
                bytes_words(*bytes),
                bytes_words(svc_limit() as u64)
            ),
        ),
        TraceKind::Redirected { to, .. } => (
            "Redirect followed".into(),
            format!(
                "The answer came from {to}, not from the address asked (a request carrying no secret may follow one)."
            ),
        ),
        TraceKind::LimitReached { limit, .. } => {
            ("Answer refused at a limit".into(), format!("{limit}. {}", limit.hint()))
        }
        TraceKind::HttpFailed { error, elapsed_ms, .. } => {
            (format!("No HTTP answer after {} ms (network or CORS)", fixed(*elapsed_ms, 0)), error.clone())
        }
        TraceKind::Rpc { direction, message, .. } => (
            format!("JSON-RPC {}", if *direction == Direction::Out { "sent" } else { "received" }),
            pretty(&message.to_value()),
        ),
        TraceKind::RpcOutcome { id, method, elapsed_ms, failure } => (
            format!("{method} #{id} ended after {} ms", fixed(*elapsed_ms, 0)),
            failure.as_ref().map(|f| format!("{} layer: {}", f.layer, f.message)).unwrap_or_else(|| "ok".into()),
        ),
        TraceKind::ApiOutcome { attempt, request_id, elapsed_ms, failure, .. } => (
            format!(
                "Attempt {} ended after {} ms{}",
                attempt + 1,
                fixed(*elapsed_ms, 0),
                request_id.as_ref().map(|r| format!(" (request id {r})")).unwrap_or_default()
            ),
            failure.as_ref().map(|f| format!("{} layer: {}", f.layer, f.message)).unwrap_or_else(|| "ok".into()),
        ),
        TraceKind::ToolsAggregated { tools, excluded } => (
            "Tools array built".into(),
            tools
                .iter()
                .map(|t| {
                    format!(
                        "{}  ←  {}{}",
                        t.name,
                        t.origin,
                        t.notes.iter().map(|n| format!("\n    note: {n}")).collect::<String>()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n")
                + &excluded.iter().map(|(w, why)| format!("\nleft out: {w}: {why}")).collect::<String>(),
        ),
        TraceKind::ToolUse { name, input, tool_use_id } => (format!("tool_use {name} ({tool_use_id})"), pretty(input)),
        TraceKind::LocalCall { function, input, output, is_error, elapsed_ms, .. } => (
            format!(
                "Local function {function}, {} ms{}",
                fixed(*elapsed_ms, 2),
                if *is_error { ", failed" } else { "" }
            ),
            format!("input:\n{}\n\noutput:\n{output}", pretty(input)),
        ),
        TraceKind::ToolResult { content, is_error, .. } => {
            (format!("tool_result{}", if *is_error { " (is_error)" } else { "" }), pretty(content))
        }
        TraceKind::Phase { phase, iteration } => (format!("Phase {phase}, round {iteration}"), String::new()),
        TraceKind::UserMessage { text } => ("User message".into(), text.clone()),
        TraceKind::Route { name, target, .. } => (format!("Route {name}"), format!("to {}", target.describe())),
        TraceKind::RpcLink { tool_use_id, id } => {
            (format!("{tool_use_id} travels as JSON-RPC request #{id}"), String::new())
        }
        TraceKind::TurnEnd { stop_reason, summary } => (
            format!("Turn ended{}", stop_reason.as_ref().map(|s| format!(" ({s})")).unwrap_or_default()),
            summary.clone(),
        ),
        TraceKind::Auth { step } => step.explain(),
        TraceKind::Injected { fault, detail, .. } => fault.explain(detail.as_deref()),
        TraceKind::Paused { at, iteration, title, payload } => (
            format!("Paused {} (round {iteration}): {title}", at.describe()),
            format!("As it was about to be sent or used:\n\n{}", pretty(payload)),
        ),
        TraceKind::Resumed { how, edited, .. } => (
            format!("Went on: {}", how.word()),
            edited
                .as_ref()
                .map(|v| format!("What was sent instead (the original is above):\n\n{}", pretty(v)))
                .unwrap_or_default(),
        ),
        TraceKind::Note { text } => ("Note".into(), text.clone()),
    };
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

/// What Claude saw and what the client did, for a Messages request row.
fn request_views(row: &Row, events: &[TraceEvent]) -> Option<impl IntoView + use<>> {
    let seq = *row.events.first()?;
    let first = events.iter().find(|e| e.seq == seq)?;
    let TraceKind::HttpRequest { body: Some(RequestBody::Text(body)), .. } = &first.kind else { return None };
    let json: Value = serde_json::from_str(body).ok()?;
    json.get("messages")?;
    let sees = pretty(
        &serde_json::json!({ "tools": json.get("tools"), "messages": json.get("messages"), "tool_choice": json.get("tool_choice") }),
    );
    let did = events
        .iter()
        .filter(|e| e.seq < first.seq)
        .rev()
        .find_map(|e| match &e.kind {
            TraceKind::ToolsAggregated { tools, excluded } => Some(
                tools.iter().map(|t| format!("{} → {}", t.name, t.origin)).collect::<Vec<_>>().join("\n")
                    + &excluded.iter().map(|(w, why)| format!("\n✕ {w}: {why}")).collect::<String>(),
            ),
            _ => None,
        })
        .unwrap_or_else(|| "No tools were aggregated before this request.".into());
    Some(view! {
        <div class="side-by-side">
            <div><h4>"What Claude sees"</h4><Code text=sees label="What Claude sees"/></div>
            <div><h4>"What the client did"</h4><Code text=did label="What the client did"/></div>
        </div>
    })
}

/// "Layers crossed" and the two sides of one tool call.
fn story_view(s: ToolStory) -> impl IntoView {
    let sees = format!(
        "tool_use (in the assistant message):\n{}\n\ntool_result (in the next user message):\n{}",
        pretty(&serde_json::json!({ "type": "tool_use", "id": s.tool_use_id, "name": s.name, "input": s.input })),
        s.received.as_ref().map(pretty).unwrap_or_else(|| "(not sent yet)".into()),
    );
    let did = format!(
        "{}\n\n{}",
        s.steps
            .iter()
            .filter(|st| st.layer.is_client_side())
            .map(|st| format!("{}: {}", st.layer.label(), st.text))
            .collect::<Vec<_>>()
            .join("\n"),
        s.rpc.iter().map(|m| pretty(&m.to_value())).collect::<Vec<_>>().join("\n\n"),
    );
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
        <div class="side-by-side">
            <div><h4>"What Claude sees"</h4><Code text=sees label="What Claude sees"/></div>
            <div><h4>"What the client did"</h4><Code text=did label="What the client did"/></div>
        </div>
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
        let servers = svc.lane_names();
        let route = match &row.kind {
            RowKind::Arrow { from, to } => format!("{} → {}", lane_name(from, &servers), lane_name(to, &servers)),
            RowKind::Note { lane } => lane_name(lane, &servers),
            RowKind::Band { .. } => String::new(),
        };
        let (request, own) = trace.with_events_untracked(|events| {
            let own: Vec<TraceEvent> = row
                .events
                .iter()
                .filter_map(|s| events.binary_search_by_key(s, |e| e.seq).ok().map(|i| events[i].clone()))
                .collect();
            (request_views(&row, events).map(|v| v.into_any()), own)
        });
        Some(view! {
            <aside class="detail" role="dialog" aria-modal="false" aria-labelledby="detail-title"
                on:keydown=move |ev: leptos::ev::KeyboardEvent| if ev.key() == "Escape" { close() }>
                <header class="detail-head">
                    <h3 id="detail-title">{row.label.clone()}</h3>
                    <button type="button" node_ref=close_ref on:click=move |_| close() aria-label="Close details">"✕"</button>
                </header>
                <p class="muted">{route}{row.duration_ms.map(|d| format!(" · {} ms", fixed(d, 1))).unwrap_or_default()}</p>
                {(!row.detail.is_empty()).then(|| view! { <p class="prose">{row.detail.clone()}</p> })}
                <div class="badges">{row.badges.iter().map(|b| view! { <span class="badge">{b.text.clone()}</span> }).collect_view()}</div>
                {move || story.get().map(story_view)}
                {request}
                <h4>"Raw"</h4>
                {own.iter().map(raw).collect_view()}
            </aside>
        })
    }
}

/// The trace's memory limit now (Settings → Limits).
fn svc_limit() -> usize {
    crate::state::use_services().trace.limit.get_value()
}
