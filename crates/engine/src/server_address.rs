//! What the user gives for a server: its address and its credentials (headers, and query
//! parameters that hold secrets), read and checked here before anything connects.
//!
//! The address passes the URL policy as the user's own (plain http allowed on a LAN, with a
//! warning). Secrets do not stay in it: a user name and password (`https://user:pass@host/`)
//! become an `Authorization: Basic` header the user sees, and query parameters named like
//! secrets (`?api_key=…`, `?token=…`) become credentials of their own, kept with the header
//! values (in memory unless the user opts in) and masked everywhere, so that the address the
//! page shows, saves and exports holds none.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use std::fmt;

use super::encoding::{base64, form_decode, form_encode, percent_decode};
use super::url_policy::{self, Trust, UrlRefusal, UrlWarning};
use super::whatwg::{self, Reading};

/// A secret the user gives a server, and where it goes on every request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Credential {
    Header {
        name: String,
        value: String,
    },
    /// A query parameter (`?name=value`), added to the URL of every request.
    Query {
        name: String,
        value: String,
    },
}

impl Credential {
    /// As the credentials field writes it: `Name: value`, and `?name: value` for a query
    /// parameter.
    pub fn line_name(&self) -> String {
        match self {
            Credential::Header { name, .. } => name.clone(),
            Credential::Query { name, .. } => format!("?{name}"),
        }
    }

    pub fn value(&self) -> &str {
        match self {
            Credential::Header { value, .. } | Credential::Query { value, .. } => value,
        }
    }

    /// As saved: (line name, value).
    pub fn to_pair(&self) -> (String, String) {
        (self.line_name(), self.value().to_owned())
    }

    /// From a saved (line name, value).
    pub fn from_pair(name: &str, value: &str) -> Credential {
        match name.strip_prefix('?') {
            Some(name) => Credential::Query { name: name.to_owned(), value: value.to_owned() },
            None => Credential::Header { name: name.to_owned(), value: value.to_owned() },
        }
    }
}

/// Query parameter names that hold secrets: compared without case, with `-` and `_` ignored
/// ("API-Key", "api_key" and "apikey" are one name), as whole names or as the end of one
/// ("github_token").
const SECRET_NAMES: [&str; 13] = [
    "key",
    "apikey",
    "token",
    "accesstoken",
    "secret",
    "clientsecret",
    "password",
    "passwd",
    "pwd",
    "auth",
    "authorization",
    "signature",
    "sig",
];

/// Whether a query parameter's name says it holds a secret.
pub fn secret_name(name: &str) -> bool {
    let bare: String = name.chars().filter(|c| !matches!(c, '-' | '_')).collect::<String>().to_ascii_lowercase();
    SECRET_NAMES.iter().any(|s| bare == *s || (bare.len() > s.len() + 1 && s.len() > 3 && bare.ends_with(s)))
}

/// A server's address as the page keeps it, and what was taken out of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerAddress {
    /// The address without secrets: what the page shows, saves and exports.
    pub url: String,
    /// Credentials taken out of what the user typed (user info, secret query parameters).
    pub moved: Vec<Credential>,
    pub warning: Option<UrlWarning>,
}

impl ServerAddress {
    /// Sentences for the form: what was moved out of the address, and why.
    pub fn moved_note(&self) -> Option<String> {
        if self.moved.is_empty() {
            return None;
        }
        let names: Vec<String> = self.moved.iter().map(Credential::line_name).collect();
        Some(format!(
            "The address held secrets: {} now go with the headers (in memory unless you choose to remember them, \
             masked everywhere), so the address the page shows, saves and exports holds none.",
            names.join(", ")
        ))
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AddressError {
    Refused(UrlRefusal),
    /// A `demo://` or other internal address typed by hand.
    NotHttp,
}

impl fmt::Display for AddressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AddressError::Refused(why) => write!(f, "This address cannot be used: {why}."),
            AddressError::NotHttp => f.write_str(
                "Enter the server's Streamable HTTP endpoint, starting with https:// (or http://), often …/mcp.",
            ),
        }
    }
}

