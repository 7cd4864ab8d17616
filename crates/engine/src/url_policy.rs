//! The one URL policy: every URL that comes from outside the page (a server's headers and
//! documents, a lesson, a recorded session, the page's own address) passes here before anything
//! opens, fetches or shows it as a link.
//!
//! The rules (docs/security.md): `https:` always; `http:` only for this machine (loopback), or
//! for a server the user typed or agreed to on a consent screen (a workshop's LAN, with a
//! warning); never `javascript:`, `data:`, `blob:`, `file:` or any other scheme; never user
//! info. The parser is strict on purpose: it accepts only URLs whose scheme, host and port every
//! WHATWG parser (the browser's `fetch` and `window.open`) reads the same way, and refuses the
//! forms attackers use to make a check and the browser disagree (a backslash, `https:host`
//! without slashes, percent-escapes or odd IPv4 numbers in the host, control characters or
//! spaces anywhere). What passes is re-written canonically (scheme and host lowercased, the
//! default port dropped), and the canonical text is what the caller uses. A differential test
//! against the `url` crate (the WHATWG parser in Rust) checks the claim on random input.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use std::fmt;

use crate::whatwg::{self, Reading};

/// Who gave the page this URL, which decides what it may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trust {
    /// The user typed it, or agreed to it on a screen that showed it: plain `http:` is allowed
    /// on a local network (a workshop's), with a warning.
    User,
    /// Anything else: a server's answer, a metadata document, a lesson, a session file, a link.
    Stranger,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    Https,
    Http,
}

impl Scheme {
    pub fn as_str(self) -> &'static str {
        match self {
            Scheme::Https => "https",
            Scheme::Http => "http",
        }
    }

    fn default_port(self) -> u16 {
        match self {
            Scheme::Https => 443,
            Scheme::Http => 80,
        }
    }
}

/// A host as the browser will resolve it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// A DNS name, lowercased ASCII.
    Domain(String),
    Ipv4([u8; 4]),
    /// An IPv6 literal as written between the brackets, lowercased.
    Ipv6(String),
}

impl Host {
    /// This machine: `localhost` (and `*.localhost`, which browsers resolve to it), 127.0.0.0/8
    /// and `::1`.
    pub fn is_loopback(&self) -> bool {
        match self {
            Host::Domain(d) => d == "localhost" || d.ends_with(".localhost"),
            Host::Ipv4([a, ..]) => *a == 127,
            Host::Ipv6(v6) => v6 == "::1" || v6 == "0:0:0:0:0:0:0:1",
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Host::Domain(d) => f.write_str(d),
            Host::Ipv4([a, b, c, d]) => write!(f, "{a}.{b}.{c}.{d}"),
            Host::Ipv6(v6) => write!(f, "[{v6}]"),
        }
    }
}

/// An `http`/`https` URL that passed the strict parse, in canonical form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebUrl {
    pub scheme: Scheme,
    pub host: Host,
    /// `None` for the scheme's default port.
    pub port: Option<u16>,
    /// Path, query and fragment as written ("/" when there was no path).
    pub rest: String,
}

impl WebUrl {
    /// Parses `text` strictly (see the module's documentation); no policy applied yet.
    pub fn parse(text: &str) -> Result<WebUrl, UrlRefusal> {
        if text.is_empty() {
            return Err(UrlRefusal::Empty);
        }
        if let Some(c) = text.chars().find(|c| c.is_ascii_control() || c.is_whitespace() || *c == '\u{feff}') {
            return Err(UrlRefusal::Character { what: describe_char(c) });
        }
        if text.contains('\\') {
            return Err(UrlRefusal::Character { what: "a backslash".into() });
        }
        let Some((scheme, after)) = text.split_once(':') else { return Err(UrlRefusal::NotAbsolute) };
        let valid_scheme = scheme.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && scheme.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.'));
        if !valid_scheme {
            return Err(UrlRefusal::NotAbsolute);
        }
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "https" => Scheme::Https,
            "http" => Scheme::Http,
            other => return Err(UrlRefusal::Scheme { scheme: shorten(other) }),
        };
        let Some(after) = after.strip_prefix("//") else { return Err(UrlRefusal::NoSlashes) };
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        let (authority, rest) = after.split_at(end);
        if authority.contains('@') {
            return Err(UrlRefusal::UserInfo);
        }
        let (host, port) = split_port(authority)?;
        let host = parse_host(host)?;
        let port = port.filter(|p| *p != scheme.default_port());
        let rest = if rest.starts_with('/') { rest.to_owned() } else { format!("/{rest}") };
        Ok(WebUrl { scheme, host, port, rest })
    }

    /// `scheme://host[:port]`, as the browser's `origin` says it.
    pub fn origin(&self) -> String {
        match self.port {
            Some(p) => format!("{}://{}:{p}", self.scheme.as_str(), self.host),
            None => format!("{}://{}", self.scheme.as_str(), self.host),
        }
    }

    /// The host and any port: what a person recognises ("auth.example.com", "127.0.0.1:9000").
    pub fn authority(&self) -> String {
        match self.port {
            Some(p) => format!("{}:{p}", self.host),
            None => self.host.to_string(),
        }
    }

    pub fn same_origin(&self, other: &WebUrl) -> bool {
        self.scheme == other.scheme && self.host == other.host && self.port == other.port
    }

    /// The canonical text: what is opened or fetched.
    pub fn href(&self) -> String {
        format!("{}{}", self.origin(), self.rest)
    }
}

