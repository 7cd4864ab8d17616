//! The MCP client against fault fixtures (testkit::mcp_faults): every failure lands in its own
//! layer, and the transport rules hold. Conformance item ids from docs/conformance.md
//! are in the test names.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::cancel::CancelToken;
use engine::layer::Layer;
use engine::limits::{Limit, LimitExceeded, Limits};
use engine::mcp::{
    Connection, ElicitationHandler, Handlers, ListenEnd, McpClient, McpError, ProtocolError, Reach, RequestOptions,
    RevisionChoice, ServerConfig, ServerNotification,
};
use engine::trace::{Direction, TraceKind, Tracer};
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use protocol::jsonrpc::ErrorObject;
use protocol::mcp::{ElicitAction, ElicitParams, ElicitResult, Revision};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::mcp_faults::Faults;
use testkit::real::{self, PyMode};

/// A client for the 2025 transport's rules, pinned to 2025-11-25 (no discovery probe first).
fn client(fx: &Faults, scenario: &str) -> McpClient<Native> {
    client_with(fx, scenario, Handlers::default(), |c| c)
}

/// A client that finds the revision out (the page's default).
fn client_auto(fx: &Faults, scenario: &str) -> McpClient<Native> {
    client_with(fx, scenario, Handlers::default(), |c| ServerConfig { revision: RevisionChoice::Auto, ..c })
}

fn client_with(
    fx: &Faults,
    scenario: &str,
    handlers: Handlers,
    config: impl FnOnce(ServerConfig) -> ServerConfig,
) -> McpClient<Native> {
    let platform = Native::new();
    let (tracer, _) = recording_tracer(&platform);
    let pinned = ServerConfig::new(scenario, fx.url(scenario)).pinned(Revision::LEGACY_LATEST);
    McpClient::new(platform, config(pinned), tracer, handlers)
}

fn text_of(result: &protocol::mcp::CallToolResult) -> String {
    result.content.iter().filter_map(protocol::mcp::ContentBlock::as_text).collect()
}

async fn call_echo(c: &McpClient<Native>) -> Result<protocol::mcp::CallToolResult, McpError> {
    c.call_tool("echo", json!({"text": "hi"}), &RequestOptions::default()).await
}

#[tokio::test(flavor = "current_thread")]
async fn handshake_headers_and_session_c02_c09_c12_c15_c17() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "ok");
    let info = c.connect().await.unwrap();
    assert_eq!(info.protocol_version, "2025-11-25");
    assert_eq!(info.server_info.name, "fault-fixture/ok");
    assert_eq!(text_of(&call_echo(&c).await.unwrap()), "echo: hi");

    let reqs = fx.requests("ok");
    let init = &reqs[0];
    assert_eq!(init.rpc_method().as_deref(), Some("initialize"));
    assert_eq!(init.header("accept"), Some("application/json, text/event-stream"));
    assert_eq!(init.header("content-type"), Some("application/json"));
    assert_eq!(init.header("mcp-session-id"), None, "C-09: no session id before the server gives one");
    assert_eq!(init.header("mcp-protocol-version"), None, "P10: no version header on initialize");
    assert_eq!(init.json()["params"]["clientInfo"]["name"], "Loopscope");
    assert_eq!(init.json()["params"]["capabilities"], json!({}), "C-36: nothing declared without handlers");
    for r in &reqs[1..] {
        assert_eq!(r.header("mcp-session-id"), Some("ok-session-1"), "C-09 on {:?}", r.rpc_method());
        assert_eq!(r.header("mcp-protocol-version"), Some("2025-11-25"), "C-12 on {:?}", r.rpc_method());
    }
    assert_eq!(fx.methods("ok"), ["initialize", "notifications/initialized", "tools/call"]);
    // C-18: ids are unique integers; notifications carry none.
    assert_eq!(reqs[0].json()["id"], 1);
    assert!(reqs[1].json().get("id").is_none());
    assert_eq!(reqs[2].json()["id"], 2);
}

