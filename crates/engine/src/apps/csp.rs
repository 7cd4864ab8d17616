//! The Content-Security-Policy an app runs under: built from the domains its resource declares
//! (`_meta.ui.csp`), each checked, and nothing looser; without a declaration, the
//! specification's default (no connections, nothing from elsewhere). The policy is written as
//! the first thing in the app's document, so nothing the app wrote comes before it.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use protocol::mcp::apps::AppResource;

/// At most this many sources of each kind are kept; the rest are dropped and said.
const MAX_SOURCES: usize = 32;

/// An app's policy, the declared sources kept, and those dropped, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    pub text: String,
    /// The declaration as the policy keeps it: what the app may reach besides its own document.
    pub kept: AppResource,
    pub dropped: Vec<String>,
}

/// What the app's header on the page says it may reach, from the declaration the policy kept.
pub fn reach(kept: &AppResource) -> String {
    let parts: Vec<String> = [
        ("connects to", &kept.connect),
        ("loads from", &kept.resources),
        ("frames", &kept.frames),
        ("takes its base from", &kept.base_uris),
    ]
    .into_iter()
    .filter(|(_, list)| !list.is_empty())
    .map(|(what, list)| format!("{what} {}", list.join(", ")))
    .collect();
    if parts.is_empty() {
        "It reaches nothing outside its own document (no declared domains).".into()
    } else {
        format!("It {}; nothing else.", parts.join("; "))
    }
}

impl Policy {
    /// The policy for an app whose resource declared `declared`, served by the MCP server at
    /// `own_origin` (`scheme://host[:port]`): the one address on this machine or a private
    /// network it may reach, since the user added that server.
    pub fn for_app(declared: &AppResource, own_origin: Option<&str>) -> Policy {
        // An app's own frames never load: the sandbox proxy's policy keeps every frame under it
        // on its own document, so that the app's frame cannot be navigated away (sandbox.html).
        let frames_dropped: Vec<String> = declared
            .frames
            .iter()
            .map(|entry| {
                format!(
                    "{}: an app's own frames are not shown (the sandbox keeps every frame on its own document)",
                    shown(entry)
                )
            })
            .collect();
        let mut dropped = Vec::new();
        let mut keep = |list: &[String]| -> Vec<String> {
            let mut kept = Vec::new();
            for entry in list {
                match source(entry, own_origin) {
                    Ok(s) if kept.len() < MAX_SOURCES => kept.push(s),
                    Ok(_) => dropped.push(format!("{}: more than {MAX_SOURCES} of one kind", shown(entry))),
                    Err(why) => dropped.push(format!("{}: {why}", shown(entry))),
                }
            }
            kept
        };
        let kept = AppResource {
            resources: keep(&declared.resources),
            connect: keep(&declared.connect),
            frames: Vec::new(),
            base_uris: keep(&declared.base_uris),
            prefers_border: declared.prefers_border,
        };
        dropped.extend(frames_dropped);
        let with = |fixed: &str, extra: &[String]| {
            if extra.is_empty() { fixed.to_owned() } else { format!("{fixed} {}", extra.join(" ")) }
        };
        let or = |list: &[String], none: &str| if list.is_empty() { none.to_owned() } else { list.join(" ") };
        let text = [
            "default-src 'none'".to_owned(),
            format!("script-src {}", with("'self' 'unsafe-inline'", &kept.resources)),
            format!("style-src {}", with("'self' 'unsafe-inline'", &kept.resources)),
            format!("img-src {}", with("'self' data:", &kept.resources)),
            format!("font-src {}", with("'self'", &kept.resources)),
            format!("media-src {}", with("'self' data:", &kept.resources)),
            format!("connect-src {}", or(&kept.connect, "'none'")),
            format!("frame-src {}", or(&kept.frames, "'none'")),
            format!("base-uri {}", or(&kept.base_uris, "'self'")),
            "object-src 'none'".to_owned(),
            "form-action 'none'".to_owned(),
            "worker-src 'none'".to_owned(),
        ]
        .join("; ");
        Policy { text, kept, dropped }
    }
}

/// The document the sandbox shows: the policy first, then [`NO_WEBRTC`], then the app's HTML
/// as it came. The parser puts the `<meta>` and the script in the head it opens for them, and
/// everything of the app after them; the app's own `<!DOCTYPE>`, `<html>` and `<head>` are then
/// parse errors the browser skips.
pub fn document(html: &str, policy: &Policy) -> String {
    let content = policy.text.replace('"', "&quot;");
    format!(
        "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"{content}\"><script>{NO_WEBRTC}</script>{html}"
    )
}

