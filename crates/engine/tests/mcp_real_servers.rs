//! The MCP client against real servers: `@modelcontextprotocol/server-everything` (npm) and a
//! server of ours built on the official Python SDK in its three transport modes. All on
//! 127.0.0.1, started and stopped by each test.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::cancel::CancelToken;
use engine::layer::Layer;
use engine::mcp::{
    Handlers, McpClient, McpError, ProtocolError, RequestOptions, SamplingHandler, ServerConfig, ServerNotification,
};
use engine::trace::{TraceKind, Tracer};
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use protocol::jsonrpc::ErrorObject;
use protocol::mcp::{ContentBlock, CreateMessageParams, CreateMessageResult};
use serde_json::{Map, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::Native;
use testkit::real::{self, PyMode};

fn connect_to(url: &str, handlers: Handlers) -> McpClient<Native> {
    McpClient::new(Native::new(), ServerConfig::new("real", url), Tracer::silent(), handlers)
}

fn text(blocks: &[ContentBlock]) -> String {
    blocks.iter().filter_map(ContentBlock::as_text).collect::<Vec<_>>().join("\n")
}

fn none() -> RequestOptions {
    RequestOptions::default()
}

struct CannedSampler(Rc<RefCell<Vec<CreateMessageParams>>>);

impl SamplingHandler for CannedSampler {
    fn create_message(
        &self,
        _server: &str,
        params: CreateMessageParams,
    ) -> LocalBoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        self.0.borrow_mut().push(params);
        async {
            Ok(CreateMessageResult {
                role: "assistant".into(),
                content: ContentBlock::text("a reviewed answer"),
                model: "claude-test".into(),
                stop_reason: Some("endTurn".into()),
            })
        }
        .boxed_local()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn server_everything_all_three_primitives() {
    let server = real::everything();
    let notes = Rc::new(RefCell::new(Vec::new()));
    let sink = notes.clone();
    let c = connect_to(
        &server.url,
        Handlers { notify: Some(Rc::new(move |_, n| sink.borrow_mut().push(n))), ..Default::default() },
    );
    let info = c.connect().await.unwrap();
    assert_eq!(info.protocol_version, "2025-11-25");
    assert_eq!(info.server_info.name, "mcp-servers/everything");
    assert!(info.instructions.is_some());
    assert!(c.session_id().is_some(), "server-everything keeps sessions");

    let tools = c.list_tools(&none()).await.unwrap();
    let names: Vec<_> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    for expected in ["echo", "get-sum", "trigger-long-running-operation", "get-tiny-image"] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    assert!(!names.contains(&"trigger-sampling-request"), "offered only to clients that declare sampling");

    let echo = c.call_tool("echo", json!({"message": "hello"}), &none()).await.unwrap();
    assert!(!echo.is_error);
    assert_eq!(text(&echo.content), "Echo: hello");
    let sum = c.call_tool("get-sum", json!({"a": 2, "b": 3}), &none()).await.unwrap();
    assert!(text(&sum.content).contains('5'), "{:?}", sum.content);
    let image = c.call_tool("get-tiny-image", json!({}), &none()).await.unwrap();
    assert!(
        image.content.iter().any(|b| b.kind() == "image" && b.media().is_some_and(|(_, mime)| mime == "image/png"))
    );

    // Bad arguments: the server's answer (JSON-RPC error or isError) is a failure either way.
    match c.call_tool("get-sum", json!({"a": "two"}), &none()).await {
        Ok(r) => assert!(r.is_error, "{r:?}"),
        Err(e) => assert_eq!(e.layer(), Layer::JsonRpc, "{e}"),
    }

    let resources = c.list_resources(&none()).await.unwrap();
    assert!(!resources.is_empty());
    let read = c.read_resource(&resources[0].uri, &none()).await.unwrap();
    assert_eq!(read.contents[0].uri, resources[0].uri);
    let templates = c.list_resource_templates(&none()).await.unwrap();
    assert!(templates.iter().any(|t| t.uri_template.contains("{resourceId}")), "{templates:?}");

    let prompts = c.list_prompts(&none()).await.unwrap();
    let args_prompt = prompts.iter().find(|p| p.name == "args-prompt").expect("args-prompt");
    let missing = c.get_prompt(args_prompt, &Map::new(), &none()).await.unwrap_err();
    assert_eq!(missing.layer(), Layer::Client, "C-34: required arguments checked before sending");
    assert!(missing.to_string().contains("city"));
    let args = json!({"city": "Tokyo"}).as_object().cloned().unwrap();
    let filled = c.get_prompt(args_prompt, &args, &none()).await.unwrap();
    assert!(filled.messages[0].content.as_text().is_some_and(|text| text.contains("Tokyo")));

    c.ping(&none()).await.unwrap();
    c.set_log_level("debug").await.unwrap();

    // Progress (C-22) arrives on the POST stream and reaches both the call and the page.
    let progress = Rc::new(RefCell::new(Vec::new()));
    let seen = progress.clone();
    let opts = RequestOptions { on_progress: Some(Rc::new(move |p| seen.borrow_mut().push(p.progress))), ..none() };
    let long =
        c.call_tool("trigger-long-running-operation", json!({"duration": 0.3, "steps": 3}), &opts).await.unwrap();
    assert!(text(&long.content).contains("completed"));
    assert_eq!(*progress.borrow(), [1.0, 2.0, 3.0]);
    assert!(notes.borrow().iter().any(|n| matches!(n, ServerNotification::Progress(_))));

    c.disconnect().await.unwrap();
}

/// C-33: subscribe only when `resources.subscribe` is declared, hear
/// `notifications/resources/updated` for the URI (here on the GET stream), unsubscribe on
/// disconnect.
#[tokio::test(flavor = "current_thread")]
async fn server_everything_resource_subscriptions_c33() {
    let server = real::everything();
    let platform = Native::new();
    let (tracer, trace) = support::recording_tracer(&platform);
    let updated = Rc::new(RefCell::new(Vec::new()));
    let listening = CancelToken::new();
    let (sink, stop) = (updated.clone(), listening.clone());
    let handlers = Handlers {
        notify: Some(Rc::new(move |_, n| {
            if let ServerNotification::ResourceUpdated { uri } = n {
                sink.borrow_mut().push(uri);
                stop.cancel();
            }
        })),
        ..Default::default()
    };
    let c = McpClient::new(platform, ServerConfig::new("real", &server.url), tracer, handlers);
    let info = c.connect().await.unwrap();
    assert_eq!(info.capabilities.resources.as_ref().and_then(|r| r.subscribe), Some(true));
    let uri = c.list_resources(&none()).await.unwrap()[0].uri.clone();

    let drive = async {
        // The GET stream that carries the update opens first.
        support::until("the GET stream to open", || {
            trace.borrow().iter().any(|e| {
                matches!(&e.kind, TraceKind::HttpResponse { status: 200, headers, .. }
                if headers.get("content-type").is_some_and(|t| t.starts_with("text/event-stream")))
            })
        })
        .await;
        c.subscribe(&uri).await.unwrap();
        assert_eq!(c.subscriptions(), vec![uri.clone()]);
        c.call_tool("toggle-subscriber-updates", json!({}), &none()).await.unwrap();
    };
    let listen = tokio::time::timeout(std::time::Duration::from_secs(15), c.listen(&listening));
    let (_, ended) = futures::join!(drive, listen);
    assert!(ended.is_ok(), "no notifications/resources/updated within 15 s");
    assert_eq!(updated.borrow().first(), Some(&uri));

    c.disconnect().await.unwrap();
    assert!(c.subscriptions().is_empty());
    let sent: Vec<String> = trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Rpc { message, .. } => message.method().map(str::to_owned),
            _ => None,
        })
        .collect();
    let unsubscribe = sent.iter().position(|m| m == "resources/unsubscribe").expect("unsubscribed on disconnect");
    assert!(sent[..unsubscribe].contains(&"resources/subscribe".to_owned()));
}

