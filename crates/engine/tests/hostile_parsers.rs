//! Every parser of text from outside the page, fed what an attacker (or a broken server) would
//! send: none may panic (a panic aborts the wasm and kills the page), and each keeps its promise.
//! The URL policy is checked against the `url` crate, the WHATWG URL parser that browsers follow:
//! whatever the policy lets through must be what the browser will open or fetch.
//!
//! A fixed budget of cases per property, so the test command stays quick: PROPTEST_CASES raises
//! it for a longer hunt (`PROPTEST_CASES=100000 cargo test --test hostile_parsers`).
#![cfg(not(target_arch = "wasm32"))]

use engine::auth::Challenge;
use engine::limits::{Limits, json_depth_within};
use engine::session::Session;
use engine::sse::SseParser;
use engine::url_policy::{self, Host, Scheme, Trust};
use engine::{demo, lesson, server_address, uri_template};
use proptest::prelude::*;
use protocol::jsonrpc::Message;
use protocol::oauth::{AuthServerMetadata, ProtectedResourceMetadata};
use serde_json::{Value, json};

fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(cases);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// Strings made of the characters URL attacks are made of.
fn url_like() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("https://".to_owned()),
        Just("http://".to_owned()),
        Just("javascript:".to_owned()),
        Just("JaVaScRiPt:".to_owned()),
        Just("data:".to_owned()),
        Just("blob:".to_owned()),
        Just("file:".to_owned()),
        Just("https:".to_owned()),
        Just("//".to_owned()),
        Just("/".to_owned()),
        Just("\\".to_owned()),
        Just("@".to_owned()),
        Just(":".to_owned()),
        Just("%".to_owned()),
        Just("%2e".to_owned()),
        Just("%00".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("::1".to_owned()),
        Just("127.0.0.1".to_owned()),
        Just("0x7f".to_owned()),
        Just("2130706433".to_owned()),
        Just("localhost".to_owned()),
        Just("evil.example".to_owned()),
        Just(".".to_owned()),
        Just("?".to_owned()),
        Just("#".to_owned()),
        Just("\t".to_owned()),
        Just("\n".to_owned()),
        Just(" ".to_owned()),
        Just("\u{0}".to_owned()),
        Just("é".to_owned()),
        Just("xn--".to_owned()),
        "[a-z0-9]{1,6}",
        "[0-9]{1,5}",
    ];
    prop::collection::vec(pieces, 1..10).prop_map(|v| v.concat())
}

fn same_host(ours: &Host, theirs: url::Host<&str>) -> bool {
    match (ours, theirs) {
        (Host::Domain(a), url::Host::Domain(b)) => a == b,
        (Host::Ipv4(a), url::Host::Ipv4(b)) => *a == b.octets(),
        (Host::Ipv6(a), url::Host::Ipv6(b)) => a.parse::<std::net::Ipv6Addr>().ok() == Some(b),
        _ => false,
    }
}

