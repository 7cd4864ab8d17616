//! Loopscope: the Claude tool-use agent loop and an MCP Streamable HTTP client, run in the
//! browser and drawn on a timeline.
//!
//! Three layers, dependencies pointing one way only (see ARCHITECTURE.md):
//! [`protocol`] (wire types, serde only) → [`engine`] (logic, natively testable) → `web`
//! (Leptos UI, browser I/O; compiled for wasm32 only).

pub mod engine;
pub mod protocol;

#[cfg(target_arch = "wasm32")]
pub mod web;
