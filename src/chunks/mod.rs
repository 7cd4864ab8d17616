//! The parts of the page that the first screen does not need: each is a chunk of wasm fetched
//! on first use, and prefetched once the page is idle after start (docs/size.md). Their code is
//! reached only through the split functions below (and those of `agent.rs`, `sign_in.rs`, `skills.rs` and `demo.rs`); `xtask split` moves
//! every function reachable only from one of them into that chunk's file (ARCHITECTURE.md,
//! "Chunks"). [`OnDemand`] shows a chunk's view where its feature appears.

#[macro_use]
mod split_point;
mod agent;
mod demo;
mod on_demand;
mod sign_in;
mod skills;

pub use agent::{
    arrived as agent_arrived, check_metadata_document, close_connection, fetch_soon as fetch_agent_soon,
    open_connection, run_turn, server_notified,
};
pub use demo::DemoFromChunk;
pub use on_demand::{ChunkMissing, DetailsOnDemand, Loaded, OnDemand, OnDemandWhen, did_not_arrive, missing_why};
pub use sign_in::SignInFromChunk;
pub use skills::SkillsFromChunk;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
#[cfg(not(loopscope_split))]
use wasm_split_helpers::SplitLoaderError;
#[cfg(loopscope_split)]
use wasm_split_helpers::wasm_split;

use crate::state::ServerEntry;

// The split points. Functions with the same chunk name share one chunk.

split_point! {
    /// The Workshop panel's contents: lessons, breakpoints, sessions and Claude's side of the faults.
    workshop, preload preload_workshop: fn workshop() {
        Ok(ViewFn::from(|| crate::workshop::WorkshopBody().into_any()))
    }
}

split_point! {
    /// A server card's Faults tab.
    workshop: fn server_faults(entry: ServerEntry) {
        Ok(ViewFn::from(move || view! { <crate::workshop::ServerFaults entry=entry.clone()/> }.into_any()))
    }
}

split_point! {
    /// The banner of a stop at a breakpoint, with the payload to edit.
    workshop: fn paused() {
        Ok(ViewFn::from(|| crate::workshop::PausedBody().into_any()))
    }
}

split_point! {
    /// The banner of a lesson. Its arrival opens the lesson the page's address named, if any:
    /// reading and running lessons is this chunk's code, so a Retry here opens it too.
    workshop: fn lesson(svc: crate::state::Services) {
        svc.open_lesson_from_address();
        Ok(ViewFn::from(|| crate::workshop::LessonBody().into_any()))
    }
}

split_point! {
    /// The banner of a recorded session being viewed, with its replay.
    workshop: fn viewing() {
        Ok(ViewFn::from(|| crate::workshop::ViewingBody().into_any()))
    }
}

split_point! {
    /// A server card's tabs: its tools (with calls by hand), resources, prompts and log.
    explore, preload preload_explore: fn server_tab(entry: ServerEntry, tab: crate::servers::Tab) {
        Ok(ViewFn::from(move || crate::servers::tab_view(entry.clone(), tab)))
    }
}

split_point! {
    /// The local functions' card, opened: each function with its form, to call by hand (the
    /// schema form and the functions' own code come with it).
    explore: fn local_tools() {
        Ok(ViewFn::from(|| crate::servers::LocalTools().into_any()))
    }
}

split_point! {
    /// What the page says of the bridge (`loopscope bridge`): its link's consent screen, the
    /// command for a typed command line, a CORS refusal's ways out. One split point for the three
    /// (each costs the first chunk its stub).
    explore: fn bridge(shown: crate::servers::BridgeView) {
        Ok(ViewFn::from(move || crate::servers::bridge_view(shown.clone())))
    }
}

split_point! {
    /// An MCP App under its tool call in the chat: the sandbox's frame and the app's host. In
    /// the explore chunk, with the other extensions' code (skills).
    explore: fn app_frame(block: RwSignal<engine::chat::Block>) {
        Ok(ViewFn::from(move || view! { <crate::app_frame::AppFrame block/> }.into_any()))
    }
}

split_point! {
    /// What a connected server said of itself, on its card. In the agent chunk: only its code
    /// connects a server.
    agent: fn server_info(entry: ServerEntry) {
        Ok(ViewFn::from(move || view! { <crate::servers::ServerInfo entry=entry.clone()/> }.into_any()))
    }
}

split_point! {
    /// A connected server's tabs (their bodies are the explore and workshop chunks'), and the
    /// lists that failed. In the agent chunk, like the connection.
    agent: fn server_tabs(entry: ServerEntry, tab: RwSignal<crate::servers::Tab>) {
        Ok(ViewFn::from(move || view! { <crate::servers::ServerTabs entry=entry.clone() tab/> }.into_any()))
    }
}

