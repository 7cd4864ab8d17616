//! Streamable HTTP in front of stdio children: what a POST, GET or DELETE on `/mcp` does.
//! `initialize` without a session starts a child and a session (`Mcp-Session-Id`); any other
//! request without one goes to one shared child (a 2026-07-28 server has no sessions, and a
//! 2025 one answers its `server/discover` probe with an error either way).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, Response, StatusCode, header};
use bytes::Bytes;
use protocol::bridge::ErrorKind;
use serde_json::Value;

use super::child::{self, Child, Out, Program};
use super::log::Log;
use super::reply::{self, BridgeError};

/// Children at once (each is a process of the user's).
pub const MAX_SESSIONS: usize = 32;
const SESSION: &str = "mcp-session-id";

pub struct Stdio {
    program: Program,
    sessions: Arc<Mutex<HashMap<String, Arc<Child>>>>,
    shared: Arc<Mutex<Option<Arc<Child>>>>,
    log: Arc<Log>,
}

impl Stdio {
    pub fn new(program: Program, log: Arc<Log>) -> Stdio {
        Stdio { program, sessions: Arc::default(), shared: Arc::default(), log }
    }

    pub fn sessions(&self) -> usize {
        self.sessions.lock().map(|s| s.len()).unwrap_or(0)
    }

    pub async fn handle(&self, method: &Method, headers: &HeaderMap, body: Body) -> Response<Body> {
        let result = match *method {
            Method::POST => self.post(headers, body).await,
            Method::GET => self.get(headers),
            Method::DELETE => self.delete(headers).await,
            _ => Err(BridgeError::new(
                ErrorKind::NotFound,
                StatusCode::METHOD_NOT_ALLOWED,
                "the MCP endpoint takes POST, GET and DELETE",
            )),
        };
        result.unwrap_or_else(BridgeError::into_response)
    }

    fn session(&self, headers: &HeaderMap) -> Result<Option<Arc<Child>>, BridgeError> {
        let Some(id) = headers.get(SESSION) else { return Ok(None) };
        let id = id.to_str().unwrap_or_default();
        self.sessions.lock().ok().and_then(|s| s.get(id).cloned()).map(Some).ok_or_else(|| {
            BridgeError::new(
                ErrorKind::NoSession,
                StatusCode::NOT_FOUND,
                "no such session: it ended (its process exited, or it was closed) or belongs to an earlier run of the \
                 bridge; connect again",
            )
        })
    }

    fn start(&self, session: Option<String>) -> Result<Arc<Child>, BridgeError> {
        let sessions = Arc::clone(&self.sessions);
        let shared = Arc::clone(&self.shared);
        // Wherever it is by then (a session-less child may have been adopted by a session).
        Child::start(&self.program, session, Arc::clone(&self.log), move |ended: &Child| {
            if let Ok(mut s) = sessions.lock() {
                s.retain(|_, c| !std::ptr::eq(&**c, ended));
            }
            if let Ok(mut s) = shared.lock()
                && s.as_deref().is_some_and(|c| std::ptr::eq(c, ended))
            {
                s.take();
            }
        })
    }