impl fmt::Display for WebUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.href())
    }
}

/// A URL the policy let through, and anything the user should be told about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allowed {
    pub url: WebUrl,
    pub warning: Option<UrlWarning>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UrlWarning {
    /// Plain http off this machine: anyone on the network can read and change what is sent.
    PlainHttp { host: String },
}

impl fmt::Display for UrlWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UrlWarning::PlainHttp { host } => write!(
                f,
                "plain http to {host}, which is not this machine: anyone on the network can read and change what is \
                 sent (your headers and the conversation's tool calls included). Fine on a workshop's own network; \
                 use https anywhere else"
            ),
        }
    }
}

/// Why a URL was refused, in words that say what to change.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UrlRefusal {
    #[error("the URL is empty")]
    Empty,
    #[error("the URL holds {what}, which URLs from outside may not")]
    Character { what: String },
    #[error("it is not an absolute URL (scheme://host/…)")]
    NotAbsolute,
    #[error("the scheme \"{scheme}:\" is never opened or fetched: only https (and http on this machine)")]
    Scheme { scheme: String },
    #[error("an http(s) URL must be written with \"//\" after the scheme")]
    NoSlashes,
    #[error("it carries a user name or password before the host (user:password@), which is never sent")]
    UserInfo,
    #[error("the host is {why}")]
    Host { why: String },
    #[error("the port is not a number from 1 to 65535")]
    Port,
    #[error("plain http is allowed only for this machine (localhost, 127.0.0.1, [::1]); {host} needs https")]
    PlainHttp { host: String },
    #[error("the browser cannot read it as a URL")]
    Unreadable,
    #[error("the browser reads it as {browser}, not as it is written")]
    ReadDifferently { browser: String },
}

/// The policy: parses `text` and decides whether it may be used, given who supplied it.
///
/// What it judges is what the browser will fetch (`whatwg`): what the user typed is read by the
/// browser's parser first and judged in the form the browser gives it (a backslash is a slash, a
/// tab is dropped), so it connects where the browser would; a stranger's URL must pass the
/// strict parse as written *and* read the same to the browser.
pub fn check(text: &str, trust: Trust) -> Result<Allowed, UrlRefusal> {
    let url = match trust {
        Trust::User => as_the_browser_reads(text.trim())?,
        Trust::Stranger => the_browser_agrees(text, WebUrl::parse(text)?)?,
    };
    let warning = match (url.scheme, url.host.is_loopback(), trust) {
        (Scheme::Https, ..) | (Scheme::Http, true, _) => None,
        (Scheme::Http, false, Trust::User) => Some(UrlWarning::PlainHttp { host: url.authority() }),
        (Scheme::Http, false, Trust::Stranger) => return Err(UrlRefusal::PlainHttp { host: url.authority() }),
    };
    Ok(Allowed { url, warning })
}

/// `text` in the form the browser reads it, parsed strictly. A text the browser cannot read is
/// refused with the strict parse's reason when it has one (more specific than "not a URL").
fn as_the_browser_reads(text: &str) -> Result<WebUrl, UrlRefusal> {
    match whatwg::read(text) {
        Reading::Url(href) => WebUrl::parse(&href),
        Reading::NotAUrl => Err(WebUrl::parse(text).err().unwrap_or(UrlRefusal::Unreadable)),
        Reading::Unavailable => WebUrl::parse(text),
    }
}

