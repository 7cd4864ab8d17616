//! The bridge played by an attacker: a page of another origin, a sandboxed app frame, a DNS
//! rebinding name, no token or a wrong one, a request that names a command, a bind to the
//! network. Each is refused and nothing is started or relayed.

mod common;

use std::process::Command;

use common::{Bridge, PAGE, initialize};
use serde_json::json;

#[tokio::test]
async fn strangers_are_refused_and_nothing_starts() {
    let bridge = Bridge::fixture();
    let body = initialize().to_string();
    let client = Bridge::client();
    let attempt = |origin: Option<&str>, token: Option<&str>, host: Option<String>| {
        let mut r = client.post(&bridge.url).header("content-type", "application/json").body(body.clone());
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        if let Some(h) = host {
            r = r.header("host", h);
        }
        r.send()
    };
    let cases = [
        ("no token", attempt(Some(PAGE), None, None).await, "token"),
        ("a wrong token", attempt(Some(PAGE), Some("0123"), None).await, "token"),
        ("another origin", attempt(Some("https://evil.example"), Some(&bridge.token), None).await, "origin"),
        ("an app frame (Origin: null)", attempt(Some("null"), Some(&bridge.token), None).await, "origin"),
        (
            "a look-alike origin",
            attempt(Some("http://127.0.0.1:8080.evil.example"), Some(&bridge.token), None).await,
            "origin",
        ),
        (
            "a rebinding Host",
            attempt(Some(PAGE), Some(&bridge.token), Some(format!("evil.example:{}", bridge.port))).await,
            "host",
        ),
        ("another port in Host", attempt(None, Some(&bridge.token), Some("127.0.0.1:1".to_owned())).await, "host"),
    ];
    for (what, answer, kind) in cases {
        let answer = answer.expect("an answer");
        assert_eq!(answer.status(), 403, "{what}");
        assert_eq!(answer.headers()["loopscope-bridge-error"], kind, "{what}");
        let allowed = answer.headers().get("access-control-allow-origin").map(|v| v.to_str().unwrap().to_owned());
        // Only the page itself may read why (a missing or wrong token); another origin learns nothing.
        assert_eq!(allowed.is_some(), kind == "token", "{what}: {allowed:?}");
        assert!(answer.headers().get("mcp-session-id").is_none(), "{what}");
    }
    // The preflight of another origin or a frame gets no CORS headers: the browser stops there.
    for origin in ["https://evil.example", "null"] {
        let answer = client
            .request(reqwest::Method::OPTIONS, &bridge.url)
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "authorization, content-type")
            .send()
            .await
            .unwrap();
        assert!(answer.headers().get("access-control-allow-origin").is_none(), "{origin}");
    }
    let preflight = client
        .request(reqwest::Method::OPTIONS, &bridge.url)
        .header("origin", PAGE)
        .header("access-control-request-method", "POST")
        .header("access-control-request-private-network", "true")
        .send()
        .await
        .unwrap();
    assert_eq!(preflight.headers()["access-control-allow-origin"], PAGE);
    assert_eq!(preflight.headers()["access-control-allow-private-network"], "true");
    assert_eq!(bridge.started().await, 0, "nothing was started for a refused request");
    let log = bridge.log().await;
    assert_eq!(
        log.iter().filter(|e| e["kind"] == "refused").count(),
        9,
        "each refusal is in the bridge's log: {log:#?}"
    );
    assert!(!serde_json::to_string(&log).unwrap().contains(&bridge.token), "the token is never logged");
}

#[tokio::test]
async fn a_request_cannot_choose_what_runs() {
    let bridge = Bridge::fixture();
    let marker = std::env::temp_dir().join(format!("loopscope-bridge-pwned-{}", std::process::id()));
    let touch = format!("touch {}", marker.display());
    // The shapes of the attacks on other proxies: a command in the body, the query, another path.
    let named = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "command": "sh", "args": ["-c", touch],
        "serverConfig": {"command": "sh", "args": ["-c", touch]}, "params": {"protocolVersion": "2025-11-25",
        "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}});
    let answer = bridge.post(None, &named).send().await.unwrap();
    assert_eq!(answer.status(), 200, "the fixed server answered");
    let text = answer.text().await.unwrap();
    assert!(text.contains("bridge-fixture"), "{text}");
    let client = Bridge::client();
    for path in ["/mcp?command=sh&args=-c", "/api/mcp/connect", "/bridge/spawn", "/sse?transportType=stdio&command=sh"]
    {
        let answer = client
            .post(format!("http://127.0.0.1:{}{path}", bridge.port))
            .header("origin", PAGE)
            .bearer_auth(&bridge.token)
            .body(json!({"serverConfig": {"command": "sh", "args": ["-c", touch]}}).to_string())
            .send()
            .await
            .unwrap();
        assert_ne!(answer.status(), 200, "{path}");
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(!marker.exists(), "a request started a command");
    let starts: Vec<_> = bridge.log().await.into_iter().filter(|e| e["kind"] == "start").collect();
    assert!(starts.iter().all(|e| e["text"].as_str().unwrap().starts_with("python3 ")), "{starts:#?}");
}

#[test]
fn it_never_listens_on_the_network() {
    for bind in ["0.0.0.0", "::", "192.168.1.10"] {
        let out = Command::new(env!("CARGO_BIN_EXE_loopscope"))
            .args(["bridge", "--json", "--bind", bind, "--", "python3", "-c", "pass"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{bind}");
        assert!(out.stdout.is_empty(), "{bind}: nothing printed as if it served");
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(said.contains("this machine only"), "{bind}: {said}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_loopscope"))
        .args(["bridge", "--json", "--", "no-such-program-x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot find `no-such-program-x`"));
}

#[tokio::test]
async fn the_token_is_only_in_its_line_and_the_links_fragment() {
    let bridge = Bridge::fixture();
    let connect = bridge.first["connect"].as_str().unwrap();
    let (before, fragment) = connect.split_once('#').unwrap();
    assert_eq!(before, "http://127.0.0.1:8080/");
    assert!(fragment.contains(&bridge.token) && !bridge.url.contains(&bridge.token));
    assert_eq!(bridge.token.len(), 64, "32 random bytes");
    let other = Bridge::fixture();
    assert_ne!(other.token, bridge.token, "a new token each run");
}
