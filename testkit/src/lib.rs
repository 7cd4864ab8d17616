//! Test fixtures for Loopscope (native only, never shipped):
//! - [`real`]: start and stop real MCP servers (server-everything from npm, our server built
//!   on the official Python SDK), on 127.0.0.1 only;
//! - [`mcp_faults`]: an MCP endpoint per fault that real servers will not produce on demand;
//! - [`fake_claude`]: a strict fake of the Claude Messages API ([`fake_thinking`]: its thinking
//!   rules; [`fake_tool_fields`]: strict tools and eager input streaming;
//!   [`fake_models`]: the Models API's list; [`fake_connector`]: the API's MCP connector);
//! - [`tasks_server`]: a 2026-07-28 server with the tasks extension (no SDK serves it yet).
//!
//! Everything binds 127.0.0.1 and every wait is bounded.

pub mod fake_claude;
pub mod fake_connector;
pub mod fake_models;
pub mod fake_thinking;
pub mod fake_tool_fields;
pub mod http;
pub mod legacy_auth;
pub mod mcp_faults;
pub mod prompt_cache;
pub mod real;
pub mod skills_server;
pub mod tasks_server;

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The repository root (where package.json, .venv and tests/servers live).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("testkit lives in the repository").to_path_buf()
}

/// A port that was free a moment ago on 127.0.0.1, and that this process has not handed out
/// before: the system may give the same free port to two asks in a row (two servers of one
/// test, or tests running side by side), and the second server would then fail to bind while
/// the first answers in its place (a 404 from the wrong server).
pub fn free_port() -> u16 {
    static GIVEN: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..100 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
    panic!("no loopback port this process has not used already, after 100 tries")
}

/// Waits until something accepts connections on 127.0.0.1:`port`, for at most `limit`.
pub fn wait_listening(port: u16, limit: Duration) -> bool {
    let until = Instant::now() + limit;
    while Instant::now() < until {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}
