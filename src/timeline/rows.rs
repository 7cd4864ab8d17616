//! The rows of the sequence diagram, windowed to what is in view, navigable by keyboard
//! (a listbox with an active descendant).

use leptos::prelude::*;

use crate::state::use_services;
use engine::num::{fixed, shortest};
use engine::timeline::{Badge, Lane, Row, RowKind, band_key, duration_words, lane_position, phase_title, visible};

pub const ROW_H: f64 = 38.0;
/// The timeline's one listbox (a skip link and the detail pane return focus to it).
pub const EVENTS_ID: &str = "timeline-events";
const OVERSCAN: usize = 8;

/// A row's badges, as its live state has them (arrows and notes alike).
fn badges(live: Memo<Live>) -> impl IntoView {
    live.with(|l| l.badges.iter().map(|b| view! { <span class=b.kind.class()>{b.text.clone()}</span> }).collect_view())
}

#[component]
pub fn Rows() -> impl IntoView {
    let svc = use_services();
    let trace = svc.trace;
    let scroll = NodeRef::<leptos::html::Div>::new();
    let scroll_top = RwSignal::new(0.0f64);
    let view_h = RwSignal::new(600.0f64);
    let active = RwSignal::new(None::<usize>);

    let servers = Memo::new(move |_| svc.lane_names());
    let lanes = Memo::new(move |_| trace.with_timeline(|t| t.lanes().to_vec()));
    let shown = Memo::new(move |_| {
        let collapsed = trace.collapsed.get();
        trace.with_timeline(|t| visible(t.rows(), &collapsed))
    });
    let window = Memo::new(move |_| {
        let shown = shown.get();
        let first = ((scroll_top.get() / ROW_H) as usize).saturating_sub(OVERSCAN);
        let count = (view_h.get() / ROW_H) as usize + 2 * OVERSCAN;
        let last = (first + count).min(shown.len());
        // The generation keeps an element from an earlier (cleared) trace from being reused.
        let generation = trace.generation();
        (first.min(last)..last).map(|pos| (generation, pos, shown[pos])).collect::<Vec<_>>()
    });

    // Follow new rows unless the user scrolled away (DOM sync only).
    Effect::new(move |_| {
        shown.track();
        if trace.follow.get_untracked() {
            // A frame later the rows may be gone (the trace cleared): nothing to scroll then.
            // And the user may have scrolled up in between (their scroll event runs before this
            // frame's callbacks): following has stopped then, and the list stays where they put it.
            request_animation_frame(move || {
                if trace.follow.try_get_untracked() != Some(true) {
                    return;
                }
                if let Some(el) = scroll.try_get_untracked().flatten() {
                    el.set_scroll_top(el.scroll_height());
                }
            });
        }
    });
    let measure = move || {
        if let Some(el) = scroll.try_get_untracked().flatten() {
            view_h.set(el.client_height() as f64);
            let top = el.scroll_top() as f64;
            let before = scroll_top.get_untracked();
            scroll_top.set(top);
            let at_bottom = top + el.client_height() as f64 >= el.scroll_height() as f64 - ROW_H;
            // Only the user scrolls up: following stops then, and starts again at the bottom.
            // (Rows arriving while the list is being followed make it taller than where the
            // last programmatic scroll left it: that is not the user leaving.)
            let follow = if at_bottom {
                true
            } else if top < before {
                false
            } else {
                trace.follow.get_untracked()
            };
            if trace.follow.get_untracked() != follow {
                trace.follow.set(follow);
            }
        }
    };
    // Measured when the element exists and whenever the window resizes: DOM events, not an
    // effect that writes the signals its own render reads.
    scroll.on_load(move |_| request_animation_frame(measure));
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());

    let toggle_band = move |index: usize| {
        let key = trace.with_timeline(|t| band_key(t.rows(), index));
        if let Some(key) = key {
            trace.collapsed.update(|c| {
                if let Some(p) = c.iter().position(|k| *k == key) {
                    c.remove(p);
                } else {
                    c.push(key);
                }
            });
        }
    };
    let open = move |index: usize| {
        let is_band =
            trace.with_timeline(|t| matches!(t.rows().get(index).map(|r| &r.kind), Some(RowKind::Band { .. })));
        if is_band { toggle_band(index) } else { trace.selected.set(Some(index)) }
    };
    let scroll_to = move |pos: usize| {
        if let Some(el) = scroll.get_untracked() {
            let top = pos as f64 * ROW_H;
            let h = el.client_height() as f64;
            let current = el.scroll_top() as f64;
            if top < current {
                el.set_scroll_top(top as i32);
            } else if top + ROW_H > current + h {
                el.set_scroll_top((top + ROW_H - h) as i32);
            }
        }
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let list = shown.get_untracked();
        if list.is_empty() {
            return;
        }
        let pos = active.get_untracked().and_then(|a| list.iter().position(|i| *i == a));
        let next = match ev.key().as_str() {
            "ArrowDown" => Some(pos.map_or(0, |p| (p + 1).min(list.len() - 1))),
            "ArrowUp" => Some(pos.map_or(list.len() - 1, |p| p.saturating_sub(1))),
            "Home" => Some(0),
            "End" => Some(list.len() - 1),
            "PageDown" => Some(pos.map_or(0, |p| (p + 10).min(list.len() - 1))),
            "PageUp" => Some(pos.map_or(0, |p| p.saturating_sub(10))),
            "Enter" | " " => {
                if let Some(p) = pos {
                    ev.prevent_default();
                    open(list[p]);
                }
                None
            }
            // The details may open before focus moves into them: Escape closes them from here too.
            "Escape" if trace.selected.get_untracked().is_some() => {
                ev.prevent_default();
                trace.selected.set(None);
                None
            }
            _ => None,
        };
        if let Some(n) = next {
            ev.prevent_default();
            active.set(Some(list[n]));
            trace.follow.set(n == list.len() - 1);
            scroll_to(n);
        }
    };

    // Styles are set property by property (CSSOM), never as a style attribute: the page's
    // Content-Security-Policy allows no inline style (docs/security.md).
    let columns = move || lanes.with(Vec::len).max(1).to_string();
    let lane_x = move |lane: &Lane| -> f64 { lanes.with(|ls| lane_position(ls, lane)) };
    let has_tasks = Signal::derive(move || trace.with_timeline(|t| !t.tasks().is_empty()));

    view! {
        <div class="tl" style=("--lanes", columns)>
            <crate::chunks::OnDemandWhen when=has_tasks what="running tasks" load=crate::chunks::running_tasks/>
            <div class="tl-lanes" aria-hidden="true">
                {move || lanes.get().iter().map(|l| {
                    let name = l.name(&servers.get());
                    let title = if *l == Lane::Client { "Loopscope: the MCP client and agent loop in this page".to_owned() } else { name.clone() };
                    view! { <span class="tl-lane" title=title>{name}</span> }
                }).collect_view()}
            </div>
            <div class="tl-lines" aria-hidden="true">
                {move || (0..lanes.with(Vec::len)).map(|_| view! { <span class="tl-line"></span> }).collect_view()}
            </div>
            <div class="tl-scroll" id=EVENTS_ID node_ref=scroll on:scroll=move |_| measure()
                role="listbox" tabindex="0" aria-label="Timeline events: arrow keys move, Enter opens the details"
                aria-activedescendant=move || active.get().map(|a| format!("tl-row-{a}"))
                on:keydown=on_key>
                <div class="tl-space" style:height=move || format!("{}px", shortest(shown.with(Vec::len) as f64 * ROW_H))>
                    // Tasks are drawn by the agent chunk: only a tool call makes one.
                    <crate::chunks::OnDemandWhen when=has_tasks what="task bars" load=move || crate::chunks::task_bars(shown)/>
                    <For each=move || window.get() key=|item| *item let:item>
                        {
                            let (_, pos, index) = item;
                            // The element stays; only what changes (badges, duration, detail) is redrawn.
                            let row = Memo::new(move |_| trace.row(index));
                            row.get_untracked().map(|first| view! {
                                <RowView first=first row=row pos=pos active=active servers=servers lane_x=lane_x on_open=open/>
                            })
                        }
                    </For>
                </div>
            </div>
            // A strip of its own under the rows, so it covers none of them (nor their durations).
            <Show when=move || !trace.follow.get()>
                <button type="button" class="jump" on:click=move |_| {
                    trace.follow.set(true);
                    if let Some(el) = scroll.get_untracked() { el.set_scroll_top(el.scroll_height()); }
                }>"↓ Follow new events"</button>
            </Show>
        </div>
    }
}

