//! MCP Apps, the host's side, against the ext-apps repository's own debug server
//! (`@modelcontextprotocol/server-debug` from npm, on 127.0.0.1): the lifecycle in the specified
//! order with the app's HTML under its policy, the tool's input and result after `initialized`,
//! the app's calls to its own server (app-only tools included, model-only refused), and an app
//! that misbehaves — malformed messages, a flood, a size of 10⁶ pixels, no `initialized` —
//! contained with a message on its lane.
#![cfg(not(target_arch = "wasm32"))]

mod breakpoints;
mod partial;
#[path = "../support/mod.rs"]
mod support;
mod teardown;

use engine::agent::Consent;
use engine::apps::{AppAsk, AppCall, AppHost, Effect, HostContext, MAX_BYTES_PER_SECOND, MAX_PER_SECOND};
use engine::faults::{Fault, Faults, Target, Times};
use engine::mcp::{Handlers, McpClient, RequestOptions, ServerConfig};
use engine::trace::{Direction, Peer, TraceEvent, TraceKind};
use futures::FutureExt;
use protocol::jsonrpc::Message;
use protocol::mcp::Tool;
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::real;

struct Shown {
    host: AppHost<Native>,
    posted: Rc<RefCell<Vec<Value>>>,
    /// What the app asked the user; the user agrees unless `decline` is set.
    asked: Rc<RefCell<Vec<AppAsk>>>,
    /// A workshop's faults on the app's server.
    faults: Faults,
    trace: Rc<RefCell<Vec<TraceEvent>>>,
    _server: real::RealServer,
}

/// The debug app after Claude's call of `debug-tool`, as the page would host it; `tools` edits
/// the server's tool list the host checks the app's calls against.
async fn shown(edit: impl FnOnce(&mut Vec<Tool>)) -> Shown {
    shown_with(edit, |host| host).await
}

/// The same, with the host made as `finish` says (its calls under a consent, breakpoints).
async fn shown_with(
    edit: impl FnOnce(&mut Vec<Tool>),
    finish: impl FnOnce(AppHost<Native>) -> AppHost<Native>,
) -> Shown {
    let server = real::apps_debug();
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let handlers = Handlers { apps: true, ..Handlers::default() };
    let faults = Faults::new();
    let client = Rc::new(
        McpClient::new(platform, ServerConfig::new("dbg", &server.url), tracer, handlers).with_faults(faults.clone()),
    );
    client.connect().await.unwrap();
    let mut tools = client.list_tools(&RequestOptions::default()).await.unwrap().tools;
    let tool = tools.iter().find(|t| t.name == "debug-tool").unwrap().clone();
    let arguments = json!({ "contentType": "text" });
    let result = client.call_tool("debug-tool", arguments.clone(), &RequestOptions::default()).await.unwrap();
    edit(&mut tools);
    let call = AppCall {
        server_id: "dbg".into(),
        server_label: "debug".into(),
        resource_uri: tool.ui().unwrap().resource_uri.unwrap(),
        tool,
        tool_use_id: "toolu_1".into(),
        arguments: Some(arguments),
        result: Some(Ok(serde_json::to_value(result).unwrap())),
        asks_first: false,
    };
    let context = HostContext { theme: "dark", locale: "en".into(), time_zone: None, width: 640, max_height: 800 };
    let posted = Rc::new(RefCell::new(Vec::new()));
    let sink = posted.clone();
    let asked = Rc::new(RefCell::new(Vec::new()));
    let seen = asked.clone();
    let ask = Rc::new(move |a: AppAsk| {
        // The user declines a message that says so and a call of debug-log; agrees to the rest.
        let declined = match &a {
            AppAsk::Message(t) if t.contains("decline") => Some("The user did not send the app's message."),
            AppAsk::Call { tool, .. } if tool == "debug-log" => Some("The user did not let the app make this call."),
            AppAsk::Download(files) if files.iter().any(|f| f.name.contains("decline")) => {
                Some("The user did not save the files.")
            }
            _ => None,
        };
        seen.borrow_mut().push(a);
        async move { declined.map_or(Ok(()), |why| Err(why.to_owned())) }.boxed_local()
    });
    let host = finish(AppHost::new(call, client, tools, context, 1, Rc::new(move |v| sink.borrow_mut().push(v)), ask));
    Shown { host, posted, asked, faults, trace, _server: server }
}

impl Shown {
    /// Runs the lifecycle up to `initialized`, as the proxy and the app would.
    async fn initialised(&self) {
        self.proxy_ready().await;
        self.initialise().await;
    }