    async fn post(&self, headers: &HeaderMap, body: Body) -> Result<Response<Body>, BridgeError> {
        let body = reply::read_body(body).await?;
        let message: Value = serde_json::from_slice(&body).map_err(|e| {
            BridgeError::new(
                ErrorKind::NotJsonRpc,
                StatusCode::BAD_REQUEST,
                format!("the body is not JSON ({e}): the bridge passes on JSON-RPC messages only"),
            )
        })?;
        if message.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(BridgeError::new(
                ErrorKind::NotJsonRpc,
                StatusCode::BAD_REQUEST,
                "the body is not one JSON-RPC 2.0 message (batches are not passed on: MCP removed them in 2025-06-18)",
            ));
        }
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|_| method.is_some());
        let (child, new_session) = match self.session(headers)? {
            Some(child) => (child, None),
            None if method == Some("initialize") => {
                if self.sessions() >= MAX_SESSIONS {
                    return Err(BridgeError::new(
                        ErrorKind::Busy,
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!(
                            "the bridge runs at most {MAX_SESSIONS} sessions at once; close one (or restart the bridge)"
                        ),
                    ));
                }
                let session = token_hex(16);
                // The child the page's probe started, if it is still fresh; else a new one.
                let probed = self.shared.lock().ok().and_then(|mut s| s.take_if(|c| c.adopt(&session)));
                let child = match probed {
                    Some(child) => child,
                    None => self.start(Some(session.clone()))?,
                };
                child.note_initialize();
                if let Ok(mut s) = self.sessions.lock() {
                    s.insert(session.clone(), Arc::clone(&child));
                }
                (child, Some(session))
            }
            None => {
                // Looked for and started under one lock: two first requests at once start one child.
                let mut shared = self.shared.lock().map_err(|_| {
                    BridgeError::new(
                        ErrorKind::Other,
                        StatusCode::INTERNAL_SERVER_ERROR,
                        "the bridge's state is broken",
                    )
                })?;
                let child = match shared.as_ref() {
                    Some(c) => Arc::clone(c),
                    None => {
                        let c = self.start(None)?;
                        *shared = Some(Arc::clone(&c));
                        c
                    }
                };
                drop(shared);
                (child, None)
            }
        };
        let Some(id) = id else {
            // A notification, or a response to the server's own request: nothing comes back.
            child.send(&body).await?;
            let mut r = Response::new(Body::empty());
            *r.status_mut() = StatusCode::ACCEPTED;
            return Ok(r);
        };
        let key = child::key(id);
        let streams = accepts(headers, "text/event-stream");
        let (token, mut rx) = wait_turn(&child, key, streams).await?;
        let forget = Forget { child: Arc::clone(&child), token };
        if let Err(e) = child.send(&body).await {
            drop(forget);
            return Err(e);
        }
        let first = rx.recv().await;
        let response = match first {
            Some(Out::Response(bytes)) => reply::json(StatusCode::OK, bytes),
            Some(Out::Failed(e)) => return Err(e),
            None => {
                return Err(child.ending().unwrap_or_else(|| {
                    BridgeError::new(ErrorKind::Exited, StatusCode::BAD_GATEWAY, "the server's process has ended")
                }));
            }
            Some(Out::Message(bytes)) => {
                let rest = futures::stream::unfold((Some(rx), forget), |(rx, forget)| async move {
                    let mut rx = rx?;
                    match rx.recv().await {
                        Some(Out::Message(b)) => Some((event(&b), (Some(rx), forget))),
                        Some(Out::Response(b)) => Some((event(&b), (None, forget))),
                        Some(Out::Failed(e)) => {
                            Some((Bytes::from(format!("event: bridge-error\ndata: {}\n\n", e.body())), (None, forget)))
                        }
                        None => None,
                    }
                });
                let first = futures::stream::iter([event(&bytes)]);
                let stream =
                    futures::StreamExt::map(futures::StreamExt::chain(first, rest), Ok::<_, std::convert::Infallible>);
                let mut r = Response::new(Body::from_stream(stream));
                r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
                r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
                return Ok(with_session(r, new_session));
            }
        };
        Ok(with_session(response, new_session))
    }

    fn get(&self, headers: &HeaderMap) -> Result<Response<Body>, BridgeError> {
        let Some(child) = self.session(headers)? else {
            return Err(BridgeError::new(
                ErrorKind::NotFound,
                StatusCode::METHOD_NOT_ALLOWED,
                "a GET stream belongs to a session: send Mcp-Session-Id",
            ));
        };
        if !accepts(headers, "text/event-stream") {
            return Err(BridgeError::new(
                ErrorKind::NotFound,
                StatusCode::NOT_ACCEPTABLE,
                "a GET stream is text/event-stream: say so in Accept",
            ));
        }
        let rx = child.open_stream().ok_or_else(|| {
            BridgeError::new(
                ErrorKind::StreamOpen,
                StatusCode::CONFLICT,
                "this session's GET stream is open already (one at a time)",
            )
        })?;
        let stream = futures::stream::unfold(rx, |mut rx| async move {
            rx.recv().await.map(|b| (Ok::<_, std::convert::Infallible>(event(&b)), rx))
        });
        let mut r = Response::new(Body::from_stream(stream));
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        r.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        Ok(r)
    }

    async fn delete(&self, headers: &HeaderMap) -> Result<Response<Body>, BridgeError> {
        let Some(child) = self.session(headers)? else {
            return Err(BridgeError::new(
                ErrorKind::NoSession,
                StatusCode::BAD_REQUEST,
                "DELETE ends a session: send its Mcp-Session-Id",
            ));
        };
        if let (Some(id), Ok(mut s)) = (child.session(), self.sessions.lock()) {
            s.remove(&id);
        }
        child.end().await;
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NO_CONTENT;
        Ok(r)
    }

    /// Ends every child (the bridge is stopping).
    pub async fn end_all(&self) {
        let mut all: Vec<Arc<Child>> = self.sessions.lock().map(|s| s.values().cloned().collect()).unwrap_or_default();
        all.extend(self.shared.lock().ok().and_then(|s| s.clone()));
        futures::future::join_all(all.iter().map(|c| c.end())).await;
    }
}

