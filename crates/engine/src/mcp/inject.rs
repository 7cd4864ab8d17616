//! Injected faults on the wire (workshop mode): for a `tools/call` a fault is in force for, the
//! answer a failing server would give, made after the request was traced as sent, so the rest of
//! the client meets it exactly as it would meet the real thing — the same parsing, timeouts,
//! session handling and error layers. The answer holds nothing that says it was staged: the
//! timeline marks the call *injected* (`TraceKind::Injected`), but what reaches Claude is
//! what the real failure would give it.

use futures::StreamExt;
use serde_json::{Value, json};

use super::McpClient;
use super::error::Reach;
use crate::faults::{Fault, Target, rpc_message};
use crate::platform::{Body, Headers, HttpResponse, NetworkError, Platform};
use protocol::jsonrpc::Message;
use protocol::mcp::method;

/// What an injected fault does to one request.
pub(super) enum Injection {
    /// This answer instead of the server's.
    Answer(HttpResponse),
    /// No answer: the request fails as a network failure would, and this is what a look at
    /// the address would find.
    NoAnswer { message: String, reach: Reach },
    /// The real answer, after the delay was waited out.
    Later,
}

fn body(text: String) -> Body {
    Box::pin(futures::stream::once(async move { Ok(text.into_bytes()) }))
}

fn answer(status: u16, content_type: &str, text: String) -> HttpResponse {
    HttpResponse::new(status, Headers::new().with("content-type", content_type), body(text))
}

/// The reason phrase a server sends with a status, as a plain-text error body.
fn reason(status: u16) -> &'static str {
    match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Error",
    }
}

impl<P: Platform> McpClient<P> {
    /// The fault in force for this message, if it is a `tools/call` request one applies to
    /// (a `Next` fault is used up here).
    pub(super) fn fault_for(&self, msg: &Message) -> Option<Fault> {
        let faults = self.faults.as_ref()?;
        if !matches!(msg, Message::Request { .. }) || msg.method() != Some(method::TOOLS_CALL) {
            return None;
        }
        let tool = msg.params().and_then(|p| p.get("name")).and_then(Value::as_str).unwrap_or("");
        faults.take(&Target::Server(self.config.id.clone()), tool).filter(|f| !f.on_claude_side())
    }

    pub(super) async fn inject(&self, fault: &Fault, message: Option<&Message>) -> Injection {
        let id = message.and_then(Message::id).map_or(Value::Null, |id| json!(id));
        match fault {
            // What a browser's fetch says for both: a bare TypeError.
            Fault::Network => Injection::NoAnswer { message: "Failed to fetch".into(), reach: Reach::Nothing },
            Fault::Cors => Injection::NoAnswer { message: "Failed to fetch".into(), reach: Reach::Answers },
            Fault::Http { status, retry_after_s } => {
                let mut resp = answer(*status, "text/plain", reason(*status).to_owned());
                if let Some(s) = retry_after_s {
                    resp.headers.set("retry-after", s.to_string());
                }
                Injection::Answer(resp)
            }
            Fault::Timeout => {
                // The server never answers: the request's own deadline (or the user) ends it.
                futures::future::pending::<()>().await;
                unreachable!("a pending future never resolves")
            }
            Fault::MalformedJson => {
                let cut = json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}).to_string();
                Injection::Answer(answer(200, "application/json", crate::text::prefix(&cut, cut.len() / 2).to_owned()))
            }
            Fault::StreamCut => {
                let start =
                    format!("event: message\ndata: {{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"content\":[{{\"ty");
                let cut = NetworkError::new("network error");
                let chunks = vec![Ok(start.into_bytes()), Err(cut)];
                let body: Body = futures::stream::iter(chunks).boxed_local();
                let headers = Headers::new().with("content-type", "text/event-stream");
                Injection::Answer(HttpResponse::new(200, headers, body))
            }
            Fault::RpcError { code } => {
                let error = json!({"code": code, "message": rpc_message(*code)});
                let text = json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string();
                Injection::Answer(answer(200, "application/json", text))
            }
            Fault::ToolError => {
                let result = json!({"content": [{"type": "text", "text": "The tool failed"}], "isError": true});
                let text = json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string();
                Injection::Answer(answer(200, "application/json", text))
            }
            Fault::Slow { ms } => {
                self.platform.sleep(*ms).await;
                Injection::Later
            }
            // Claude's side: never chosen for a server (`fault_for` filters them out).
            Fault::UnknownTool | Fault::BadArguments => Injection::Later,
        }
    }
}