/// Reads what the user typed as a server's address.
pub fn prepare(typed: &str) -> Result<ServerAddress, AddressError> {
    // Read as the browser reads it before anything is taken out of it: where its host ends, and
    // so what is user info, is the browser's call (`http://127.0.0.1:9153\@evil.example/` is
    // 127.0.0.1, with no user info). A text it cannot read is refused, with the policy's reason.
    let refused = |why| match why {
        UrlRefusal::Scheme { .. } | UrlRefusal::NotAbsolute => AddressError::NotHttp,
        other => AddressError::Refused(other),
    };
    let typed = match whatwg::read(typed.trim()) {
        Reading::Url(href) => href,
        Reading::Unavailable => typed.trim().to_owned(),
        Reading::NotAUrl => {
            let why = url_policy::check(typed, Trust::User).err().unwrap_or(UrlRefusal::Unreadable);
            return Err(refused(why));
        }
    };
    let (without_userinfo, basic) = take_userinfo(&typed);
    let allowed = url_policy::check(&without_userinfo, Trust::User).map_err(refused)?;
    let mut moved: Vec<Credential> = basic.into_iter().collect();
    let href = allowed.url.href();
    let (before_fragment, fragment) = match href.split_once('#') {
        Some((b, f)) => (b, Some(f)),
        None => (href.as_str(), None),
    };
    let url = match before_fragment.split_once('?') {
        None => href.clone(),
        Some((base, query)) => {
            let pairs = form_decode(query);
            let (secret, public): (Vec<_>, Vec<_>) = pairs.into_iter().partition(|(n, _)| secret_name(n));
            if secret.is_empty() {
                href.clone()
            } else {
                moved.extend(secret.into_iter().map(|(name, value)| Credential::Query { name, value }));
                let mut url = base.to_owned();
                if !public.is_empty() {
                    url.push('?');
                    url.push_str(&form_encode(public.iter().map(|(n, v)| (n.as_str(), v.as_str()))));
                }
                if let Some(f) = fragment {
                    url.push('#');
                    url.push_str(f);
                }
                url
            }
        }
    };
    Ok(ServerAddress { url, moved, warning: allowed.warning })
}

/// `scheme://user:pass@host/…` → the address without them, and the Basic header they make.
fn take_userinfo(typed: &str) -> (String, Option<Credential>) {
    let Some((scheme, rest)) = typed.split_once("://") else { return (typed.to_owned(), None) };
    // A backslash ends the host as a slash does (WHATWG, for http and https).
    let end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(end);
    let Some((userinfo, host)) = authority.rsplit_once('@') else { return (typed.to_owned(), None) };
    let (user, pass) = userinfo.split_once(':').unwrap_or((userinfo, ""));
    let header = Credential::Header {
        name: "Authorization".into(),
        value: format!("Basic {}", base64(format!("{}:{}", percent_decode(user), percent_decode(pass)).as_bytes())),
    };
    (format!("{scheme}://{host}{path}"), Some(header))
}

/// Why a credentials line cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineError {
    NoColon { line: usize },
    BadName { name: String },
    NoValue { name: String },
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LineError::NoColon { line } => write!(f, "Header line {line} has no \"Name: value\" colon"),
            LineError::BadName { name } => write!(f, "\"{name}\" is not a valid header name"),
            LineError::NoValue { name } => write!(f, "Give \"{name}\" a value (or remove its line)."),
        }
    }
}

/// "Name: value" lines → credentials (`?name: value` for a query parameter). Empty values are
/// refused when `values_required` (entering saved headers again).
pub fn parse_lines(text: &str, values_required: bool) -> Result<Vec<Credential>, LineError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some((name, value)) = line.split_once(':') else { return Err(LineError::NoColon { line: i + 1 }) };
        let (name, value) = (name.trim(), value.trim().to_owned());
        let (query, bare) = match name.strip_prefix('?') {
            Some(bare) => (true, bare),
            None => (false, name),
        };
        if bare.is_empty() || !bare.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
            return Err(LineError::BadName { name: name.to_owned() });
        }
        if values_required && value.is_empty() {
            return Err(LineError::NoValue { name: name.to_owned() });
        }
        let name = bare.to_owned();
        out.push(if query { Credential::Query { name, value } } else { Credential::Header { name, value } });
    }
    Ok(out)
}

/// Credentials as lines again (names only, values blank): what a reloaded server asks for.
pub fn blank_lines(names: &[String]) -> String {
    names.iter().map(|n| format!("{n}: ")).collect::<Vec<_>>().join("\n")
}

/// Names and values, in order.
pub type Pairs = Vec<(String, String)>;