/// The strict parse and the browser must read the same scheme, host and port; what is used
/// is the browser's form (its path, query and fragment %-encoded as it will send them, so no
/// invisible or reordering character is left to show).
fn the_browser_agrees(text: &str, ours: WebUrl) -> Result<WebUrl, UrlRefusal> {
    match whatwg::read(text) {
        Reading::Url(href) => match WebUrl::parse(&href) {
            Ok(theirs) if theirs.same_origin(&ours) => Ok(theirs),
            _ => Err(UrlRefusal::ReadDifferently { browser: shorten(&href) }),
        },
        Reading::NotAUrl => Err(UrlRefusal::Unreadable),
        Reading::Unavailable => Ok(ours),
    }
}

/// What the policy says of a URL from a stranger, with the URL's canonical text.
pub fn stranger(text: &str) -> Result<WebUrl, UrlRefusal> {
    check(text, Trust::Stranger).map(|a| a.url)
}

/// A stranger's URL, except on the origin of `home`, an address the user chose (the page's own,
/// or a server the user added): there it is the user's (plain http on a LAN allowed, as for
/// `home` itself).
pub fn check_near(text: &str, home: &str) -> Result<WebUrl, UrlRefusal> {
    let home = WebUrl::parse(home.trim()).ok();
    let trust = match (home, WebUrl::parse(text)) {
        (Some(home), Ok(url)) if url.same_origin(&home) => Trust::User,
        _ => Trust::Stranger,
    };
    check(text, trust).map(|a| a.url)
}

fn split_port(authority: &str) -> Result<(&str, Option<u16>), UrlRefusal> {
    let (host, port) = if authority.starts_with('[') {
        match authority.find(']') {
            Some(close) => {
                let (host, after) = authority.split_at(close + 1);
                match after {
                    "" => (host, None),
                    _ => (host, Some(after.strip_prefix(':').ok_or(UrlRefusal::Port)?)),
                }
            }
            None => return Err(UrlRefusal::Host { why: "an IPv6 address without its closing \"]\"".into() }),
        }
    } else {
        match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        }
    };
    let port = match port {
        None | Some("") => None,
        Some(p) if p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => {
            Some(p.parse::<u16>().map_err(|_| UrlRefusal::Port)?)
        }
        Some(_) => return Err(UrlRefusal::Port),
    };
    if port == Some(0) {
        return Err(UrlRefusal::Port);
    }
    Ok((host, port))
}

fn parse_host(host: &str) -> Result<Host, UrlRefusal> {
    let refuse = |why: &str| Err(UrlRefusal::Host { why: why.into() });
    if host.is_empty() {
        return refuse("missing");
    }
    if let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        let ok = !inner.is_empty()
            && inner.contains(':')
            && inner.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.')
            && ipv6_shape(inner);
        return if ok { Ok(Host::Ipv6(inner.to_ascii_lowercase())) } else { refuse("not an IPv6 address") };
    }
    if !host.is_ascii() {
        return refuse("not plain ASCII: write an international name in its xn-- (punycode) form");
    }
    if host.contains('%') {
        return refuse("written with %-escapes");
    }
    if host.ends_with('.') || host.starts_with('.') || host.contains("..") {
        return refuse("written with an empty label (a dot at an end, or two dots)");
    }
    if !host.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.') {
        return refuse("written with characters a host name cannot have");
    }
    let host = host.to_ascii_lowercase();
    // WHATWG reads a host whose last label looks like a number as an IPv4 address, in forms
    // such as 2130706433, 0x7f.1 or 127.1: only the plain dotted quad is accepted.
    let last = host.rsplit('.').next().unwrap_or_default();
    let numeric = last.bytes().all(|b| b.is_ascii_digit())
        || last.strip_prefix("0x").is_some_and(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
    if !numeric {
        return Ok(Host::Domain(host));
    }
    let parts: Vec<&str> = host.split('.').collect();
    let octets: Vec<u8> = parts
        .iter()
        .filter(|p| !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()))
        .filter(|p| *p == &"0" || !p.starts_with('0'))
        .filter_map(|p| p.parse().ok())
        .collect();
    match octets.as_slice() {
        [a, b, c, d] if parts.len() == 4 => Ok(Host::Ipv4([*a, *b, *c, *d])),
        _ => refuse("a number in a form other than four decimal parts (a.b.c.d)"),
    }
}

