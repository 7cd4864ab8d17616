//! The bridge's own answers: its errors, said as the bridge's (a `Loopscope-Bridge-Error` header
//! and a `{"bridge_error": …}` body), never dressed up as an MCP message, and the headers every
//! answer carries.

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Response, StatusCode, header};
use serde::Serialize;

use super::guard::{self, Refusal};

/// Marks every answer as the bridge's, so the page can tell a bridge from a server.
pub const BRIDGE_HEADER: HeaderName = HeaderName::from_static("loopscope-bridge");
pub const ERROR_HEADER: HeaderName = HeaderName::from_static("loopscope-bridge-error");

/// What went wrong on the bridge's side of the hop.
#[derive(Clone, Debug, Serialize)]
pub struct BridgeError {
    /// `spawn`, `exited`, `too_long`, `busy`, `no_session`, `too_large`, `not_json_rpc`, `relay`,
    /// `token`, `origin`, `host`, `not_found`, `stream_open`.
    pub kind: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
    #[serde(skip)]
    pub status: StatusCode,
}

impl BridgeError {
    pub fn new(kind: &'static str, status: StatusCode, message: impl Into<String>) -> BridgeError {
        BridgeError { kind, message: message.into(), exit_code: None, stderr: Vec::new(), status }
    }

    pub fn body(&self) -> String {
        serde_json::json!({ "bridge_error": self }).to_string()
    }

    pub fn into_response(self) -> Response<Body> {
        let mut r = Response::new(Body::from(self.body()));
        *r.status_mut() = self.status;
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Ok(v) = HeaderValue::from_str(self.kind) {
            r.headers_mut().insert(ERROR_HEADER, v);
        }
        r
    }
}

/// The answer to a refused request: 403, readable by the page only when its origin is allowed
/// (a wrong or missing token), so another page learns nothing but that it was refused.
pub fn refused(refusal: &Refusal, origin: Option<&str>) -> Response<Body> {
    let mut r =
        BridgeError::new(refusal.kind(), StatusCode::FORBIDDEN, format!("loopscope bridge {}", refusal.sentence()))
            .into_response();
    if let Some(origin) = origin {
        r.headers_mut().extend(guard::cors(origin));
    }
    r
}

/// Adds what every answer to an accepted request carries: the bridge's mark and CORS headers for
/// the page's origin.
pub fn finish(mut r: Response<Body>, origin: Option<&str>) -> Response<Body> {
    r.headers_mut().insert(BRIDGE_HEADER, HeaderValue::from_static(env!("CARGO_PKG_VERSION")));
    if let Some(origin) = origin {
        r.headers_mut().extend(guard::cors(origin));
    }
    r
}

/// A JSON answer.
pub fn json(status: StatusCode, body: impl Into<Body>) -> Response<Body> {
    let mut r = Response::new(body.into());
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}
