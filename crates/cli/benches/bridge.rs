//! What the bridge costs (docs/bridge.md): `tools/call` through it against the same server over
//! direct HTTP, median and p99, with the page's own MCP client (the engine, natively); the
//! bridge's memory per session; 20 sessions at once.
//!
//!     cargo bench --profile cli -p loopscope-cli --bench bridge
//!
//! (Needs `./scripts/test` run once: server-everything from npm.)

#[path = "../../engine/tests/support/mod.rs"]
mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use engine::mcp::{Handlers, McpClient, RequestOptions, ServerConfig};
use engine::trace::Tracer;
use serde_json::{Value, json};
use support::Native;
use testkit::{free_port, real, repo_root};

const CALLS: usize = 400;
const WARM_UP: usize = 40;
const SESSIONS: usize = 20;

struct Bridge {
    process: Child,
    url: String,
    token: String,
}

impl Drop for Bridge {
    fn drop(&mut self) {
        // SAFETY: kill(2) on the bridge's own pid (SIGTERM: it ends its children first).
        unsafe {
            libc::kill(self.process.id() as i32, libc::SIGTERM);
        }
        let _ = self.process.wait();
    }
}

fn bridge(args: &[&str]) -> Bridge {
    let mut process = Command::new(env!("CARGO_BIN_EXE_loopscope"))
        .current_dir(repo_root())
        .arg("bridge")
        .arg("--json")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the bridge");
    let mut line = String::new();
    BufReader::new(process.stdout.take().expect("stdout")).read_line(&mut line).expect("its first line");
    let first: Value = serde_json::from_str(&line).expect("JSON");
    Bridge { process, url: first["url"].as_str().unwrap().into(), token: first["token"].as_str().unwrap().into() }
}

fn client(url: &str, token: Option<&str>) -> McpClient<Native> {
    let mut config = ServerConfig::new("bench", url);
    if let Some(t) = token {
        config.headers.push(("Authorization".into(), format!("Bearer {t}")));
    }
    McpClient::new(Native::new(), config, Tracer::silent(), Handlers::default())
}

/// Sorted per-call times of `tools/call echo` on `a` and on `b`, in microseconds, the calls
/// alternating (a, b, a, b…) so that both sides see the machine as it is at that moment.
async fn paired(a: &McpClient<Native>, b: &McpClient<Native>) -> (Vec<f64>, Vec<f64>) {
    a.connect().await.expect("connect");
    b.connect().await.expect("connect");
    let opts = RequestOptions::default();
    let (mut ta, mut tb) = (Vec::with_capacity(CALLS), Vec::with_capacity(CALLS));
    for i in 0..(WARM_UP + CALLS) {
        for (mcp, out) in [(a, &mut ta), (b, &mut tb)] {
            let started = Instant::now();
            mcp.call_tool("echo", json!({"message": format!("call {i}")}), &opts).await.expect("echo");
            if i >= WARM_UP {
                out.push(started.elapsed().as_secs_f64() * 1e6);
            }
        }
    }
    ta.sort_by(f64::total_cmp);
    tb.sort_by(f64::total_cmp);
    (ta, tb)
}

fn pick(sorted: &[f64], q: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn rss_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()).unwrap_or(0)
}

fn report(what: &str, direct: &[f64], bridged: &[f64]) {
    let (m0, m1, p0, p1) = (pick(direct, 0.5), pick(bridged, 0.5), pick(direct, 0.99), pick(bridged, 0.99));
    println!(
        "{what}: median {m1:.0} µs vs {m0:.0} µs direct ({:.2}×), p99 {p1:.0} µs vs {p0:.0} µs ({:.2}×)",
        m1 / m0,
        p1 / p0
    );
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let everything = real::everything_on(free_port());

    // The same server relayed unchanged (--to): the bridge's own hop.
    let relay = bridge(&["--to", &everything.url]);
    let (direct, relayed) = paired(&client(&everything.url, None), &client(&relay.url, Some(&relay.token))).await;
    report("tools/call through --to (same HTTP server)", &direct, &relayed);
    drop(relay);

    // The same server's stdio build, a child of the bridge.
    let entry = repo_root().join("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let stdio = bridge(&["--", "node", entry.to_str().unwrap(), "stdio"]);
    let (direct, over_stdio) = paired(&client(&everything.url, None), &client(&stdio.url, Some(&stdio.token))).await;
    report("tools/call through the bridge over stdio (vs the server over HTTP)", &direct, &over_stdio);

    // Memory per session, and 20 sessions at once, each calling.
    let before = rss_kib(stdio.process.id(), "VmRSS:");
    let clients: Vec<_> = (0..SESSIONS).map(|_| client(&stdio.url, Some(&stdio.token))).collect();
    let started = Instant::now();
    let connected = futures::future::join_all(clients.iter().map(|c| c.connect())).await;
    if let Some(Err(e)) = connected.iter().find(|c| c.is_err()) {
        panic!(
            "{SESSIONS} sessions open: {} of them failed, the first: {e:?}",
            connected.iter().filter(|c| c.is_err()).count()
        );
    }
    let opened = started.elapsed();
    let opts = &RequestOptions::default();
    let started = Instant::now();
    let calls = futures::future::join_all(
        clients
            .iter()
            .flat_map(|c| (0..10).map(move |i| c.call_tool("echo", json!({"message": format!("{i}")}), opts))),
    )
    .await;
    let elapsed = started.elapsed();
    assert!(calls.iter().all(Result::is_ok));
    tokio::time::sleep(Duration::from_millis(200)).await;
    let after = rss_kib(stdio.process.id(), "VmRSS:");
    println!(
        "{SESSIONS} sessions at once: opened in {:.1} s (each starts a node process), {} calls in {:.0} ms; bridge memory \
         {:.1} MiB → {:.1} MiB ({:.0} KiB per session, its children not counted); peak {:.1} MiB",
        opened.as_secs_f64(),
        calls.len(),
        elapsed.as_secs_f64() * 1e3,
        before as f64 / 1024.0,
        after as f64 / 1024.0,
        (after.saturating_sub(before)) as f64 / SESSIONS as f64,
        rss_kib(stdio.process.id(), "VmHWM:") as f64 / 1024.0,
    );
}