#[tokio::test(flavor = "current_thread")]
async fn malformed_json_is_a_decode_error_keeping_the_raw_body() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "malformed");
    c.connect().await.unwrap();
    let err = c.list_tools(&RequestOptions::default()).await.unwrap_err();
    assert_eq!(err.layer(), Layer::Decode);
    let McpError::Decode { raw, .. } = err else { unreachable!() };
    assert!(raw.ends_with("\"tools\":["), "{raw}");
}

#[tokio::test(flavor = "current_thread")]
async fn sse_cut_mid_event_is_a_network_error_c05() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "sse-cut");
    c.connect().await.unwrap();
    let err = call_echo(&c).await.unwrap_err();
    assert_eq!(err.layer(), Layer::Network, "{err}");
    assert!(err.to_string().contains("broke off"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn broken_stream_resumes_with_last_event_id_c06_c07() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "sse-resume");
    c.connect().await.unwrap();
    let progress = Rc::new(RefCell::new(Vec::new()));
    let seen = progress.clone();
    let opts = RequestOptions {
        on_progress: Some(Rc::new(move |p| seen.borrow_mut().push(p.progress))),
        ..Default::default()
    };
    let result = c.call_tool("echo", json!({}), &opts).await.unwrap();
    assert_eq!(text_of(&result), "resumed");
    assert_eq!(*progress.borrow(), [1.0], "C-22: progress before the drop was delivered");
    let get = fx.requests("sse-resume").into_iter().find(|r| r.method == "GET").expect("a resuming GET");
    assert_eq!(get.header("last-event-id"), Some("r2"));
    assert_eq!(get.header("accept"), Some("text/event-stream"), "C-02");
    assert_eq!(get.header("mcp-session-id"), Some("sse-resume-session-1"));
}

#[tokio::test(flavor = "current_thread")]
async fn an_endpoint_that_refuses_post_is_named_as_not_streamable_http() {
    let fx = Faults::start(0).await;
    let err = client(&fx, "legacy-sse").connect().await.unwrap_err();
    assert_eq!(err.layer(), Layer::Http, "{err}");
    assert_eq!(err.to_string(), "HTTP 405");
    let hint = err.hint().expect("a hint for 405");
    assert!(hint.contains("not a Streamable HTTP MCP endpoint") && hint.contains("/sse"), "{hint}");
}

#[tokio::test(flavor = "current_thread")]
async fn http_errors_keep_status_and_body_c04() {
    let fx = Faults::start(0).await;
    for (scenario, status) in [("http-500", 500), ("http-502", 502), ("http-504", 504)] {
        let c = client(&fx, scenario);
        c.connect().await.unwrap();
        let err = call_echo(&c).await.unwrap_err();
        assert_eq!(err.layer(), Layer::Http, "{scenario}: {err}");
        let McpError::Http { status: got, ref body, ref rpc, .. } = err else { unreachable!() };
        assert_eq!(got, status);
        assert!(!body.is_empty());
        if status == 500 {
            // An id-less JSON-RPC error object inside the 500 is read and shown (C-04).
            assert_eq!(rpc.as_ref().map(|e| e.code.0), Some(-32603));
            assert!(err.to_string().contains("database unreachable"), "{err}");
        }
        if status != 500 {
            assert!(err.hint().unwrap().contains("gateway"), "{:?}", err.hint());
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn wrong_content_type_is_a_protocol_violation_c03() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "wrong-type");
    c.connect().await.unwrap();
    let err = c.list_tools(&RequestOptions::default()).await.unwrap_err();
    assert_eq!(err, McpError::Protocol(ProtocolError::ContentType { got: "text/html".into() }));
}

#[tokio::test(flavor = "current_thread")]
async fn expired_session_reinitializes_once_and_retries_c10() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "expire");
    c.connect().await.unwrap();
    let tools = c.list_tools(&RequestOptions::default()).await.unwrap();
    assert_eq!(tools.tools[0].name, "echo");
    assert_eq!(
        fx.methods("expire"),
        [
            "initialize",
            "notifications/initialized",
            "tools/list",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
    let reqs = fx.requests("expire");
    assert_eq!(reqs[3].header("mcp-session-id"), None, "re-initialize without the dead session id");
    assert_eq!(reqs[5].header("mcp-session-id"), Some("expire-session-2"));
    assert_eq!(c.session_id().as_deref(), Some("expire-session-2"));
}

#[tokio::test(flavor = "current_thread")]
async fn slow_reply_times_out_and_the_server_is_told_c19_c21() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "slow");
    c.connect().await.unwrap();
    let opts = RequestOptions { timeout_ms: Some(300), ..Default::default() };
    let started = std::time::Instant::now();
    let err = c.call_tool("echo", json!({}), &opts).await.unwrap_err();
    assert!(matches!(err, McpError::Timeout { .. }), "{err}");
    assert!(started.elapsed().as_millis() < 2_000, "gave up at the timeout, not when the server answered");
    let cancelled =
        fx.requests("slow").into_iter().find(|r| r.rpc_method().as_deref() == Some("notifications/cancelled"));
    let cancelled = cancelled.expect("notifications/cancelled sent").json();
    assert_eq!(cancelled["params"]["requestId"], 2);
    assert_eq!(cancelled["params"]["reason"], "timed out");
}

