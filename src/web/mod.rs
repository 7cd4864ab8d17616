//! The Leptos UI and everything that touches the browser. Compiled for wasm32 only.

mod app;
mod chat;
mod dialogs;
pub mod platform;
mod presenter;
mod schema_form;
mod servers;
mod settings_panel;
mod sign_in;
pub mod state;
mod theme;
mod timeline;
mod widgets;
mod workshop;

pub use app::App;

/// The platform the page runs the engine on: fetch, with demo-mode requests answered in place.
pub type PagePlatform = crate::engine::demo::Demo<platform::Browser>;

/// Mounts the app on `<body>`; called once from `main`.
pub fn start() {
    console_error_panic_hook::set_once();
    // index.html's loading screen has done its work.
    if let Some(boot) = leptos::prelude::document().get_element_by_id("boot") {
        boot.remove();
    }
    leptos::mount::mount_to_body(App);
}
