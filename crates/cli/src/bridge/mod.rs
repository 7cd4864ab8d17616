//! `loopscope bridge`: a stdio MCP server (a child per session), or one HTTP MCP server without
//! CORS headers, served to the Loopscope page on 127.0.0.1. Safe by construction (docs/bridge.md):
//! it listens on loopback only; what it runs or relays is fixed on its command line; every request
//! passes the [`guard`] (Host, Origin, a per-run token); bodies and lines are bounded. Its own
//! record of the children's stderr and ends is a side channel (`GET /bridge/log`), never an MCP
//! message.

mod child;
mod guard;
mod lines;
mod log;
mod options;
mod relay;
mod reply;
mod stdio;

use std::process::ExitCode;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, Response, StatusCode, header};
use protocol::bridge::ErrorKind;
use serde_json::json;

use self::guard::Guard;
use self::log::{Kind, Log};
use self::options::{Plan, Target};
use self::reply::BridgeError;

pub use self::options::Options;

enum Served {
    Stdio(stdio::Stdio),
    Relay(relay::Relay),
}

struct Bridge {
    guard: Guard,
    log: Arc<Log>,
    served: Served,
    /// What it runs or relays, as the consent screen shows it.
    shown: String,
}

/// Runs the bridge until Ctrl-C (or SIGTERM); exit code 2 when the command line cannot run.
pub fn main(options: Options) -> ExitCode {
    let plan = match options.plan() {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("loopscope bridge: {e}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("loopscope bridge: cannot start: {e}");
            return ExitCode::from(2);
        }
    };
    runtime.block_on(run(plan))
}

async fn run(plan: Plan) -> ExitCode {
    let log = Arc::new(Log::default());
    let shown = plan.target.describe();
    let served = match &plan.target {
        Target::Stdio { program, args, env } => {
            let Some(path) = child::find(program) else {
                eprintln!(
                    "loopscope bridge: cannot find `{program}` on PATH: install it, or give its full path (nothing was started)"
                );
                return ExitCode::from(2);
            };
            Served::Stdio(stdio::Stdio::new(
                child::Program { path, shown: shown.clone(), args: args.clone(), env: env.clone() },
                Arc::clone(&log),
            ))
        }
        Target::Relay { url } => Served::Relay(relay::Relay::new(url.clone())),
    };
    let listener = match tokio::net::TcpListener::bind(plan.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("loopscope bridge: cannot listen on {}: {e} (choose another --port)", plan.listen);
            return ExitCode::from(2);
        }
    };
    let Ok(address) = listener.local_addr() else { return ExitCode::from(2) };
    let token = stdio::token_hex(32);
    let url = format!("http://{address}/mcp");
    announce(&plan, &url, &token, &shown);
    let bridge = Arc::new(Bridge { guard: Guard::new(token, plan.origins.clone(), address), log, served, shown });
    let app = axum::Router::new().fallback(handle).with_state(Arc::clone(&bridge));
    // No Nagle: a streamed answer is written in pieces, and each would wait for the client's
    // delayed ACK (40 ms a request, measured through --to before this).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let served = axum::serve(listener, app).with_graceful_shutdown(stopped()).await;
    if let Served::Stdio(s) = &bridge.served {
        s.end_all().await;
    }
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("loopscope bridge: stopped: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The first thing it prints: where it is, its token, and a link that opens Loopscope with it
/// filled in (the token is in the link's fragment, which is never sent to any server).
fn announce(plan: &Plan, url: &str, token: &str, shown: &str) {
    let mut link = plan.page.clone();
    link.set_fragment(Some(&format!("bridge={}&token={token}", encode(url))));
    if plan.json {
        println!(
            "{}",
            json!({ "url": url, "token": token, "connect": link.as_str(), "serves": shown, "origins": plan.origins })
        );
        return;
    }
    println!("loopscope bridge: serving `{shown}` at {url}");
    println!("  token:   {token}  (every request sends Authorization: Bearer <token>)");
    println!("  allowed: {}", plan.origins.join(", "));
    println!("  connect: {}", link.as_str());
    println!("Open the connect link where Loopscope runs, or add the server by hand: the address above and the line");
    println!("  Authorization: Bearer {token}");
    println!("Stop with Ctrl-C.");
}

/// `:` `/` `[` `]` `%` `&` `=` `#` percent-encoded, for a value in the fragment.
fn encode(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            ':' | '/' | '[' | ']' | '%' | '&' | '=' | '#' | '?' | '+' | ' ' => format!("%{:02X}", c as u32),
            c => c.to_string(),
        })
        .collect()
}

async fn stopped() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(t) => t,
            Err(_) => {
                let _ = ctrl_c.await;
                return;
            }
        };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
}

async fn handle(State(bridge): State<Arc<Bridge>>, request: Request) -> Response<Body> {
    let (parts, body) = request.into_parts();
    if parts.method == Method::OPTIONS && parts.headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD) {
        return match bridge.guard.preflight(&parts.headers) {
            Ok(headers) => {
                let mut r = Response::new(Body::empty());
                *r.status_mut() = StatusCode::NO_CONTENT;
                r.headers_mut().extend(headers);
                r
            }
            Err(refusal) => {
                bridge.log.add(Kind::Refused, None, &refusal.sentence());
                reply::refused(&refusal, None)
            }
        };
    }
    let caller = match bridge.guard.check(&parts.headers) {
        Ok(caller) => caller,
        Err((refusal, origin)) => {
            bridge.log.add(Kind::Refused, None, &refusal.sentence());
            return reply::refused(&refusal, origin.as_deref());
        }
    };
    let answer = match (parts.uri.path(), &parts.method) {
        ("/mcp", method) => match &bridge.served {
            Served::Stdio(s) => s.handle(method, &parts.headers, body).await,
            Served::Relay(r) => r.handle(method, &parts.headers, body).await,
        },
        ("/bridge", &Method::GET) => reply::json(StatusCode::OK, bridge.info().to_string()),
        ("/bridge/log", &Method::GET) => {
            let after =
                parts.uri.query().and_then(|q| q.strip_prefix("after=")).and_then(|n| n.parse().ok()).unwrap_or(0);
            reply::json(StatusCode::OK, json!({ "entries": bridge.log.since(after) }).to_string())
        }
        _ => BridgeError::new(
            ErrorKind::NotFound,
            StatusCode::NOT_FOUND,
            "the bridge serves /mcp, /bridge and /bridge/log only",
        )
        .into_response(),
    };
    reply::finish(answer, caller.origin.as_deref())
}

impl Bridge {
    /// What the page's consent screen shows: what runs, as the bridge itself says.
    fn info(&self) -> serde_json::Value {
        let (mode, sessions) = match &self.served {
            Served::Stdio(s) => ("stdio", s.sessions()),
            Served::Relay(_) => ("relay", 0),
        };
        json!({
            "bridge": env!("CARGO_PKG_VERSION"),
            "mode": mode,
            "serves": self.shown,
            "sessions": sessions,
            "max_sessions": stdio::MAX_SESSIONS,
            "origins": self.guard.origins(),
        })
    }
}