#[tokio::test(flavor = "current_thread")]
async fn user_abort_cancels_the_request_c21() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "slow");
    c.connect().await.unwrap();
    let cancel = CancelToken::new();
    let trigger = cancel.clone();
    let opts = RequestOptions::cancellable(&cancel);
    let call = c.call_tool("echo", json!({}), &opts);
    let abort = async {
        support::until("the slow tools/call to reach the server", || {
            fx.requests("slow").iter().any(|r| r.rpc_method().as_deref() == Some("tools/call"))
        })
        .await;
        trigger.cancel();
    };
    let (result, ()) = futures::join!(call, abort);
    assert_eq!(result.unwrap_err(), McpError::Cancelled);
    let note = fx.requests("slow").into_iter().find(|r| r.rpc_method().as_deref() == Some("notifications/cancelled"));
    assert_eq!(note.expect("cancelled sent").json()["params"]["reason"], "cancelled by the user");
}

#[tokio::test(flavor = "current_thread")]
async fn unauthorized_names_the_challenge_and_custom_headers_fix_it_c14() {
    let fx = Faults::start(0).await;
    let err = client(&fx, "auth").connect().await.unwrap_err();
    let McpError::Http { status: 401, www_authenticate: Some(ref challenge), .. } = err else { panic!("{err:?}") };
    assert!(challenge.contains("resource_metadata="), "{challenge}");
    assert!(err.hint().unwrap().contains("Authorization"), "{:?}", err.hint());

    let c = client_with(&fx, "auth", Handlers::default(), |c| c.with_header("Authorization", "Bearer letmein"));
    c.connect().await.unwrap();
    call_echo(&c).await.unwrap();
    c.disconnect().await.unwrap();
    let reqs: Vec<_> = fx.requests("auth").into_iter().skip(1).collect();
    assert!(reqs.iter().any(|r| r.method == "DELETE"));
    for r in reqs {
        assert_eq!(r.header("authorization"), Some("Bearer letmein"), "C-14 on {} {:?}", r.method, r.rpc_method());
    }
}

