//! Who may use the bridge: the checks every request passes before anything is started or
//! relayed. In order: `Host` must be the loopback address and port served (a DNS-rebinding page
//! sends its own name); `Origin`, when a browser sends one, must be allowed (`null`, a sandboxed
//! frame, never is); and `Authorization: Bearer` must hold this run's token, compared in
//! constant time. The CORS and Local/Private Network Access preflights are answered for allowed
//! origins only.

use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use protocol::bridge::ErrorKind;
use subtle::ConstantTimeEq;

/// The request headers a page may send (the preflight asks for them by name).
const ALLOWED_HEADERS: [&str; 7] = [
    "authorization",
    "content-type",
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
    "mcp-method",
];
/// The response headers the page must be able to read.
pub const EXPOSED_HEADERS: &str =
    "mcp-session-id, mcp-protocol-version, www-authenticate, loopscope-bridge, loopscope-bridge-error";

/// Why a request was refused; each says what to do, on the bridge's side and in the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    Host(String),
    Origin(String),
    NullOrigin,
    NoToken,
    WrongToken,
}

impl Refusal {
    /// The kind the page reads (`Loopscope-Bridge-Error`).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Refusal::Host(_) => ErrorKind::Host,
            Refusal::Origin(_) | Refusal::NullOrigin => ErrorKind::Origin,
            Refusal::NoToken | Refusal::WrongToken => ErrorKind::Token,
        }
    }

    pub fn sentence(&self) -> String {
        match self {
            Refusal::Host(host) => format!(
                "refused a request for Host {host}: the bridge answers only for the address it serves (another name \
                 that points here is how DNS rebinding attacks start)"
            ),
            Refusal::Origin(origin) => format!(
                "refused a request from {origin}: that page is not allowed to use the bridge (start it with \
                 --allow-origin {origin} if it is Loopscope)"
            ),
            Refusal::NullOrigin => "refused a request from a sandboxed frame (Origin: null), such as an MCP App: \
                                    only the Loopscope page may use the bridge"
                .to_owned(),
            Refusal::NoToken => "refused a request without the bridge's token: send Authorization: Bearer <token>, \
                                 as printed when the bridge started (the connect link fills it in)"
                .to_owned(),
            Refusal::WrongToken => "refused a request with a wrong token: each run of the bridge prints a new one; \
                                    use the latest (the connect link fills it in)"
                .to_owned(),
        }
    }
}

/// What a request that passed may be answered with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The page's origin, echoed in CORS headers (`None`: not a browser).
    pub origin: Option<String>,
}

/// The checks, fixed at start.
pub struct Guard {
    token: String,
    origins: Vec<String>,
    hosts: Vec<String>,
}

impl Guard {
    /// `port` is the one actually bound; `origins` are already normalised (options.rs).
    pub fn new(token: String, origins: Vec<String>, listen: std::net::SocketAddr) -> Guard {
        let port = listen.port();
        let mut hosts = vec![format!("localhost:{port}")];
        hosts.push(match listen.ip() {
            std::net::IpAddr::V4(ip) => format!("{ip}:{port}"),
            std::net::IpAddr::V6(ip) => format!("[{ip}]:{port}"),
        });
        Guard { token, origins, hosts }
    }

    pub fn origins(&self) -> &[String] {
        &self.origins
    }

    fn host_and_origin(&self, headers: &HeaderMap) -> Result<Option<String>, Refusal> {
        let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or_default().to_ascii_lowercase();
        if !self.hosts.contains(&host) {
            return Err(Refusal::Host(shown(&host)));
        }
        match headers.get(header::ORIGIN).map(|o| o.to_str().unwrap_or_default().to_ascii_lowercase()) {
            None => Ok(None),
            Some(o) if o == "null" => Err(Refusal::NullOrigin),
            Some(o) if self.origins.contains(&o) => Ok(Some(o)),
            Some(o) => Err(Refusal::Origin(shown(&o))),
        }
    }

    /// Every request but a preflight.
    pub fn check(&self, headers: &HeaderMap) -> Result<Caller, (Refusal, Option<String>)> {
        let origin = self.host_and_origin(headers).map_err(|r| (r, None))?;
        let given = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
        match given {
            None => Err((Refusal::NoToken, origin)),
            Some(t) if bool::from(t.as_bytes().ct_eq(self.token.as_bytes())) => Ok(Caller { origin }),
            Some(_) => Err((Refusal::WrongToken, origin)),
        }
    }

