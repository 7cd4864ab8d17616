//! How what a server sends on its own reaches the page: notifications, and the requests that
//! need a person (sampling, elicitation). A capability is declared only when its handler is
//! installed (C-36).

use futures::future::LocalBoxFuture;
use serde_json::{Map, Value, json};
use std::rc::Rc;

use protocol::jsonrpc::ErrorObject;
use protocol::mcp::{
    CancelledParams, ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
    LoggingMessageParams, ProgressParams, TASKS_EXTENSION,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    Tools,
    Resources,
    Prompts,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ServerNotification {
    Progress(ProgressParams),
    Log(LoggingMessageParams),
    /// The server's list changed: fetch it again before the next Claude turn (C-25).
    ListChanged(ListKind),
    ResourceUpdated {
        uri: String,
    },
    /// The server gave up on a request it had sent us.
    Cancelled(CancelledParams),
    Other {
        method: String,
        params: Option<Value>,
    },
}

/// Answers `sampling/createMessage`: the user reviews the request, it goes to Claude only if
/// approved, and the user reviews the result (C-38).
pub trait SamplingHandler {
    fn create_message(
        &self,
        server_id: &str,
        params: CreateMessageParams,
    ) -> LocalBoxFuture<'static, Result<CreateMessageResult, ErrorObject>>;
}

/// Answers `elicitation/create` (form mode) with accept, decline or cancel (C-37).
pub trait ElicitationHandler {
    fn elicit(
        &self,
        server_id: &str,
        params: ElicitParams,
    ) -> LocalBoxFuture<'static, Result<ElicitResult, ErrorObject>>;
}

/// Receives (server id, notification).
pub type NotifyFn = Rc<dyn Fn(&str, ServerNotification)>;
/// Receives (server id, the connection's new state) whenever it changes.
pub type StateFn = Rc<dyn Fn(&str, &super::Connection)>;

#[derive(Clone, Default)]
pub struct Handlers {
    pub notify: Option<NotifyFn>,
    pub on_state: Option<StateFn>,
    pub sampling: Option<Rc<dyn SamplingHandler>>,
    pub elicitation: Option<Rc<dyn ElicitationHandler>>,
    /// The client shows MCP Apps (`crate::apps`): it declares the extension with the one MIME
    /// type it renders.
    pub apps: bool,
}

impl Handlers {
    /// Declares exactly what is installed: no roots (a browser has no filesystem), elicitation in
    /// form mode only (C-36), MCP Apps when shown. A 2025 client hosts no tasks of its own, so it
    /// declares none; it still asks servers for tasks (`tasks.rs`).
    pub fn capabilities(&self) -> ClientCapabilities {
        let mut form = Map::new();
        form.insert("form".into(), Value::Object(Map::new()));
        let mut extensions = Map::new();
        if self.apps {
            let html = Value::from(vec![protocol::mcp::apps::HTML_MIME]);
            extensions.insert(protocol::mcp::apps::EXTENSION.into(), json!({ "mimeTypes": html }));
        }
        ClientCapabilities {
            sampling: self.sampling.as_ref().map(|_| Map::new()),
            elicitation: self.elicitation.as_ref().map(|_| form),
            roots: None,
            extensions: (!extensions.is_empty()).then_some(extensions),
        }
    }

    /// What each 2026-07-28 request declares: the above, plus the tasks extension (a server may
    /// answer a `tools/call` with a task only when the request declares it).
    pub fn modern_capabilities(&self) -> ClientCapabilities {
        let mut caps = self.capabilities();
        caps.extensions.get_or_insert_default().insert(TASKS_EXTENSION.into(), Value::Object(Map::new()));
        caps
    }
}
