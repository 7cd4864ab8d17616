//! Tasks on the timeline: a bar on the server's lane for each task's life (drawn behind the
//! rows, in the rows' own coordinates), and a strip naming each task the page still follows,
//! with its Cancel. Both are in the agent chunk (`chunks::task_bars`, `chunks::running_tasks`):
//! only a tool call makes a task. A handful of tasks at most: redrawn whole, not keyed (a
//! keyed list costs the chunk several KB; docs/size.md).

use leptos::prelude::*;

use super::rows::ROW_H;
use crate::state::use_services;
use engine::num::{fixed, shortest};
use engine::timeline::{TaskSpan, lane_position};

/// The bars of the tasks whose life is (partly) among the `shown` rows (positions in the
/// timeline's rows, as `rows.rs` lays them out).
#[component]
pub fn TaskBars(shown: Memo<Vec<usize>>) -> impl IntoView {
    let trace = use_services().trace;
    move || {
        let shown = shown.get();
        trace.with_timeline(|t| {
            t.tasks()
                .iter()
                .filter_map(|span| {
                    let (start, end) = span.in_view(&shown)?;
                    let title = format!("Task {}: {}", span.task_id, span.status.as_str());
                    Some(view! {
                        <span class=format!("tl-task {}", span.status.as_str()) aria-hidden="true" title=title
                            style:top=format!("{}px", shortest(start as f64 * ROW_H + ROW_H * 0.2))
                            style:height=format!("{}px", shortest((end - start) as f64 * ROW_H + ROW_H * 0.6))
                            style:left=format!("{}%", fixed(lane_position(t.lanes(), &span.lane), 3))></span>
                    })
                })
                .collect_view()
        })
    }
}

/// One line per task the page still follows: where it runs, what it last said, and Cancel.
#[component]
pub fn RunningTasks() -> impl IntoView {
    let svc = use_services();
    let live = Memo::new(move |_| {
        svc.trace.with_timeline(|t| t.tasks().iter().filter(|s| s.live()).cloned().collect::<Vec<TaskSpan>>())
    });
    move || {
        let live = live.get();
        (!live.is_empty()).then(|| {
            let items = live
                .into_iter()
                .map(|span| {
                    let server = span.server_id().map(|id| svc.servers.name(id)).unwrap_or_default();
                    let said = span.message.as_ref().map(|m| format!(" · {m}")).unwrap_or_default();
                    let line =
                        format!("Task {} on {server}: {}{said}", span.task_id, span.status.as_str().replace('_', " "));
                    let label = format!("Cancel task {} on {server}", span.task_id);
                    let cancel = move |_| {
                        if let Some(client) = span.server_id().and_then(|id| svc.servers.client(id)) {
                            client.cancel_task(&span.task_id);
                        }
                    };
                    view! {
                        <li>
                            <span class="tl-task-dot" aria-hidden="true"></span>
                            {line}
                            <button type="button" class="link" aria-label=label on:click=cancel>"Cancel task"</button>
                        </li>
                    }
                })
                .collect_view();
            view! { <ul class="tl-tasks" aria-label="Tasks running on servers">{items}</ul> }
        })
    }
}