/// Stops waiting for a response when the POST is answered or its client goes away.
struct Forget {
    child: Arc<Child>,
    token: u64,
}

impl Drop for Forget {
    fn drop(&mut self) {
        self.child.forget(self.token);
    }
}

/// How long a request waits for another with the same id to be answered (on the session-less
/// child, which every client without a session shares).
const SAME_ID_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Registers the wait for `key`'s answer, after any other request with that id has its own.
async fn wait_turn(
    child: &Child,
    key: String,
    streams: bool,
) -> Result<(u64, tokio::sync::mpsc::Receiver<Out>), BridgeError> {
    let deadline = tokio::time::Instant::now() + SAME_ID_WAIT;
    loop {
        // Listening before looking, so a wait that ends in between is not missed.
        let freed = child.freed().notified();
        tokio::pin!(freed);
        freed.as_mut().enable();
        if let Some(turn) = child.expect(key.clone(), streams)? {
            return Ok(turn);
        }
        if tokio::time::timeout_at(deadline, freed).await.is_err() {
            return Err(BridgeError::new(
                ErrorKind::Busy,
                StatusCode::SERVICE_UNAVAILABLE,
                format!("another request with id {key} has waited for the server's answer for 30 s; try again"),
            ));
        }
    }
}

fn with_session(mut r: Response<Body>, session: Option<String>) -> Response<Body> {
    if let Some(v) = session.and_then(|s| HeaderValue::from_str(&s).ok()) {
        r.headers_mut().insert(SESSION, v);
    }
    r
}

/// One SSE event holding one message (a stdio line has no line breaks).
fn event(message: &[u8]) -> Bytes {
    let mut out = Vec::with_capacity(message.len() + 16);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(message);
    out.extend_from_slice(b"\n\n");
    Bytes::from(out)
}

fn accepts(headers: &HeaderMap, kind: &str) -> bool {
    headers.get_all(header::ACCEPT).iter().any(|v| v.to_str().is_ok_and(|v| v.contains(kind)))
}

/// `bytes` random bytes from the operating system, as hex.
pub fn token_hex(bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    if getrandom::fill(&mut buf).is_err() {
        // Without the OS's randomness there is no safe token: stop rather than guess one.
        eprintln!("loopscope bridge: the operating system gave no random bytes; stopping");
        std::process::exit(2);
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}
