//! The bridge's own answers: its errors, said as the bridge's (a `Loopscope-Bridge-Error` header
//! and a `{"bridge_error": …}` body), never dressed up as an MCP message, and the headers every
//! answer carries.

use axum::body::Body;
use axum::http::{HeaderName, HeaderValue, Response, StatusCode, header};
use protocol::bridge::{ERROR_HEADER, ErrorBody, ErrorKind, MARK_HEADER};

use super::guard::{self, Refusal};

/// What went wrong on the bridge's side of the hop (its wire: `protocol::bridge::ErrorBody`).
#[derive(Clone, Debug)]
pub struct BridgeError {
    pub error: ErrorBody,
    pub status: StatusCode,
}

impl BridgeError {
    pub fn new(kind: ErrorKind, status: StatusCode, message: impl Into<String>) -> BridgeError {
        BridgeError { error: ErrorBody { kind, message: message.into(), exit_code: None, stderr: Vec::new() }, status }
    }

    pub fn body(&self) -> String {
        serde_json::json!({ "bridge_error": self.error }).to_string()
    }

    pub fn into_response(self) -> Response<Body> {
        let mut r = Response::new(Body::from(self.body()));
        *r.status_mut() = self.status;
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        r.headers_mut()
            .insert(HeaderName::from_static(ERROR_HEADER), HeaderValue::from_static(self.error.kind.as_str()));
        r
    }
}

/// The largest body a request may carry (the page's own limit).
pub const MAX_BODY: usize = 16 * 1024 * 1024;

/// A request's whole body, up to [`MAX_BODY`].
pub async fn read_body(body: Body) -> Result<bytes::Bytes, BridgeError> {
    axum::body::to_bytes(body, MAX_BODY).await.map_err(|_| {
        BridgeError::new(
            ErrorKind::TooLarge,
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a body over {} MiB", MAX_BODY / (1024 * 1024)),
        )
    })
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
    r.headers_mut().insert(HeaderName::from_static(MARK_HEADER), HeaderValue::from_static(env!("CARGO_PKG_VERSION")));
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