#[tokio::test(flavor = "current_thread")]
async fn response_with_another_id_is_a_protocol_violation_c18() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "wrong-id");
    c.connect().await.unwrap();
    let err = c.list_tools(&RequestOptions::default()).await.unwrap_err();
    assert!(matches!(err, McpError::Protocol(ProtocolError::IdMismatch { .. })), "{err}");
    assert!(err.to_string().contains("999999"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn older_supported_version_is_adopted_and_batches_read_c13_c16() {
    let fx = Faults::start(0).await;
    let notes = Rc::new(RefCell::new(Vec::new()));
    let sink = notes.clone();
    let handlers = Handlers { notify: Some(Rc::new(move |_, n| sink.borrow_mut().push(n))), ..Default::default() };
    let c = client_with(&fx, "v0326", handlers, |c| c);
    assert_eq!(c.connect().await.unwrap().protocol_version, "2025-03-26");
    let tools = c.list_tools(&RequestOptions::default()).await.unwrap();
    assert_eq!(tools.tools.len(), 1);
    assert!(matches!(&notes.borrow()[0], ServerNotification::Log(l) if l.data == "batched"));
    assert_eq!(fx.requests("v0326").last().unwrap().header("mcp-protocol-version"), Some("2025-03-26"));
}

#[tokio::test(flavor = "current_thread")]
async fn unsupported_version_disconnects_showing_both_c16() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "v1105");
    let err = c.connect().await.unwrap_err();
    assert_eq!(
        err,
        McpError::Protocol(ProtocolError::VersionMismatch {
            requested: "2025-11-25".into(),
            offered: "2024-11-05".into()
        })
    );
    assert!(err.to_string().contains("2024-11-05") && err.to_string().contains("2025-11-25"));
    assert_eq!(fx.methods("v1105"), ["initialize", "DELETE"]);
    assert!(!c.is_connected());
}

#[tokio::test(flavor = "current_thread")]
async fn modern_only_servers_are_spoken_to_in_2026_07_28_r01_r03_r08() {
    let fx = Faults::start(0).await;
    for scenario in ["modern-32022", "modern-discover"] {
        let c = client_auto(&fx, scenario);
        let info = c.connect().await.unwrap();
        assert_eq!((info.protocol_version.as_str(), c.modern()), ("2026-07-28", Some(Revision::V2026_07_28)));
        assert!(c.why().contains("server/discover lists 2026-07-28"), "{}", c.why());
        let echo = call_echo(&c).await.unwrap();
        assert_eq!(text_of(&echo), "echo: hi");
        let sent = fx.requests(scenario);
        // No handshake and no session: discovery, then the call, each with the envelope.
        assert_eq!(fx.methods(scenario), ["server/discover", "tools/call"], "R-01");
        for r in &sent {
            let meta = &r.json()["params"]["_meta"];
            assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "R-02");
            assert!(meta["io.modelcontextprotocol/clientCapabilities"].is_object(), "R-02");
            assert_eq!(meta["io.modelcontextprotocol/clientInfo"]["name"], "Loopscope");
            assert_eq!(r.header("mcp-protocol-version"), Some("2026-07-28"), "R-03");
            assert_eq!(r.header("mcp-method"), r.rpc_method().as_deref(), "R-03");
            assert_eq!(r.header("mcp-session-id"), None, "R-01");
        }
        assert_eq!(sent[1].header("mcp-name"), Some("echo"), "R-03");
        // Nothing to end: no DELETE.
        c.disconnect().await.unwrap();
        assert_eq!(fx.methods(scenario).len(), 2);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn pinned_to_2025_a_modern_only_server_is_recognised_not_called_broken_c44() {
    let fx = Faults::start(0).await;
    for scenario in ["modern-32022", "modern-discover"] {
        let c = client(&fx, scenario); // pinned to 2025-11-25
        let err = c.connect().await.unwrap_err();
        if scenario == "modern-32022" {
            assert_eq!(err, McpError::Protocol(ProtocolError::ModernOnly { supported: vec!["2026-07-28".into()] }));
            assert!(err.hint().unwrap().contains("2026-07-28"));
        } else {
            assert_eq!(err.rpc_error().map(|e| e.code.0), Some(-32601), "{err}");
        }
        assert_eq!(fx.methods(scenario), ["initialize"], "pinned: no probe");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn automatic_falls_back_to_the_2025_handshake_for_a_2025_server_r08() {
    let fx = Faults::start(0).await;
    let c = client_auto(&fx, "ok");
    let info = c.connect().await.unwrap();
    assert_eq!((info.protocol_version.as_str(), c.modern()), ("2025-11-25", None));
    assert!(c.why().starts_with("server/discover answered JSON-RPC error -32000"), "{}", c.why());
    assert_eq!(fx.methods("ok")[..3], ["server/discover", "initialize", "notifications/initialized"]);
    // 2026-07-28 methods are refused locally on a 2025 connection, 2025 ones on a modern one.
    let err = c.request("subscriptions/listen", None, &RequestOptions::default()).await.unwrap_err();
    assert!(err.to_string().contains("does not exist before 2026-07-28"), "{err}");
}

#[tokio::test(flavor = "current_thread")]
async fn lists_are_paged_to_the_end_and_bad_tools_left_out_c24_c26_c27() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "paged");
    c.connect().await.unwrap();
    let list = c.list_tools(&RequestOptions::default()).await.unwrap();
    let names: Vec<_> = list.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "gamma", "delta"]);
    let excluded: Vec<_> = list.excluded.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(excluded, ["broken", "task_only"]);
    let cursors: Vec<Value> = fx
        .requests("paged")
        .iter()
        .filter(|r| r.rpc_method().as_deref() == Some("tools/list"))
        .map(|r| r.json()["params"]["cursor"].clone())
        .collect();
    assert_eq!(cursors, [Value::Null, json!("page-2"), json!("page-3")]);
}

