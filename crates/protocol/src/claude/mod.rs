//! The Claude Messages API (`anthropic-version: 2023-06-01`): requests, content blocks, the
//! streaming event sequence and error bodies. Unknown block, event and delta types are kept
//! as raw JSON: they are shown, sent back verbatim, and never fatal.

mod blocks;
mod error;
mod models;
mod request;
mod stream;

pub use blocks::*;
pub use error::*;
pub use models::*;
pub use request::*;
pub use stream::*;

pub const API_VERSION: &str = "2023-06-01";
