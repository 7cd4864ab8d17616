//! The Content-Security-Policy an app runs under: built from the domains its resource declares
//! (`_meta.ui.csp`), each checked, and nothing looser; without a declaration, the
//! specification's default (no connections, nothing from elsewhere). The policy is written as
//! the first thing in the app's document, so nothing the app wrote comes before it.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use protocol::mcp::apps::AppResource;

/// At most this many sources of each kind are kept; the rest are dropped and said.
const MAX_SOURCES: usize = 32;

/// An app's policy, and the declared sources that were dropped, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub text: String,
    pub dropped: Vec<String>,
}

impl Policy {
    /// The policy for an app whose resource declared `declared`.
    pub fn for_app(declared: &AppResource) -> Policy {
        let mut dropped = Vec::new();
        let mut keep = |list: &[String]| -> Vec<String> {
            let mut kept = Vec::new();
            for entry in list {
                match source(entry) {
                    Ok(s) if kept.len() < MAX_SOURCES => kept.push(s),
                    Ok(_) => dropped.push(format!("{}: more than {MAX_SOURCES} of one kind", shown(entry))),
                    Err(why) => dropped.push(format!("{}: {why}", shown(entry))),
                }
            }
            kept
        };
        let resources = keep(&declared.resources);
        let connect = keep(&declared.connect);
        let frames = keep(&declared.frames);
        let base = keep(&declared.base_uris);
        let with = |fixed: &str, extra: &[String]| {
            if extra.is_empty() { fixed.to_owned() } else { format!("{fixed} {}", extra.join(" ")) }
        };
        let or = |list: &[String], none: &str| if list.is_empty() { none.to_owned() } else { list.join(" ") };
        let text = [
            "default-src 'none'".to_owned(),
            format!("script-src {}", with("'self' 'unsafe-inline'", &resources)),
            format!("style-src {}", with("'self' 'unsafe-inline'", &resources)),
            format!("img-src {}", with("'self' data:", &resources)),
            format!("font-src {}", with("'self'", &resources)),
            format!("media-src {}", with("'self' data:", &resources)),
            format!("connect-src {}", or(&connect, "'none'")),
            format!("frame-src {}", or(&frames, "'none'")),
            format!("base-uri {}", or(&base, "'self'")),
            "object-src 'none'".to_owned(),
            "form-action 'none'".to_owned(),
            "worker-src 'none'".to_owned(),
        ]
        .join("; ");
        Policy { text, dropped }
    }
}

/// The document the sandbox shows: the policy first, then the app's HTML as it came. The
/// parser puts the `<meta>` in the head it opens for it, and everything of the app after it;
/// the app's own `<!DOCTYPE>`, `<html>` and `<head>` are then parse errors the browser skips.
pub fn document(html: &str, policy: &Policy) -> String {
    let content = policy.text.replace('"', "&quot;");
    format!("<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"{content}\">{html}")
}

/// One declared domain as a CSP source: `https://host[:port]` (a leading `*.` allowed in the
/// host), `wss://…`, or `http://`/`ws://` on this machine only. Nothing else: no keywords, no
/// paths, no characters that could end the source or the directive.
fn source(entry: &str) -> Result<String, &'static str> {
    let (scheme, rest) = entry.split_once("://").ok_or("not scheme://host")?;
    let scheme = scheme.to_ascii_lowercase();
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => (h, Some(p)),
        Some(_) => return Err("not a host with an optional port"),
        None => (rest, None),
    };
    let host = host.to_ascii_lowercase();
    let bare = host.strip_prefix("*.").unwrap_or(&host);
    let label_ok =
        |l: &str| !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if bare.is_empty() || bare.len() > 253 || !bare.split('.').all(label_ok) {
        return Err("not a host name");
    }
    let local = matches!(bare, "localhost" | "127.0.0.1") || bare.ends_with(".localhost");
    match scheme.as_str() {
        "https" | "wss" => {}
        "http" | "ws" if local => {}
        "http" | "ws" => return Err("plain http only on this machine"),
        _ => return Err("only https and wss (http and ws on this machine)"),
    }
    Ok(match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
}

/// A declared entry as the dropped list says it: short, on one line.
fn shown(entry: &str) -> String {
    let (line, cut) = crate::text::one_line(entry, 60);
    if cut { format!("\"{line}…\"") } else { format!("\"{line}\"") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(connect: &[&str], resources: &[&str]) -> AppResource {
        AppResource {
            connect: connect.iter().map(|s| s.to_string()).collect(),
            resources: resources.iter().map(|s| s.to_string()).collect(),
            ..AppResource::default()
        }
    }

    #[test]
    fn without_a_declaration_the_app_reaches_nothing() {
        let p = Policy::for_app(&AppResource::default());
        assert!(p.text.starts_with("default-src 'none'; script-src 'self' 'unsafe-inline'; "), "{}", p.text);
        assert!(p.text.contains("connect-src 'none'") && p.text.contains("frame-src 'none'"));
        assert!(p.text.contains("object-src 'none'") && p.text.contains("base-uri 'self'"));
        assert!(p.dropped.is_empty());
    }

    #[test]
    fn declared_domains_are_added_to_their_kind_only() {
        let p = Policy::for_app(&declared(
            &["https://api.example.com", "wss://live.example.com:8443/"],
            &["https://*.cdn.example"],
        ));
        assert!(p.text.contains("connect-src https://api.example.com wss://live.example.com:8443;"), "{}", p.text);
        assert!(p.text.contains("script-src 'self' 'unsafe-inline' https://*.cdn.example;"));
        assert!(p.text.contains("frame-src 'none'"));
    }

    #[test]
    fn a_declaration_that_would_loosen_the_policy_is_dropped_with_why() {
        let hostile = [
            "*",
            "https:",
            "'unsafe-eval'",
            "https://a.example; script-src *",
            "https://a.example 'unsafe-eval'",
            "http://evil.example",
            "javascript://x",
            "https://a.example/path",
            "https://\"a.example",
            "data://x",
        ];
        let p = Policy::for_app(&declared(&hostile, &hostile));
        assert_eq!(p.dropped.len(), hostile.len() * 2, "{:?}", p.dropped);
        assert!(p.text.contains("connect-src 'none'"), "{}", p.text);
        assert!(!p.text.contains("evil") && !p.text.contains("unsafe-eval") && !p.text.contains('*'), "{}", p.text);
        assert!(p.dropped.iter().any(|d| d.contains("plain http only on this machine")), "{:?}", p.dropped);
    }

    #[test]
    fn too_many_sources_are_capped() {
        let many: Vec<String> = (0..40).map(|i| format!("https://h{i}.example")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let p = Policy::for_app(&declared(&refs, &[]));
        assert_eq!(p.dropped.len(), 8);
        assert!(p.text.contains("https://h31.example;") && !p.text.contains("h32"));
    }

    #[test]
    fn the_policy_comes_before_anything_of_the_app() {
        let html = "<script>fetch('https://evil.example')</script><!DOCTYPE html><html><head></head></html>";
        let doc = document(html, &Policy::for_app(&AppResource::default()));
        assert!(
            doc.starts_with(
                "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            )
        );
        assert!(doc.find("<script>").unwrap() > doc.find("connect-src 'none'").unwrap());
    }
}