split_point! {
    /// The front dialog's body: an approval, a sampling request or an elicitation form. In the
    /// agent chunk: only a turn or a connection opens one, and a chunk of its own multiplied the
    /// small shared files the agent chunk needs (docs/size.md).
    agent: fn dialog(id: u64, kind: crate::state::DialogKind) {
        Ok(ViewFn::from(move || crate::dialogs::body(id, kind.clone())))
    }
}

split_point! {
    /// The bars of the tasks servers run for tool calls, on the timeline. In the agent chunk:
    /// only a tool call makes a task.
    agent: fn task_bars(shown: Memo<Vec<usize>>) {
        Ok(ViewFn::from(move || view! { <crate::timeline::tasks::TaskBars shown=shown/> }.into_any()))
    }
}

split_point! {
    /// The timeline's rows, with the engine's projection that builds them from the trace
    /// (`Timeline::push`). In the agent chunk: rows exist only once events do, and the first
    /// come from the loop or a connection (a recording opened first fetches the chunk here).
    agent: fn timeline_rows(trace: crate::state::Trace) {
        trace.project_with(|timeline, event| {
            timeline.push(event);
        });
        Ok(ViewFn::from(|| crate::timeline::rows::Rows().into_any()))
    }
}

split_point! {
    /// Claude's answer in the chat: its text, thinking and tool calls as they move on. In the
    /// agent chunk: only a turn (or a recording opened) makes one.
    agent: fn answer(blocks: RwSignal<Vec<crate::state::ShownBlock>>, demo: bool, usage: RwSignal<Option<String>>) {
        Ok(ViewFn::from(move || crate::chat::answer(blocks, demo, usage)))
    }
}

split_point! {
    /// The strip naming each task still followed, with its Cancel.
    agent: fn running_tasks() {
        Ok(ViewFn::from(|| crate::timeline::tasks::RunningTasks().into_any()))
    }
}

split_point! {
    /// "Ask both ways": the question in the page's loop, then through the API's MCP connector,
    /// compared (`state/both_ways.rs`).
    compare, preload preload_compare: fn ask_both_ways(svc: crate::state::Services, text: String) -> Result<(), ChunkMissing> {
        svc.conversation.ask_both_ways(svc, text);
        Ok(())
    }
}

split_point! {
    /// The comparison's panel, once both ways ran.
    compare: fn comparison() {
        Ok(ViewFn::from(|| crate::comparison::ComparisonPanel().into_any()))
    }
}

split_point! {
    /// The timeline's detail pane: a row's story, its request views and raw events.
    detail, preload preload_detail: fn detail() {
        Ok(ViewFn::from(|| crate::timeline::DetailPane().into_any()))
    }
}

split_point! {
    /// Settings → Model and request: the model and its thinking, the request's fields, the
    /// teaching switch.
    settings, preload preload_settings: fn model_settings() {
        Ok(ViewFn::from(|| crate::settings_panel::ModelAndRequest().into_any()))
    }
}

split_point! {
    /// Settings → Limits.
    settings: fn limits_settings() {
        Ok(ViewFn::from(|| crate::settings_panel::LimitsSettings().into_any()))
    }
}

split_point! {
    /// A server card's sign-in section (MCP authorization).
    signin, preload preload_signin: fn sign_in(entry: ServerEntry) {
        Ok(ViewFn::from(move || view! { <crate::servers::AuthSection entry=entry.clone()/> }.into_any()))
    }
}

/// Fetches every chunk while the page is idle after the agent chunk is in (`agent::fetch_soon`),
/// so a first click rarely waits. A chunk that fails here is tried again when it is used.
fn prefetch_when_idle() {
    let prefetch = || {
        leptos::task::spawn_local(async {
            // One after another: the first screen's own requests (a server's tools, a turn)
            // keep most of the connection.
            let _ = preload_settings().await;
            let _ = preload_explore().await;
            let _ = preload_detail().await;
            let _ = preload_workshop().await;
            let _ = preload_signin().await;
            let _ = preload_compare().await;
            let _ = demo::preload_demo().await;
        })
    };
    let cb: js_sys::Function = wasm_bindgen::closure::Closure::once_into_js(prefetch).unchecked_into();
    let w = window();
    // Within 3 s even on a page that is never idle; a browser without requestIdleCallback
    // (Safari) after 1 s.
    let options = web_sys::IdleRequestOptions::new();
    options.set_timeout(3000);
    if w.request_idle_callback_with_options(&cb, &options).is_err() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&cb, 1000);
    }
}
