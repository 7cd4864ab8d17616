//! Where a chunk's view appears: a short "Loading" line while it arrives, and, when it cannot
//! (offline on a first visit, a deploy that replaced the files), a sentence that says so with
//! Retry. Nothing else on the page depends on a chunk.

use std::future::Future;
use std::rc::Rc;

use futures::future::LocalBoxFuture;

use leptos::prelude::*;
use wasm_split_helpers::SplitLoaderError;

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

thread_local! {
    /// Counts the parts of the page that arrived (reference-counted, not owned by the view that
    /// first reads it).
    static ARRIVALS: ArcRwSignal<u32> = ArcRwSignal::new(0);
}

/// Shows the view a chunk builds, loading it on first use; `what` names the feature in the
/// loading line and in the sentence that says it did not arrive.
#[component]
pub fn OnDemand<F, Fut>(what: &'static str, load: F) -> impl IntoView
where
    F: Fn() -> Fut + 'static,
    Fut: Future<Output = Loaded> + 'static,
{
    on_demand(what, Rc::new(move || Box::pin(load())))
}

/// [`OnDemand`]'s body, built once for every split point rather than once per caller's closure
/// (each instance of a resource and its view costs the first chunk about 2 KB; docs/size.md).
fn on_demand(what: &'static str, load: Rc<dyn Fn() -> LocalBoxFuture<'static, Loaded>>) -> AnyView {
    let chunk = LocalResource::new(move || {
        let loading = load();
        async move {
            let loaded = loading.await;
            if loaded.is_ok() {
                ARRIVALS.with(|a| a.update(|n| *n += 1));
            }
            loaded
        }
    });
    // A part that did not arrive tries again when another arrives (its Retry, a later use, the
    // idle prefetch): one Retry that works brings back every place that said it failed.
    Effect::new(move |seen: Option<u32>| {
        let now = ARRIVALS.with(|a| a.get());
        if seen.is_some_and(|s| s != now) && matches!(chunk.get_untracked(), Some(Err(ChunkMissing))) {
            chunk.refetch();
        }
        now
    });
    (move || match chunk.get() {
        None => view! { <p class="muted chunk-loading" role="status">{format!("Loading the {what}…")}</p> }.into_any(),
        Some(Ok(view)) => view.run(),
        Some(Err(ChunkMissing)) => view! {
            <div class="chunk-missing" role="alert">
                <p class="form-error">{did_not_arrive(what)}</p>
                <button type="button" on:click=move |_| chunk.refetch()>"Retry"</button>
            </div>
        }
        .into_any(),
    })
    .into_any()
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

/// A `<details>` whose body is a chunk, fetched when it is first opened (and by the idle
/// prefetch); the summary is on the first screen.
#[component]
pub fn DetailsOnDemand<F, Fut>(
    summary: ViewFn,
    what: &'static str,
    load: F,
    #[prop(optional)] class: &'static str,
) -> impl IntoView
where
    F: Fn() -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Loaded> + 'static,
{
    let opened = RwSignal::new(false);
    let toggle = move |ev: leptos::ev::Event| {
        use wasm_bindgen::JsCast;
        let open = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok()).is_some_and(|d| d.open());
        if open && !opened.get_untracked() {
            opened.set(true);
        }
    };
    view! {
        <details class=class on:toggle=toggle>
            <summary>{summary.run()}</summary>
            <OnDemandWhen when=opened what load/>
        </details>
    }
}

/// The sentence for a part of the page that did not arrive: what, and why as far as the page
/// can tell (where the feature would appear, and in the chat for the loop's own chunk).
pub fn did_not_arrive(what: &str) -> String {
    format!("The {what} did not arrive: {}", missing_why())
}

/// Why a chunk did not arrive, as far as the page can tell.
pub fn missing_why() -> &'static str {
    if navigator_offline() {
        "this device is offline, and this part of the page was not downloaded before. Connect, then Retry."
    } else {
        "the site may have been updated since this page opened (then reload the page), or the connection dropped (then Retry)."
    }
}

fn navigator_offline() -> bool {
    !window().navigator().on_line()
}
