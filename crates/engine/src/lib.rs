//! The logic: MCP sessions, SSE parsing, the Claude client and the agent loop.
//!
//! Async over small traits (HTTP and a clock) so the same code runs natively in
//! tests and in the page over `fetch`. Never names leptos or web_sys (ARCHITECTURE.md).
// Outside tests nothing unwraps: a panic aborts the wasm and the page with it (ARCHITECTURE.md).
#![deny(clippy::unwrap_used)]

pub mod agent;
pub mod apps;
pub mod auth;
pub mod bridge;
pub mod cancel;
pub mod chat;
pub mod claude;
pub mod curl;
pub mod deadline;
pub mod demo;
pub mod encoding;
pub mod faults;
pub mod form;
pub mod hosting;
pub mod layer;
pub mod lesson;
pub mod limits;
pub mod mcp;
pub mod num;
pub mod platform;
pub mod saved;
pub mod server_address;
pub mod session;
pub mod settings;
pub mod sse;
pub mod text;
pub mod time;
pub mod timeline;
pub mod trace;
pub mod uri_template;
pub mod url_policy;
pub mod whatwg;