/// At most one `::`, and groups of at most four hex digits (an embedded IPv4 tail aside).
fn ipv6_shape(v6: &str) -> bool {
    if v6.matches("::").count() > 1 || v6.contains(":::") {
        return false;
    }
    let groups: Vec<&str> = v6.split(':').collect();
    let (tail, heads) = groups.split_last().unwrap_or((&"", &[]));
    let hex = |g: &&str| g.len() <= 4 && g.bytes().all(|b| b.is_ascii_hexdigit());
    let tail_ok = hex(tail) || (tail.contains('.') && parse_host(tail).is_ok_and(|h| matches!(h, Host::Ipv4(_))));
    let count = groups.len() + usize::from(tail.contains('.'));
    tail_ok && heads.iter().all(hex) && (v6.contains("::") || count == 8) && count <= 9
}

fn describe_char(c: char) -> String {
    match c {
        ' ' => "a space".into(),
        '\t' => "a tab".into(),
        '\n' | '\r' => "a line break".into(),
        c => format!("the invisible character U+{:04X}", c as u32),
    }
}

/// At most 40 characters of a stranger's text, for a message.
fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if text.chars().nth(40).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    fn ok(text: &str) -> String {
        stranger(text).unwrap_or_else(|e| panic!("{text}: {e}")).href()
    }

    fn refused(text: &str) -> UrlRefusal {
        stranger(text).expect_err(text)
    }

    #[test]
    fn https_anywhere_http_only_here() {
        assert_eq!(ok("https://auth.example.com/authorize?x=1#f"), "https://auth.example.com/authorize?x=1#f");
        assert_eq!(ok("HTTPS://Auth.Example.COM:443"), "https://auth.example.com/");
        assert_eq!(ok("http://127.0.0.1:9000/cb"), "http://127.0.0.1:9000/cb");
        assert_eq!(ok("http://localhost/x"), "http://localhost/x");
        assert_eq!(ok("http://app.localhost:80/x"), "http://app.localhost/x");
        assert_eq!(ok("http://[::1]:3001/mcp"), "http://[::1]:3001/mcp");
        assert!(matches!(refused("http://evil.example/authorize?code=1"), UrlRefusal::PlainHttp { .. }));
        assert!(matches!(refused("http://192.168.1.5:3000/mcp"), UrlRefusal::PlainHttp { .. }));
    }

    #[test]
    fn what_the_user_typed_may_be_plain_http_on_a_lan_with_a_warning() {
        let a = check("  http://192.168.1.5:3000/mcp ", Trust::User).unwrap();
        assert_eq!(a.url.href(), "http://192.168.1.5:3000/mcp");
        assert!(matches!(a.warning, Some(UrlWarning::PlainHttp { ref host }) if host == "192.168.1.5:3000"));
        assert_eq!(check("http://127.0.0.1:3001/mcp", Trust::User).unwrap().warning, None);
        assert!(check("javascript:alert(1)", Trust::User).is_err());
    }

    #[test]
    fn every_other_scheme_is_refused_however_it_is_written() {
        for attack in [
            "javascript:alert(document.domain)//",
            "JavaScript:alert(1)",
            "JAVASCRIPT:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "blob:https://example.com/uuid",
            "file:///etc/passwd",
            "vbscript:msgbox(1)",
            "ftp://example.com/",
            "mailto:a@example.com",
        ] {
            assert!(matches!(refused(attack), UrlRefusal::Scheme { .. }), "{attack}");
        }
        for sneaky in [
            " javascript:alert(1)",
            "\tjavascript:alert(1)",
            "java\tscript:alert(1)",
            "java\nscript:alert(1)",
            "javascript\r:alert(1)",
            "\u{0}javascript:alert(1)",
            "\u{feff}javascript:alert(1)",
            "https://example.com/ x",
        ] {
            assert!(matches!(refused(sneaky), UrlRefusal::Character { .. }), "{sneaky:?}");
        }
        assert!(matches!(refused("%6A%61vascript:alert(1)"), UrlRefusal::NotAbsolute));
        assert!(matches!(refused("/relative/path"), UrlRefusal::NotAbsolute));
        assert!(matches!(refused("//evil.example/x"), UrlRefusal::NotAbsolute));
    }

    #[test]
    fn forms_that_make_a_parser_and_the_browser_disagree_are_refused() {
        assert!(matches!(refused("https://user:pass@example.com/"), UrlRefusal::UserInfo));
        assert!(matches!(refused("https://good.example@evil.example/"), UrlRefusal::UserInfo));
        assert!(matches!(refused("https://evil.example\\@good.example/"), UrlRefusal::Character { .. }));
        assert!(matches!(refused("https:evil.example/"), UrlRefusal::NoSlashes));
        assert!(matches!(refused("https:/evil.example/"), UrlRefusal::NoSlashes));
        assert!(matches!(refused("https:///evil.example/"), UrlRefusal::Host { .. }));
        assert!(matches!(refused("http://127.0.0.1.evil.example/"), UrlRefusal::PlainHttp { .. }));
        for odd_ipv4 in
            ["http://2130706433/", "http://0x7f.1/", "http://127.1/", "http://0177.0.0.1/", "http://127.0.0.256/"]
        {
            assert!(matches!(refused(odd_ipv4), UrlRefusal::Host { .. }), "{odd_ipv4}");
        }
        assert!(matches!(refused("http://127.0.0.%31/"), UrlRefusal::Host { .. }));
        assert!(matches!(refused("https://exa%6dple.com/"), UrlRefusal::Host { .. }));
        assert!(matches!(refused("https://bücher.example/"), UrlRefusal::Host { .. }));
        assert!(matches!(refused("https://example.com./"), UrlRefusal::Host { .. }));
        assert!(matches!(refused("https://[::1/"), UrlRefusal::Host { .. }));
        assert!(matches!(refused("https://[1:2:3]/"), UrlRefusal::Host { .. }));
        assert!(matches!(refused("https://example.com:99999/"), UrlRefusal::Port));
        assert!(matches!(refused("https://example.com:0/"), UrlRefusal::Port));
        assert!(matches!(refused("https://example.com:+80/"), UrlRefusal::Port));
    }

    #[test]
    fn the_users_own_origin_may_be_plain_http() {
        let home = "http://192.168.1.5:3000/mcp";
        assert!(check_near("http://192.168.1.5:3000/.well-known/oauth-protected-resource", home).is_ok());
        assert!(matches!(check_near("http://192.168.1.6/x", home), Err(UrlRefusal::PlainHttp { .. })));
        assert!(matches!(check_near("javascript:alert(1)", home), Err(UrlRefusal::Scheme { .. })));
        assert!(check_near("https://elsewhere.example/x", "not a url").is_ok());
    }

    #[test]
    fn what_is_used_is_the_browsers_form_with_nothing_left_to_disguise_it() {
        // A right-to-left override in the path reads, on screen, as another address.
        assert_eq!(ok("https://example.com/\u{202E}gpj.exe"), "https://example.com/%E2%80%AEgpj.exe");
        assert_eq!(ok("https://example.com/a?q=\u{200B}#\u{2066}"), "https://example.com/a?q=%E2%80%8B#%E2%81%A6");
    }

    #[test]
    fn loopback_is_this_machine_only() {
        let host = |t: &str| WebUrl::parse(t).unwrap().host;
        assert!(host("http://127.8.9.10/").is_loopback());
        assert!(host("http://LOCALHOST/").is_loopback());
        assert!(host("http://[0:0:0:0:0:0:0:1]/").is_loopback());
        assert!(!host("http://localhost.evil.example/").is_loopback());
        assert!(!host("http://128.0.0.1/").is_loopback());
        assert!(!host("http://[::2]/").is_loopback());
    }

    #[test]
    fn origin_and_authority_are_what_the_browser_shows() {
        let u = WebUrl::parse("https://Auth.Example.com:8443/a?b#c").unwrap();
        assert_eq!(u.origin(), "https://auth.example.com:8443");
        assert_eq!(u.authority(), "auth.example.com:8443");
        assert!(u.same_origin(&WebUrl::parse("https://auth.example.com:8443/other").unwrap()));
        assert!(!u.same_origin(&WebUrl::parse("https://auth.example.com/a").unwrap()));
    }
}
