//! The fake Messages API must reject what the real API rejects, with the same status, error
//! type and message shape; otherwise the agent tests would prove nothing. Raw requests here,
//! no client code in between.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::platform::{Headers, HttpRequest, Method, Platform};
use futures::StreamExt;
use serde_json::{Value, json};
use support::Native;
use testkit::fake_claude::FakeClaude;

async fn post(fake: &FakeClaude, headers: Headers, body: Value) -> (u16, Headers, String) {
    let platform = Native::new();
    let req = HttpRequest {
        method: Method::Post,
        url: format!("{}/v1/messages", fake.base_url()),
        headers,
        body: Some(body.to_string()),
        redirects: Default::default(),
    };
    let mut resp = platform.send(req).await.unwrap();
    let mut bytes = Vec::new();
    while let Some(c) = resp.body.next().await {
        bytes.extend(c.unwrap());
    }
    (resp.status, resp.headers, String::from_utf8(bytes).unwrap())
}

fn good_headers() -> Headers {
    Headers::new()
        .with("x-api-key", "sk-fake")
        .with("anthropic-version", "2023-06-01")
        .with("content-type", "application/json")
}

fn body(messages: Value, tools: Value) -> Value {
    json!({"model": "claude-test", "max_tokens": 100, "messages": messages, "tools": tools})
}

fn hello() -> Value {
    json!([{"role": "user", "content": "hi"}])
}

#[tokio::test(flavor = "current_thread")]
async fn rejects_what_the_real_api_rejects() {
    let fake = FakeClaude::start(0).await;
    let tool = |name: &str, schema: Value| json!([{"name": name, "input_schema": schema}]);
    let obj = json!({"type": "object"});
    let use_then = |results: Value| {
        json!([
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "t", "input": {}}]},
            {"role": "user", "content": results}
        ])
    };
    let result = |id: &str| json!({"type": "tool_result", "tool_use_id": id, "content": "ok"});
    let cases: Vec<(Headers, Value, u16, &str)> = vec![
        (
            Headers::new().with("anthropic-version", "2023-06-01"),
            body(hello(), json!([])),
            401,
            "x-api-key header is required",
        ),
        (Headers::new().with("x-api-key", "k"), body(hello(), json!([])), 400, "anthropic-version"),
        (
            good_headers().with("origin", "http://127.0.0.1:1"),
            body(hello(), json!([])),
            401,
            "anthropic-dangerous-direct-browser-access",
        ),
        (good_headers().with("x-api-key", "sk-ant-invalid"), body(hello(), json!([])), 401, "invalid x-api-key"),
        (good_headers(), json!({"max_tokens": 1, "messages": hello()}), 400, "model: Field required"),
        (
            good_headers(),
            body(hello(), tool("a.b", obj.clone())),
            400,
            "tools.0.custom.name: String should match pattern",
        ),
        (
            good_headers(),
            body(hello(), tool("t", json!({"type": "object", "anyOf": []}))),
            400,
            "oneOf, allOf, or anyOf at the top level",
        ),
        (
            good_headers(),
            body(hello(), tool("t", json!({"type": "object", "properties": {"a[0]": {}}}))),
            400,
            "Property keys should match",
        ),
        (good_headers(), body(hello(), tool("t", json!({"type": "array"}))), 400, "input_schema.type"),
        (
            good_headers(),
            body(use_then(json!([{"type": "text", "text": "x"}])), json!([])),
            400,
            "`tool_use` ids were found without `tool_result` blocks",
        ),
        (
            good_headers(),
            body(use_then(json!([{"type": "text", "text": "x"}, result("toolu_1")])), json!([])),
            400,
            "Did not find 1 tool_result block(s) at the beginning",
        ),
        (good_headers(), body(use_then(json!([result("toolu_9")])), json!([])), 400, "unexpected `tool_use_id`"),
    ];
    for (headers, body, status, needle) in cases {
        let (got, resp_headers, text) = post(&fake, headers, body.clone()).await;
        assert_eq!(got, status, "{body}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["type"], "error");
        assert!(v["error"]["message"].as_str().unwrap().contains(needle), "{needle} not in {text}");
        assert!(resp_headers.get("request-id").is_some());
        assert_eq!(v["request_id"].as_str(), resp_headers.get("request-id"));
    }
    let (status, _, text) = post(&fake, good_headers(), body(use_then(json!([result("toolu_1")])), json!([]))).await;
    assert_eq!(status, 200, "{text}");
}

#[tokio::test(flavor = "current_thread")]
async fn streams_events_in_the_real_order_with_split_tool_input() {
    let fake = FakeClaude::start(0).await;
    fake.script(
        "sk-fake",
        vec![json!({"reply": {"content": [{"text": "Hi"}, {"tool_use": {"name": "t", "input": {"city": "Tokyo"}}}]}})],
    );
    let tools = json!([{"name": "t", "input_schema": {"type": "object"}}]);
    let (status, headers, text) = post(&fake, good_headers(), body(hello(), tools)).await;
    assert_eq!(status, 200);
    assert_eq!(headers.get("content-type"), Some("text/event-stream"));
    let kinds: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("event: ")).collect();
    assert_eq!(kinds.first(), Some(&"message_start"));
    assert_eq!(&kinds[kinds.len() - 2..], ["message_delta", "message_stop"]);
    let partials = text.matches("input_json_delta").count();
    assert!(partials >= 3, "tool input split into {partials} deltas");
    assert!(text.contains("\"stop_reason\":\"tool_use\""));
}
