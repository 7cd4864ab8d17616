//! The Claude Messages API client: streaming, retries, token counting (A-01…A-17).

mod accumulate;
pub mod caching;
mod client;
pub mod connector;
mod error;
pub mod history;
pub mod listed;
pub mod models;
pub mod retry;
pub mod server_tools;
mod settings;
pub mod strict;
pub mod thinking;
pub mod tool_flags;

pub use accumulate::{Accumulator, Assembled, BlockKind, StreamUpdate, ToolCallStub, Unfinished};
pub use client::{ClaudeClient, StreamNews};
pub use error::ClaudeError;
pub use models::DEFAULT_MODEL;
pub use settings::{ClaudeSettings, DEFAULT_BASE_URL, ToolChoiceMode};
