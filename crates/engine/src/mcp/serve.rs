//! What the server sends on its own: notifications (progress, logs, list changes, resource
//! updates), its requests in 2025 (ping, sampling, elicitation; anything undeclared refused,
//! C-20, C-36…C-38), and in 2026-07-28 the input requests of a multi round-trip result.

use serde_json::{Map, Value, json};

use super::McpClient;
use super::handlers::{ListKind, ServerNotification};
use crate::deadline::Deadline;
use crate::platform::Platform;
use crate::sse::SseEvent;
use crate::trace::{Direction, TraceKind};
use protocol::jsonrpc::{ErrorCode, ErrorObject, Message};
use protocol::mcp::{ElicitAction, LoggingMessageParams, ProgressParams, method};

impl<P: Platform> McpClient<P> {
    pub(super) fn trace_sse(&self, exchange: u64, event: &SseEvent) {
        self.tracer.emit(
            self.peer(),
            TraceKind::SseEvent {
                exchange,
                id: event.id.clone(),
                event: event.event.clone(),
                data: event.data.clone(),
            },
        );
    }

    pub(super) fn trace_rpc_in(&self, exchange: u64, m: &Message) {
        self.tracer.emit(
            self.peer(),
            TraceKind::Rpc { direction: Direction::In, exchange: Some(exchange), message: m.clone(), dropped: None },
        );
    }

    /// Handles one message that is not the response being waited for.
    pub(super) async fn dispatch(&self, message: Message, _exchange: u64, deadline: Option<&Deadline>) {
        match message {
            Message::Notification { method, params } => self.on_notification(&method, params),
            Message::Request { id, method, params } => {
                let pause = deadline.map(|d| d.pause(self.platform.now_ms()));
                let reply = match self.answer(&method, params).await {
                    Ok(result) => Message::Response { id, result },
                    Err(error) => Message::Error { id: Some(id), error },
                };
                if let Some(p) = pause {
                    p.resume(self.platform.now_ms());
                }
                if let Err(e) = self.post(&reply).await {
                    self.tracer
                        .note(self.peer(), format!("Could not deliver our answer to the server's {method}: {e}"));
                }
            }
            // C-18: responses to ids we are not waiting for are ignored (they stay in the trace).
            Message::Response { .. } | Message::Error { .. } => {}
        }
    }

    /// Answers a server's request (or, in 2026-07-28, one input request): ping at once (C-20),
    /// sampling and elicitation through their handlers, anything undeclared with -32601 (C-36).
    pub(super) async fn answer(&self, rpc_method: &str, params: Option<Value>) -> Result<Value, ErrorObject> {
        let params = params.unwrap_or(Value::Null);
        let invalid =
            |e: serde_json::Error| ErrorObject::new(ErrorCode::INVALID_PARAMS, format!("invalid params: {e}"));
        match rpc_method {
            method::PING => Ok(json!({})),
            method::SAMPLING_CREATE_MESSAGE if self.handlers.sampling.is_some() => {
                let handler = self.handlers.sampling.clone().expect("checked");
                let p = serde_json::from_value(params).map_err(invalid)?;
                let result = handler.create_message(&self.config.id, p).await?;
                Ok(serde_json::to_value(result).expect("serialisable"))
            }
            method::ELICITATION_CREATE if self.handlers.elicitation.is_some() => {
                let handler = self.handlers.elicitation.clone().expect("checked");
                let p: protocol::mcp::ElicitParams = serde_json::from_value(params).map_err(invalid)?;
                if p.mode.as_deref().is_some_and(|m| m != "form") {
                    return Err(ErrorObject::new(
                        ErrorCode::INVALID_PARAMS,
                        format!(
                            "elicitation mode \"{}\" was not declared; this client supports form mode only",
                            p.mode.unwrap_or_default()
                        ),
                    ));
                }
                let schema = p.requested_schema.clone();
                let mut result = handler.elicit(&self.config.id, p).await?;
                // SEP-1034: what an accepted answer leaves out takes the schema's default.
                if let (ElicitAction::Accept, Some(schema)) = (result.action, &schema) {
                    crate::form::apply_defaults(schema, result.content.get_or_insert_with(Map::new));
                }
                Ok(serde_json::to_value(result).expect("serialisable"))
            }
            _ => Err(ErrorObject::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {rpc_method} (not declared by this client)"),
            )),
        }
    }

    /// Answers the input requests of an `input_required` result, by key. A request the
    /// client cannot answer (undeclared, declined) is left out: the server asks again or fails.
    pub(super) async fn fulfil(&self, requests: Option<&Value>) -> Map<String, Value> {
        let mut responses = Map::new();
        let Some(Value::Object(requests)) = requests else { return responses };
        for (key, request) in requests {
            let rpc_method = request.get("method").and_then(Value::as_str).unwrap_or("");
            match self.answer(rpc_method, request.get("params").cloned()).await {
                Ok(result) => {
                    responses.insert(key.clone(), result);
                }
                Err(e) => self.tracer.note(
                    self.peer(),
                    format!("The server asked for input \"{key}\" ({rpc_method}); not given: {}", e.message),
                ),
            }
        }
        responses
    }

    pub(super) fn on_notification(&self, rpc_method: &str, params: Option<Value>) {
        let note = match rpc_method {
            method::PROGRESS => match params.clone().map(serde_json::from_value::<ProgressParams>) {
                Some(Ok(p)) => {
                    let key = p.progress_token.to_string();
                    let watch = self.watches.borrow().get(&key).map(|w| (w.deadline.clone(), w.on_progress.clone()));
                    if let Some((deadline, callback)) = watch {
                        deadline.extend(self.platform.now_ms());
                        if let Some(cb) = callback {
                            cb(&p);
                        }
                    }
                    ServerNotification::Progress(p)
                }
                _ => ServerNotification::Other { method: rpc_method.into(), params },
            },
            method::MESSAGE => match params.clone().map(serde_json::from_value::<LoggingMessageParams>) {
                Some(Ok(p)) => ServerNotification::Log(p),
                _ => ServerNotification::Other { method: rpc_method.into(), params },
            },
            method::TOOLS_LIST_CHANGED => ServerNotification::ListChanged(ListKind::Tools),
            method::RESOURCES_LIST_CHANGED => ServerNotification::ListChanged(ListKind::Resources),
            method::PROMPTS_LIST_CHANGED => ServerNotification::ListChanged(ListKind::Prompts),
            method::RESOURCES_UPDATED => match params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str) {
                Some(uri) => ServerNotification::ResourceUpdated { uri: uri.to_owned() },
                None => ServerNotification::Other { method: rpc_method.into(), params },
            },
            method::CANCELLED => match params.clone().map(serde_json::from_value) {
                Some(Ok(p)) => ServerNotification::Cancelled(p),
                _ => ServerNotification::Other { method: rpc_method.into(), params },
            },
            _ => ServerNotification::Other { method: rpc_method.into(), params },
        };
        if let Some(notify) = &self.handlers.notify {
            notify(&self.config.id, note);
        }
    }
}
