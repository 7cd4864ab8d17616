//! A stdio server behind the bridge: what it writes reaches the client byte for byte, its own
//! messages stream, and every way it can fail (junk, a 100 MB line, an exit mid-call) is a
//! bridge error that names the cause, with the bridge still serving.

mod common;

use std::time::{Duration, Instant};

use common::{Bridge, PAGE};
use serde_json::{Value, json};

#[tokio::test]
async fn what_the_server_writes_arrives_unchanged() {
    let bridge = Bridge::fixture();
    let session = bridge.initialize().await;
    let answer = bridge.call(&session, 7, "echo").await;
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["content-type"], "application/json");
    assert_eq!(answer.headers()["access-control-allow-origin"], PAGE);
    assert!(answer.headers()["access-control-expose-headers"].to_str().unwrap().contains("mcp-session-id"));
    assert!(answer.headers().get("loopscope-bridge").is_some());
    let text = answer.text().await.unwrap();
    // The fixture's own spacing and key order: not re-encoded.
    assert_eq!(
        text,
        r#"{"result": {"content": [{"type": "text", "text": "{\"n\": 7}"}], "isError": false}, "jsonrpc":"2.0", "id": 7}"#
    );
    // A pretty-printed request (line breaks between tokens) still reaches the server as one line.
    let pretty = serde_json::to_string_pretty(&json!({"jsonrpc": "2.0", "id": "s-1", "method": "ping"})).unwrap();
    let client = Bridge::client();
    let answer = client
        .post(&bridge.url)
        .header("origin", PAGE)
        .bearer_auth(&bridge.token)
        .header("mcp-session-id", &session)
        .header("content-type", "application/json")
        .body(pretty)
        .send()
        .await
        .unwrap();
    assert_eq!(answer.text().await.unwrap(), r#"{"result": {}, "jsonrpc":"2.0", "id": "s-1"}"#);
}

#[tokio::test]
async fn the_servers_own_messages_stream_before_its_answer() {
    let bridge = Bridge::fixture();
    let session = bridge.initialize().await;
    let answer = bridge.call(&session, 3, "chatty").await;
    assert_eq!(answer.headers()["content-type"], "text/event-stream");
    let body = answer.text().await.unwrap();
    let data: Vec<Value> =
        body.lines().filter_map(|l| l.strip_prefix("data: ")).map(|d| serde_json::from_str(d).unwrap()).collect();
    assert_eq!(data.len(), 3, "{body}");
    assert_eq!(data[0]["method"], "notifications/progress");
    assert_eq!(data[1]["method"], "notifications/message");
    assert_eq!(data[2]["id"], 3);
}