/// Run before anything of the app: WebRTC, which no CSP directive covers in Chromium (a TURN
/// server on any port, data in its user name), is taken away — every `RTC…` constructor
/// deleted, and every frame, object or embed the app adds removed as it is added, since a
/// nested frame has the constructors again. Measured in Chromium, and a speed bump only: a
/// frame inside a declarative shadow root (`<template shadowrootmode>`) is not seen and has
/// WebRTC back (docs/security.md, *What an app can still do*). The references it uses are taken
/// before the app can replace them.
pub const NO_WEBRTC: &str = r#"(()=>{for(const k of Object.getOwnPropertyNames(window))if(/^(webkit)?RTC/.test(k))try{delete window[k]}catch(e){}const apply=Reflect.apply,remove=Element.prototype.remove,all=Element.prototype.querySelectorAll,tag=Object.getOwnPropertyDescriptor(Element.prototype,"tagName").get,framing=/^(IFRAME|FRAME|OBJECT|EMBED)$/;new MutationObserver(rs=>{for(const r of rs)for(const n of r.addedNodes){if(n.nodeType!==1)continue;for(const el of [n,...apply(all,n,["iframe,frame,object,embed"])])if(framing.test(apply(tag,el,[])))apply(remove,el,[])}}).observe(document,{childList:true,subtree:true})})()"#;

/// One declared domain as a CSP source: `https://host[:port]` (a leading `*.` allowed in the
/// host, never over a public suffix), `wss://…`; nothing on this machine, a private network or
/// link-local (an app would reach the user's other local servers, with `Origin: null`) but the
/// app's own server's origin (`own_origin`), where `http`/`ws` are allowed as the server itself
/// is. No keywords, no paths, no characters that could end the source or the directive.
fn source(entry: &str, own_origin: Option<&str>) -> Result<String, &'static str> {
    let (scheme, rest) = entry.split_once("://").ok_or("not scheme://host")?;
    let scheme = scheme.to_ascii_lowercase();
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => (h, Some(p)),
        Some(_) => return Err("not a host with an optional port"),
        None => (rest, None),
    };
    let host = host.to_ascii_lowercase();
    let wildcard = host.strip_prefix("*.");
    let bare = wildcard.unwrap_or(&host);
    let label_ok =
        |l: &str| !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if bare.is_empty() || bare.len() > 253 || !bare.split('.').all(label_ok) {
        return Err("not a host name");
    }
    let text = match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    };
    if !matches!(scheme.as_str(), "https" | "wss" | "http" | "ws") {
        return Err("only https and wss (http and ws on this machine)");
    }
    if let Some(suffix) = wildcard
        && (!suffix.contains('.') || PUBLIC_SUFFIXES.contains(&suffix))
    {
        return Err("a wildcard over a public suffix (every site under it)");
    }
    if near(bare) {
        // The app's own server, as the user added it (ws/wss for its http/https origin too).
        let as_http = text.replacen("ws", "http", usize::from(scheme.starts_with("ws")));
        return match own_origin {
            Some(own) if wildcard.is_none() && as_http == own => Ok(text),
            _ => Err("on this machine or a private network, and not the app's own server: an app may not reach \
                      the user's other local servers"),
        };
    }
    if matches!(scheme.as_str(), "http" | "ws") {
        return Err("plain http only on this machine");
    }
    Ok(text)
}

/// Suffixes under which anyone can have a name: a wildcard over one is every site there. The
/// common ones with two labels (one label, `*.com`, is refused by its shape); not the whole
/// Public Suffix List, which would cost the page more than it protects here.
const PUBLIC_SUFFIXES: [&str; 24] = [
    "co.uk",
    "org.uk",
    "ac.uk",
    "gov.uk",
    "com.au",
    "net.au",
    "org.au",
    "co.jp",
    "co.nz",
    "com.br",
    "com.cn",
    "co.in",
    "github.io",
    "gitlab.io",
    "vercel.app",
    "netlify.app",
    "pages.dev",
    "workers.dev",
    "herokuapp.com",
    "appspot.com",
    "web.app",
    "firebaseapp.com",
    "blogspot.com",
    "ngrok-free.app",
];

