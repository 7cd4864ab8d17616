//! The MCP client compiled to wasm, over the browser's real fetch (CORS included), against
//! server-everything, our Python SDK server and the fault fixtures. `scripts/test` starts them
//! on 127.0.0.1 and passes their URLs in at compile time.
#![cfg(target_arch = "wasm32")]

use engine::layer::Layer;
use engine::mcp::{Handlers, McpClient, RequestOptions, ServerConfig};
use engine::trace::Tracer;
use loopscope::platform::Browser;
use protocol::mcp::ContentBlock;
use serde_json::{Map, json};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A fixture URL given at compile time by scripts/test; a clear failure (not a skip) without it.
macro_rules! fixture {
    ($var:literal) => {
        option_env!($var)
            .unwrap_or_else(|| panic!(concat!($var, " is not set: run the browser layer with ./scripts/test --from 3")))
    };
}

fn client(url: &str) -> McpClient<Browser> {
    McpClient::new(Rc::new(Browser), ServerConfig::new("s", url), Tracer::silent(), Handlers::default())
}

fn first_text(blocks: &[ContentBlock]) -> String {
    blocks.iter().find_map(|b| b.as_text().map(str::to_owned)).unwrap_or_default()
}

#[wasm_bindgen_test]
async fn server_everything_over_fetch() {
    let c = client(fixture!("LOOPSCOPE_EVERYTHING_URL"));
    let info = c.connect().await.expect("initialize through CORS");
    assert_eq!(info.server_info.name, "mcp-servers/everything");
    assert!(c.session_id().is_some(), "the session id header is exposed and read (P1)");
    let opts = RequestOptions::default();
    let tools = c.list_tools(&opts).await.unwrap();
    assert!(tools.tools.iter().any(|t| t.name == "echo"));
    let echo = c.call_tool("echo", json!({"message": "from the browser"}), &opts).await.unwrap();
    assert_eq!(first_text(&echo.content), "Echo: from the browser");

    let progress = Rc::new(RefCell::new(0));
    let seen = progress.clone();
    let with_progress = RequestOptions { on_progress: Some(Rc::new(move |_| *seen.borrow_mut() += 1)), ..opts.clone() };
    c.call_tool("trigger-long-running-operation", json!({"duration": 0.2, "steps": 2}), &with_progress).await.unwrap();
    assert_eq!(*progress.borrow(), 2, "progress read from the SSE body stream");

    let resources = c.list_resources(&opts).await.unwrap();
    let read = c.read_resource(&resources[0].uri, &opts).await.unwrap();
    assert_eq!(read.contents[0].uri, resources[0].uri);
    let prompts = c.list_prompts(&opts).await.unwrap();
    let simple = prompts.iter().find(|p| p.name == "simple-prompt").unwrap();
    let got = c.get_prompt(simple, &Map::new(), &opts).await.unwrap();
    assert_eq!(got.messages.len(), 1);
    c.disconnect().await.unwrap();
}

#[wasm_bindgen_test]
async fn python_sdk_server_over_fetch() {
    let c = client(fixture!("LOOPSCOPE_PYTHON_URL"));
    c.connect().await.unwrap();
    let failed = c.call_tool("always_fails", json!({}), &RequestOptions::default()).await.unwrap();
    assert!(failed.is_error, "isError arrives as a successful call carrying a failed tool");
    c.disconnect().await.unwrap();
}

#[wasm_bindgen_test]
async fn a_server_without_cors_is_a_network_error_that_says_cors() {
    let err = client(fixture!("LOOPSCOPE_PYTHON_NOCORS_URL")).connect().await.unwrap_err();
    assert_eq!(err.layer(), Layer::Network, "{err}");
    assert!(err.to_string().contains("Failed to fetch"), "{err}");
    // The test runner's page is cross-origin isolated (COEP), where an opaque probe cannot tell
    // "down" from "CORS": the hint then names both. The e2e tests check each on a real page.
    assert!(loopscope::platform::cross_origin_isolated());
    assert!(err.hint().unwrap().contains("CORS"));
}

#[wasm_bindgen_test]
async fn http_500_reaches_the_page_with_its_body() {
    let base = fixture!("LOOPSCOPE_FAULTS_URL");
    let c = client(&format!("{base}/http-500/mcp"));
    c.connect().await.unwrap();
    let err = c.call_tool("echo", json!({}), &RequestOptions::default()).await.unwrap_err();
    assert_eq!(err.layer(), Layer::Http);
    assert_eq!(err.rpc_error().map(|e| e.code.0), Some(-32603));
}

#[wasm_bindgen_test]
async fn abort_stops_the_fetch_and_tells_the_server() {
    let base = fixture!("LOOPSCOPE_FAULTS_URL");
    let c = client(&format!("{base}/slow/mcp"));
    c.connect().await.unwrap();
    let opts = RequestOptions { timeout_ms: Some(200), ..Default::default() };
    let started = js_sys::Date::now();
    let err = c.call_tool("echo", json!({}), &opts).await.unwrap_err();
    assert_eq!(err.layer(), Layer::Timeout);
    assert!(js_sys::Date::now() - started < 2_000.0);
}
