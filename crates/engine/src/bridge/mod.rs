//! `loopscope bridge` as the page sees it (the program itself is crates/cli; docs/bridge.md):
//! the link it prints ([`link`]), the command line the page suggests for a stdio server
//! ([`command`]), and its own error layer ([`fault`]): a child that would not start, exited or
//! wrote what is not JSON-RPC, or a request the bridge refused, said as the bridge's and never
//! mistaken for the server's.

// What the bridge and the address bar send is outside text: no slicing by byte index.
#![deny(clippy::string_slice, clippy::indexing_slicing)]

pub mod ask;
pub mod command;
pub mod cors;
pub mod fault;
pub mod link;

pub use ask::AskError;
pub use command::{CommandLine, bridge_command, relay_command};
pub use cors::{CorsFix, ReachAdvice, reach_advice};
pub use fault::{BridgeFault, is_fault, read_log};
pub use link::{BridgeInfo, BridgeLink, LinkError};
pub use protocol::bridge::{ERROR_HEADER, ErrorKind, LogEntry, LogKind, MARK_HEADER};
