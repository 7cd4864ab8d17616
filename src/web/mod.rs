//! The Leptos UI and everything that touches the browser. Compiled for wasm32 only.

mod app;
pub mod platform;
mod theme;

pub use app::App;

/// Mounts the app on `<body>`; called once from `main`.
pub fn start() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}