/// The parts of an arrow row that change after it is created.
#[derive(Clone, Default, PartialEq)]
struct Live {
    detail: String,
    badges: Vec<Badge>,
    duration: Option<String>,
    failed: bool,
}

impl Live {
    fn of(r: &Row) -> Self {
        Live {
            detail: r.detail.clone(),
            badges: r.badges.clone(),
            duration: r.duration_ms.map(duration_words),
            failed: r.failed,
        }
    }
}

/// One row. `first` is the row as it was created: its kind, lanes and label never change;
/// `row` follows it as responses, badges and durations arrive.
#[component]
fn RowView(
    first: Row,
    row: Memo<Option<Row>>,
    pos: usize,
    active: RwSignal<Option<usize>>,
    servers: Memo<Vec<(String, String)>>,
    lane_x: impl Fn(&Lane) -> f64 + Copy + Send + Sync + 'static,
    on_open: impl Fn(usize) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let svc = use_services();
    let index = first.index;
    let top = format!("{}px", shortest(pos as f64 * ROW_H));
    let selected = move || svc.trace.selected.get() == Some(index);
    let is_active = move || active.get() == Some(index);
    let phase_class = first.phase.map(|(p, _)| format!(" in-phase-{p}")).unwrap_or_default();
    let click = move |_| {
        active.set(Some(index));
        on_open(index);
    };
    match first.kind.clone() {
        RowKind::Band { phase, iteration } => {
            // Folded is per turn: the same phase and round of another turn is another band.
            let key = svc.trace.with_timeline_untracked(|t| band_key(t.rows(), index));
            let collapsed = move || key.is_some_and(|k| svc.trace.collapsed.with(|c| c.contains(&k)));
            let label = format!("Phase {phase}: {} (round {iteration})", phase_title(phase));
            view! {
                <div class=move || format!("tl-row band phase-{phase}{}", if is_active() { " active" } else { "" })
                    style:top=top.clone() id=format!("tl-row-{index}") role="option" aria-selected="false"
                    aria-expanded=move || (!collapsed()).to_string() aria-label=label on:click=click>
                    <span class="caret" aria-hidden="true">{move || if collapsed() { "▸" } else { "▾" }}</span>
                    <strong>{format!("{phase} {}", phase_title(phase))}</strong>
                    <span class="muted">{format!(" · round {iteration}")}</span>
                </div>
            }
            .into_any()
        }
        RowKind::Note { lane } => {
            // Lanes are added as servers appear: positions follow them (a stale row would point
            // at another server's lane).
            // Centred on its lane; near an edge it starts (left) or ends (right) at the lane, so a
            // long note stays in the panel.
            let lane = StoredValue::new(lane);
            let at = move || lane.with_value(|l| lane_x(l));
            let left = move || format!("{}%", fixed(at(), 3));
            let shift = move || {
                let at = at();
                let shift = if at > 60.0 {
                    "-100%"
                } else if at < 40.0 {
                    "-8%"
                } else {
                    "-50%"
                };
                format!("translateX({shift})")
            };
            let text = if first.detail.is_empty() {
                first.label.clone()
            } else {
                format!("{} · {}", first.label, first.detail)
            };
            // Badges arrive later for some notes (a breakpoint's "continued", "edited").
            let live = Memo::new(move |_| row.with(|r| r.as_ref().map(Live::of)).unwrap_or_default());
            let failed = move || if live.with(|l| l.failed) { " failed" } else { "" };
            let words = move || live.with(|l| l.badges.iter().map(|b| b.text.clone()).collect::<Vec<_>>().join(", "));
            let aria = {
                let text = text.clone();
                move || {
                    let w = words();
                    if w.is_empty() { format!("Note: {text}") } else { format!("Note: {text}, {w}") }
                }
            };
            let badges = move || badges(live);
            view! {
                <div class=move || format!("tl-row note{phase_class}{}{}", failed(), if is_active() { " active" } else { "" })
                    style:top=top.clone() id=format!("tl-row-{index}") role="option" aria-selected=move || selected().to_string()
                    aria-label=aria on:click=click>
                    <span class="tl-note" style:left=left style:transform=shift>{text.clone()}" "{badges}</span>
                </div>
            }
            .into_any()
        }
        RowKind::Arrow { from, to } => {
            let own = from == to;
            // Lanes are added as servers appear, and a server's lane is named once it connects:
            // the row's geometry and accessible name follow both.
            let geometry = Memo::new({
                let (from, to) = (from.clone(), to.clone());
                move |_| {
                    let (x1, x2) = (lane_x(&from), lane_x(&to));
                    if own {
                        (x1, 0.0, "self")
                    } else if x2 > x1 {
                        (x1, x2 - x1, "right")
                    } else {
                        (x2, x1 - x2, "left")
                    }
                }
            });
            let label = first.label.clone();
            let route = move || servers.with(|names| format!("{} to {}: {label}", from.name(names), to.name(names)));
            // What changes after the row is created, read once per change.
            let live = Memo::new(move |_| row.with(|r| r.as_ref().map(Live::of)).unwrap_or_default());
            let aria = move || {
                live.with(|l| {
                    let words: Vec<&str> = l.badges.iter().map(|b| b.text.as_str()).collect();
                    format!(
                        "{}{}{}{}",
                        route(),
                        if l.detail.is_empty() { String::new() } else { format!(", {}", l.detail) },
                        l.duration.as_ref().map(|d| format!(", {d}")).unwrap_or_default(),
                        if words.is_empty() { String::new() } else { format!(", {}", words.join(", ")) },
                    )
                })
            };
            let class = move || {
                format!(
                    "tl-row arrow{phase_class}{}{}{}",
                    if live.with(|l| l.failed) { " failed" } else { "" },
                    if is_active() { " active" } else { "" },
                    if selected() { " selected" } else { "" }
                )
            };
            let badges = move || badges(live);
            let detail = move || live.with(|l| (!l.detail.is_empty()).then(|| l.detail.clone()));
            let dur = move || live.with(|l| l.duration.clone());
            view! {
                <div class=class style:top=top.clone() id=format!("tl-row-{index}") role="option"
                    aria-selected=move || selected().to_string() aria-label=aria on:click=click>
                    <span class=move || format!("tl-arrow {}", geometry.get().2)
                        style:left=move || geometry.with(|(left, _, _)| format!("{}%", fixed(*left, 3)))
                        style:width=move || geometry.with(|(_, width, _)| format!("{}%", fixed(*width, 3)))></span>
                    <span class="tl-label"
                        style:left=move || format!("calc({}% + {}px)", fixed(geometry.get().0, 3), if own { 22 } else { 4 })>
                        <span class="tl-text">{first.label.clone()}</span>
                        {badges}
                        {move || detail().map(|d| view! { <span class="tl-detail">{d}</span> })}
                    </span>
                    {move || dur().map(|d| view! { <span class="tl-dur">{d}</span> })}
                </div>
            }
            .into_any()
        }
    }
}