#[tokio::test]
async fn junk_on_stdout_is_the_bridges_to_report_and_the_call_still_answers() {
    let bridge = Bridge::fixture();
    let session = bridge.initialize().await;
    let answer = bridge.call(&session, 4, "junk").await;
    assert_eq!(answer.status(), 200);
    assert!(answer.text().await.unwrap().contains(r#""id": 4"#));
    let log = bridge.log().await;
    let junk: Vec<_> = log.iter().filter(|e| e["kind"] == "junk").collect();
    assert_eq!(junk.len(), 1, "{log:#?}");
    assert!(junk[0]["text"].as_str().unwrap().starts_with("Server running on stdio"));
    assert_eq!(junk[0]["session"], session.as_str());
}

#[tokio::test]
async fn a_100_mb_line_is_dropped_with_a_bridge_error_and_memory_stays_flat() {
    let bridge = Bridge::fixture();
    let session = bridge.initialize().await;
    let started = Instant::now();
    let answer = bridge.call(&session, 5, "huge").await;
    assert_eq!(answer.status(), 502);
    assert_eq!(answer.headers()["loopscope-bridge-error"], "too_long");
    let body: Value = answer.json().await.unwrap();
    let message = body["bridge_error"]["message"].as_str().unwrap();
    assert!(message.contains("104857") && message.contains("16 MiB"), "{message}");
    eprintln!("a 100 MB line dropped in {:?}", started.elapsed());
    // Still serving, on the same session.
    let answer = bridge.call(&session, 6, "echo").await;
    assert_eq!(answer.status(), 200);
    let peak = bridge.peak_memory_mib().unwrap_or(0);
    assert!(peak < 64, "the bridge's peak memory was {peak} MiB for a 100 MB line");
}

#[tokio::test]
async fn a_server_that_exits_mid_call_is_named_with_its_code_and_last_words() {
    let bridge = Bridge::fixture();
    let session = bridge.initialize().await;
    let answer = bridge.call(&session, 8, "die").await;
    assert_eq!(answer.status(), 502);
    assert_eq!(answer.headers()["loopscope-bridge-error"], "exited");
    assert_eq!(answer.headers()["access-control-allow-origin"], PAGE, "the page can read why");
    let body: Value = answer.json().await.unwrap();
    let error = &body["bridge_error"];
    assert_eq!(error["exit_code"], 3, "{body}");
    assert!(error["message"].as_str().unwrap().contains("exited with code 3"), "{body}");
    assert_eq!(error["stderr"], json!(["fixture: started", "fixture: about to die"]));
    // Its session is over; the bridge still serves a new one.
    let again = bridge.call(&session, 9, "echo").await;
    assert_eq!(again.status(), 404);
    assert_eq!(again.headers()["loopscope-bridge-error"], "no_session");
    let fresh = bridge.initialize().await;
    assert_eq!(bridge.call(&fresh, 10, "echo").await.status(), 200);
}

#[tokio::test]
async fn each_session_has_its_child_and_delete_ends_it() {
    let bridge = Bridge::fixture();
    let (a, b) = (bridge.initialize().await, bridge.initialize().await);
    let pid = |text: String| -> i32 {
        let v: Value = serde_json::from_str(&text).unwrap();
        v["result"]["content"][0]["text"].as_str().unwrap().parse().unwrap()
    };
    let pid_a = pid(bridge.call(&a, 1, "pid").await.text().await.unwrap());
    let pid_b = pid(bridge.call(&b, 1, "pid").await.text().await.unwrap());
    assert_ne!(pid_a, pid_b);
    let deleted = Bridge::client()
        .delete(&bridge.url)
        .header("origin", PAGE)
        .bearer_auth(&bridge.token)
        .header("mcp-session-id", &a)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), 204);
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::path::Path::new(&format!("/proc/{pid_a}")).exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!std::path::Path::new(&format!("/proc/{pid_a}")).exists(), "DELETE ended the child");
    assert_eq!(bridge.call(&b, 2, "echo").await.status(), 200, "the other session goes on");
}

#[tokio::test]
async fn a_body_that_is_not_one_json_rpc_message_starts_nothing() {
    let bridge = Bridge::fixture();
    for body in [json!({"serverConfig": {"command": "sh"}}), json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])] {
        let answer = bridge.post(None, &body).send().await.unwrap();
        assert_eq!(answer.status(), 400, "{body}");
        assert_eq!(answer.headers()["loopscope-bridge-error"], "not_json_rpc");
    }
    assert_eq!(bridge.started().await, 0);
}

#[tokio::test]
async fn the_probes_child_becomes_the_sessions_one_process_per_connection() {
    let bridge = Bridge::fixture();
    // The page's 2026-07-28 probe, without a session: a 2025 server answers with an error.
    let probe =
        bridge.post(None, &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"})).send().await.unwrap();
    assert!(probe.text().await.unwrap().contains("-32601"));
    let session = bridge.initialize().await;
    assert_eq!(bridge.call(&session, 2, "echo").await.status(), 200);
    assert_eq!(bridge.started().await, 1, "{:#?}", bridge.log().await);
    // A second connection gets a process of its own; a probe after that starts a fresh shared one.
    let other = bridge.initialize().await;
    assert_ne!(other, session);
    assert_eq!(bridge.started().await, 2);
}

#[tokio::test]
async fn clients_without_a_session_may_use_the_same_id_at_once() {
    let bridge = Bridge::fixture();
    // Twenty pages' first probes at once, all with id 1, to the one session-less child.
    let probes = (0..20).map(|_| async {
        let r =
            bridge.post(None, &json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover"})).send().await.unwrap();
        (r.status(), r.text().await.unwrap())
    });
    for (status, text) in futures::future::join_all(probes).await {
        assert_eq!(status, 200, "{text}");
        assert!(text.contains("-32601") && text.contains(r#""id": 1"#), "{text}");
    }
    assert_eq!(bridge.started().await, 1);
}
