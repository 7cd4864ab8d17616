//! What every fixture server shares: serving on loopback, recording requests, CORS answers
//! like a permissive real server, and SSE bodies written chunk by chunk.

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode};
use bytes::Bytes;
use futures::channel::mpsc;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// One request as the fixture saw it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC method of the body, if it is a JSON-RPC message.
    pub fn rpc_method(&self) -> Option<String> {
        let v: serde_json::Value = serde_json::from_str(&self.body).ok()?;
        v.get("method").and_then(|m| m.as_str()).map(str::to_owned)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

pub type Log = Arc<Mutex<Vec<Recorded>>>;

pub fn record(log: &Log, method: &str, path: &str, headers: &HeaderMap, body: &[u8]) {
    let headers = headers.iter().map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("").to_owned())).collect();
    log.lock().unwrap().push(Recorded {
        method: method.to_owned(),
        path: path.to_owned(),
        headers,
        body: String::from_utf8_lossy(body).into_owned(),
    });
}

/// A server running in the current tokio runtime; stops when dropped.
pub struct Serving {
    pub port: u16,
    _stop: oneshot::Sender<()>,
}

impl Serving {
    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// Serves `router` on 127.0.0.1:`port` (0 for any free port).
pub async fn serve(router: Router, port: u16) -> Serving {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind 127.0.0.1");
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await;
    });
    Serving { port, _stop: stop }
}

/// CORS headers a permissive server sends (what MCP servers must send for a browser: C-42).
pub fn allow_cors(headers: &mut HeaderMap) {
    headers.insert("access-control-allow-origin", HeaderValue::from_static("*"));
    headers.insert(
        "access-control-expose-headers",
        HeaderValue::from_static("mcp-session-id, mcp-protocol-version, www-authenticate, request-id, retry-after"),
    );
}

/// The answer to a CORS preflight.
pub fn preflight() -> Response<Body> {
    let mut r = Response::new(Body::empty());
    *r.status_mut() = StatusCode::NO_CONTENT;
    let h = r.headers_mut();
    allow_cors(h);
    h.insert("access-control-allow-methods", HeaderValue::from_static("GET, POST, DELETE, OPTIONS"));
    h.insert("access-control-allow-headers", HeaderValue::from_static("*"));
    h.insert("access-control-max-age", HeaderValue::from_static("600"));
    r
}

pub fn response(status: u16, content_type: &str, body: impl Into<Body>) -> Response<Body> {
    let mut r = Response::new(body.into());
    *r.status_mut() = StatusCode::from_u16(status).expect("valid status");
    if !content_type.is_empty() {
        r.headers_mut().insert("content-type", HeaderValue::from_str(content_type).unwrap());
    }
    r
}

pub fn json(status: u16, value: &serde_json::Value) -> Response<Body> {
    response(status, "application/json", value.to_string())
}

/// One item of a streamed body: bytes to write, a pause, or a broken connection.
pub enum Chunk {
    Bytes(String),
    Wait(u64),
    /// Ends the body with an error: the client sees the connection break mid-stream.
    Break,
}

/// A `text/event-stream` response written from `chunks`, in order, with the pauses given.
pub fn sse(chunks: Vec<Chunk>) -> Response<Body> {
    let (tx, rx) = mpsc::unbounded::<Result<Bytes, std::io::Error>>();
    tokio::spawn(async move {
        for c in chunks {
            match c {
                Chunk::Bytes(s) => {
                    if tx.unbounded_send(Ok(Bytes::from(s))).is_err() {
                        return;
                    }
                }
                Chunk::Wait(ms) => tokio::time::sleep(std::time::Duration::from_millis(ms)).await,
                Chunk::Break => {
                    let _ = tx.unbounded_send(Err(std::io::Error::other("fixture breaks the stream")));
                    return;
                }
            }
        }
    });
    let mut r = response(200, "text/event-stream", Body::from_stream(rx));
    r.headers_mut().insert("cache-control", HeaderValue::from_static("no-cache"));
    r
}

/// One SSE event carrying `data` (and an id when given).
pub fn event(id: Option<&str>, data: &serde_json::Value) -> String {
    match id {
        Some(id) => format!("id: {id}\nevent: message\ndata: {data}\n\n"),
        None => format!("event: message\ndata: {data}\n\n"),
    }
}