    /// A CORS preflight (`OPTIONS` with `Access-Control-Request-Method`): its answer's headers for
    /// an allowed origin; a refusal (answered without CORS headers, so the browser stops) else.
    pub fn preflight(&self, headers: &HeaderMap) -> Result<HeaderMap, Refusal> {
        let origin = self.host_and_origin(headers)?.ok_or_else(|| Refusal::Origin("(no Origin)".to_owned()))?;
        let mut out = cors(&origin);
        out.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, DELETE"));
        if let Ok(v) = HeaderValue::from_str(&ALLOWED_HEADERS.join(", ")) {
            out.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, v);
        }
        out.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        let asked = |name: &'static str| {
            headers.get(HeaderName::from_static(name)).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"true"))
        };
        // Private Network Access (the draft Chrome replaced with Local Network Access, still read by
        // others): a page may reach this machine only when the answer says so.
        if asked("access-control-request-private-network") {
            out.insert(
                HeaderName::from_static("access-control-allow-private-network"),
                HeaderValue::from_static("true"),
            );
        }
        if asked("access-control-request-local-network") {
            out.insert(HeaderName::from_static("access-control-allow-local-network"), HeaderValue::from_static("true"));
        }
        Ok(out)
    }
}

/// The CORS headers of an answer to an allowed origin.
pub fn cors(origin: &str) -> HeaderMap {
    let mut out = HeaderMap::new();
    if let Ok(v) = HeaderValue::from_str(origin) {
        out.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
    }
    out.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSED_HEADERS));
    out.insert(header::VARY, HeaderValue::from_static("Origin"));
    out
}

/// A stranger's header value as the bridge's log shows it: printable ASCII, at most 100 characters.
fn shown(text: &str) -> String {
    let clean: String =
        text.chars().map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { '?' }).take(100).collect();
    if clean.is_empty() { "(none)".to_owned() } else { clean }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard() -> Guard {
        Guard::new("s3cret".into(), vec!["http://127.0.0.1:8080".into()], "127.0.0.1:4000".parse().unwrap())
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(HeaderName::from_static(k), HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn host_origin_and_token_are_each_required() {
        let g = guard();
        let ok = [("host", "127.0.0.1:4000"), ("origin", "http://127.0.0.1:8080"), ("authorization", "Bearer s3cret")];
        assert_eq!(g.check(&headers(&ok)), Ok(Caller { origin: Some("http://127.0.0.1:8080".into()) }));
        let mut no_origin = headers(&ok);
        no_origin.remove("origin");
        assert_eq!(g.check(&no_origin), Ok(Caller { origin: None }), "curl and native clients send no Origin");
        let refused = |pairs: &[(&'static str, &str)]| g.check(&headers(pairs)).unwrap_err().0;
        assert!(matches!(refused(&[("host", "evil.example:4000"), ok[1], ok[2]]), Refusal::Host(_)));
        assert!(matches!(refused(&[("host", "127.0.0.1:4001"), ok[1], ok[2]]), Refusal::Host(_)));
        assert!(matches!(refused(&[ok[1], ok[2]]), Refusal::Host(_)));
        assert_eq!(refused(&[ok[0], ("origin", "null"), ok[2]]), Refusal::NullOrigin);
        assert!(matches!(refused(&[ok[0], ("origin", "http://127.0.0.1:8081"), ok[2]]), Refusal::Origin(_)));
        assert!(matches!(
            refused(&[ok[0], ("origin", "http://127.0.0.1:8080.evil.example"), ok[2]]),
            Refusal::Origin(_)
        ));
        assert_eq!(refused(&[ok[0], ok[1]]), Refusal::NoToken);
        assert_eq!(refused(&[ok[0], ok[1], ("authorization", "Bearer s3cre")]), Refusal::WrongToken);
        assert_eq!(refused(&[ok[0], ok[1], ("authorization", "Basic s3cret")]), Refusal::NoToken);
        assert!(g.check(&headers(&[("host", "LOCALHOST:4000"), ok[1], ("authorization", "bearer s3cret")])).is_ok());
    }

    #[test]
    fn preflights_are_answered_for_allowed_origins_only() {
        let g = guard();
        let asked = headers(&[
            ("host", "127.0.0.1:4000"),
            ("origin", "http://127.0.0.1:8080"),
            ("access-control-request-method", "POST"),
            ("access-control-request-private-network", "true"),
        ]);
        let out = g.preflight(&asked).unwrap();
        assert_eq!(out["access-control-allow-origin"], "http://127.0.0.1:8080");
        assert_eq!(out["access-control-allow-private-network"], "true");
        let mut other = asked.clone();
        other.insert(header::ORIGIN, HeaderValue::from_static("https://evil.example"));
        assert!(g.preflight(&other).is_err());
        other.insert(header::ORIGIN, HeaderValue::from_static("null"));
        assert_eq!(g.preflight(&other), Err(Refusal::NullOrigin));
    }

    #[test]
    fn what_a_stranger_sent_is_shown_plainly() {
        assert_eq!(shown("evil\u{202e}.example"), "evil?.example");
        assert_eq!(shown(&"a".repeat(500)).len(), 100);
    }
}
