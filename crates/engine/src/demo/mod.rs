//! Demo mode: a `Platform` that answers Messages requests to `demo://loopscope` with the
//! scripted demo model, as a real event stream, and MCP requests to `demo://notebook/mcp` with
//! the demo MCP server, and passes every other request through. With it, the loop runs for real
//! (tools, MCP, routing, results) without an API key and without a server.

mod connector;
mod model;
mod refuse;
mod server;

pub use connector::ConnectorCall;
pub use model::{Reply, respond};
pub use server::{DEMO_SERVER_URL, DemoServer};

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use futures::StreamExt;
use futures::future::LocalBoxFuture;
use serde_json::{Value, json};

use super::platform::{Headers, HttpRequest, HttpResponse, NetworkError, Platform};

pub const DEMO_BASE_URL: &str = "demo://loopscope";

/// Who answers `demo://` requests. [`InPlace`] answers them where they arrive (natively, in
/// tests); the page answers them from code it loads on the demo's first use (its `demo`
/// chunk, src/chunks/), so a visit that never uses the demo never downloads the model or the
/// server. For that, nothing on the first screen may call [`Demo::answer_now`] but through this.
pub trait DemoRunner<P> {
    fn answer(
        &self,
        demo: Demo<P>,
        request: HttpRequest,
    ) -> LocalBoxFuture<'static, Result<HttpResponse, NetworkError>>;
}

/// Answers in place.
pub struct InPlace;

impl<P: Platform + Clone + 'static> DemoRunner<P> for InPlace {
    fn answer(
        &self,
        demo: Demo<P>,
        request: HttpRequest,
    ) -> LocalBoxFuture<'static, Result<HttpResponse, NetworkError>> {
        Box::pin(async move { demo.answer_now(request).await })
    }
}

/// Wraps the real platform; only `demo://` requests are answered here.
#[derive(Clone)]
pub struct Demo<P> {
    pub inner: P,
    server: Rc<DemoServer>,
    /// Answers a lesson scripted, given in order before the model answers on its own again.
    script: Rc<RefCell<VecDeque<Reply>>>,
    runner: Rc<dyn DemoRunner<P>>,
}

impl<P> std::fmt::Debug for Demo<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Demo").finish_non_exhaustive()
    }
}

impl<P: Platform + Clone + 'static> Demo<P> {
    pub fn new(inner: P) -> Self {
        Self::with_runner(inner, Rc::new(InPlace))
    }
}

impl<P> Demo<P> {
    /// With `runner` answering the `demo://` requests.
    pub fn with_runner(inner: P, runner: Rc<dyn DemoRunner<P>>) -> Self {
        Demo { inner, server: Default::default(), script: Default::default(), runner }
    }

    /// The demo model's next answers, in order (replacing any left); empty to let it answer on
    /// its own.
    pub fn script(&self, replies: Vec<Reply>) {
        *self.script.borrow_mut() = replies.into();
    }
}

/// The API's 400 for a request it refuses, with `message`.
fn invalid(headers: Headers, message: &str) -> HttpResponse {
    let request_id = headers.get("request-id").unwrap_or_default().to_owned();
    let text = json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}, "request_id": request_id})
        .to_string();
    let body = futures::stream::once(async move { Ok(text.into_bytes()) }).boxed_local();
    HttpResponse::new(400, headers.with("content-type", "application/json"), body)
}

fn event(kind: &str, data: Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

/// The demo reply as the stream the Messages API would send.
/// `input_tokens` is an estimate (four characters a token), not Claude's tokenizer.
pub fn stream_events(reply: &Reply, model: &str, id: u64, input_tokens: usize) -> Vec<String> {
    let mut out = vec![event(
        "message_start",
        json!({"type": "message_start", "message": {"id": format!("msg_demo_{id}"), "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "usage": {"input_tokens": input_tokens, "output_tokens": 0}}}),
    )];
    let mut index = 0;
    if let Some(thinking) = &reply.thinking {
        let block = json!({"type": "thinking", "thinking": "", "signature": ""});
        out.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": block}),
        ));
        let delta = json!({"type": "thinking_delta", "thinking": thinking});
        out.push(event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": delta})));
        let signed = json!({"type": "signature_delta", "signature": refuse::signature(thinking)});
        out.push(event("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": signed})));
        out.push(event("content_block_stop", json!({"type": "content_block_stop", "index": 0})));
        index += 1;
    }
    if let Some(query) = &reply.web_search {
        let srv = format!("srvtoolu_demo_{id}_{index}");
        let call = json!({"type": "server_tool_use", "id": srv, "name": "web_search", "input": {}});
        out.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": call}),
        ));
        let partial = json!({"query": query}).to_string();
        let delta = json!({"type": "input_json_delta", "partial_json": partial});
        out.push(event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": delta})));
        out.push(event("content_block_stop", json!({"type": "content_block_stop", "index": index})));
        index += 1;
        let result = json!({"type": "web_search_tool_result", "tool_use_id": srv, "content": [{
            "type": "web_search_result", "url": "https://modelcontextprotocol.io/specification",
            "title": "Specification - Model Context Protocol (demo result)", "encrypted_content": "ZGVtbw", "page_age": null}]});
        out.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": result}),
        ));
        out.push(event("content_block_stop", json!({"type": "content_block_stop", "index": index})));
        index += 1;
    }
    // The connector's calls, made on the API's side: each call streams like a tool_use, its
    // result comes whole.
    for (k, call) in reply.connector.iter().enumerate() {
        let use_id = format!("mcptoolu_demo_{id}_{k}");
        let start = json!({"type": "mcp_tool_use", "id": use_id, "name": call.name, "server_name": call.server_name, "input": {}});
        out.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        let delta = json!({"type": "input_json_delta", "partial_json": call.input.to_string()});
        out.push(event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": delta})));
        out.push(event("content_block_stop", json!({"type": "content_block_stop", "index": index})));
        index += 1;
        let result = json!({"type": "mcp_tool_result", "tool_use_id": use_id, "is_error": call.is_error, "content": call.content});
        out.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": result}),
        ));
        out.push(event("content_block_stop", json!({"type": "content_block_stop", "index": index})));
        index += 1;
    }
    // A forced tool_choice starts the answer with the call: no text block before it.
    let text_block = !reply.text.is_empty() || reply.calls.is_empty();
    if text_block {
        out.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
        ));
        let chars: Vec<char> = reply.text.chars().collect();
        for piece in chars.chunks(16) {
            let text: String = piece.iter().collect();
            out.push(event(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}),
            ));
        }
        out.push(event("content_block_stop", json!({"type": "content_block_stop", "index": index})));
    }
    for (n, (name, input)) in reply.calls.iter().enumerate() {
        if text_block || n > 0 {
            index += 1;
        }
        let block = json!({"type": "tool_use", "id": format!("toolu_demo_{id}_{index}"), "name": name, "input": {}});
        out.push(event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        ));
        let json_text: Vec<char> = input.to_string().chars().collect();
        for piece in json_text.chunks(10) {
            let partial: String = piece.iter().collect();
            out.push(event("content_block_delta", json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": partial}})));
        }
        out.push(event("content_block_stop", json!({"type": "content_block_stop", "index": index})));
    }
    out.push(event("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": reply.stop_reason, "stop_sequence": null}, "usage": {"output_tokens": reply.text.len() / 4 + 10}})));
    out.push(event("message_stop", json!({"type": "message_stop"})));
    out
}

