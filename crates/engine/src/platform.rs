//! What the engine needs from the world: HTTP with a streamed body, a clock, a timer and
//! randomness.
//!
//! The page implements it over `fetch` and `setTimeout`; tests implement it natively. Futures
//! are not `Send`: the browser is single-threaded and so is everything the engine runs on.

use futures::stream::LocalBoxStream;
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Method {
    Get,
    Post,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Delete => "DELETE",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Header names are stored lowercase; lookups are case-insensitive.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Headers(Vec<(String, String)>);

impl Headers {
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a header, replacing any earlier value of the same name.
    pub fn set(&mut self, name: &str, value: impl Into<String>) {
        let name = name.to_ascii_lowercase();
        self.0.retain(|(n, _)| *n != name);
        self.0.push((name, value.into()));
    }

    pub fn with(mut self, name: &str, value: impl Into<String>) -> Self {
        self.set(name, value);
        self
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

impl FromIterator<(String, String)> for Headers {
    fn from_iter<T: IntoIterator<Item = (String, String)>>(iter: T) -> Self {
        let mut h = Headers::new();
        for (n, v) in iter {
            h.set(&n, v);
        }
        h
    }
}

/// Whether a request may follow the server's redirects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Redirects {
    /// Followed; the final address is the response's `final_url`, for the timeline to show.
    #[default]
    Follow,
    /// Never followed: the request carries a secret (a key, a token, the user's headers) that
    /// must not reach whatever the server redirects to. A redirect is then an error
    /// ([`NetworkError::redirect_refused`]); a browser does not even say where it pointed.
    Refuse,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Headers,
    pub body: Option<String>,
    pub redirects: Redirects,
}

impl HttpRequest {
    /// A GET with no headers, following redirects (a document anyone may read).
    pub fn get(url: impl Into<String>) -> Self {
        HttpRequest {
            method: Method::Get,
            url: url.into(),
            headers: Headers::new(),
            body: None,
            redirects: Redirects::Follow,
        }
    }
}

/// The body arrives as a stream of byte chunks, split wherever the network split it.
pub type Body = LocalBoxStream<'static, Result<Vec<u8>, NetworkError>>;

pub struct HttpResponse {
    pub status: u16,
    pub headers: Headers,
    pub body: Body,
    /// Where the answer came from, when a redirect was followed to another URL.
    pub final_url: Option<String>,
}

impl HttpResponse {
    pub fn new(status: u16, headers: Headers, body: Body) -> Self {
        HttpResponse { status, headers, body, final_url: None }
    }
}

impl fmt::Debug for HttpResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpResponse").field("status", &self.status).field("headers", &self.headers).finish()
    }
}

/// The request never got an HTTP answer, or the body broke off. In a browser a CORS refusal
/// looks exactly like this (fetch gives a bare `TypeError`), so the UI says so.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct NetworkError {
    pub message: String,
    /// The server answered with a redirect that this request may not follow ([`Redirects::Refuse`]).
    pub redirect_refused: bool,
}

impl NetworkError {
    pub fn new(message: impl Into<String>) -> Self {
        Self { message: message.into(), redirect_refused: false }
    }

    /// A redirect a request that carries a secret did not follow.
    pub fn redirect_refused() -> Self {
        Self {
            message: "the server answered with a redirect, which a request carrying a key, a token or your headers \
                      never follows (they would go to wherever it points)"
                .into(),
            redirect_refused: true,
        }
    }
}

/// The engine's window on the world. Dropping a future returned by `send`, or the body of its
/// response, must abort the underlying request.
#[allow(async_fn_in_trait)] // single-threaded by design: no Send bounds wanted
pub trait Platform {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, NetworkError>;
    /// Whether anything answers at `url` at all, CORS aside; `None` when it cannot tell. A
    /// browser finds out with an opaque `no-cors` request, which succeeds whenever something
    /// answers and fails when nothing does; elsewhere any HTTP answer counts. Tells "server
    /// down" from "CORS" after a failure.
    async fn answers(&self, url: &str) -> Option<bool> {
        Some(self.send(HttpRequest::get(url)).await.is_ok())
    }
    /// Milliseconds since the Unix epoch, with sub-millisecond precision where available.
    fn now_ms(&self) -> f64;
    async fn sleep(&self, ms: u64);
    /// A uniformly distributed number in [0, 1), for retry jitter.
    fn random(&self) -> f64;
    /// Fills `buf` from a cryptographically secure generator (PKCE verifiers, OAuth `state`).
    fn random_bytes(&self, buf: &mut [u8]);
    /// Signs `message` with ECDSA on P-256 and SHA-256, as JWS ES256 wants it (the 64 bytes
    /// r‖s), with a PKCS #8 private key: a `private_key_jwt` client assertion. The page uses the
    /// browser's WebCrypto (secure contexts only); a platform without a signer says so.
    async fn sign_es256(&self, pkcs8_der: &[u8], message: &[u8]) -> Result<Vec<u8>, String> {
        let _ = (pkcs8_der, message);
        Err("this platform cannot sign with a private key".into())
    }
    /// A fresh P-256 key pair for DPoP (RFC 9449): the private key as PKCS #8 (to sign with
    /// `sign_es256`; it stays in this page's memory) and the public key's `x` and `y`, base64url,
    /// as a JWK carries them. The page makes it with WebCrypto (secure contexts only).
    async fn generate_es256(&self) -> Result<(Vec<u8>, String, String), String> {
        Err("this platform cannot make keys".into())
    }
}

/// A shared platform is a platform (the page and the tests hand out `Rc`s).
impl<P: Platform> Platform for std::rc::Rc<P> {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, NetworkError> {
        (**self).send(request).await
    }
    async fn answers(&self, url: &str) -> Option<bool> {
        (**self).answers(url).await
    }
    fn now_ms(&self) -> f64 {
        (**self).now_ms()
    }
    async fn sleep(&self, ms: u64) {
        (**self).sleep(ms).await
    }
    fn random(&self) -> f64 {
        (**self).random()
    }
    fn random_bytes(&self, buf: &mut [u8]) {
        (**self).random_bytes(buf)
    }
    async fn sign_es256(&self, pkcs8_der: &[u8], message: &[u8]) -> Result<Vec<u8>, String> {
        (**self).sign_es256(pkcs8_der, message).await
    }
    async fn generate_es256(&self) -> Result<(Vec<u8>, String, String), String> {
        (**self).generate_es256().await
    }
}