/// Headers and query credentials apart, as the MCP client takes them.
pub fn split(credentials: &[Credential]) -> (Pairs, Pairs) {
    let mut headers = Vec::new();
    let mut query = Vec::new();
    for c in credentials {
        match c {
            Credential::Header { name, value } => headers.push((name.clone(), value.clone())),
            Credential::Query { name, value } => query.push((name.clone(), value.clone())),
        }
    }
    (headers, query)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    #[test]
    fn secret_query_parameters_leave_the_address() {
        let a = prepare(" https://mcp.example.com/mcp?api_key=s3cr3t&team=7&access_token=tok#x ").unwrap();
        assert_eq!(a.url, "https://mcp.example.com/mcp?team=7#x");
        assert_eq!(
            a.moved,
            vec![
                Credential::Query { name: "api_key".into(), value: "s3cr3t".into() },
                Credential::Query { name: "access_token".into(), value: "tok".into() },
            ]
        );
        assert!(a.moved_note().unwrap().contains("?api_key, ?access_token"));
        let plain = prepare("https://mcp.example.com/mcp?team=7").unwrap();
        assert_eq!((plain.url.as_str(), plain.moved.len()), ("https://mcp.example.com/mcp?team=7", 0));
    }

    #[test]
    fn names_that_hold_secrets() {
        for name in ["key", "API_KEY", "api-key", "apikey", "token", "github_token", "Secret", "password", "sig"] {
            assert!(secret_name(name), "{name}");
        }
        for name in ["team", "monkey", "id", "page", "keyboard", "signal"] {
            assert!(!secret_name(name), "{name}");
        }
    }

    #[test]
    fn user_info_becomes_a_basic_header_the_user_sees() {
        let a = prepare("https://ann:p%40ss@mcp.example.com/mcp").unwrap();
        assert_eq!(a.url, "https://mcp.example.com/mcp");
        // base64("ann:p@ss")
        assert_eq!(
            a.moved,
            vec![Credential::Header { name: "Authorization".into(), value: "Basic YW5uOnBAc3M=".into() }]
        );
    }

    #[test]
    fn the_address_passes_the_policy_as_the_users_own() {
        assert_eq!(prepare("javascript:alert(1)"), Err(AddressError::NotHttp));
        assert_eq!(prepare("demo://notebook/mcp"), Err(AddressError::NotHttp));
        assert!(matches!(prepare("https://exa mple.com/mcp"), Err(AddressError::Refused(_))));
        let lan = prepare("http://192.168.1.20:3000/mcp").unwrap();
        assert!(lan.warning.is_some());
        assert_eq!(prepare("http://127.0.0.1:3001/mcp").unwrap().warning, None);
    }

    #[test]
    fn the_address_connects_where_the_browser_would() {
        // The attack: a parser that splits user info first reads host evil.example with Basic
        // credentials "127.0.0.1:9153\"; the browser reads host 127.0.0.1.
        let a = prepare("http://127.0.0.1:9153\\@evil.example/mcp").unwrap();
        assert_eq!(a.url, "http://127.0.0.1:9153/@evil.example/mcp");
        assert!(a.moved.is_empty());
        let b = prepare("https://ann@good.example\\@evil.example/mcp").unwrap();
        assert_eq!(b.url, "https://good.example/@evil.example/mcp");
        assert_eq!(b.moved.len(), 1);
        // Tabs and line breaks inside are dropped by the browser, and so here.
        assert_eq!(prepare("http://127.0.0.1:3001/m\tcp").unwrap().url, "http://127.0.0.1:3001/mcp");
        // What the browser cannot read is refused, even where taking the user info out would
        // leave a text it can.
        assert!(prepare("https://@//127.0.0.1").is_err());
        // Without a reader (never in the page), the backslash still ends the host.
        assert_eq!(take_userinfo("http://127.0.0.1:9153\\@evil.example/mcp").1, None);
    }

    #[test]
    fn credential_lines_read_headers_and_query_parameters() {
        let c = parse_lines("Authorization: Bearer a:b\n\n?api_key: s3\nX-Team: 7", false).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(c[1], Credential::Query { name: "api_key".into(), value: "s3".into() });
        assert_eq!(c[1].line_name(), "?api_key");
        assert_eq!(parse_lines("no colon", false), Err(LineError::NoColon { line: 1 }));
        assert!(matches!(parse_lines("Bad Name: x", false), Err(LineError::BadName { .. })));
        assert!(matches!(parse_lines("X-Team: ", true), Err(LineError::NoValue { .. })));
        let (headers, query) = split(&c);
        assert_eq!((headers.len(), query.len()), (2, 1));
        assert_eq!(blank_lines(&["X-Team".into(), "?api_key".into()]), "X-Team: \n?api_key: ");
    }
}
