//! The 2026-07-28 revision against real servers on 127.0.0.1: the TypeScript SDK v2 (dual-era,
//! and `legacy: 'reject'`), the Python SDK 2.x (dual-era), and the 2025-era servers the other
//! tests use (server-everything, the Python SDK 1.x). Automatic negotiation picks the newest
//! revision both speak; a pinned revision is spoken or refused, never silently replaced.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::mcp::{ElicitationHandler, Handlers, McpClient, McpError, ProtocolError, RequestOptions, ServerConfig};
use engine::trace::{TraceEvent, TraceKind};
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use protocol::jsonrpc::ErrorObject;
use protocol::mcp::{ElicitAction, ElicitParams, ElicitResult, Revision};
use serde_json::json;
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::real::{self, PyMode};

struct Name;
impl ElicitationHandler for Name {
    fn elicit(&self, _: &str, params: ElicitParams) -> LocalBoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        assert_eq!(params.message, "What is your name?");
        let content = json!({"name": "Ada"}).as_object().cloned();
        async move { Ok(ElicitResult { action: ElicitAction::Accept, content }) }.boxed_local()
    }
}

fn client(
    url: &str,
    config: impl FnOnce(ServerConfig) -> ServerConfig,
) -> (McpClient<Native>, Rc<RefCell<Vec<TraceEvent>>>) {
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let handlers = Handlers { elicitation: Some(Rc::new(Name)), ..Default::default() };
    (McpClient::new(platform, config(ServerConfig::new("s", url)), tracer, handlers), trace)
}

fn text(v: &protocol::mcp::CallToolResult) -> String {
    v.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("")
}

fn none() -> RequestOptions {
    RequestOptions::default()
}

/// The methods the client sent, in order.
fn sent(trace: &RefCell<Vec<TraceEvent>>) -> Vec<String> {
    trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Rpc { direction: engine::trace::Direction::Out, message, .. } => {
                message.method().map(str::to_owned)
            }
            _ => None,
        })
        .collect()
}

/// The headers of the request that carried `rpc_method`.
fn headers_of(trace: &RefCell<Vec<TraceEvent>>, rpc_method: &str) -> engine::platform::Headers {
    let events = trace.borrow();
    let exchange = events
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::Rpc { message, exchange, .. } if message.method() == Some(rpc_method) => *exchange,
            _ => None,
        })
        .expect("the request was sent");
    events
        .iter()
        .find_map(|e| match &e.kind {
            TraceKind::HttpRequest { exchange: x, headers, .. } if *x == exchange => Some(headers.clone()),
            _ => None,
        })
        .unwrap()
}

#[tokio::test(flavor = "current_thread")]
async fn typescript_sdk_v2_speaks_2026_07_28_with_no_handshake_r01_r05() {
    let server = real::ts_v2(false);
    let (c, trace) = client(&server.url, |c| c);
    let info = c.connect().await.unwrap();
    assert_eq!((c.modern(), info.server_info.name.as_str()), (Some(Revision::V2026_07_28), "loopscope-ts-notes"));
    assert_eq!(c.session_id(), None, "R-01: no session");
    let tools = c.list_tools(&none()).await.unwrap();
    assert!(tools.tools.iter().any(|t| t.name == "weather"));

    // SEP-2243: the region rides in a header too; the server checks it matches the body.
    let sunny = c.call_tool("weather", json!({"region": "us-west1"}), &none()).await.unwrap();
    assert_eq!(text(&sunny), "Sunny in us-west1.");
    let h = headers_of(&trace, "tools/call");
    assert_eq!(
        (h.get("mcp-method"), h.get("mcp-name"), h.get("mcp-param-region")),
        (Some("tools/call"), Some("weather"), Some("us-west1"))
    );

    // the server asks a question in its result; the client answers and asks again.
    let hello = c.call_tool("greet", json!({}), &none()).await.unwrap();
    assert_eq!(text(&hello), "Hello, Ada!");
    let calls = trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Rpc { direction: engine::trace::Direction::Out, message, .. }
                if message.params().and_then(|p| p.get("name")) == Some(&json!("greet")) =>
            {
                Some((message.id().cloned(), message.params().unwrap().get("inputResponses").cloned()))
            }
            _ => None,
        })
        .collect::<Vec<_>>();
    assert_eq!(calls.len(), 2, "the call, then its retry");
    assert_ne!(calls[0].0, calls[1].0, "the retry is a new request, with a new id");
    assert_eq!(calls[0].1, None);
    assert_eq!(calls[1].1, Some(json!({"who": {"action": "accept", "content": {"name": "Ada"}}})));

    let failed = c.call_tool("always_fails", json!({}), &none()).await.unwrap();
    assert!(failed.is_error);
    let read = c.read_resource("notes://index", &none()).await.unwrap();
    assert_eq!(read.contents[0].text.as_deref(), Some("mcp\nrevision"));
    // 2025-only methods are refused before they are sent.
    assert!(c.ping(&none()).await.unwrap_err().to_string().contains("does not exist in 2026-07-28"));
    c.disconnect().await.unwrap();
    let methods = sent(&trace);
    assert!(!methods.iter().any(|m| m == "initialize" || m == "notifications/initialized"), "{methods:?}");
    assert!(!methods.iter().any(|m| m == "ping"));
}

