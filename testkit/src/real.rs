//! Real MCP servers as child processes, killed when their handle drops.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::{free_port, repo_root, wait_listening};

/// A running server; `url` is its MCP endpoint.
pub struct RealServer {
    pub url: String,
    pub port: u16,
    child: Child,
    name: &'static str,
}

impl Drop for RealServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl RealServer {
    /// Starts `cmd`, its output going to target/test-servers/NAME-PORT.log (named in any panic).
    fn start(name: &'static str, mut cmd: Command, port: u16) -> Self {
        let dir = repo_root().join("target/test-servers");
        std::fs::create_dir_all(&dir).expect("create target/test-servers");
        let log_path = dir.join(format!("{}-{port}.log", name.replace(' ', "-")));
        let log = std::fs::File::create(&log_path).expect("create the server log");
        cmd.stdin(Stdio::null()).stdout(log.try_clone().expect("log handle")).stderr(log);
        let child =
            cmd.spawn().unwrap_or_else(|e| panic!("cannot start {name}: {e} (run ./scripts/test once to install it)"));
        let mut server = RealServer { url: format!("http://127.0.0.1:{port}/mcp"), port, child, name };
        if !wait_listening(port, Duration::from_secs(20)) {
            let status = server.child.try_wait().ok().flatten();
            let output = std::fs::read_to_string(&log_path).unwrap_or_default();
            let tail: Vec<&str> = output.lines().rev().take(15).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            panic!(
                "{} did not listen on 127.0.0.1:{port} within 20 s (exit status: {status:?}); its output ({}) ends:\n{}",
                server.name,
                log_path.display(),
                tail.join("\n")
            );
        }
        server
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Stops the server now (to test what the client does when a server goes away).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `@modelcontextprotocol/server-everything` in Streamable HTTP mode. It listens on every
/// interface by default; the loopback preload forces 127.0.0.1.
pub fn everything() -> RealServer {
    everything_on(free_port())
}

pub fn everything_on(port: u16) -> RealServer {
    npm_server("server-everything", "server-everything", &["streamableHttp"], port)
}

/// A server from npm that reads its port from `PORT`, kept on 127.0.0.1 by the loopback preload.
fn npm_server(name: &'static str, package: &str, args: &[&str], port: u16) -> RealServer {
    let root = repo_root();
    let mut cmd = Command::new("node");
    cmd.current_dir(&root)
        .arg("--require")
        .arg(root.join("tests/servers/loopback.cjs"))
        .arg(root.join(format!("node_modules/@modelcontextprotocol/{package}/dist/index.js")))
        .args(args)
        .env("PORT", port.to_string());
    RealServer::start(name, cmd, port)
}

/// `@modelcontextprotocol/server-debug`, the MCP Apps example server of the `ext-apps`
/// repository: a tool with an app (`debug-tool`) and two tools for its app only (`debug-refresh`,
/// `debug-log`, `visibility: ["app"]`). It binds every interface; the loopback preload forces
/// 127.0.0.1.
pub fn apps_debug() -> RealServer {
    apps_debug_on(free_port())
}

pub fn apps_debug_on(port: u16) -> RealServer {
    npm_server("server-debug (MCP Apps)", "server-debug", &[], port)
}

/// `@modelcontextprotocol/server-basic-vanillajs`, the ext-apps repository's plainest example
/// app: `get-time`, whose app shows the server's time and can fetch it again through the host.
/// Speaks up to 2025-11-25; binds every interface unless the loopback preload keeps it in.
pub fn apps_basic_on(port: u16) -> RealServer {
    npm_server("server-basic-vanillajs (MCP Apps)", "server-basic-vanillajs", &[], port)
}

/// How our Python SDK server answers (see tests/servers/py_server.py).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PyMode {
    /// The SDK's default: sessions and SSE responses.
    Sse,
    /// `json_response=True`.
    Json,
    /// `stateless_http=True`.
    Stateless,
}

pub fn python(mode: PyMode) -> RealServer {
    python_on(free_port(), mode, true)
}

pub fn python_on(port: u16, mode: PyMode, cors: bool) -> RealServer {
    let root = repo_root();
    let mut cmd = Command::new(root.join(".venv/bin/python"));
    cmd.arg(root.join("tests/servers/py_server.py")).arg("--port").arg(port.to_string()).arg("--mode").arg(
        match mode {
            PyMode::Sse => "sse",
            PyMode::Json => "json",
            PyMode::Stateless => "stateless",
        },
    );
    if !cors {
        cmd.arg("--no-cors");
    }
    RealServer::start("python MCP SDK server", cmd, port)
}

/// Our server on the TypeScript SDK v2 (tests/servers/ts_server.mjs): the 2026-07-28 revision,
/// and the 2025 handshake too unless `reject_legacy` (the SDK's `legacy: 'reject'`).
pub fn ts_v2(reject_legacy: bool) -> RealServer {
    ts_v2_on(free_port(), reject_legacy)
}

pub fn ts_v2_on(port: u16, reject_legacy: bool) -> RealServer {
    let root = repo_root();
    let mut cmd = Command::new("node");
    cmd.current_dir(&root)
        .arg(root.join("tests/servers/ts_server.mjs"))
        .arg("--port")
        .arg(port.to_string())
        .arg("--legacy")
        .arg(if reject_legacy { "reject" } else { "stateless" });
    RealServer::start(
        if reject_legacy { "TypeScript SDK v2 server (reject)" } else { "TypeScript SDK v2 server" },
        cmd,
        port,
    )
}

/// Our server on the Python SDK 2.x (tests/servers/py2_server.py, in .venv-mcp2): dual-era.
pub fn python2() -> RealServer {
    python2_on(free_port())
}

pub fn python2_on(port: u16) -> RealServer {
    let root = repo_root();
    let mut cmd = Command::new(root.join(".venv-mcp2/bin/python"));
    cmd.arg(root.join("tests/servers/py2_server.py")).arg("--port").arg(port.to_string());
    RealServer::start("python MCP SDK 2 server", cmd, port)
}

/// An OAuth-protected MCP server: a real authorization server (oidc-provider,
/// tests/servers/auth_server.mjs) and our TypeScript SDK v2 server as its resource server. Both
/// stop when this drops.
pub struct OAuthStack {
    pub mcp: RealServer,
    pub authorization: RealServer,
}

/// Which of the authorization server's endpoints a browser may read (CORS).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthCors {
    /// All of them, registration included.
    All,
    /// All but registration, as oidc-provider ships: a page cannot register itself.
    NoRegistration,
    None,
}

