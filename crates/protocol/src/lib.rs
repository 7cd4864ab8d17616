//! Wire types, exactly as the specs spell them: JSON-RPC 2.0, MCP, OAuth and the Claude Messages API
//! (and the wire of our own bridge, `bridge`).
//!
//! Serde only: nothing here does I/O, holds state or knows about the browser. Every type keeps
//! what it does not understand (as raw JSON) instead of failing, because servers and the API
//! add fields and variants faster than any client.
// Outside tests nothing unwraps: a panic aborts the wasm and the page with it (ARCHITECTURE.md).
#![deny(clippy::unwrap_used)]

pub mod bridge;
pub mod claude;
pub mod jsonrpc;
pub mod mcp;
pub mod oauth;
mod read_error;

pub use read_error::ReadError;