    /// The app's document is handed over; the page is told what the app may reach.
    async fn proxy_ready(&self) {
        let effects =
            self.host.receive(r#"{"jsonrpc":"2.0","method":"ui/notifications/sandbox-proxy-ready","params":{}}"#).await;
        assert!(matches!(effects.as_slice(), [Effect::Reach(_)]), "{effects:?}");
    }

    async fn initialise(&self) {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"ui/initialize","params":{"protocolVersion":"2026-01-26","appInfo":{"name":"t","version":"1"},"appCapabilities":{"availableDisplayModes":["inline","fullscreen"]}}}"#;
        assert_eq!(self.host.receive(init).await, []);
        assert_eq!(self.host.receive(r#"{"jsonrpc":"2.0","method":"ui/notifications/initialized"}"#).await, []);
    }

    fn methods(&self) -> Vec<String> {
        self.posted.borrow().iter().map(|m| m["method"].as_str().unwrap_or("(answer)").to_owned()).collect()
    }

    fn answer(&self, id: i64) -> Value {
        self.posted.borrow().iter().find(|m| m["id"] == id && m.get("method").is_none()).cloned().unwrap()
    }

    fn lane_notes(&self) -> Vec<String> {
        let lane = Peer::App("debug-tool · debug #1".into());
        let trace = self.trace.borrow();
        trace
            .iter()
            .filter(|e| e.peer == lane)
            .filter_map(|e| match &e.kind {
                TraceKind::Note { text } => Some(text.clone()),
                _ => None,
            })
            .collect()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn the_lifecycle_runs_in_order_and_every_message_is_on_the_apps_lane() {
    let app = shown(|_| {}).await;
    app.initialised().await;
    assert_eq!(
        app.methods(),
        [
            "ui/notifications/sandbox-resource-ready",
            "(answer)",
            "ui/notifications/tool-input",
            "ui/notifications/tool-result"
        ]
    );
    let posted = app.posted.borrow().clone();
    // The app's HTML as its server sent it, behind the policy: nothing of the app comes first.
    let html = posted[0]["params"]["html"].as_str().unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ")
    );
    assert!(html.contains("connect-src 'none'"));
    assert!(html.len() > 200_000 && html.contains("call-debug-refresh-btn"), "{} bytes", html.len());
    let init = &posted[1]["result"];
    assert_eq!(init["protocolVersion"], "2026-01-26");
    assert_eq!(init["hostInfo"]["name"], "Loopscope");
    assert_eq!(init["hostContext"]["toolInfo"]["id"], "toolu_1");
    assert_eq!(init["hostContext"]["toolInfo"]["tool"]["name"], "debug-tool");
    assert_eq!(init["hostContext"]["displayMode"], "inline");
    assert_eq!(posted[2]["params"]["arguments"], json!({ "contentType": "text" }));
    assert!(posted[3]["params"]["content"].is_array(), "{}", posted[3]);

    // Both directions on the app's lane, in order, as JSON-RPC messages.
    let lane = Peer::App("debug-tool · debug #1".into());
    let on_lane: Vec<(Direction, String)> = app
        .trace
        .borrow()
        .iter()
        .filter(|e| e.peer == lane)
        .filter_map(|e| match &e.kind {
            TraceKind::Rpc { direction, message, exchange: None, .. } => {
                Some((*direction, message.method().unwrap_or("(answer)").to_owned()))
            }
            _ => None,
        })
        .collect();
    let expect = [
        (Direction::In, "ui/notifications/sandbox-proxy-ready"),
        (Direction::Out, "ui/notifications/sandbox-resource-ready"),
        (Direction::In, "ui/initialize"),
        (Direction::Out, "(answer)"),
        (Direction::In, "ui/notifications/initialized"),
        (Direction::Out, "ui/notifications/tool-input"),
        (Direction::Out, "ui/notifications/tool-result"),
    ];
    let expect: Vec<(Direction, String)> = expect.iter().map(|(d, m)| (*d, m.to_string())).collect();
    assert_eq!(on_lane, expect);
}

#[tokio::test(flavor = "current_thread")]
async fn the_app_calls_its_own_servers_tools_for_apps_and_nothing_else() {
    // The server lists debug-tool for both; the host is told it is for the model only, to
    // check the guard (the debug server has no such tool of its own).
    let app = shown(|tools| {
        let t = tools.iter_mut().find(|t| t.name == "debug-tool").unwrap();
        t.meta = Some(json!({ "ui": { "resourceUri": "ui://debug-tool/mcp-app.html", "visibility": ["model"] } }));
    })
    .await;
    app.initialised().await;
    let before = app.trace.borrow().len();
    let call = |id: i64, name: &str| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": {} } })
            .to_string()
    };
    assert_eq!(app.host.receive(&call(2, "debug-refresh")).await, []);
    let refreshed = app.answer(2);
    assert!(refreshed["result"]["content"].is_array(), "{refreshed}");
    // It went to the server: a tools/call on the server's lane.
    let to_server = app.trace.borrow()[before..].iter().any(|e| {
        e.peer == Peer::Server("dbg".into())
            && matches!(&e.kind, TraceKind::Rpc { direction: Direction::Out, message: Message::Request { method, .. }, .. } if method == "tools/call")
    });
    assert!(to_server);

    let calls_before = app.trace.borrow().iter().filter(|e| e.peer == Peer::Server("dbg".into())).count();
    app.host.receive(&call(3, "debug-tool")).await;
    let refused = app.answer(3);
    assert_eq!(refused["error"]["code"], -32000);
    assert!(refused["error"]["message"].as_str().unwrap().contains("is not for apps"), "{refused}");
    app.host.receive(&call(4, "some-other-servers-tool")).await;
    assert!(app.answer(4)["error"]["message"].as_str().unwrap().contains("lists no tool"));
    let calls_after = app.trace.borrow().iter().filter(|e| e.peer == Peer::Server("dbg".into())).count();
    assert_eq!(calls_before, calls_after, "a refused call reached the server");

    // A fault a workshop injects on the server meets the app's call as it meets Claude's.
    app.faults.add(
        Target::Server("dbg".into()),
        Some("debug-refresh".into()),
        Fault::RpcError { code: -32603 },
        Times::Next,
    );
    app.host.receive(&call(6, "debug-refresh")).await;
    let broken = app.answer(6);
    assert!(broken["error"]["message"].as_str().unwrap().contains("-32603"), "{broken}");
    assert!(app.trace.borrow().iter().any(|e| matches!(e.kind, TraceKind::Injected { .. })));

    // What the host does not offer is refused, not faked.
    app.host.receive(r#"{"jsonrpc":"2.0","id":5,"method":"ui/sampling","params":{}}"#).await;
    assert_eq!(app.answer(5)["error"]["code"], -32601);
}

#[tokio::test(flavor = "current_thread")]
async fn an_app_that_misbehaves_is_contained_with_a_message_on_its_lane() {
    let app = shown(|_| {}).await;
    // Before it is initialised, it may not call anything.
    app.proxy_ready().await;
    app.host.receive(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"debug-refresh"}}"#).await;
    assert!(app.answer(9)["error"]["message"].as_str().unwrap().contains("before ui/notifications/initialized"));
    app.initialise().await;
    let said = app.host.receive(r#"{"jsonrpc":"2.0","method":"ui/notifications/sandbox-proxy-ready"}"#).await;
    assert!(matches!(&said[..], [Effect::Problem(p)] if p.contains("out of order")), "{said:?}");

    // Malformed JSON-RPC is ignored with why.
    let said = app.host.receive(r#"{"jsonrpc":"1.0","method":"x"}"#).await;
    assert!(matches!(&said[..], [Effect::Problem(p)] if p.contains("not JSON-RPC 2.0")), "{said:?}");
    let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
    let said = app.host.receive(&deep).await;
    assert!(matches!(&said[..], [Effect::Problem(p)] if p.contains("nests deeper")), "{said:?}");

    // A size of 10⁶ pixels is held to the container's.
    let said = app
        .host
        .receive(
            r#"{"jsonrpc":"2.0","method":"ui/notifications/size-changed","params":{"width":1000000,"height":1000000}}"#,
        )
        .await;
    assert_eq!(said, [Effect::Height(800)]);
    assert!(
        app.lane_notes().iter().any(|n| n == "asked to be 1000000 px tall: held to 800 px"),
        "{:?}",
        app.lane_notes()
    );
    // Said once, not on every resize.
    app.host.receive(r#"{"jsonrpc":"2.0","method":"ui/notifications/size-changed","params":{"height":900000}}"#).await;
    assert_eq!(app.lane_notes().iter().filter(|n| n.starts_with("asked to be")).count(), 1);

    // A flood stops it: nothing more is read or sent.
    let ping = r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"spam"}}"#;
    let mut stopped = None;
    for _ in 0..MAX_PER_SECOND + 10 {
        if let [Effect::Stopped(why)] = &app.host.receive(ping).await[..] {
            stopped = Some(why.clone());
            break;
        }
    }
    let why = stopped.expect("the flood was not stopped");
    assert!(why.contains(&format!("more than {MAX_PER_SECOND} messages within a second")), "{why}");
    let posted = app.posted.borrow().len();
    assert_eq!(app.host.receive(r#"{"jsonrpc":"2.0","id":77,"method":"ping"}"#).await, []);
    assert_eq!(app.posted.borrow().len(), posted, "a stopped app was answered");
}

/// Few messages, many bytes: messages just under the size limit stay under the message-rate
/// limit, and still stop the app once a second's worth passes the byte budget — before the
/// text of the next one is read.
#[tokio::test(flavor = "current_thread")]
async fn a_flood_in_bytes_stops_the_app_before_its_next_message_is_read() {
    let app = shown(|_| {}).await;
    app.initialised().await;
    let big = format!(
        r#"{{"jsonrpc":"2.0","method":"notifications/message","params":{{"level":"info","data":"{}"}}}}"#,
        "x".repeat(1000 * 1000)
    );
    let mut read = 0;
    let mut stopped = None;
    for _ in 0..20 {
        match &app.host.receive(&big).await[..] {
            [Effect::Stopped(why)] => {
                stopped = Some(why.clone());
                break;
            }
            _ => read += 1,
        }
    }
    let why = stopped.expect("the byte flood was not stopped");
    assert_eq!(why, "The app sent more than 4 MiB within a second: Loopscope stopped reading it and removed it.");
    assert_eq!(read, MAX_BYTES_PER_SECOND / 1_000_100, "messages read before the budget ran out");
    // Asked before copying: a stopped app's next message is not admitted.
    assert_eq!(app.host.admit(big.len()), Some(Vec::new()));
}

#[tokio::test(flavor = "current_thread")]
async fn an_app_that_never_initialises_is_removed_with_why() {
    let app = shown(|_| {}).await;
    app.proxy_ready().await;
    app.host.context_changed(Some("dark"), Some(500));
    let said = app.host.watch_start(300).await;
    assert!(matches!(&said, Some(Effect::Stopped(w)) if w.contains("did not initialise")), "{said:?}");
    // Nothing was sent to the app before it initialised but its HTML.
    assert_eq!(app.methods(), ["ui/notifications/sandbox-resource-ready"]);
}

#[tokio::test(flavor = "current_thread")]
async fn what_the_app_gives_claude_or_opens_goes_through_the_user_and_the_url_policy() {
    let app = shown(|_| {}).await;
    app.initialised().await;
    let request = |id: i64, method: &str, params: Value| {
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()
    };
    // Its context for Claude is handed to the page, named by the app.
    let said = app
        .host
        .receive(&request(
            2,
            "ui/update-model-context",
            json!({ "content": [{ "type": "text", "text": "Reading mcp." }] }),
        ))
        .await;
    assert!(
        matches!(&said[..], [Effect::Context(c)] if c.text == "Reading mcp." && c.app == "debug-tool · debug #1"),
        "{said:?}"
    );
    assert_eq!(app.answer(2)["result"], json!({}));

    // A message is asked of the user first; declined, the app is told.
    let text = |t: &str| json!({ "role": "user", "content": [{ "type": "text", "text": t }] });
    app.host.receive(&request(3, "ui/message", text("Explain the note"))).await;
    assert_eq!(app.answer(3)["result"], json!({}));
    app.host.receive(&request(4, "ui/message", text("please decline"))).await;
    assert_eq!(app.answer(4)["error"]["message"], "The user did not send the app's message.");
    app.host.receive(&request(5, "ui/message", json!({ "role": "assistant", "content": [] }))).await;
    assert!(app.answer(5)["error"]["message"].as_str().unwrap().contains("role \"user\""));

    // A link passes the URL policy before the user is asked; a javascript: one never reaches them.
    app.host.receive(&request(6, "ui/open-link", json!({ "url": "javascript:alert(document.domain)" }))).await;
    assert!(app.answer(6)["error"]["message"].as_str().unwrap().contains("never opened"), "{}", app.answer(6));
    app.host.receive(&request(7, "ui/open-link", json!({ "url": "HTTPS://Example.com/docs" }))).await;
    assert_eq!(app.answer(7)["result"], json!({}));
    let asked: Vec<String> = app
        .asked
        .borrow()
        .iter()
        .map(|a| match a {
            AppAsk::Message(t) => format!("message: {t}"),
            AppAsk::Link(u) => format!("link: {u}"),
            AppAsk::Call { tool, .. } => format!("call: {tool}"),
            AppAsk::Download(files) => {
                let each: Vec<String> = files.iter().map(|f| format!("{} ({} bytes)", f.name, f.bytes.len())).collect();
                format!("save: {}", each.join(", "))
            }
        })
        .collect();
    assert_eq!(asked, ["message: Explain the note", "message: please decline", "link: https://example.com/docs"]);

    // Files to save: asked with names that cannot climb out of the user's downloads; a link for
    // the page to fetch is refused before the user is asked; declined, the app is told.
    let file =
        |uri: &str| json!({ "type": "resource", "resource": { "uri": uri, "mimeType": "text/plain", "text": "hi" } });
    app.host.receive(&request(10, "ui/download-file", json!({ "contents": [file("file:///../../etc/passwd")] }))).await;
    assert_eq!(app.answer(10)["result"], json!({}));
    let link = json!({ "type": "resource_link", "uri": "https://example.com/x.zip", "name": "x" });
    app.host.receive(&request(11, "ui/download-file", json!({ "contents": [link] }))).await;
    assert!(
        app.answer(11)["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("Loopscope did not save these files: item 1 is a link")
    );
    app.host.receive(&request(12, "ui/download-file", json!({ "contents": [file("ui://a/decline.txt")] }))).await;
    assert_eq!(app.answer(12)["error"]["message"], "The user did not save the files.");
    let saves: Vec<String> = app
        .asked
        .borrow()
        .iter()
        .filter_map(|a| match a {
            AppAsk::Download(files) => Some(files.iter().map(|f| f.name.clone()).collect::<Vec<_>>().join(",")),
            _ => None,
        })
        .collect();
    assert_eq!(saves, ["passwd", "decline.txt"]);

    // Fullscreen, which it said it supports; picture-in-picture, which the page offers but the
    // app did not list, answers the mode it stays in.
    let said = app.host.receive(&request(8, "ui/request-display-mode", json!({ "mode": "fullscreen" }))).await;
    assert_eq!(said, [Effect::Mode("fullscreen")]);
    assert_eq!(app.answer(8)["result"]["mode"], "fullscreen");
    assert!(app.methods().contains(&"ui/notifications/host-context-changed".to_owned()));
    assert_eq!(app.host.receive(&request(9, "ui/request-display-mode", json!({ "mode": "pip" }))).await, []);
    assert_eq!(app.answer(9)["result"]["mode"], "fullscreen");
    assert_eq!(app.host.back_inline(), Some(Effect::Mode("inline")));

    // The page's theme changed: the app is told that, and only that.
    app.host.context_changed(Some("light"), None);
    let last = app.posted.borrow().last().cloned().unwrap();
    assert_eq!(last["method"], "ui/notifications/host-context-changed");
    assert_eq!(last["params"], json!({ "theme": "light" }));
}

#[tokio::test(flavor = "current_thread")]
async fn under_ask_before_every_call_the_apps_calls_wait_for_the_user_too() {
    let app = shown_with(|_| {}, |host| host.with_consent(Consent::ask_each())).await;
    app.initialised().await;
    let servers_calls = || {
        app.trace
            .borrow()
            .iter()
            .filter(|e| {
                e.peer == Peer::Server("dbg".into())
                    && matches!(&e.kind, TraceKind::Rpc { direction: Direction::Out, message: Message::Request { method, .. }, .. } if method == "tools/call")
            })
            .count()
    };
    let before = servers_calls();
    let call = |id: i64, name: &str| {
        json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": name, "arguments": {} } })
            .to_string()
    };
    // Declined: the server never hears of it.
    app.host.receive(&call(2, "debug-log")).await;
    assert_eq!(app.answer(2)["error"]["message"], "The user did not let the app make this call.");
    assert_eq!(servers_calls(), before);
    // Approved: it runs.
    app.host.receive(&call(3, "debug-refresh")).await;
    assert!(app.answer(3)["result"]["content"].is_array());
    assert_eq!(servers_calls(), before + 1);
    let asked = app.asked.borrow();
    assert!(
        matches!(&asked[..], [AppAsk::Call { tool: a, why, .. }, AppAsk::Call { tool: b, .. }]
            if a == "debug-log" && b == "debug-refresh" && why.contains("approve every tool call")),
        "{asked:?}"
    );
}