/// How the stack's authorization server is set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OAuthOptions {
    pub cors: AuthCors,
    /// Access tokens live this many seconds.
    pub ttl_s: u32,
}

impl Default for OAuthOptions {
    fn default() -> Self {
        Self { cors: AuthCors::All, ttl_s: 3600 }
    }
}

pub fn oauth(options: OAuthOptions) -> OAuthStack {
    oauth_on(free_port(), free_port(), options)
}

pub fn oauth_on(mcp_port: u16, as_port: u16, options: OAuthOptions) -> OAuthStack {
    let root = repo_root();
    let mut cmd = Command::new("node");
    cmd.current_dir(&root)
        .arg(root.join("tests/servers/auth_server.mjs"))
        .arg("--port")
        .arg(as_port.to_string())
        .arg("--ttl")
        .arg(options.ttl_s.to_string())
        .arg("--cors")
        .arg(match options.cors {
            AuthCors::All => "all",
            AuthCors::NoRegistration => "no-registration",
            AuthCors::None => "none",
        });
    let authorization = RealServer::start("oidc-provider authorization server", cmd, as_port);
    let mut cmd = Command::new("node");
    cmd.current_dir(&root)
        .arg(root.join("tests/servers/ts_server.mjs"))
        .arg("--port")
        .arg(mcp_port.to_string())
        .arg("--auth")
        .arg(format!("http://127.0.0.1:{as_port}"));
    let mcp = RealServer::start("TypeScript SDK v2 server (OAuth)", cmd, mcp_port);
    OAuthStack { mcp, authorization }
}
