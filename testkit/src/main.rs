//! `fixtures`: runs the test servers for the browser test layers (wasm-bindgen-test and
//! Playwright), which cannot start processes themselves.
//!
//! ```text
//! fixtures [--everything PORT] [--python PORT] [--python-json PORT] [--python-nocors PORT]
//!          [--python2 PORT] [--ts PORT] [--ts-reject PORT]
//!          [--oauth PORT] [--oauth-nocors PORT] [--oauth-short PORT]
//!          [--faults PORT] [--tasks PORT] [--apps-debug PORT] [--apps-basic PORT] [--claude PORT] [--parent PID]
//!          [--max-seconds N]
//! ```
//! An `--oauth*` PORT is the MCP server's; its authorization server listens on PORT + 1
//! (`-nocors`: no CORS on its registration endpoint, as oidc-provider ships; `-short`: tokens
//! that live 15 s, to see them refreshed).
//! Everything binds 127.0.0.1. Prints `ready` once every server listens, then runs until
//! killed, until `--parent` exits, or for at most `--max-seconds` (default 1800).

use std::time::{Duration, Instant};
use testkit::mcp_faults::Faults;
use testkit::real::{self, AuthCors, OAuthOptions, PyMode};

/// Fails with a clear message when another process already holds a fixture port, instead of
/// letting a server die with an obscure "address in use" in its log.
fn ensure_free(flag: &str, port: u16) -> u16 {
    if let Err(e) = std::net::TcpListener::bind(("127.0.0.1", port)) {
        eprintln!(
            "fixtures: {flag} {port}: 127.0.0.1:{port} is not free ({e}). Another test run or server holds it; \
             find it with `ss -ltnp 'sport = :{port}'` and stop it."
        );
        std::process::exit(2);
    }
    port
}

fn parent_alive(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut servers = Vec::new();
    let mut stacks = Vec::new();
    let mut faults = None;
    let mut tasks = None;
    let mut claude = None;
    let mut parent = None;
    let mut max_seconds = 1800u64;
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{flag} needs a value"));
        let port =
            || ensure_free(flag, value.parse::<u16>().unwrap_or_else(|_| panic!("{flag}: {value} is not a port")));
        match flag.as_str() {
            "--everything" => servers.push(real::everything_on(port())),
            "--apps-debug" => servers.push(real::apps_debug_on(port())),
            "--apps-basic" => servers.push(real::apps_basic_on(port())),
            "--python" => servers.push(real::python_on(port(), PyMode::Sse, true)),
            "--python-json" => servers.push(real::python_on(port(), PyMode::Json, true)),
            "--python-nocors" => servers.push(real::python_on(port(), PyMode::Sse, false)),
            "--python2" => servers.push(real::python2_on(port())),
            "--ts" => servers.push(real::ts_v2_on(port(), false)),
            "--ts-reject" => servers.push(real::ts_v2_on(port(), true)),
            "--oauth" | "--oauth-nocors" | "--oauth-short" => {
                let port = port();
                let options = OAuthOptions {
                    cors: if flag == "--oauth-nocors" { AuthCors::NoRegistration } else { AuthCors::All },
                    ttl_s: if flag == "--oauth-short" { 15 } else { 3600 },
                };
                stacks.push(real::oauth_on(port, ensure_free(flag, port + 1), options));
            }
            "--faults" => faults = Some(Faults::start(port()).await),
            "--tasks" => tasks = Some(testkit::tasks_server::TasksServer::start(port()).await),
            "--claude" => claude = Some(testkit::fake_claude::FakeClaude::start(port()).await),
            "--parent" => parent = Some(value.parse::<u32>().expect("--parent PID")),
            "--max-seconds" => max_seconds = value.parse().expect("--max-seconds N"),
            other => panic!("unknown flag {other}"),
        }
    }
    println!("ready");
    let until = Instant::now() + Duration::from_secs(max_seconds);
    let watch = async {
        while Instant::now() < until && parent.is_none_or(parent_alive) {
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    };
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
    // Whichever comes first, fall through so the child servers are killed, not orphaned.
    tokio::select! {
        _ = watch => {}
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
    drop(faults);
    drop(tasks);
    drop(claude);
    drop(servers);
    drop(stacks);
}