#[tokio::test(flavor = "current_thread")]
async fn a_cursor_that_never_ends_is_cut_off() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "cursor-loop");
    c.connect().await.unwrap();
    let err = c.list_tools(&RequestOptions::default()).await.unwrap_err();
    assert!(err.to_string().contains("same nextCursor"), "{err}");
    assert_eq!(fx.methods("cursor-loop").iter().filter(|m| *m == "tools/list").count(), 2);
}

/// A listing is bounded as a whole, not a body at a time: pages of 1 MiB each pass the body
/// limit, and the listing stops once all of them together pass it; tiny pages stop at 100.
#[tokio::test(flavor = "current_thread")]
async fn a_listing_that_pages_forever_stops_at_its_budget() {
    let fx = Faults::start(0).await;
    let limits = Limits { body_bytes: 4 * 1024 * 1024, ..Limits::default() };
    let c = client_with(&fx, "paged-forever", Handlers::default(), |mut c| {
        c.limits = limits;
        c
    });
    c.connect().await.unwrap();
    let err = c.list_tools(&RequestOptions::default()).await.unwrap_err();
    assert!(
        matches!(err, McpError::Limit(LimitExceeded { limit: Limit::ListingBytes, max }) if max == 4 * 1024 * 1024),
        "{err}"
    );
    assert_eq!(
        err.to_string(),
        "limit reached: size of one listing, all its pages together (4 MiB); the page asked for no more pages"
    );
    // Four pages of 1 MiB and a little more: the fourth goes past 4 MiB.
    assert_eq!(fx.methods("paged-forever").iter().filter(|m| *m == "tools/list").count(), 4);

    let c = client(&fx, "paged-many");
    c.connect().await.unwrap();
    let err = c.list_tools(&RequestOptions::default()).await.unwrap_err();
    assert!(matches!(err, McpError::Limit(LimitExceeded { limit: Limit::ListingPages, max: 100 })), "{err}");
    assert_eq!(fx.methods("paged-many").iter().filter(|m| *m == "tools/list").count(), 101);
}

struct Form;
impl ElicitationHandler for Form {
    fn elicit(
        &self,
        server_id: &str,
        params: ElicitParams,
    ) -> LocalBoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        assert_eq!(server_id, "server-requests");
        assert_eq!(params.message, "What is your name?");
        let content = json!({"name": "Ada"}).as_object().cloned();
        async move { Ok(ElicitResult { action: ElicitAction::Accept, content }) }.boxed_local()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn server_requests_on_the_post_stream_are_answered_c06_c20_c36_c37() {
    let fx = Faults::start(0).await;
    let handlers = Handlers { elicitation: Some(Rc::new(Form)), ..Default::default() };
    let c = client_with(&fx, "server-requests", handlers, |c| c);
    c.connect().await.unwrap();
    let init = &fx.requests("server-requests")[0];
    assert_eq!(init.json()["params"]["capabilities"], json!({"elicitation": {"form": {}}}), "C-36");

    let answers: Vec<Value> = serde_json::from_str(&text_of(&call_echo(&c).await.unwrap())).unwrap();
    assert_eq!(answers[0], json!({"jsonrpc": "2.0", "id": "srv-ping", "result": {}}), "C-20");
    assert_eq!(answers[1]["error"]["code"], -32601, "C-36: roots/list was not declared");
    // C-37; SEP-1034: the field the handler left out takes the schema's default.
    assert_eq!(answers[2]["result"], json!({"action": "accept", "content": {"name": "Ada", "greeting": "hello"}}));
}

#[tokio::test(flavor = "current_thread")]
async fn undeclared_elicitation_is_refused_c36() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "server-requests");
    c.connect().await.unwrap();
    let answers: Vec<Value> = serde_json::from_str(&text_of(&call_echo(&c).await.unwrap())).unwrap();
    assert_eq!(answers[2]["error"]["code"], -32601);
}

