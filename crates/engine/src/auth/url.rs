//! The URLs authorization works with: where metadata lives (RFC 9728 §3.1, RFC 8414 §3.1 and
//! §5, OpenID Connect Discovery), whether a resource identifier covers the server's URL, and
//! the 2025-03-26 default endpoints. Strings are never normalised: the specs compare them as
//! they are (RFC 9207, RFC 8414 §3.3), so only scheme and host are compared without case.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

/// An `http`/`https` URL split where the rules need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpUrl<'a> {
    /// `scheme://authority`, as written.
    pub origin: &'a str,
    /// The path, as written, without query or fragment ("" when there is none).
    pub path: &'a str,
    pub fragment: bool,
}

impl<'a> HttpUrl<'a> {
    pub fn parse(url: &'a str) -> Option<HttpUrl<'a>> {
        let (scheme, rest) = url.split_once("://")?;
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return None;
        }
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        if authority_end == 0 {
            return None;
        }
        let (origin, _) = url.split_at_checked(scheme.len() + 3 + authority_end)?;
        let (_, after) = rest.split_at_checked(authority_end)?;
        let path = after.split(['?', '#']).next().unwrap_or_default();
        Some(HttpUrl { origin, path, fragment: after.contains('#') })
    }

    /// The path without its terminating slash ("/" and "" become "").
    fn trimmed_path(&self) -> &'a str {
        self.path.trim_end_matches('/')
    }

    fn same_origin(&self, other: &HttpUrl<'_>) -> bool {
        self.origin.eq_ignore_ascii_case(other.origin)
    }
}

/// Where the Protected Resource Metadata of the server at `server_url` may be, in the order to
/// try: path-inserted, then the root (RFC 9728 §3.1; MCP's discovery order).
pub fn resource_metadata_urls(server_url: &str) -> Vec<String> {
    let Some(u) = HttpUrl::parse(server_url) else { return Vec::new() };
    let root = format!("{}/.well-known/oauth-protected-resource", u.origin);
    match u.trimmed_path() {
        "" => vec![root],
        path => vec![format!("{root}{path}"), root],
    }
}

/// Where an authorization server's metadata may be, in the order MCP lists: RFC 8414 with path
/// insertion, OpenID Connect Discovery with path insertion, then with path appending.
pub fn server_metadata_urls(issuer: &str) -> Vec<String> {
    let Some(u) = HttpUrl::parse(issuer) else { return Vec::new() };
    let origin = u.origin;
    match u.trimmed_path() {
        "" => vec![
            format!("{origin}/.well-known/oauth-authorization-server"),
            format!("{origin}/.well-known/openid-configuration"),
        ],
        path => vec![
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}/.well-known/openid-configuration{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ],
    }
}

/// Whether a token for `resource` may be used at `server_url`: the same origin, and the
/// resource's path is the server's path or a parent of it, segment-wise (RFC 9728 §3.3, RFC 8707).
pub fn resource_covers(resource: &str, server_url: &str) -> bool {
    let (Some(r), Some(s)) = (HttpUrl::parse(resource), HttpUrl::parse(server_url)) else { return false };
    if r.fragment || !r.same_origin(&s) {
        return false;
    }
    let (rp, sp) = (r.trimmed_path(), s.trimmed_path());
    rp.is_empty() || sp == rp || sp.strip_prefix(rp).is_some_and(|rest| rest.starts_with('/'))
}

/// Whether two absolute URLs share an origin (scheme, host and port, as parsed).
pub fn same_origin(a: &str, b: &str) -> bool {
    matches!((HttpUrl::parse(a), HttpUrl::parse(b)), (Some(a), Some(b)) if a.same_origin(&b))
}

/// The server's origin: the authorization server of a 2025-03-26 server without metadata.
pub fn origin(url: &str) -> Option<&str> {
    HttpUrl::parse(url).map(|u| u.origin)
}

/// The resource identifier for a server without Protected Resource Metadata: its URL, without
/// query or fragment (RFC 8707 §2).
pub fn canonical_resource(server_url: &str) -> String {
    server_url.split(['?', '#']).next().unwrap_or_default().to_owned()
}

/// `url` with `query` added (after any query it already has).
pub fn with_query(url: &str, query: &str) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{query}")
}

/// The query of a URL (or a bare query string): what a redirect back carries.
pub fn query_of(url: &str) -> &str {
    let without_fragment = url.split('#').next().unwrap_or("");
    without_fragment.split_once('?').map_or(without_fragment, |(_, q)| q)
}

/// Whether `url` points at this machine: a client there registers as "native" (SEP-837).
pub fn is_loopback(url: &str) -> bool {
    let Some(u) = HttpUrl::parse(url) else { return false };
    let host = u.origin.split_once("://").map_or("", |(_, h)| h);
    let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
    let host = if host.starts_with('[') {
        host.split(']').next().unwrap_or("").trim_start_matches('[')
    } else {
        host.split(':').next().unwrap_or("")
    };
    host.eq_ignore_ascii_case("localhost") || host.starts_with("127.") || host == "::1"
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    #[test]
    fn resource_metadata_is_looked_for_path_first_then_at_the_root() {
        assert_eq!(
            resource_metadata_urls("https://example.com/public/mcp"),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            resource_metadata_urls("https://example.com/"),
            vec!["https://example.com/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            resource_metadata_urls("http://127.0.0.1:9/mcp/?x=1"),
            vec![
                "http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp",
                "http://127.0.0.1:9/.well-known/oauth-protected-resource",
            ]
        );
    }

    #[test]
    fn server_metadata_urls_follow_the_specs_priority_order() {
        assert_eq!(
            server_metadata_urls("https://auth.example.com/tenant1"),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            server_metadata_urls("https://auth.example.com"),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn a_resource_covers_its_own_path_and_below_on_the_same_origin_only() {
        assert!(resource_covers("https://mcp.example.com/mcp", "https://mcp.example.com/mcp"));
        assert!(resource_covers("https://mcp.example.com", "https://mcp.example.com/mcp"));
        assert!(resource_covers("HTTPS://MCP.example.com/", "https://mcp.example.com/mcp"));
        assert!(resource_covers("https://mcp.example.com/a", "https://mcp.example.com/a/mcp"));
        assert!(!resource_covers("https://mcp.example.com/mcp", "https://mcp.example.com/mcpx"));
        assert!(!resource_covers("https://evil.example.com/mcp", "https://mcp.example.com/mcp"));
        assert!(!resource_covers("http://mcp.example.com/mcp", "https://mcp.example.com/mcp"));
        assert!(!resource_covers("https://mcp.example.com/mcp#x", "https://mcp.example.com/mcp"));
    }

    #[test]
    fn queries_are_added_and_read_back() {
        assert_eq!(with_query("https://as/authorize", "a=1"), "https://as/authorize?a=1");
        assert_eq!(with_query("https://as/authorize?tenant=x", "a=1"), "https://as/authorize?tenant=x&a=1");
        assert_eq!(query_of("http://127.0.0.1/cb?code=1&state=2#f"), "code=1&state=2");
        assert_eq!(canonical_resource("http://127.0.0.1:3000/mcp?x#y"), "http://127.0.0.1:3000/mcp");
        assert!(is_loopback("http://127.0.0.1:8080/auth-callback.html"));
        assert!(is_loopback("http://localhost/cb"));
        assert!(is_loopback("http://[::1]:8080/cb"));
        assert!(!is_loopback("https://loopscope.example/auth-callback.html"));
    }
}