#[tokio::test(flavor = "current_thread")]
async fn server_everything_sampling_goes_through_the_handler_c38() {
    let server = real::everything();
    let asked = Rc::new(RefCell::new(Vec::new()));
    let c = connect_to(
        &server.url,
        Handlers { sampling: Some(Rc::new(CannedSampler(asked.clone()))), ..Default::default() },
    );
    c.connect().await.unwrap();
    let tools = c.list_tools(&none()).await.unwrap();
    assert!(tools.tools.iter().any(|t| t.name == "trigger-sampling-request"), "declared sampling → tool offered");
    let r =
        c.call_tool("trigger-sampling-request", json!({"prompt": "Say hi", "maxTokens": 20}), &none()).await.unwrap();
    assert!(text(&r.content).contains("a reviewed answer"), "{:?}", r.content);
    let asked = asked.borrow();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].max_tokens, 20);
    assert_eq!(asked[0].system_prompt.as_deref(), Some("You are a helpful test server."));
}

async fn python_sdk_server(mode: PyMode) {
    let server = real::python(mode);
    let c = connect_to(&server.url, Handlers::default());
    let info = c.connect().await.unwrap();
    assert_eq!(info.server_info.name, "loopscope-notes");
    assert_eq!(info.protocol_version, "2025-11-25");
    assert_eq!(c.session_id().is_some(), mode != PyMode::Stateless, "{mode:?}");

    let tools = c.list_tools(&none()).await.unwrap();
    let names: Vec<_> = tools.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["search_notes", "add", "always_fails", "slow_count"], "{mode:?}");

    let sum = c.call_tool("add", json!({"a": 2, "b": 3}), &none()).await.unwrap();
    assert_eq!(text(&sum.content), "5.0");
    // A tool that raises is a successful call carrying a failed tool (C-28).
    let failed = c.call_tool("always_fails", json!({"reason": "today"}), &none()).await.unwrap();
    assert!(failed.is_error);
    assert!(text(&failed.content).contains("always_fails failed today"), "{:?}", failed.content);
    // An unknown tool, in this SDK, is isError too (other servers send -32602).
    let unknown = c.call_tool("no_such_tool", json!({}), &none()).await;
    assert!(
        matches!(&unknown, Ok(r) if r.is_error) || matches!(&unknown, Err(e) if e.layer() == Layer::JsonRpc),
        "{unknown:?}"
    );

    if mode != PyMode::Stateless {
        // Stateless servers have nowhere to send progress for the request; the others do.
        let progress = Rc::new(RefCell::new(Vec::new()));
        let seen = progress.clone();
        let opts = RequestOptions { on_progress: Some(Rc::new(move |p| seen.borrow_mut().push(p.progress))), ..none() };
        let slow = c.call_tool("slow_count", json!({"steps": 3, "delay_ms": 50}), &opts).await.unwrap();
        assert_eq!(text(&slow.content), "counted to 3");
        if mode == PyMode::Sse {
            assert_eq!(*progress.borrow(), [1.0, 2.0, 3.0], "{mode:?}");
        }
    }

    let resources = c.list_resources(&none()).await.unwrap();
    assert_eq!(resources[0].uri, "notes://index");
    let templates = c.list_resource_templates(&none()).await.unwrap();
    assert_eq!(templates[0].uri_template, "notes://{note_id}");
    let note = c.read_resource("notes://jsonrpc", &none()).await.unwrap();
    assert!(note.contents[0].text.as_deref().unwrap().contains("strict contract"));
    // C-32/C-33: this server does not declare resources.subscribe, so nothing is sent.
    let refused = c.subscribe("notes://index").await.unwrap_err();
    assert!(refused.to_string().contains("resources.subscribe"), "{refused}");
    assert!(c.subscriptions().is_empty());

    let prompts = c.list_prompts(&none()).await.unwrap();
    let explain = &prompts[0];
    assert_eq!(explain.name, "explain");
    let args = json!({"topic": "MCP"}).as_object().cloned().unwrap();
    let got = c.get_prompt(explain, &args, &none()).await.unwrap();
    assert_eq!(got.messages[0].role, "user");

    // C-35: this server does not declare `logging`; the client does not ask.
    assert!(matches!(c.set_log_level("info").await, Err(McpError::Protocol(ProtocolError::NotCapable { .. }))));
    c.disconnect().await.unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn python_sdk_sse_mode() {
    python_sdk_server(PyMode::Sse).await;
}

#[tokio::test(flavor = "current_thread")]
async fn python_sdk_json_response_mode() {
    python_sdk_server(PyMode::Json).await;
}

#[tokio::test(flavor = "current_thread")]
async fn python_sdk_stateless_mode() {
    python_sdk_server(PyMode::Stateless).await;
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_that_goes_away_is_a_network_error() {
    let mut server = real::python(PyMode::Json);
    let c = connect_to(&server.url, Handlers::default());
    c.connect().await.unwrap();
    server.kill();
    let err = c.call_tool("add", json!({"a": 1, "b": 1}), &none()).await.unwrap_err();
    assert_eq!(err.layer(), Layer::Network, "{err}");
}
