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
use wasm_split_helpers::SplitLoaderError;
#[cfg(loopscope_split)]
use wasm_split_helpers::wasm_split;

use std::rc::Rc;

use engine::auth::{AfterRefusal, Auth, AuthError, FlowRunner, InPlace};
use futures::future::LocalBoxFuture;

use crate::PagePlatform;
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
    move || match chunk.get() {
        None => view! { <p class="muted chunk-loading" role="status">{format!("Loading the {what}…")}</p> }.into_any(),
        Some(Ok(view)) => view.run(),
        Some(Err(ChunkMissing)) => view! {
            <div class="chunk-missing" role="alert">
                <p class="form-error">{format!("The {what} did not arrive: {}", missing_why())}</p>
                <button type="button" on:click=move |_| chunk.refetch()>"Retry"</button>
            </div>
        }
        .into_any(),
    }
}

/// [`OnDemand`] while `when` holds (a banner that shows only at times): nothing is fetched
/// before it first does.
#[component]
pub fn OnDemandWhen<F, Fut>(#[prop(into)] when: Signal<bool>, what: &'static str, load: F) -> impl IntoView
where
    F: Fn() -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Loaded> + 'static,
{
    view! {
        <Show when=move || when.get()>
            <OnDemand what load=load.clone()/>
        </Show>
    }
}

/// Why a chunk did not arrive, as far as the page can tell.
fn missing_why() -> &'static str {
    if navigator_offline() {
        "this device is offline, and this part of the page was not downloaded before. Connect, then Retry."
    } else {
        "the site may have been updated since this page opened (then reload the page), or the connection dropped (then Retry)."
    }
}

fn navigator_offline() -> bool {
    !window().navigator().on_line()
}

/// A split point. Built with `--cfg loopscope_split` (the page itself: scripts/build-wasm.mjs
/// sets it for every build Trunk makes, debug or release), a `#[wasm_split]` function whose code
/// lands in its chunk; built without (the browser tests, which wasm-bindgen-test links whole,
/// with no chunk loader), the same body as a plain async function.
macro_rules! split_point {
    ($(#[doc = $doc:literal])* $chunk:ident $(, preload $preload:ident)?: fn $name:ident($($arg:ident: $ty:ty),*) $body:block) => {
        split_point! { $(#[doc = $doc])* $chunk $(, preload $preload)?: fn $name($($arg: $ty),*) -> Loaded $body }
    };
    ($(#[doc = $doc:literal])* $chunk:ident $(, preload $preload:ident)?: fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty $body:block) => {
        $(#[doc = $doc])*
        #[cfg(loopscope_split)]
        #[wasm_split($chunk, fallible $(, preload($preload))?)]
        pub fn $name($($arg: $ty),*) -> $ret $body

        $(#[doc = $doc])*
        #[cfg(not(loopscope_split))]
        pub async fn $name($($arg: $ty),*) -> $ret $body

        $(
            #[cfg(not(loopscope_split))]
            pub async fn $preload() -> Result<(), SplitLoaderError> {
                Ok(())
            }
        )?
    };
}

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
    /// The banner of a lesson.
    workshop: fn lesson() {
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
    /// The front dialog's body: an approval, a sampling request or an elicitation form.
    dialogs, preload preload_dialogs: fn dialog(id: u64, kind: crate::state::DialogKind) {
        Ok(ViewFn::from(move || crate::dialogs::body(id, kind.clone())))
    }
}

split_point! {
    /// The timeline's detail pane: a row's story, its request views and raw events.
    detail, preload preload_detail: fn detail() {
        Ok(ViewFn::from(|| crate::timeline::DetailPane().into_any()))
    }
}

split_point! {
    /// A server card's sign-in section (MCP authorization).
    signin, preload preload_signin: fn sign_in(entry: ServerEntry) {
        Ok(ViewFn::from(move || view! { <crate::servers::AuthSection entry=entry.clone()/> }.into_any()))
    }
}

/// A step of the authorization flow that talks to authorization servers, as a future run from
/// the signin chunk (engine::auth::FlowRunner; `SignInFromChunk` below).
type AuthStep<T> = Result<LocalBoxFuture<'static, Result<T, AuthError>>, ChunkMissing>;

split_point! {
    /// What to do after a server's 401 or 403.
    signin: fn auth_answer(auth: Rc<Auth<PagePlatform>>, status: u16, www: Option<String>, seen: u64) -> AuthStep<AfterRefusal> {
        Ok(InPlace.answer(auth, status, www, seen))
    }
}

split_point! {
    /// Refreshing a token about to expire.
    signin: fn auth_refresh(auth: Rc<Auth<PagePlatform>>) -> AuthStep<()> {
        let refresh = InPlace.refresh(auth);
        Ok(Box::pin(async move {
            refresh.await;
            Ok(())
        }))
    }
}

split_point! {
    /// Signing in from the card's button.
    signin: fn auth_sign_in(auth: Rc<Auth<PagePlatform>>) -> AuthStep<()> {
        Ok(InPlace.sign_in(auth))
    }
}

/// The page's authorization flow runner: the steps come from the signin chunk, so a visit that
/// never signs in never downloads them. A chunk that does not arrive is the flow's own error
/// (`AuthError::CodeMissing`), shown on the card like any other.
pub struct SignInFromChunk;

impl FlowRunner<PagePlatform> for SignInFromChunk {
    fn answer(
        &self,
        auth: Rc<Auth<PagePlatform>>,
        status: u16,
        www: Option<String>,
        seen: u64,
    ) -> LocalBoxFuture<'static, Result<AfterRefusal, AuthError>> {
        Box::pin(async move { auth_answer(auth, status, www, seen).await.map_err(|_| AuthError::CodeMissing)?.await })
    }

    fn refresh(&self, auth: Rc<Auth<PagePlatform>>) -> LocalBoxFuture<'static, ()> {
        // Without the code a due refresh is skipped: the request goes out, and a 401 says why.
        Box::pin(async move {
            if let Ok(refresh) = auth_refresh(auth).await {
                let _ = refresh.await;
            }
        })
    }

    fn sign_in(&self, auth: Rc<Auth<PagePlatform>>) -> LocalBoxFuture<'static, Result<(), AuthError>> {
        Box::pin(async move { auth_sign_in(auth).await.map_err(|_| AuthError::CodeMissing)?.await })
    }
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