#[tokio::test(flavor = "current_thread")]
async fn get_stream_delivers_server_messages_c08() {
    let fx = Faults::start(0).await;
    let notes = Rc::new(RefCell::new(Vec::new()));
    let sink = notes.clone();
    let cancel = CancelToken::new();
    let stop = cancel.clone();
    let handlers = Handlers {
        notify: Some(Rc::new(move |_, n| {
            sink.borrow_mut().push(n);
            stop.cancel();
        })),
        ..Default::default()
    };
    let c = client_with(&fx, "get-stream", handlers, |c| c);
    c.connect().await.unwrap();
    assert_eq!(c.listen(&cancel).await, ListenEnd::Cancelled);
    assert!(matches!(&notes.borrow()[0], ServerNotification::Log(l) if l.data == "hello from the GET stream"));
}

#[tokio::test(flavor = "current_thread")]
async fn get_404_means_no_stream_and_no_retry_loop_c08_p7() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "get-404");
    c.connect().await.unwrap();
    assert_eq!(c.listen(&CancelToken::new()).await, ListenEnd::NotOffered { status: 404 });
    let c = client(&fx, "ok");
    c.connect().await.unwrap();
    assert_eq!(c.listen(&CancelToken::new()).await, ListenEnd::NotOffered { status: 405 });
    assert_eq!(fx.methods("get-404").iter().filter(|m| *m == "GET").count(), 1);
}

#[tokio::test(flavor = "current_thread")]
async fn disconnect_deletes_the_session_c11() {
    let fx = Faults::start(0).await;
    let c = client(&fx, "ok");
    c.connect().await.unwrap();
    c.disconnect().await.unwrap();
    let delete = fx.requests("ok").into_iter().find(|r| r.method == "DELETE").expect("DELETE sent");
    assert_eq!(delete.header("mcp-session-id"), Some("ok-session-1"));
    assert!(!c.is_connected());
    assert_eq!(call_echo(&c).await.unwrap_err(), McpError::Protocol(ProtocolError::NotConnected));
}

#[tokio::test(flavor = "current_thread")]
async fn nothing_listening_is_told_apart_from_cors_c43() {
    let platform = Native::new();
    let port = testkit::free_port(); // nothing listens here
    let c = McpClient::new(
        platform,
        ServerConfig::new("gone", format!("http://127.0.0.1:{port}/mcp")),
        engine::trace::Tracer::silent(),
        Handlers::default(),
    );
    let err = c.connect().await.unwrap_err();
    assert_eq!(err.layer(), Layer::Network);
    assert!(matches!(err, McpError::Network { reach: Reach::Nothing, .. }), "{err:?}");
    let hint = err.hint().unwrap();
    assert!(hint.starts_with("Nothing answers at this address"), "{hint}");
    assert!(!hint.contains("CORS"), "a server that is down is not a CORS problem: {hint}");
    assert_eq!(c.state().label(), "failed");
}

