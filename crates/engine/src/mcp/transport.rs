//! Streamable HTTP, the wire under the session: every message is its own POST (C-01); a
//! request's answer is JSON or an SSE stream, decided here from status and content type alone
//! (C-03, C-04); GET opens the server's own stream (C-08) or resumes a broken one (C-07);
//! DELETE ends the session (C-11). Every exchange is traced.

use super::McpError;
use super::client::McpClient;
use super::error::{ProtocolError, Reach};
use super::inject::Injection;
use crate::faults::Fault;
use crate::limits::{BodyError, check_json_depth, read_text};
use crate::platform::{Body, Headers, HttpRequest, HttpResponse, Method, NetworkError, Platform, Redirects};
use crate::trace::{Direction, RequestBody, TraceKind};
use protocol::jsonrpc::Message;
use protocol::mcp::method;

pub(super) enum GetReply {
    Stream { exchange: u64, body: Body },
    NotOffered { status: u16 },
}

pub(super) enum PostReply {
    /// 202: a notification or response was taken.
    Accepted,
    Json {
        exchange: u64,
        messages: Vec<Message>,
    },
    Stream {
        exchange: u64,
        body: Body,
    },
}

/// The media type without parameters, lowercased: "text/event-stream; charset=utf-8" →
/// "text/event-stream".
pub(super) fn media_type(headers: &Headers) -> String {
    headers.get("content-type").unwrap_or("").split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

fn is_visible_ascii(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

impl<P: Platform> McpClient<P> {
    /// Headers every request carries: the user's own (C-14), then the session's (session id
    /// and negotiated version, C-09, C-12), which the user's cannot override.
    fn headers(&self, accept: &str) -> Headers {
        let mut h = Headers::new();
        for (name, value) in &self.config.headers {
            h.set(name, value.clone());
        }
        h.set("accept", accept);
        // O-07: the token goes to this server only, on every request; it wins over a header
        // the user typed.
        if let Some(bearer) = self.auth.as_ref().and_then(|a| a.bearer()) {
            h.set("authorization", bearer);
        }
        for (name, value) in self.session_headers().iter() {
            h.set(name, value);
        }
        h
    }

    /// Sends one request, tracing it and its status line.
    /// `message` is the JSON-RPC message the body carries, traced right after the request line.
    /// `fault`: an injected fault (workshop mode) that answers in the server's place.
    async fn send_traced(
        &self,
        method: Method,
        headers: Headers,
        message: Option<&Message>,
        fault: Option<Fault>,
    ) -> Result<(u64, HttpResponse, f64), McpError> {
        let exchange = self.tracer.next_exchange();
        let url = self.config.request_url();
        let body = message.map(Message::to_json);
        // A key-bound token (DPoP) goes with a fresh proof for this very request.
        let mut headers = headers;
        if let Some(auth) =
            self.auth.as_ref().filter(|_| headers.get("authorization").is_some_and(|a| a.starts_with("DPoP ")))
            && let Some(proof) = auth.dpop_proof(method.as_str(), &url).await
        {
            headers.set("dpop", proof);
        }
        self.tracer.emit(
            self.peer(),
            TraceKind::HttpRequest {
                exchange,
                method,
                url: url.clone(),
                headers: headers.clone(),
                body: body.clone().map(RequestBody::Text),
                summary: None,
            },
        );
        if let Some(m) = message {
            let rpc = TraceKind::Rpc {
                direction: Direction::Out,
                exchange: Some(exchange),
                message: m.clone(),
                dropped: None,
            };
            self.tracer.emit(self.peer(), rpc);
        }
        let started = self.platform.now_ms();
        let injected = match fault {
            None => None,
            Some(fault) => {
                let detail = None;
                self.tracer
                    .emit(self.peer(), TraceKind::Injected { exchange: Some(exchange), fault: fault.clone(), detail });
                match self.inject(&fault, message).await {
                    Injection::Answer(resp) => Some(Ok(resp)),
                    Injection::NoAnswer { message, reach } => Some(Err((NetworkError::new(message), reach))),
                    Injection::Later => None,
                }
            }
        };
        let sent = match injected {
            Some(Ok(resp)) => Ok(resp),
            Some(Err((e, reach))) => {
                let elapsed_ms = self.platform.now_ms() - started;
                self.tracer.emit(self.peer(), TraceKind::HttpFailed { exchange, error: e.message.clone(), elapsed_ms });
                return Err(McpError::Network { message: e.message, reach });
            }
            None => {
                // A request with the user's secrets (headers, query credentials, a token) never
                // follows a redirect: it would hand them to wherever the server points.
                let secret = self.config.carries_secrets() || headers.get("authorization").is_some();
                let redirects = if secret { Redirects::Refuse } else { Redirects::Follow };
                self.platform.send(HttpRequest { method, url, headers, body, redirects }).await
            }
        };
        match sent {
            Ok(resp) => {
                let elapsed_ms = self.platform.now_ms() - started;
                if let (Some(auth), Some(nonce)) = (&self.auth, resp.headers.get("dpop-nonce")) {
                    auth.saw_dpop_nonce(nonce);
                }
                if let Some(to) = &resp.final_url {
                    self.tracer.emit(self.peer(), TraceKind::Redirected { exchange, to: to.clone() });
                }
                self.tracer.emit(
                    self.peer(),
                    TraceKind::HttpResponse {
                        exchange,
                        status: resp.status,
                        headers: resp.headers.clone(),
                        elapsed_ms,
                    },
                );
                Ok((exchange, resp, started))
            }
            Err(e) => {
                let elapsed_ms = self.platform.now_ms() - started;
                self.tracer.emit(self.peer(), TraceKind::HttpFailed { exchange, error: e.message.clone(), elapsed_ms });
                if e.redirect_refused {
                    return Err(McpError::RedirectRefused);
                }
                // The negotiation probe failing is an answer in itself (a 2025 server whose CORS
                // rules refuse the new headers); only failures the user sees are looked into.
                let probe = message.and_then(Message::method) == Some(protocol::mcp::method::SERVER_DISCOVER);
                let reach = if probe { Reach::Unknown } else { self.reach().await };
                Err(McpError::Network { message: e.message, reach })
            }
        }
    }

    /// After a request got no HTTP answer: does anything answer at the address at all?
    async fn reach(&self) -> Reach {
        let (reach, note) = match self.platform.answers(&self.config.url).await {
            Some(true) => (
                Reach::Answers,
                "Something answers at this address (an opaque no-cors request got through), so the page may not read it: CORS",
            ),
            Some(false) => (
                Reach::Nothing,
                "Nothing answers at this address (even an opaque no-cors request failed): the server is down or the URL is wrong",
            ),
            None => return Reach::Unknown,
        };
        self.tracer.note(self.peer(), note);
        reach
    }

    /// Reads a whole body, within the body limit (refused at the chunk that crosses it).
    async fn read_body(&self, exchange: u64, body: Body, started: f64) -> Result<String, McpError> {
        let text = match read_text(body, self.config.limits.body_bytes).await {
            Ok(text) => text,
            Err(BodyError::TooBig(limit)) => return Err(self.refused_stream(exchange, limit)),
            Err(BodyError::Network(e)) => {
                let elapsed_ms = self.platform.now_ms() - started;
                self.tracer.emit(self.peer(), TraceKind::HttpFailed { exchange, error: e.message.clone(), elapsed_ms });
                return Err(McpError::Network {
                    message: format!("the body broke off: {}", e.message),
                    reach: Reach::Unknown,
                });
            }
        };
        if !text.is_empty() {
            let elapsed_ms = self.platform.now_ms() - started;
            self.tracer.emit(self.peer(), TraceKind::HttpBody { exchange, body: text.clone(), elapsed_ms });
        }
        Ok(text)
    }

    /// An HTTP error: the body is kept, and read as a JSON-RPC error object when it is one.
    async fn http_error(&self, exchange: u64, resp: HttpResponse, started: f64) -> McpError {
        let status = resp.status;
        let www_authenticate = resp.headers.get("www-authenticate").map(str::to_owned);
        let bridge_kind = resp.headers.get(crate::bridge::ERROR_HEADER).map(str::to_owned);
        let body = match self.read_body(exchange, resp.body, started).await {
            Ok(body) => body,
            Err(limit @ McpError::Limit(_)) => return limit,
            Err(_) => String::new(),
        };
        let rpc = self.parse(exchange, &body).ok().and_then(|msgs| {
            msgs.into_iter().find_map(|m| match m {
                Message::Error { error, .. } => Some(Box::new(error)),
                _ => None,
            })
        });
        if let Some(kind) = bridge_kind {
            return McpError::Bridge(Box::new(crate::bridge::BridgeFault::read(status, &kind, &body)));
        }
        McpError::Http { status, body, rpc, www_authenticate }
    }

    /// Reads JSON-RPC text from the server (the answer of `exchange`): its nesting checked first
    /// (`Limits::json_depth`).
    pub(super) fn parse(&self, exchange: u64, text: &str) -> Result<Vec<Message>, McpError> {
        check_json_depth(text, self.config.limits.json_depth).map_err(|limit| self.refused_stream(exchange, limit))?;
        Message::parse_all(text).map_err(|e| McpError::Decode { reason: e.to_string(), raw: text.to_owned() })
    }

    /// POSTs one message (C-01, C-02) and classifies the answer.
    pub(super) async fn post(&self, msg: &Message) -> Result<PostReply, McpError> {
        self.post_with(msg, &Headers::new()).await
    }

    /// [`post`](Self::post) with extra headers for this one message.
    pub(super) async fn post_with(&self, msg: &Message, extra: &Headers) -> Result<PostReply, McpError> {
        let mut headers = self.headers("application/json, text/event-stream");
        headers.set("content-type", "application/json");
        for (name, value) in extra.iter() {
            headers.set(name, value);
        }
        let fault = self.fault_for(msg);
        let (exchange, resp, started) = self.send_traced(Method::Post, headers, Some(msg), fault).await?;

        if !(200..300).contains(&resp.status) {
            return Err(self.http_error(exchange, resp, started).await);
        }
        if msg.method() == Some(method::INITIALIZE) {
            // C-09: the session id comes from the InitializeResult response and nowhere else.
            let id = resp.headers.get("mcp-session-id").map(str::to_owned);
            if id.as_deref().is_some_and(|id| !is_visible_ascii(id)) {
                return Err(McpError::Protocol(ProtocolError::BadSessionId));
            }
            self.session.borrow_mut().id = id;
        }
        if resp.status == 202 {
            self.read_body(exchange, resp.body, started).await?;
            return Ok(PostReply::Accepted);
        }
        if matches!(msg, Message::Notification { .. } | Message::Response { .. }) {
            // A notification or response needs no answer (202). Whatever came instead (some
            // servers answer 200 with a JSON body) is read, shown, and not parsed.
            let body = self.read_body(exchange, resp.body, started).await?;
            if !body.trim().is_empty() {
                self.tracer.note(
                    self.peer(),
                    format!(
                        "The server answered our {} with HTTP {} and a body instead of 202: ignored",
                        msg.method().unwrap_or("response"),
                        resp.status
                    ),
                );
            }
            return Ok(PostReply::Accepted);
        }
        match media_type(&resp.headers).as_str() {
            "text/event-stream" => Ok(PostReply::Stream { exchange, body: resp.body }),
            "application/json" => {
                let text = self.read_body(exchange, resp.body, started).await?;
                let messages = self.parse(exchange, &text)?;
                for m in &messages {
                    self.tracer.emit(
                        self.peer(),
                        TraceKind::Rpc {
                            direction: Direction::In,
                            exchange: Some(exchange),
                            message: m.clone(),
                            dropped: None,
                        },
                    );
                }
                Ok(PostReply::Json { exchange, messages })
            }
            other => {
                let got = other.to_owned();
                let _ = self.read_body(exchange, resp.body, started).await;
                Err(McpError::Protocol(ProtocolError::ContentType { got }))
            }
        }
    }

    /// Opens the GET stream (C-08), or resumes one from `last_event_id` (C-07).
    pub(super) async fn open_get(&self, last_event_id: Option<&str>) -> Result<GetReply, McpError> {
        let mut headers = self.headers("text/event-stream");
        if let Some(id) = last_event_id {
            headers.set("last-event-id", id);
        }
        let (exchange, resp, started) = self.send_traced(Method::Get, headers, None, None).await?;
        match resp.status {
            200 if media_type(&resp.headers) == "text/event-stream" => {
                Ok(GetReply::Stream { exchange, body: resp.body })
            }
            200 => {
                let got = media_type(&resp.headers);
                let _ = self.read_body(exchange, resp.body, started).await;
                Err(McpError::Protocol(ProtocolError::ContentType { got }))
            }
            // 405 as the spec says; 404, 406 or 400 as many servers answer (P7). No retry loop.
            status @ (400 | 404 | 405 | 406) => {
                let _ = self.read_body(exchange, resp.body, started).await;
                Ok(GetReply::NotOffered { status })
            }
            _ => Err(self.http_error(exchange, resp, started).await),
        }
    }

    /// Ends the session (C-11). 405 means the server does not support it: that is fine.
    pub(super) async fn delete_session(&self) -> Result<(), McpError> {
        if self.session.borrow().id.is_none() || self.modern().is_some() {
            return Ok(());
        }
        let headers = self.headers("application/json, text/event-stream");
        let (exchange, resp, started) = self.send_traced(Method::Delete, headers, None, None).await?;
        match resp.status {
            200..=299 | 404 | 405 => {
                let _ = self.read_body(exchange, resp.body, started).await;
                Ok(())
            }
            _ => Err(self.http_error(exchange, resp, started).await),
        }
    }
}