proptest! {
    #![proptest_config(config(4000))]

    /// Whatever the policy lets through, the WHATWG parser reads the same way: the same scheme
    /// (https, or http on this machine), host and port, and no user info. And whatever the
    /// WHATWG parser reads as another scheme (javascript:, data:, …) the policy refuses.
    #[test]
    fn the_url_policy_and_the_browser_agree(text in url_like()) {
        let whatwg = url::Url::parse(&text);
        if let Ok(allowed) = url_policy::check(&text, Trust::Stranger) {
                // A host the browser itself refuses (punycode that does not decode: "xn--") opens
                // and fetches nothing, so letting it through harms nothing; the policy does not
                // carry an IDNA decoder for it. Anything else must read the same.
                let theirs = match whatwg {
                    Err(url::ParseError::IdnaError) => return Ok(()),
                    other => other.expect("the policy let through what the browser cannot parse"),
                };
                let ours = &allowed.url;
                prop_assert_eq!(theirs.scheme(), ours.scheme.as_str());
                prop_assert!(theirs.username().is_empty() && theirs.password().is_none());
                prop_assert!(same_host(&ours.host, theirs.host().expect("a host")), "{} vs {:?}", ours.host, theirs.host());
                prop_assert_eq!(theirs.port_or_known_default(), Some(ours.port.unwrap_or(match ours.scheme { Scheme::Https => 443, Scheme::Http => 80 })));
                if ours.scheme == Scheme::Http {
                    prop_assert!(ours.host.is_loopback());
                }
                // What is opened is the canonical text: it must read the same again.
                let again = url::Url::parse(&ours.href()).expect("canonical text parses");
                prop_assert_eq!(again.host_str(), theirs.host_str());
                prop_assert_eq!(again.scheme(), theirs.scheme());
        }
        if let Ok(u) = url::Url::parse(&text) && !matches!(u.scheme(), "http" | "https") {
            prop_assert!(url_policy::check(&text, Trust::Stranger).is_err());
            prop_assert!(url_policy::check(&text, Trust::User).is_err());
        }
    }

    /// What the user types is judged as the browser reads it: whatever passes (as an address
    /// or as a server's, with its user info moved into a header) names the host, port and
    /// scheme the WHATWG parser reads in the same text — backslashes, tabs, line breaks and
    /// %-escapes included, so a check and a connection can never go to two different hosts.
    #[test]
    fn what_the_user_typed_connects_where_the_browser_would(text in url_like()) {
        let Ok(theirs) = url::Url::parse(text.trim()) else {
            prop_assert!(url_policy::check(&text, Trust::User).is_err());
            prop_assert!(server_address::prepare(&text).is_err());
            return Ok(());
        };
        let agree = |href: &str| -> Result<(), TestCaseError> {
            let ours = url::Url::parse(href).expect("what passed parses");
            prop_assert_eq!(ours.scheme(), theirs.scheme());
            prop_assert_eq!(ours.host_str(), theirs.host_str(), "{:?} → {}", text, href);
            prop_assert_eq!(ours.port_or_known_default(), theirs.port_or_known_default());
            Ok(())
        };
        if let Ok(allowed) = url_policy::check(&text, Trust::User) {
            agree(&allowed.url.href())?;
        }
        if let Ok(address) = server_address::prepare(&text) {
            agree(&address.url)?;
            let kept = url::Url::parse(&address.url).expect("parses");
            prop_assert!(kept.username().is_empty() && kept.password().is_none(), "user info kept in {}", address.url);
        }
    }

    /// Well-formed https URLs of any shape pass and keep their host. A label that starts with
    /// `xn--` is an IDNA A-label, which the WHATWG parser must decode as Punycode; a random one
    /// does not decode and is rightly refused (CI found `a.xn--`), so it is not ordinary.
    #[test]
    fn ordinary_addresses_pass(host in "[a-z][a-z0-9-]{0,10}(\\.[a-z][a-z0-9-]{0,10}){1,3}", port in proptest::option::of(1u16..), path in "(/[a-zA-Z0-9._~-]{0,8}){0,4}", query in proptest::option::of("[a-z]{1,5}=[a-z0-9]{0,5}")) {
        prop_assume!(!host.split('.').any(|label| label.starts_with("xn--")));
        let text = format!("https://{host}{}{path}{}", port.map(|p| format!(":{p}")).unwrap_or_default(), query.map(|q| format!("?{q}")).unwrap_or_default());
        let allowed = url_policy::check(&text, Trust::Stranger).map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(allowed.url.host, Host::Domain(host));
    }

    /// The SSE parser: no panic on any bytes, split anywhere, and never holds more than its limit.
    #[test]
    fn sse_never_panics_and_keeps_its_limit(bytes in prop::collection::vec(any::<u8>(), 0..2000), split in 1usize..64, max in 1usize..256) {
        let mut whole = SseParser::new(usize::MAX);
        let all = whole.feed(&bytes).expect("no limit");
        let mut parts = SseParser::new(usize::MAX);
        let mut pieces = Vec::new();
        for chunk in bytes.chunks(split) {
            pieces.extend(parts.feed(chunk).expect("no limit"));
        }
        prop_assert_eq!(pieces, all);
        let mut small = SseParser::new(max);
        for chunk in bytes.chunks(split) {
            match small.feed(chunk) {
                Ok(events) => for e in events { prop_assert!(e.data.len() <= max) },
                Err(_) => break,
            }
        }
    }

    /// JSON-RPC framing, the WWW-Authenticate header, metadata documents, URI templates, the
    /// demo model, server addresses and credential lines: any input, no panic.
    #[test]
    fn outside_text_never_panics(text in "\\PC{0,200}", json in arbitrary_json()) {
        let _ = Message::parse_all(&text);
        let _ = Message::parse_all(&json.to_string());
        let _ = Challenge::parse(Some(&text));
        let _ = AuthServerMetadata::read(&json);
        let _ = ProtectedResourceMetadata::read(&json);
        let vars = json.as_object().cloned().unwrap_or_default();
        let _ = uri_template::expand(&text, &vars);
        let _ = uri_template::variables(&text);
        let _ = server_address::prepare(&text);
        let _ = server_address::parse_lines(&text, true);
        let _ = lesson::parse(&text);
        let _ = lesson::parse(&json.to_string());
        let _ = lesson::source(&text, &text);
        let _ = Session::from_json(&json.to_string(), &Limits::default());
        let tools = json!([{"name": "get_weather", "description": &text, "input_schema": json}]);
        let _ = demo::respond(&json!({"messages": [{"role": "user", "content": &text}], "tools": tools}));
    }

    /// The demo model reads any language: the question that used to kill the page, and others.
    #[test]
    fn the_demo_model_reads_any_language(q in "(Any cafés nearby\\?|東京の天気は？|Ünïcödé wéâthér in Zürich|[\\p{L} ?!.]{0,40})") {
        let tools = json!([{"name": "get_weather", "description": "Weather for a city", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]);
        let _ = demo::respond(&json!({"messages": [{"role": "user", "content": q}], "tools": tools}));
    }

    /// The nesting check agrees with the depth of what it is given.
    #[test]
    fn json_depth_is_measured_exactly(depth in 1usize..200, wrap in prop::bool::ANY) {
        let open = if wrap { "{\"a\":" } else { "[" };
        let close = if wrap { "}" } else { "]" };
        let text = format!("{}1{}", open.repeat(depth), close.repeat(depth));
        prop_assert!(json_depth_within(&text, depth));
        prop_assert!(!json_depth_within(&text, depth - 1));
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,20}".prop_map(Value::String),
        Just(json!("https://x.example/")),
        Just(json!("javascript:alert(1)")),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        "[a-z_]{1,8}",
                        Just("issuer".to_owned()),
                        Just("authorization_endpoint".to_owned()),
                        Just("token_endpoint".to_owned()),
                        Just("resource".to_owned()),
                        Just("authorization_servers".to_owned()),
                        Just("jsonrpc".to_owned()),
                        Just("id".to_owned()),
                        Just("method".to_owned()),
                        Just("lesson".to_owned()),
                        Just("steps".to_owned()),
                        Just("loopscope_session".to_owned()),
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// The cases found by hand that a fuzzer might take a while to meet.
#[test]
fn known_attacks_on_the_policy() {
    for attack in [
        "javascript:alert(document.cookie)//https://example.com",
        "  javascript:alert(1)",
        "java\u{0}script:alert(1)",
        "https://example.com\\@evil.example",
        "https:\\\\evil.example",
        "http://127.0.0.1@evil.example/",
        "http://evil.example#@127.0.0.1/",
        "http://[::ffff:127.0.0.1]/",
    ] {
        let ours = url_policy::check(attack, Trust::Stranger);
        let theirs = url::Url::parse(attack);
        if let (Ok(a), Ok(t)) = (&ours, &theirs) {
            assert!(same_host(&a.url.host, t.host().unwrap()), "{attack}: {} vs {:?}", a.url.host, t.host());
            assert!(a.url.scheme == Scheme::Https || a.url.host.is_loopback(), "{attack}");
        }
    }
}
