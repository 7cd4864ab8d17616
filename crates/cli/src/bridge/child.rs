//! One stdio server process and the routing of what it writes. A stdio server serves one client,
//! so each session has a child of its own. Lines on its stdout are read (bounded), looked at only
//! for their `id` and `method`, and passed on as they were written: a response to the POST that
//! waits for it, a request or notification of the server's own to a POST that streams (SSE) or
//! else to the session's GET stream (held, bounded, until one opens). Its stderr and its end go
//! to the bridge's log, and an end fails whatever still waits, naming the exit code and the last
//! stderr lines.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::StatusCode;
use bytes::Bytes;
use protocol::bridge::ErrorKind;
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{mpsc, watch};

use super::lines::{self, Line};
use super::log::{Kind, Log};
use super::reply::BridgeError;

/// The longest line read from a child's stdout (the page's own limit on a body).
pub const MAX_LINE: usize = 16 * 1024 * 1024;
/// Server messages held for a GET stream not yet open.
const MAX_BACKLOG: usize = 1_000;

/// What a waiting POST receives.
#[derive(Debug)]
pub enum Out {
    /// A request or notification of the server's own (only to a POST that streams).
    Message(Bytes),
    /// The response to the POST's request: the last thing it receives.
    Response(Bytes),
    /// The child ended, or wrote a line the bridge dropped, before the response.
    Failed(BridgeError),
}

struct Waiting {
    key: String,
    /// This wait's own number (two clients of the session-less child may use one id, in turn).
    token: u64,
    streams: bool,
    tx: mpsc::Sender<Out>,
}

#[derive(Default)]
struct Routes {
    waiting: Vec<Waiting>,
    stream: Option<mpsc::Sender<Bytes>>,
    backlog: VecDeque<Bytes>,
    ended: Option<BridgeError>,
}

/// A running child.
pub struct Child {
    /// The session it serves (`None`: requests sent without one, until an `initialize` adopts it).
    session: Mutex<Option<String>>,
    /// Whether an `initialize` went to it (a child that had one is never adopted by another).
    handshaken: AtomicBool,
    tokens: std::sync::atomic::AtomicU64,
    freed: tokio::sync::Notify,
    stdin: tokio::sync::Mutex<Option<ChildStdin>>,
    routes: Mutex<Routes>,
    pid: Option<u32>,
    ended: watch::Receiver<bool>,
    kill: mpsc::Sender<()>,
    log: Arc<Log>,
}

