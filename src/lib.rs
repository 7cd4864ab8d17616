//! Loopscope's page: the Leptos UI and everything that touches the browser, over the
//! [`engine`] (the loop, the MCP and Messages clients, every decision, natively tested) and the
//! [`protocol`] (wire types). Three crates, dependencies pointing one way only
//! (ARCHITECTURE.md): protocol → engine → this one. Compiled for wasm32 only; on any other
//! target the crate is empty and the binary says how to run the app.
#![cfg(target_arch = "wasm32")]
// Outside tests nothing unwraps: a panic aborts the wasm and the page with it (ARCHITECTURE.md).
#![deny(clippy::unwrap_used)]

mod app;
mod app_end;
mod app_frame;
mod chat;
mod chunks;
mod comparison;
mod dialogs;
mod loop_settings;
pub mod platform;
mod presenter;
mod save_file;
mod schema_form;
mod servers;
mod settings_panel;
mod sign_in;
pub mod state;
pub mod task;
mod theme;
mod timeline;
mod widgets;
mod workshop;

pub use app::App;

/// The platform the page runs the engine on: fetch, with demo-mode requests answered in place.
pub type PagePlatform = engine::demo::Demo<platform::Browser>;

/// Mounts the app on `<body>`; called once from `main`.
pub fn start() {
    console_error_panic_hook::set_once();
    // index.html's loading screen has done its work.
    if let Some(boot) = leptos::prelude::document().get_element_by_id("boot") {
        boot.remove();
    }
    leptos::mount::mount_to_body(App);
    // The loop at once (a Send is near), then every other chunk once the page is idle.
    chunks::fetch_agent_soon();
}
