//! Workshop mode: what an instructor uses to stop, break and replay the loop in front of a room.
//! The logic is the engine's (`engine::faults`); these are its controls.

mod faults;
mod lesson;
mod paused;
mod sessions;

pub use faults::{FaultsForm, ServerFaults};
pub use lesson::{LessonBanner, LessonBody};
pub use paused::{PausedBanner, PausedBody};
pub use sessions::{ViewingBanner, ViewingBody};

use lesson::LessonChoices;
use paused::BreakpointChoices;
use sessions::SessionChoices;

use leptos::prelude::*;

use crate::chunks::DetailsOnDemand;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use engine::faults::Target;

/// The Workshop panel: its heading on the first screen, its contents a chunk loaded when it is
/// first opened (src/chunks/).
#[component]
pub fn WorkshopPanel() -> impl IntoView {
    let summary = ViewFn::from(|| view! { <h2 id="workshop-title">"Workshop"</h2> });
    view! {
        <section class="panel workshop" aria-labelledby="workshop-title">
            <DetailsOnDemand summary what="workshop tools" load=crate::chunks::workshop/>
        </section>
    }
}

/// What the Workshop panel holds; built in the workshop chunk.
#[component]
pub fn WorkshopBody() -> impl IntoView {
    view! {
        <h3>"Lessons"</h3>
        <LessonChoices/>
        <h3>"Breakpoints"</h3>
        <p class="muted">"The loop stops there and shows what it is about to send, editable; Continue (F8) or \
            Step (F10) goes on. The timeline's phase chips and the chat's Step button set them too. An MCP App's \
            message stops before the page reads it: continue, edit it, drop it or close the app."</p>
        <BreakpointChoices/>
        <h3>"Sessions"</h3>
        <SessionChoices/>
        <h3>"Claude's side"</h3>
        <p class="muted">"Make Claude's next tool call (or every one) name a tool that does not exist, or \
            break the tool's schema: the page routes it as if Claude had, and Claude receives the error. \
            Each server's card has a Faults tab for the server's side."</p>
        <FaultsForm target=Target::Claude tools=Signal::stored(Vec::new()) field="claude-fault".to_owned()/>
    }
}

/// A file input's `change`: reads the chosen file as text, if it is at most `max` bytes, and
/// hands it over (or why not: too big, or unreadable); the input is cleared, so the same file
/// can be chosen again. A file's size is known before it is read: a huge one is never read.
fn with_file_text(ev: leptos::ev::Event, max: usize, then: impl FnOnce(Result<String, String>) + 'static) {
    let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) else { return };
    let Some(file) = input.files().and_then(|f| f.get(0)) else { return };
    input.set_value("");
    if file.size() > max as f64 {
        let limit = engine::limits::LimitExceeded::new(engine::limits::Limit::File, max);
        then(Err(format!(
            "that file is {}, more than this page reads ({limit}; Settings → Limits)",
            engine::limits::bytes(file.size() as u64)
        )));
        return;
    }
    leptos::task::spawn_local(async move {
        let text = JsFuture::from(file.text()).await.ok().and_then(|t| t.as_string());
        then(text.ok_or_else(|| "that file could not be read".to_owned()));
    });
}
