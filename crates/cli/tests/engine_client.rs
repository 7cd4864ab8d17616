//! The page's own MCP client (the engine, natively) through the bridge: the same code the page
//! runs, so what it makes of the bridge is what a user sees. A stdio server's exit or a refused
//! token is a bridge-layer error with the bridge's sentence, not an HTTP mystery, and Claude is
//! told the tool is unavailable.

mod common;
#[path = "../../engine/tests/support/mod.rs"]
mod support;

use common::Bridge;
use engine::bridge::{BridgeLink, ErrorKind};
use engine::layer::Layer;
use engine::mcp::{Handlers, McpClient, McpError, RequestOptions, ServerConfig};
use engine::trace::Tracer;
use serde_json::json;
use support::Native;

fn client(bridge: &Bridge, token: &str) -> McpClient<Native> {
    let mut config = ServerConfig::new("bridged", &bridge.url);
    config.headers.push(("Authorization".into(), format!("Bearer {token}")));
    McpClient::new(Native::new(), config, Tracer::silent(), Handlers::default())
}

#[tokio::test(flavor = "current_thread")]
async fn the_engine_speaks_through_the_bridge_and_names_its_layer() {
    let bridge = Bridge::fixture();
    // The link it printed is one the page accepts.
    let hash = bridge.first["connect"].as_str().unwrap().split_once('#').unwrap().1.to_owned();
    let link = BridgeLink::from_fragment(&hash).unwrap().unwrap();
    assert_eq!(link.url, bridge.url);
    let mcp = client(&bridge, &link.token);
    let init = mcp.connect().await.expect("connects through the bridge");
    assert_eq!(init.server_info.name, "bridge-fixture");
    let tools = mcp.list_tools(&RequestOptions::default()).await.unwrap();
    assert_eq!(tools.tools.len(), 6);
    let echoed = mcp.call_tool("echo", json!({"a": 1}), &RequestOptions::default()).await.unwrap();
    assert!(!echoed.is_error);
    let died = mcp.call_tool("die", json!({}), &RequestOptions::default()).await.unwrap_err();
    assert_eq!(died.layer(), Layer::Bridge, "{died:?}");
    let McpError::Bridge(fault) = &died else { panic!("{died:?}") };
    assert_eq!(fault.kind(), ErrorKind::Exited);
    assert_eq!(fault.error.exit_code, Some(3));
    let hint = died.hint().unwrap();
    assert!(hint.contains("with code 3") && hint.contains("about to die"), "{hint}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_wrong_token_is_the_bridges_refusal_not_a_sign_in() {
    let bridge = Bridge::fixture();
    let mcp = client(&bridge, &"0".repeat(64));
    let refused = mcp.connect().await.unwrap_err();
    assert_eq!(refused.layer(), Layer::Bridge, "{refused:?}");
    let McpError::Bridge(fault) = &refused else { panic!("{refused:?}") };
    assert_eq!(fault.kind(), ErrorKind::Token);
    assert!(refused.hint().unwrap().contains("connect link"));
    assert_eq!(bridge.started().await, 0);
}

#[tokio::test(flavor = "current_thread")]
async fn the_page_asks_the_bridge_what_it_serves_and_reads_its_log() {
    let bridge = Bridge::fixture();
    let hash = bridge.first["connect"].as_str().unwrap().split_once('#').unwrap().1.to_owned();
    let link = BridgeLink::from_fragment(&hash).unwrap().unwrap();
    let platform = Native::new();
    let info = engine::bridge::ask::info(&*platform, &link).await.unwrap();
    assert!(info.runs_a_command());
    assert!(info.serves.starts_with("python3 ") && info.serves.ends_with("stdio_server.py"), "{}", info.serves);
    let mcp = client(&bridge, &link.token);
    mcp.connect().await.unwrap();
    let _ = mcp.call_tool("junk", json!({}), &RequestOptions::default()).await.unwrap();
    let entries = engine::bridge::ask::log(&*platform, &link, 0).await.unwrap();
    assert!(
        entries.iter().any(|e| e.kind == engine::bridge::LogKind::Stderr && e.text == "fixture: started"),
        "{entries:?}"
    );
    let junk: Vec<_> = entries.iter().filter(|e| e.kind == engine::bridge::LogKind::Junk).collect();
    assert_eq!(junk.len(), 1);
    assert!(engine::bridge::is_fault(junk[0].kind));
    let after = entries.last().unwrap().n;
    assert!(engine::bridge::ask::log(&*platform, &link, after).await.unwrap().is_empty());
    let wrong = BridgeLink { token: "f".repeat(64), ..link.clone() };
    let refused = engine::bridge::ask::info(&*platform, &wrong).await.unwrap_err();
    assert!(matches!(&refused, engine::bridge::AskError::Refused(f) if f.kind() == ErrorKind::Token), "{refused:?}");
    drop(bridge);
    let gone = engine::bridge::ask::info(&*platform, &link).await.unwrap_err();
    assert!(matches!(gone, engine::bridge::AskError::Unreachable(_)), "{gone:?}");
}

#[tokio::test(flavor = "current_thread")]
async fn a_server_that_cannot_start_is_named_with_its_own_words() {
    // The program exists; the server it should run does not: it exits at once, saying why.
    let bridge = Bridge::start(&["--", "python3", "/nonexistent/loopscope/server.py"]);
    let mcp = client(&bridge, &bridge.token);
    let failed = mcp.connect().await.unwrap_err();
    assert_eq!(failed.layer(), Layer::Bridge, "{failed:?}");
    let McpError::Bridge(fault) = &failed else { panic!("{failed:?}") };
    assert_eq!(fault.kind(), ErrorKind::Exited);
    assert_eq!(fault.error.exit_code, Some(2));
    let hint = failed.hint().unwrap();
    assert!(hint.contains("with code 2") && hint.contains("No such file"), "{hint}");
}
