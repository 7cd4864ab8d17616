//! MCP client benchmarks (not part of the test command; numbers go in the issue notes).
//!
//!     cargo bench --bench mcp
//!
//! 1. SSE parser throughput: a real server-everything SSE body (progress notifications and a
//!    result), recorded at the start of the run, repeated to 64 MB and fed in 256-byte chunks.
//! 2. `tools/call` through the client vs a bare HTTP POST of the same body, against the same
//!    local server-everything, alternating, 400 rounds each: the median ratio (goal ≤ 1.1).

#[cfg(target_arch = "wasm32")]
fn main() {} // benchmarks run natively only

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    native::main();
}

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/support/mod.rs"]
mod support;

#[cfg(not(target_arch = "wasm32"))]
mod native {

    use super::support::Native;
    use engine::mcp::{Handlers, McpClient, RequestOptions, ServerConfig};
    use engine::platform::{HttpRequest, Method, Platform};
    use engine::sse::SseParser;
    use engine::trace::Tracer;
    use futures::StreamExt;
    use serde_json::json;
    use std::time::Instant;

    fn median(mut v: Vec<f64>) -> f64 {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    }

    async fn post_raw(platform: &Native, url: &str, session: &str, body: &str) -> Vec<u8> {
        let headers = engine::platform::Headers::new()
            .with("accept", "application/json, text/event-stream")
            .with("content-type", "application/json")
            .with("mcp-session-id", session)
            .with("mcp-protocol-version", "2025-11-25");
        let req = HttpRequest {
            method: Method::Post,
            url: url.to_owned(),
            headers,
            body: Some(body.to_owned()),
            redirects: Default::default(),
        };
        let mut resp = platform.send(req).await.unwrap();
        let mut out = Vec::new();
        while let Some(chunk) = resp.body.next().await {
            out.extend(chunk.unwrap());
        }
        out
    }

    pub fn main() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(async {
            let server = testkit::real::everything();
            let platform = Native::new();
            let client = McpClient::new(platform.clone(), ServerConfig::new("bench", &server.url), Tracer::silent(), Handlers::default());
            client.connect().await.unwrap();
            let session = client.session_id().unwrap();

            // 1. Record a real SSE body, then parse 64 MB of it in small chunks.
            let call = json!({"jsonrpc":"2.0","id":9001,"method":"tools/call","params":{"name":"trigger-long-running-operation","arguments":{"duration":0.05,"steps":5},"_meta":{"progressToken":"bench"}}});
            let recorded = post_raw(&platform, &server.url, &session, &call.to_string()).await;
            let mut stream = Vec::with_capacity(64 << 20);
            while stream.len() < 64 << 20 {
                stream.extend_from_slice(&recorded);
            }
            let mut best = f64::MAX;
            let mut events = 0;
            for _ in 0..5 {
                let started = Instant::now();
                let mut parser = SseParser::default();
                events = 0;
                for chunk in stream.chunks(256) {
                    events += parser.feed(chunk).expect("within the limits").len();
                }
                best = best.min(started.elapsed().as_secs_f64());
            }
            println!(
                "sse parser: {:.1} MB in 256-byte chunks, {events} events, best of 5: {:.1} ms = {:.0} MB/s (recorded body: {} bytes)",
                stream.len() as f64 / 1e6,
                best * 1e3,
                stream.len() as f64 / 1e6 / best,
                recorded.len()
            );

            // 2. tools/call through the client vs the bare POST of the same body.
            let opts = RequestOptions::default();
            let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bench"},"_meta":{"progressToken":1}}}).to_string();
            for _ in 0..50 {
                client.call_tool("echo", json!({"message": "bench"}), &opts).await.unwrap();
                post_raw(&platform, &server.url, &session, &body).await;
            }
            let (mut through_client, mut bare) = (Vec::new(), Vec::new());
            for _ in 0..400 {
                let t = Instant::now();
                client.call_tool("echo", json!({"message": "bench"}), &opts).await.unwrap();
                through_client.push(t.elapsed().as_secs_f64() * 1e3);
                let t = Instant::now();
                post_raw(&platform, &server.url, &session, &body).await;
                bare.push(t.elapsed().as_secs_f64() * 1e3);
            }
            let (c, b) = (median(through_client), median(bare));
            println!("tools/call round trip against server-everything: client median {c:.3} ms, bare POST median {b:.3} ms, ratio {:.3}", c / b);
        });
    }
}