#[test]
fn a_server_that_answers_unreadably_gets_the_cors_help_c42_c43() {
    let err = McpError::Network { message: "fetch failed (TypeError: Failed to fetch)".into(), reach: Reach::Answers };
    let hint = err.hint().unwrap();
    for needle in ["CORS", "Access-Control-Expose-Headers: Mcp-Session-Id", "MCP-Protocol-Version", "preflight"] {
        assert!(hint.contains(needle), "hint lacks {needle}: {hint}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_trace_links_http_exchanges_and_json_rpc_ids() {
    let fx = Faults::start(0).await;
    let platform = Native::new();
    let (tracer, events) = recording_tracer(&platform);
    let c = McpClient::new(
        platform,
        ServerConfig::new("ok", fx.url("ok")).with_header("Authorization", "Bearer secret-token-123"),
        tracer,
        Handlers::default(),
    );
    c.connect().await.unwrap();
    call_echo(&c).await.unwrap();
    let events = events.borrow();
    let dump = format!("{events:?}");
    assert!(!dump.contains("secret-token-123"), "custom header values never reach the trace");

    // The tools/call: HTTP request → JSON-RPC out (same exchange) → status → body → JSON-RPC in → outcome.
    let out = events
        .iter()
        .find(|e| matches!(&e.kind, TraceKind::Rpc { direction: Direction::Out, message, .. } if message.method() == Some("tools/call")))
        .unwrap();
    let TraceKind::Rpc { exchange: Some(exchange), message: request, .. } = &out.kind else { unreachable!() };
    let same_exchange: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HttpRequest { exchange: x, .. } if x == exchange => Some("request"),
            TraceKind::Rpc { exchange: Some(x), direction: Direction::Out, .. } if x == exchange => Some("rpc out"),
            TraceKind::HttpResponse { exchange: x, status: 200, .. } if x == exchange => Some("status"),
            TraceKind::HttpBody { exchange: x, .. } if x == exchange => Some("body"),
            TraceKind::Rpc { exchange: Some(x), direction: Direction::In, message, .. } if x == exchange => {
                assert_eq!(message.id(), request.id());
                Some("rpc in")
            }
            _ => None,
        })
        .collect();
    assert_eq!(same_exchange, ["request", "rpc out", "status", "body", "rpc in"]);
    let outcome = events.iter().rev().find_map(|e| match &e.kind {
        TraceKind::RpcOutcome { method, failure, .. } if method == "tools/call" => Some(failure.clone()),
        _ => None,
    });
    assert_eq!(outcome, Some(None));
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1));
}

/// Every state the client reports, in order.
fn watching() -> (Handlers, Rc<RefCell<Vec<String>>>) {
    let seen = Rc::new(RefCell::new(Vec::new()));
    let sink = seen.clone();
    let handlers = Handlers {
        on_state: Some(Rc::new(move |_: &str, s: &Connection| sink.borrow_mut().push(s.label().to_owned()))),
        ..Default::default()
    };
    (handlers, seen)
}

#[tokio::test(flavor = "current_thread")]
async fn the_connection_state_follows_the_wire() {
    // An expired session: reconnecting, then connected again (C-10).
    let fx = Faults::start(0).await;
    let (handlers, seen) = watching();
    let c = client_with(&fx, "expire", handlers, |c| c);
    c.connect().await.unwrap();
    c.list_tools(&RequestOptions::default()).await.unwrap();
    assert_eq!(*seen.borrow(), ["connecting…", "connected", "reconnecting…", "connected"]);

    // A server that stops: the next request gets no answer, and the client says so; when it
    // answers again, the client is connected again.
    let mut python = real::python(PyMode::Json);
    let (handlers, seen) = watching();
    let platform = Native::new();
    let c = McpClient::new(platform, ServerConfig::new("py", python.url.clone()), Tracer::silent(), handlers);
    c.connect().await.unwrap();
    python.kill();
    let err = c.list_tools(&RequestOptions::default()).await.unwrap_err();
    assert!(matches!(err, McpError::Network { reach: Reach::Nothing, .. }), "{err:?}");
    assert!(
        matches!(c.state(), Connection::Unreachable(f) if f.hint.as_deref().is_some_and(|h| h.starts_with("Nothing answers")))
    );
    assert_eq!(*seen.borrow(), ["connecting…", "connected", "unreachable"]);
    let _ = c.disconnect().await; // its DELETE gets no answer either
    assert_eq!(c.state(), Connection::Disconnected);
}