/// What to run.
#[derive(Clone, Debug)]
pub struct Program {
    pub path: PathBuf,
    pub shown: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Just what routing needs of a JSON-RPC message.
#[derive(Deserialize)]
struct Probe {
    jsonrpc: String,
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
}

/// The key a request's id is waited for under (`1` and `"1"` are different ids).
pub fn key(id: &Value) -> String {
    id.to_string()
}

impl Child {
    /// Starts the program; `on_end` runs once it has ended (the session is then removed).
    pub fn start(
        program: &Program,
        session: Option<String>,
        log: Arc<Log>,
        on_end: impl FnOnce(&Child) + Send + 'static,
    ) -> Result<Arc<Child>, BridgeError> {
        let mut command = Command::new(&program.path);
        command.args(&program.args).envs(program.env.iter().cloned());
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
        // Its own process group, so ending it ends what it started (npx → node, uvx → python).
        #[cfg(unix)]
        command.process_group(0);
        let mut process = command.spawn().map_err(|e| {
            let message = format!("cannot start `{}`: {e}", program.shown);
            log.add(Kind::Exit, session.as_deref(), &message);
            BridgeError::new(ErrorKind::Spawn, StatusCode::BAD_GATEWAY, message)
        })?;
        log.add(Kind::Start, session.as_deref(), &format!("{} (pid {})", program.shown, process.id().unwrap_or(0)));
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (process.stdin.take(), process.stdout.take(), process.stderr.take())
        else {
            return Err(BridgeError::new(
                ErrorKind::Spawn,
                StatusCode::BAD_GATEWAY,
                "the child's pipes could not be opened",
            ));
        };
        let (ended_tx, ended) = watch::channel(false);
        let (kill, mut kill_rx) = mpsc::channel(1);
        let child = Arc::new(Child {
            session: Mutex::new(session),
            handshaken: AtomicBool::new(false),
            tokens: std::sync::atomic::AtomicU64::new(0),
            freed: tokio::sync::Notify::new(),
            stdin: tokio::sync::Mutex::new(Some(stdin)),
            routes: Mutex::default(),
            pid: process.id(),
            ended,
            kill,
            log,
        });
        let reader = Arc::clone(&child);
        tokio::spawn(async move {
            let mut stdout = BufReader::new(stdout);
            while let Ok(Some(line)) = lines::next(&mut stdout, MAX_LINE).await {
                reader.route(line).await;
            }
        });
        let errors = Arc::clone(&child);
        let stderr_done = tokio::spawn(async move {
            let mut stderr = BufReader::new(stderr);
            while let Ok(Some(line)) = lines::next(&mut stderr, super::log::MAX_TEXT).await {
                let text = match line {
                    Line::Whole(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                    Line::TooLong(n) => format!("(a line of {n} bytes, not kept)"),
                };
                errors.log.add(Kind::Stderr, errors.session().as_deref(), &text);
            }
        });
        let watcher = Arc::clone(&child);
        tokio::spawn(async move {
            let status = tokio::select! {
                status = process.wait() => status,
                _ = kill_rx.recv() => {
                    let _ = process.start_kill();
                    process.wait().await
                }
            };
            // Its last stderr lines say why; give them a moment to arrive.
            let _ = tokio::time::timeout(Duration::from_millis(500), stderr_done).await;
            watcher.ended_with(status);
            let _ = ended_tx.send(true);
            on_end(&watcher);
        });
        Ok(child)
    }

    /// Records how the child ended and fails everything that still waits.
    fn ended_with(&self, status: std::io::Result<std::process::ExitStatus>) {
        let (code, how) = match &status {
            Ok(s) => (s.code(), describe(s)),
            Err(e) => (None, format!("could not be waited for: {e}")),
        };
        let session = self.session();
        let session = session.as_deref();
        let mut error = BridgeError::new(
            ErrorKind::Exited,
            StatusCode::BAD_GATEWAY,
            format!("the server's process {how}; its session is over (the bridge is still running: connect again)"),
        );
        error.error.exit_code = code;
        error.error.stderr = self.log.stderr_tail(session, 10);
        self.log.add(Kind::Exit, session, &how);
        let Ok(mut routes) = self.routes.lock() else { return };
        for w in routes.waiting.drain(..) {
            let _ = w.tx.try_send(Out::Failed(error.clone()));
        }
        routes.stream = None;
        routes.ended = Some(error);
    }

    /// The session it serves, if any.
    pub fn session(&self) -> Option<String> {
        self.session.lock().ok().and_then(|s| s.clone())
    }

    /// Notes that an `initialize` is going to it.
    pub fn note_initialize(&self) {
        self.handshaken.store(true, Ordering::SeqCst);
    }

    /// Makes a session-less child (started for the page's `server/discover` probe, which a 2025
    /// server answers with an error and nothing else) the child of session `id`, for its
    /// `initialize`: one process per connection, not two. Only once, and never one that had a
    /// handshake of its own.
    pub fn adopt(&self, id: &str) -> bool {
        if self.handshaken.swap(true, Ordering::SeqCst) || self.ending().is_some() {
            return false;
        }
        match self.session.lock() {
            Ok(mut s) if s.is_none() => {
                *s = Some(id.to_owned());
                true
            }
            _ => false,
        }
    }

    /// How it ended, if it has.
    pub fn ending(&self) -> Option<BridgeError> {
        self.routes.lock().ok().and_then(|r| r.ended.clone())
    }

    /// Writes one message to the child's stdin as one line. JSON has no raw line breaks inside
    /// its strings, so any in the body are whitespace between tokens: they become spaces.
    pub async fn send(&self, body: &[u8]) -> Result<(), BridgeError> {
        let line: Vec<u8> =
            body.iter().map(|b| if matches!(b, b'\n' | b'\r') { b' ' } else { *b }).chain([b'\n']).collect();
        let mut stdin = self.stdin.lock().await;
        let written = match stdin.as_mut() {
            Some(pipe) => pipe.write_all(&line).await.and(pipe.flush().await).is_ok(),
            None => false,
        };
        if written {
            return Ok(());
        }
        Err(self.ending().unwrap_or_else(|| {
            BridgeError::new(
                ErrorKind::Exited,
                StatusCode::BAD_GATEWAY,
                "the server's process stopped reading its stdin",
            )
        }))
    }

    /// Waits for the response to the request with `key` (register before sending it).
    /// `None` while another request with the same id waits here (the session-less child serves
    /// every client without a session, and their ids are their own): wait for [`Self::freed`].
    pub fn expect(&self, key: String, streams: bool) -> Result<Option<(u64, mpsc::Receiver<Out>)>, BridgeError> {
        let (tx, rx) = mpsc::channel(64);
        let mut routes = self.routes.lock().map_err(|_| gone())?;
        if let Some(e) = &routes.ended {
            return Err(e.clone());
        }
        if routes.waiting.iter().any(|w| w.key == key) {
            return Ok(None);
        }
        let token = self.tokens.fetch_add(1, Ordering::SeqCst);
        routes.waiting.push(Waiting { key, token, streams, tx });
        Ok(Some((token, rx)))
    }

    /// Resolves when a wait ends (see [`Self::expect`]).
    pub fn freed(&self) -> &tokio::sync::Notify {
        &self.freed
    }

    /// Stops waiting (the POST was answered or its client went away).
    pub fn forget(&self, token: u64) {
        if let Ok(mut routes) = self.routes.lock() {
            routes.waiting.retain(|w| w.token != token);
        }
        self.freed.notify_waiters();
    }

    /// Opens the session's GET stream, with what was held for it; `None` if one is open already.
    pub fn open_stream(&self) -> Option<mpsc::Receiver<Bytes>> {
        let mut routes = self.routes.lock().ok()?;
        if routes.stream.as_ref().is_some_and(|s| !s.is_closed()) || routes.ended.is_some() {
            return None;
        }
        let (tx, rx) = mpsc::channel(MAX_BACKLOG + 64);
        for held in routes.backlog.drain(..) {
            let _ = tx.try_send(held);
        }
        routes.stream = Some(tx);
        Some(rx)
    }

    async fn route(&self, line: Line) {
        let session = self.session();
        let session = session.as_deref();
        let bytes = match line {
            Line::Whole(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => return,
            Line::Whole(bytes) => Bytes::from(bytes),
            Line::TooLong(n) => {
                let message = format!(
                    "the server wrote a line of {n} bytes on stdout, over the bridge's limit of {} MiB; it was dropped, \
                     and what waited for an answer was told so",
                    MAX_LINE / (1024 * 1024)
                );
                self.log.add(Kind::TooLong, session, &message);
                let error = BridgeError::new(ErrorKind::TooLong, StatusCode::BAD_GATEWAY, message);
                let waiting: Vec<_> = self.routes.lock().map(|mut r| r.waiting.drain(..).collect()).unwrap_or_default();
                for w in waiting {
                    let _ = w.tx.send(Out::Failed(error.clone())).await;
                }
                return;
            }
        };
        let probe = serde_json::from_slice::<Probe>(&bytes).ok().filter(|p| p.jsonrpc == "2.0");
        let Some(probe) = probe else {
            self.log.add(Kind::Junk, session, &String::from_utf8_lossy(&bytes));
            return;
        };
        match (probe.method, probe.id) {
            (None, Some(id)) => {
                // An error answer without an id (a request it could not parse) goes to the oldest.
                let tx = self.routes.lock().ok().and_then(|mut r| {
                    let i = if id.is_null() {
                        (!r.waiting.is_empty()).then_some(0)
                    } else {
                        r.waiting.iter().position(|w| w.key == key(&id))
                    };
                    i.map(|i| r.waiting.remove(i).tx)
                });
                match tx {
                    Some(tx) => {
                        let _ = tx.send(Out::Response(bytes)).await;
                    }
                    None => self.log.add(Kind::Junk, session, &format!("a response to no request waiting (id {id})")),
                }
            }
            (Some(_), _) => self.deliver(bytes).await,
            (None, None) => self.log.add(Kind::Junk, session, &String::from_utf8_lossy(&bytes)),
        }
    }

    /// A message of the server's own: to the oldest POST that streams, else the GET stream, else held.
    async fn deliver(&self, bytes: Bytes) {
        let (post, stream) = match self.routes.lock() {
            Ok(r) => (r.waiting.iter().find(|w| w.streams).map(|w| w.tx.clone()), r.stream.clone()),
            Err(_) => return,
        };
        if let Some(tx) = post
            && tx.send(Out::Message(bytes.clone())).await.is_ok()
        {
            return;
        }
        if let Some(tx) = stream
            && tx.send(bytes.clone()).await.is_ok()
        {
            return;
        }
        if let Ok(mut r) = self.routes.lock() {
            if r.backlog.len() == MAX_BACKLOG {
                r.backlog.pop_front();
            }
            r.backlog.push_back(bytes);
        }
    }

    /// Ends the child as the MCP specification says: its stdin closed, then SIGTERM, then SIGKILL
    /// (to its whole process group), two seconds apart.
    pub async fn end(&self) {
        self.stdin.lock().await.take();
        let mut ended = self.ended.clone();
        let wait = |ended: &mut watch::Receiver<bool>| {
            let mut ended = ended.clone();
            async move { tokio::time::timeout(Duration::from_secs(2), ended.wait_for(|e| *e)).await.is_ok() }
        };
        if wait(&mut ended).await {
            return;
        }
        signal_group(self.pid, false);
        if wait(&mut ended).await {
            return;
        }
        signal_group(self.pid, true);
        let _ = self.kill.try_send(());
        wait(&mut ended).await;
    }
}

fn gone() -> BridgeError {
    BridgeError::new(ErrorKind::Exited, StatusCode::BAD_GATEWAY, "the server's process has ended")
}

fn describe(status: &std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with code {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("was ended by signal {signal}");
        }
    }
    "ended".to_owned()
}

/// SIGTERM (or SIGKILL) to the child's process group; on Windows, `taskkill /T` ends the tree.
fn signal_group(pid: Option<u32>, hard: bool) {
    let Some(pid) = pid else { return };
    #[cfg(unix)]
    {
        let Ok(pid) = i32::try_from(pid) else { return };
        // SAFETY: kill(2) with a negative pid signals that process group; it touches no memory.
        unsafe {
            libc::kill(-pid, if hard { libc::SIGKILL } else { libc::SIGTERM });
        }
    }
    #[cfg(windows)]
    {
        let mut taskkill = std::process::Command::new("taskkill");
        taskkill.args(["/T", "/PID", &pid.to_string()]);
        if hard {
            taskkill.arg("/F");
        }
        let _ = taskkill.stdout(Stdio::null()).stderr(Stdio::null()).status();
    }
}

/// Where `program` is: as given when it names a path, else the first match on PATH (on Windows
/// with each of PATHEXT's endings, so `npx` finds `npx.cmd`).
pub fn find(program: &str) -> Option<PathBuf> {
    let given = PathBuf::from(program);
    if given.components().count() > 1 {
        return given.is_file().then_some(given);
    }
    let endings: Vec<String> = if cfg!(windows) {
        std::iter::once(String::new())
            .chain(
                std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into()).split(';').map(str::to_owned),
            )
            .collect()
    } else {
        vec![String::new()]
    };
    std::env::split_paths(&std::env::var_os("PATH")?)
        .find_map(|dir| endings.iter().map(|e| dir.join(format!("{program}{e}"))).find(|p| is_executable(p)))
}

fn is_executable(path: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}
