//! An MCP server that asks for authorization the 2025-03-26 way: a bare `401` with no
//! Protected Resource Metadata anywhere, and authorization server metadata at its origin's
//! RFC 8414 place, naming whatever issuer the test gives it (a real server of that era puts it
//! under a path, `…/oauth`; a hostile one names another origin). With `prm`, the modern path
//! instead: Protected Resource Metadata naming the origin as the authorization server. Nothing
//! is served after registration: the tests look at what discovery accepted and what it sent.
//! Its metadata offers the JWT-bearer grant too, so a test can start the grants a user pastes.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, Response, Uri};
use serde_json::json;
use std::sync::{Arc, Mutex};

use crate::http::{Log, Recorded, Serving, json, preflight, record, response, serve};

struct Inner {
    log: Log,
    /// The metadata's `issuer`, from the server's base URL.
    issuer: Box<dyn Fn(&str) -> String + Send + Sync>,
    prm: bool,
    base: Mutex<String>,
}

pub struct LegacyAuth {
    inner: Arc<Inner>,
    serving: Serving,
}

impl LegacyAuth {
    /// Starts the server; `issuer` makes the metadata's issuer from the base URL.
    pub async fn start(issuer: impl Fn(&str) -> String + Send + Sync + 'static, prm: bool) -> Self {
        let inner =
            Arc::new(Inner { log: Log::default(), issuer: Box::new(issuer), prm, base: Mutex::new(String::new()) });
        let router = Router::new().fallback(handle).with_state(inner.clone());
        let serving = serve(router, 0).await;
        *inner.base.lock().unwrap() = serving.base();
        LegacyAuth { inner, serving }
    }

    pub fn url(&self) -> String {
        format!("{}/mcp", self.serving.base())
    }

    /// Every request, as `METHOD /path`, in order.
    pub fn requests(&self) -> Vec<String> {
        let log = self.inner.log.lock().unwrap();
        log.iter().filter(|r: &&Recorded| r.method != "OPTIONS").map(|r| format!("{} {}", r.method, r.path)).collect()
    }
}

async fn handle(
    State(inner): State<Arc<Inner>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response<Body> {
    let path = uri.path().to_owned();
    record(&inner.log, method.as_str(), &path, &headers, &body);
    if method == Method::OPTIONS {
        return preflight();
    }
    let base = inner.base.lock().unwrap().clone();
    let mut resp = match path.as_str() {
        "/mcp" => {
            let mut r = response(401, "text/plain", "Unauthorized");
            r.headers_mut().insert("www-authenticate", "Bearer".parse().unwrap());
            r
        }
        p if p.starts_with("/.well-known/oauth-protected-resource") && inner.prm => {
            json(200, &json!({ "resource": format!("{base}/mcp"), "authorization_servers": [base] }))
        }
        "/.well-known/oauth-authorization-server" => json(
            200,
            &json!({
                "issuer": (inner.issuer)(&base),
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": ["authorization_code", "urn:ietf:params:oauth:grant-type:jwt-bearer"],
            }),
        ),
        "/register" => json(201, &json!({ "client_id": "legacy-client", "redirect_uris": ["http://127.0.0.1:1/cb"] })),
        _ => response(404, "text/plain", "Not Found"),
    };
    crate::http::allow_cors(resp.headers_mut());
    resp
}
