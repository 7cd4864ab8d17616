//! The parts of the page that the first screen does not need: each is a chunk of wasm fetched
//! on first use, and prefetched once the page is idle after start (docs/size.md). Their views
//! are built behind the split functions below; `xtask split` moves every function reachable only
//! from one of them into that chunk's file (ARCHITECTURE.md, "Chunks").
//!
//! [`OnDemand`] shows a chunk's view where the feature appears: a short "Loading" line while it
//! arrives, and, when it cannot (offline on a first visit, a deploy that replaced the files), a
//! sentence that says so with Retry. Nothing else on the page depends on a chunk.

use std::future::Future;

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_split_helpers::{SplitLoaderError, wasm_split};

use crate::state::ServerEntry;

/// A chunk of the page that did not arrive.
#[derive(Clone, Copy, Debug)]
pub struct ChunkMissing;

impl From<SplitLoaderError> for ChunkMissing {
    fn from(_: SplitLoaderError) -> Self {
        ChunkMissing
    }
}

/// What a split function hands back: the feature's view, built by code in its chunk.
pub type Loaded = Result<ViewFn, ChunkMissing>;

/// Shows the view a chunk builds, loading it on first use; `what` names the feature in the
/// loading line and in the sentence that says it did not arrive.
#[component]
pub fn OnDemand<F, Fut>(what: &'static str, load: F) -> impl IntoView
where
    F: Fn() -> Fut + 'static,
    Fut: Future<Output = Loaded> + 'static,
{
    let chunk = LocalResource::new(load);
    move || {
        match chunk.get() {
        None => view! { <p class="muted chunk-loading" role="status">{format!("Loading the {what}…")}</p> }.into_any(),
        Some(Ok(view)) => view.run(),
        Some(Err(ChunkMissing)) => view! {
            <div class="chunk-missing" role="alert">
                <p class="form-error">{format!(
                    "The {what} did not arrive: {}",
                    if navigator_offline() {
                        "this device is offline, and this part of the page was not downloaded before. Connect, then Retry."
                    } else {
                        "the site may have been updated since this page opened (then reload the page), or the connection dropped (then Retry)."
                    }
                )}</p>
                <button type="button" on:click=move |_| chunk.refetch()>"Retry"</button>
            </div>
        }
        .into_any(),
    }
    }
}

fn navigator_offline() -> bool {
    !window().navigator().on_line()
}

// The split points. Functions with the same first argument share one chunk.

/// The Workshop panel's contents: lessons, breakpoints, sessions and Claude's side of the faults.
#[wasm_split(workshop, fallible, preload(preload_workshop))]
pub fn workshop() -> Loaded {
    Ok(ViewFn::from(|| crate::workshop::WorkshopBody().into_any()))
}

/// A server card's Faults tab.
#[wasm_split(workshop, fallible)]
pub fn server_faults(entry: ServerEntry) -> Loaded {
    Ok(ViewFn::from(move || view! { <crate::workshop::ServerFaults entry=entry.clone()/> }.into_any()))
}

/// The banner of a stop at a breakpoint, with the payload to edit.
#[wasm_split(workshop, fallible)]
pub fn paused() -> Loaded {
    Ok(ViewFn::from(|| crate::workshop::PausedBody().into_any()))
}

/// The banner of a lesson.
#[wasm_split(workshop, fallible)]
pub fn lesson() -> Loaded {
    Ok(ViewFn::from(|| crate::workshop::LessonBody().into_any()))
}

/// The banner of a recorded session being viewed, with its replay.
#[wasm_split(workshop, fallible)]
pub fn viewing() -> Loaded {
    Ok(ViewFn::from(|| crate::workshop::ViewingBody().into_any()))
}

/// A server card's tabs: its tools (with calls by hand), resources, prompts and log.
#[wasm_split(explore, fallible, preload(preload_explore))]
pub fn server_tab(entry: ServerEntry, tab: crate::servers::Tab) -> Loaded {
    Ok(ViewFn::from(move || crate::servers::tab_view(entry.clone(), tab)))
}

/// The front dialog's body: an approval, a sampling request or an elicitation form.
#[wasm_split(dialogs, fallible, preload(preload_dialogs))]
pub fn dialog(id: u64, kind: crate::state::DialogKind) -> Loaded {
    Ok(ViewFn::from(move || crate::dialogs::body(id, kind.clone())))
}

/// The timeline's detail pane: a row's story, its request views and raw events.
#[wasm_split(detail, fallible, preload(preload_detail))]
pub fn detail() -> Loaded {
    Ok(ViewFn::from(|| crate::timeline::DetailPane().into_any()))
}

/// A server card's sign-in section (MCP authorization).
#[wasm_split(signin, fallible, preload(preload_signin))]
pub fn sign_in(entry: ServerEntry) -> Loaded {
    Ok(ViewFn::from(move || view! { <crate::servers::AuthSection entry=entry.clone()/> }.into_any()))
}

/// Fetches every chunk while the page is idle after start, so a first click rarely waits. A
/// chunk that fails here is tried again when it is used.
pub fn prefetch_when_idle() {
    let prefetch = || {
        leptos::task::spawn_local(async {
            // One after another: the first screen's own requests (a server's tools, a turn)
            // keep most of the connection.
            let _ = preload_explore().await;
            let _ = preload_detail().await;
            let _ = preload_dialogs().await;
            let _ = preload_workshop().await;
            let _ = preload_signin().await;
        })
    };
    let cb = wasm_bindgen::closure::Closure::once_into_js(prefetch);
    let w = window();
    let idle = js_sys::Reflect::get(&w, &"requestIdleCallback".into()).ok().filter(|f| f.is_function());
    match idle {
        Some(f) => {
            let options = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&options, &"timeout".into(), &3000.into());
            let _ = js_sys::Function::from(f).call2(&w, &cb, &options);
        }
        None => {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(cb.unchecked_ref(), 1000);
        }
    }
}