/// This machine, a private network or link-local: loopback and `localhost` names, 10/8,
/// 172.16/12, 192.168/16, 169.254/16, 100.64/10, 0/8, and the names only a local network
/// resolves (`.local`, `.internal`, `.lan`, `.home.arpa`).
fn near(host: &str) -> bool {
    let octets: Vec<u8> = host.split('.').filter_map(|p| p.parse().ok()).collect();
    if let [a, b, _, _] = octets[..]
        && host.split('.').count() == 4
    {
        return matches!((a, b), (0 | 10 | 127, _) | (192, 168) | (169, 254))
            || (a == 172 && (16..=31).contains(&b))
            || (a == 100 && (64..=127).contains(&b));
    }
    host == "localhost"
        || [".localhost", ".local", ".internal", ".lan", ".home.arpa"].iter().any(|s| host.ends_with(s))
        || !host.contains('.')
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
        let p = Policy::for_app(&AppResource::default(), None);
        assert!(p.text.starts_with("default-src 'none'; script-src 'self' 'unsafe-inline'; "), "{}", p.text);
        assert!(p.text.contains("connect-src 'none'") && p.text.contains("frame-src 'none'"));
        assert!(p.text.contains("object-src 'none'") && p.text.contains("base-uri 'self'"));
        assert!(p.dropped.is_empty());
    }

    #[test]
    fn declared_domains_are_added_to_their_kind_only() {
        let p = Policy::for_app(
            &declared(&["https://api.example.com", "wss://live.example.com:8443/"], &["https://*.cdn.example"]),
            None,
        );
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
        let p = Policy::for_app(&declared(&hostile, &hostile), None);
        assert_eq!(p.dropped.len(), hostile.len() * 2, "{:?}", p.dropped);
        assert!(p.text.contains("connect-src 'none'"), "{}", p.text);
        assert!(!p.text.contains("evil") && !p.text.contains("unsafe-eval") && !p.text.contains('*'), "{}", p.text);
        assert!(p.dropped.iter().any(|d| d.contains("plain http only on this machine")), "{:?}", p.dropped);
    }

    #[test]
    fn an_app_reaches_no_local_or_private_address_but_its_own_server() {
        let own = Some("http://127.0.0.1:9153");
        let local = [
            "http://127.0.0.1:9154",
            "https://127.0.0.1:9153",
            "ws://localhost:3000",
            "https://10.0.0.5",
            "https://192.168.1.20:8443",
            "https://172.20.0.1",
            "https://169.254.169.254",
            "https://printer.local",
            "https://nas.lan",
            "https://intranet",
        ];
        let p = Policy::for_app(&declared(&local, &[]), own);
        assert_eq!(p.dropped.len(), local.len(), "{:?}", p.dropped);
        assert!(p.dropped.iter().all(|d| d.contains("not the app's own server")), "{:?}", p.dropped);
        assert!(p.text.contains("connect-src 'none'"), "{}", p.text);
        // Its own server's origin, as http and as ws: kept, and said.
        let p = Policy::for_app(&declared(&["http://127.0.0.1:9153", "ws://127.0.0.1:9153"], &[]), own);
        assert!(p.dropped.is_empty(), "{:?}", p.dropped);
        assert_eq!(reach(&p.kept), "It connects to http://127.0.0.1:9153, ws://127.0.0.1:9153; nothing else.");
        assert_eq!(
            reach(&Policy::for_app(&AppResource::default(), own).kept),
            "It reaches nothing outside its own document (no declared domains)."
        );
    }

    #[test]
    fn a_wildcard_over_a_public_suffix_is_dropped() {
        let p = Policy::for_app(&declared(&["https://*.com", "https://*.github.io", "https://*.co.uk"], &[]), None);
        assert_eq!(p.dropped.len(), 3, "{:?}", p.dropped);
        assert!(p.dropped.iter().all(|d| d.contains("public suffix")), "{:?}", p.dropped);
        let p = Policy::for_app(&declared(&["https://*.example.com", "https://*.you.github.io"], &[]), None);
        assert!(p.dropped.is_empty(), "{:?}", p.dropped);
    }

    #[test]
    fn too_many_sources_are_capped() {
        let many: Vec<String> = (0..40).map(|i| format!("https://h{i}.example")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        let p = Policy::for_app(&declared(&refs, &[]), None);
        assert_eq!(p.dropped.len(), 8);
        assert!(p.text.contains("https://h31.example;") && !p.text.contains("h32"));
    }

    #[test]
    fn the_policy_comes_before_anything_of_the_app() {
        let html = "<script>fetch('https://evil.example')</script><!DOCTYPE html><html><head></head></html>";
        let doc = document(html, &Policy::for_app(&AppResource::default(), None));
        assert!(
            doc.starts_with(
                "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            )
        );
        assert!(doc.find("<script>fetch").unwrap() > doc.find("connect-src 'none'").unwrap());
        // WebRTC is taken away after the policy and before anything of the app.
        let guard = doc.find(NO_WEBRTC).unwrap();
        assert!(guard > doc.find("connect-src 'none'").unwrap() && guard < doc.find("<script>fetch").unwrap());
    }
}
