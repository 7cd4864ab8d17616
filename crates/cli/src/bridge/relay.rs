//! `--to`: one HTTP MCP server on this machine that sends no CORS headers, relayed unchanged.
//! The bridge adds only what the browser needs (CORS for allowed origins, its mark) and takes
//! away only its own token: the server sees a request from a program on its machine, as it
//! would from any native client (no `Origin`, no cookies), at the address fixed at start.

use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderName, Method, Response, StatusCode};
use protocol::bridge::ErrorKind;
use reqwest::Url;

use super::reply::{self, BridgeError};

/// Request headers passed on (besides any `Mcp-*`).
const FORWARD: [&str; 4] = ["content-type", "accept", "last-event-id", "cache-control"];
/// Response headers passed back (besides any `Mcp-*`).
const BACK: [&str; 4] = ["content-type", "cache-control", "www-authenticate", "retry-after"];

pub struct Relay {
    url: Url,
    client: reqwest::Client,
}

impl Relay {
    pub fn new(url: Url) -> Relay {
        let client = reqwest::Client::builder()
            // A redirect would take the request somewhere the command line did not name.
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .tcp_nodelay(true)
            .connect_timeout(Duration::from_secs(10))
            .build()
            .unwrap_or_default();
        Relay { url, client }
    }

    pub async fn handle(&self, method: &Method, headers: &HeaderMap, body: Body) -> Response<Body> {
        self.relay(method, headers, body).await.unwrap_or_else(BridgeError::into_response)
    }

    async fn relay(&self, method: &Method, headers: &HeaderMap, body: Body) -> Result<Response<Body>, BridgeError> {
        let body = reply::read_body(body).await?;
        let mut request = self.client.request(method.clone(), self.url.clone()).body(body);
        for (name, value) in headers {
            if passes(name, &FORWARD) {
                request = request.header(name, value);
            }
        }
        let answer = request.send().await.map_err(|e| {
            let why =
                if e.is_connect() { "nothing answers there (is the server running?)" } else { "the connection failed" };
            BridgeError::new(
                ErrorKind::Relay,
                StatusCode::BAD_GATEWAY,
                format!("the server at {} did not answer: {why}", self.url),
            )
        })?;
        let mut r = Response::new(Body::empty());
        *r.status_mut() = answer.status();
        for (name, value) in answer.headers() {
            if passes(name, &BACK) {
                r.headers_mut().append(name, value.clone());
            }
        }
        *r.body_mut() = Body::from_stream(answer.bytes_stream());
        Ok(r)
    }
}

fn passes(name: &HeaderName, list: &[&str]) -> bool {
    let name = name.as_str();
    list.contains(&name) || name.starts_with("mcp-")
}