#[tokio::test(flavor = "current_thread")]
async fn pinned_to_2025_the_same_server_gets_the_handshake_and_a_strict_one_refuses_it() {
    let dual = real::ts_v2(false);
    let (c, trace) = client(&dual.url, |c| c.pinned(Revision::V2025_11_25));
    let info = c.connect().await.unwrap();
    assert_eq!((info.protocol_version.as_str(), c.modern()), ("2025-11-25", None));
    assert!(c.why().starts_with("2025-11-25 was pinned"), "{}", c.why());
    let hits = c.call_tool("search_notes", json!({"query": "revision"}), &none()).await.unwrap();
    assert!(text(&hits).contains("no initialize handshake"));
    assert_eq!(sent(&trace)[..2], ["initialize", "notifications/initialized"]);

    let strict = real::ts_v2(true);
    let (c, _) = client(&strict.url, |c| c.pinned(Revision::V2025_11_25));
    let err = c.connect().await.unwrap_err();
    assert!(
        matches!(&err, McpError::Protocol(ProtocolError::ModernOnly { supported }) if supported.contains(&"2026-07-28".to_owned())),
        "{err:?}"
    );
    // Automatic: the strict server is simply spoken to in 2026-07-28.
    let (c, _) = client(&strict.url, |c| c);
    c.connect().await.unwrap();
    assert_eq!(c.modern(), Some(Revision::V2026_07_28));
    assert_eq!(
        text(&c.call_tool("search_notes", json!({"query": "mcp"}), &none()).await.unwrap()),
        "mcp: MCP separates AI clients from tools: microservices for LLMs."
    );
}

#[tokio::test(flavor = "current_thread")]
async fn python_sdk_2_serves_both_eras_r08() {
    let server = real::python2();
    let (c, _) = client(&server.url, |c| c);
    c.connect().await.unwrap();
    assert_eq!(c.modern(), Some(Revision::V2026_07_28));
    let sum = c.call_tool("add", json!({"a": 2, "b": 3}), &none()).await.unwrap();
    assert_eq!(text(&sum), "5.0");
    assert!(c.call_tool("always_fails", json!({}), &none()).await.unwrap().is_error);

    let (c, _) = client(&server.url, |c| c.pinned(Revision::V2025_11_25));
    let info = c.connect().await.unwrap();
    assert_eq!(info.protocol_version, "2025-11-25");
    assert!(c.session_id().is_some(), "a 2025 session");
    assert_eq!(text(&c.call_tool("add", json!({"a": 1, "b": 1}), &none()).await.unwrap()), "2.0");
    c.disconnect().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn servers_of_the_2025_era_are_recognised_and_spoken_to_in_2025_r08() {
    for (server, name) in [(real::everything(), "server-everything"), (real::python(PyMode::Sse), "Python SDK 1.x")] {
        let (c, trace) = client(&server.url, |c| c);
        let info = c.connect().await.unwrap();
        assert_eq!((info.protocol_version.as_str(), c.modern()), ("2025-11-25", None), "{name}");
        assert!(c.why().starts_with("server/discover answered"), "{name}: {}", c.why());
        assert_eq!(sent(&trace)[..3], ["server/discover", "initialize", "notifications/initialized"], "{name}");
        assert!(!c.list_tools(&none()).await.unwrap().tools.is_empty());
        c.disconnect().await.unwrap();
    }
}