impl<P: Platform + Clone + 'static> Platform for Demo<P> {
    async fn answers(&self, url: &str) -> Option<bool> {
        if url.starts_with("demo://") { Some(true) } else { self.inner.answers(url).await }
    }

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, NetworkError> {
        if !request.url.starts_with("demo://") {
            return self.inner.send(request).await;
        }
        let runner = self.runner.clone();
        runner.answer(self.clone(), request).await
    }

    fn now_ms(&self) -> f64 {
        self.inner.now_ms()
    }

    async fn sleep(&self, ms: u64) {
        self.inner.sleep(ms).await
    }

    fn random(&self) -> f64 {
        self.inner.random()
    }

    fn random_bytes(&self, buf: &mut [u8]) {
        self.inner.random_bytes(buf)
    }

    async fn sign_es256(&self, pkcs8_der: &[u8], message: &[u8]) -> Result<Vec<u8>, String> {
        self.inner.sign_es256(pkcs8_der, message).await
    }

    async fn generate_es256(&self) -> Result<(Vec<u8>, String, String), String> {
        self.inner.generate_es256().await
    }
}

impl<P: Platform + Clone + 'static> Demo<P> {
    /// Answers a `demo://` request: the demo server's, or the demo model's as a Messages API
    /// event stream.
    pub async fn answer_now(&self, request: HttpRequest) -> Result<HttpResponse, NetworkError> {
        if request.url == DEMO_SERVER_URL {
            let answer = self.server.handle(request.method, &request.headers, request.body.as_deref());
            let platform = self.inner.clone();
            let body = futures::stream::iter(answer.chunks)
                .then(move |(delay, chunk)| {
                    let platform = platform.clone();
                    async move {
                        if delay > 0 {
                            platform.sleep(delay).await;
                        }
                        Ok(chunk.into_bytes())
                    }
                })
                .boxed_local();
            return Ok(HttpResponse::new(answer.status, answer.headers, body));
        }
        if !request.url.starts_with(DEMO_BASE_URL) {
            let text = format!("Nothing here: the page answers only {DEMO_BASE_URL} and {DEMO_SERVER_URL}");
            let body = futures::stream::once(async move { Ok(text.into_bytes()) }).boxed_local();
            return Ok(HttpResponse::new(404, Headers::new().with("content-type", "text/plain"), body));
        }
        let body: Value = serde_json::from_str(request.body.as_deref().unwrap_or("{}")).unwrap_or(Value::Null);
        let headers = Headers::new().with("request-id", format!("req_demo_{}", (self.inner.random() * 1e9) as u64));
        if request.url.ends_with("/count_tokens") {
            let tokens = body.to_string().len() / 4;
            let text = json!({"input_tokens": tokens}).to_string();
            let body = futures::stream::once(async move { Ok(text.into_bytes()) }).boxed_local();
            return Ok(HttpResponse::new(200, headers.with("content-type", "application/json"), body));
        }
        if let Some(message) = refuse::why(&body) {
            return Ok(invalid(headers, &message));
        }
        let reply = if connector::asked(&body) {
            match connector::answer(&self.server, &body, request.headers.get("anthropic-beta")) {
                Ok(reply) => reply,
                Err(message) => return Ok(invalid(headers, &message)),
            }
        } else {
            let scripted = self.script.borrow_mut().pop_front();
            scripted.unwrap_or_else(|| respond(&body))
        };
        let id = (self.inner.now_ms() as u64) % 100_000;
        let events = stream_events(&reply, body["model"].as_str().unwrap_or("demo"), id, body.to_string().len() / 4);
        // Paced like a real stream so the chat and the timeline visibly fill in.
        let platform = self.inner.clone();
        let body = futures::stream::iter(events)
            .then(move |e| {
                let platform = platform.clone();
                async move {
                    platform.sleep(25).await;
                    Ok(e.into_bytes())
                }
            })
            .boxed_local();
        Ok(HttpResponse::new(200, headers.with("content-type", "text/event-stream"), body))
    }
}
