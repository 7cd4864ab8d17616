//! The connection to one server: which protocol era it speaks and how that was decided,
//! the 2025 handshake (`initialize`, C-15…C-17) or the 2026-07-28 discovery (no handshake, no
//! session, R-01), and the connection's state as the page shows it. Requests are in
//! `exchange.rs`, what the server sends on its own in `serve.rs`, its streams in `listen.rs`.

use serde_json::{Value, json};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

use super::envelope::HeaderParam;
use super::error::ProtocolError;
use super::handlers::Handlers;
use super::negotiate::{Verdict, classify};
use super::transport::PostReply;
use super::{Connection, McpError, RequestOptions, RevisionChoice, ServerConfig};
use crate::auth::Auth;
use crate::cancel::CancelToken;
use crate::deadline::Deadline;
use crate::faults::Faults;
use crate::platform::{Headers, Platform};
use crate::trace::{Peer, Tracer};
use protocol::jsonrpc::{ErrorCode, Message};
use protocol::mcp::{
    DiscoverResult, Implementation, InitializeParams, InitializeResult, MODERN_VERSION, Revision, SUPPORTED_VERSIONS,
    ServerCapabilities, method,
};

/// What the client knows about the session it has with the server.
#[derive(Default)]
pub(super) struct Session {
    /// The 2025 session id (C-09); a 2026-07-28 connection has none.
    pub(super) id: Option<String>,
    /// The protocol version in use: negotiated by `initialize`, or the modern revision.
    pub(super) version: Option<String>,
    /// Set when the connection speaks a modern (per-request metadata) revision.
    pub(super) modern: Option<Revision>,
    pub(super) info: Option<InitializeResult>,
    /// Why this revision, in a sentence for the server's card.
    pub(super) why: String,
    /// A pinned modern revision whose server/discover did not answer: capabilities unknown,
    /// so none is refused locally.
    pub(super) caps_unknown: bool,
    /// Bumped on every successful initialize; lets concurrent requests that all saw a 404
    /// re-initialise once between them (C-10).
    pub(super) generation: u64,
}

pub(super) struct Watch {
    pub(super) deadline: Deadline,
    pub(super) on_progress: Option<super::ProgressCallback>,
}

/// A connection to one MCP server over Streamable HTTP.
pub struct McpClient<P: Platform> {
    pub(super) platform: Rc<P>,
    pub(super) config: ServerConfig,
    pub(super) tracer: Tracer,
    pub(super) handlers: Handlers,
    pub(super) session: RefCell<Session>,
    pub(super) next_id: Cell<i64>,
    pub(super) next_token: Cell<i64>,
    pub(super) watches: RefCell<HashMap<String, Watch>>,
    pub(super) reinit: futures::lock::Mutex<()>,
    /// Resource URIs subscribed to (C-33; in 2026-07-28, the listen stream's filter).
    pub(super) subscriptions: RefCell<BTreeSet<String>>,
    /// The `x-mcp-header` declarations of each listed tool (SEP-2243), for `tools/call`.
    pub(super) tool_headers: RefCell<HashMap<String, Vec<HeaderParam>>>,
    /// The listed tools that may run as a task (2025-11-25 `execution.taskSupport`).
    pub(super) task_tools: RefCell<std::collections::HashSet<String>>,
    /// The tasks being followed, each with the token its Cancel fires (`tasks.rs`).
    pub(super) live_tasks: RefCell<HashMap<String, CancelToken>>,
    /// Told when a task starts or stops being followed (`resume.rs`: the page keeps the ids
    /// over a reload).
    pub(super) task_book: RefCell<Option<super::resume::TaskBook>>,
    /// 2026-07-28 sets the log level per request, in `_meta`.
    pub(super) log_level: RefCell<Option<String>>,
    /// Cancelled to make a 2026-07-28 listen stream reopen with a changed filter.
    pub(super) relisten: RefCell<CancelToken>,
    /// Whether the server's own stream (GET, or the listen request's) is open right now.
    pub(super) stream_open: Cell<bool>,
    /// OAuth for this server: answers its 401s and 403s, and its token goes on every request.
    pub(super) auth: Option<Rc<Auth<P>>>,
    /// Faults a workshop injects into this server's calls (`inject.rs`).
    pub(super) faults: Option<Faults>,
    state: RefCell<Connection>,
}

impl<P: Platform> McpClient<P> {
    pub fn new(platform: Rc<P>, config: ServerConfig, tracer: Tracer, handlers: Handlers) -> Self {
        for (_, value) in config.headers.iter().chain(&config.query) {
            tracer.add_secret(value);
        }
        for (_, value) in &config.query {
            tracer.add_secret(&crate::encoding::form_component(value));
        }
        Self {
            platform,
            config,
            tracer,
            handlers,
            session: RefCell::new(Session::default()),
            next_id: Cell::new(0),
            next_token: Cell::new(0),
            watches: RefCell::new(HashMap::new()),
            reinit: futures::lock::Mutex::new(()),
            subscriptions: RefCell::default(),
            tool_headers: RefCell::default(),
            task_tools: RefCell::default(),
            live_tasks: RefCell::default(),
            task_book: RefCell::default(),
            log_level: RefCell::default(),
            relisten: RefCell::default(),
            stream_open: Cell::new(false),
            auth: None,
            faults: None,
            state: RefCell::new(Connection::Disconnected),
        }
    }

    /// Lets a workshop break this server's calls on purpose (`engine::faults`).
    pub fn with_faults(mut self, faults: Faults) -> Self {
        self.faults = Some(faults);
        self
    }

    /// Lets the server ask for authorization: its 401s and `insufficient_scope` 403s start (or
    /// refresh, or step up) the OAuth flow, and its token rides on every request to it.
    pub fn with_auth(mut self, auth: Rc<Auth<P>>) -> Self {
        self.auth = Some(auth);
        self
    }

    /// The trace this connection writes to (an app shown for it writes there too).
    pub fn tracer(&self) -> &Tracer {
        &self.tracer
    }

    pub fn platform(&self) -> &Rc<P> {
        &self.platform
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    pub(super) fn peer(&self) -> Peer {
        Peer::Server(self.config.id.clone())
    }

    /// Where the connection stands.
    pub fn state(&self) -> Connection {
        self.state.borrow().clone()
    }

    pub(super) fn set_state(&self, state: Connection) {
        if *self.state.borrow() == state {
            return;
        }
        *self.state.borrow_mut() = state.clone();
        if let Some(on_state) = &self.handlers.on_state {
            on_state(&self.config.id, &state);
        }
    }

    /// What the server said about itself (in `initialize`, or `server/discover`), once connected.
    pub fn server_info(&self) -> Option<InitializeResult> {
        self.session.borrow().info.clone()
    }

    pub fn is_connected(&self) -> bool {
        self.session.borrow().info.is_some()
    }

    pub fn session_id(&self) -> Option<String> {
        self.session.borrow().id.clone()
    }

    /// The protocol version in use, once connected.
    pub fn protocol_version(&self) -> Option<String> {
        self.session.borrow().version.clone()
    }

    /// The modern revision in use, if the connection speaks one.
    pub fn modern(&self) -> Option<Revision> {
        self.session.borrow().modern
    }

    /// Whether the server's own stream is open, so what it sends on its own can arrive.
    pub fn server_stream_open(&self) -> bool {
        self.stream_open.get()
    }

    /// Whether the server's capabilities are unknown (a pinned 2026-07-28 server whose
    /// discovery did not answer): then nothing is refused for want of one.
    pub fn capabilities_unknown(&self) -> bool {
        self.session.borrow().caps_unknown
    }

    /// Why this revision was chosen, in a sentence.
    pub fn why(&self) -> String {
        self.session.borrow().why.clone()
    }

    /// Connects: finds out (or is told) which revision to speak, then runs the handshake that
    /// revision has, if any. Returns what the server said about itself.
    pub async fn connect(&self) -> Result<InitializeResult, McpError> {
        self.set_state(Connection::Connecting);
        let result = self.establish().await;
        self.set_state(match &result {
            Ok(_) => Connection::Connected,
            Err(e) => Connection::Failed(e.to_failure()),
        });
        result
    }

    pub(super) async fn establish(&self) -> Result<InitializeResult, McpError> {
        let generation = self.session.borrow().generation;
        *self.session.borrow_mut() = Session { generation, ..Session::default() };
        match self.config.revision {
            RevisionChoice::Pin(r) if !r.is_modern() => {
                self.handshake(r, format!("{} was pinned: the 2025 handshake (initialize)", r.as_str())).await
            }
            choice => self.negotiate(choice).await,
        }
    }

    /// Probes with `server/discover` carrying the full envelope, and acts on the verdict.
    async fn negotiate(&self, choice: RevisionChoice) -> Result<InitializeResult, McpError> {
        let pinned = matches!(choice, RevisionChoice::Pin(_));
        let mut verdict = classify(self.discover(Revision::V2026_07_28).await);
        if let Verdict::Corrective { version } = verdict {
            self.tracer.note(
                self.peer(),
                format!("The server answered -32022 and lists {}: asking once more with it", version.as_str()),
            );
            verdict = match classify(self.discover(version).await) {
                Verdict::Corrective { .. } => {
                    Verdict::Fail(McpError::Client("the server refused the version it listed as supported".into()))
                }
                other => other,
            };
        }
        match verdict {
            Verdict::Modern(d) => {
                let why = if pinned {
                    "2026-07-28 was pinned; server/discover lists it".to_owned()
                } else {
                    format!("server/discover lists {}: no handshake, no session", d.supported_versions.join(", "))
                };
                Ok(self.become_modern(Revision::V2026_07_28, Some(*d), why))
            }
            Verdict::Legacy { why } if pinned => {
                self.tracer.note(self.peer(), format!("2026-07-28 is pinned: going on without discovery ({why})"));
                let why = format!("2026-07-28 was pinned; {why}, so its capabilities are unknown");
                Ok(self.become_modern(Revision::V2026_07_28, None, why))
            }
            Verdict::Legacy { why } => {
                self.tracer.note(self.peer(), format!("Not a 2026-07-28 server ({why}): the 2025 handshake instead"));
                self.handshake(Revision::LEGACY_LATEST, format!("{why}: the 2025 handshake (initialize)")).await
            }
            Verdict::Fail(e) => Err(e),
            Verdict::Corrective { .. } => unreachable!("answered above"),
        }
    }

    /// One `server/discover` with the envelope of `revision`.
    async fn discover(&self, revision: Revision) -> Result<Value, McpError> {
        self.send_request(method::SERVER_DISCOVER, Some(json!({})), &RequestOptions::default(), Some(revision)).await
    }

    fn become_modern(&self, revision: Revision, discover: Option<DiscoverResult>, why: String) -> InitializeResult {
        let info = InitializeResult {
            protocol_version: revision.as_str().to_owned(),
            server_info: discover.as_ref().and_then(DiscoverResult::implementation).unwrap_or(Implementation {
                name: "(the server did not say)".into(),
                version: String::new(),
                title: None,
            }),
            capabilities: discover.as_ref().map(|d| d.capabilities.clone()).unwrap_or_default(),
            instructions: discover.as_ref().and_then(|d| d.instructions.clone()),
        };
        let mut s = self.session.borrow_mut();
        s.id = None;
        s.version = Some(revision.as_str().to_owned());
        s.modern = Some(revision);
        s.caps_unknown = discover.is_none();
        s.info = Some(info.clone());
        s.why = why;
        s.generation += 1;
        info
    }

    /// The 2025 handshake (C-15…C-17), asking for `revision`.
    pub(super) async fn handshake(&self, revision: Revision, why: String) -> Result<InitializeResult, McpError> {
        {
            let mut s = self.session.borrow_mut();
            s.id = None;
            s.version = None;
            s.info = None;
            s.modern = None;
        }
        let params = InitializeParams {
            protocol_version: revision.as_str().to_owned(),
            capabilities: self.handlers.capabilities(),
            client_info: Implementation {
                name: "Loopscope".into(),
                version: env!("CARGO_PKG_VERSION").into(),
                title: Some("Loopscope: the Claude tool-use loop, on a timeline".into()),
            },
        };
        let params = serde_json::to_value(params).expect("InitializeParams serialises");
        let raw = match self.send_request(method::INITIALIZE, Some(params), &RequestOptions::default(), None).await {
            Ok(v) => v,
            Err(e) => return Err(self.explain_failed_initialize(e)),
        };
        let result: InitializeResult = serde_json::from_value(raw.clone())
            .map_err(|e| McpError::Decode { reason: format!("not an InitializeResult: {e}"), raw: raw.to_string() })?;
        if !SUPPORTED_VERSIONS.contains(&result.protocol_version.as_str()) {
            // C-16: adopt any version we speak; otherwise disconnect, showing both.
            let _ = self.delete_session().await;
            self.session.borrow_mut().id = None;
            return Err(McpError::Protocol(ProtocolError::VersionMismatch {
                requested: revision.as_str().to_owned(),
                offered: result.protocol_version,
            }));
        }
        self.session.borrow_mut().version = Some(result.protocol_version.clone());
        match self.post(&Message::notification(method::INITIALIZED, None)).await? {
            PostReply::Accepted => {}
            // A body where none is due: read, traced, and ignored (transport.rs says so).
            PostReply::Json { .. } | PostReply::Stream { .. } => {}
        }
        let mut s = self.session.borrow_mut();
        s.why = if result.protocol_version == revision.as_str() {
            why
        } else {
            format!("{why}; the server answered with {}", result.protocol_version)
        };
        s.info = Some(result.clone());
        s.generation += 1;
        Ok(result)
    }

    /// A failed `initialize` from a server that speaks only 2026-07-28 says so (C-44).
    fn explain_failed_initialize(&self, error: McpError) -> McpError {
        match error.rpc_error() {
            Some(e) if e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => {
                let supported = e.data.as_ref().and_then(|d| d.get("supported")).and_then(Value::as_array);
                let supported: Vec<String> = supported
                    .map(|l| l.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
                    .unwrap_or_default();
                let supported = if supported.is_empty() { vec![MODERN_VERSION.to_owned()] } else { supported };
                McpError::Protocol(ProtocolError::ModernOnly { supported })
            }
            _ => error,
        }
    }

    /// Ends the connection: unsubscribes (C-33) and `DELETE`s the session (C-11) in 2025;
    /// in 2026-07-28 there is no session to end.
    pub async fn disconnect(&self) -> Result<(), McpError> {
        let subscribed = std::mem::take(&mut *self.subscriptions.borrow_mut());
        let legacy = self.is_connected() && self.modern().is_none();
        if legacy {
            for uri in subscribed {
                let _ = self.unsubscribe(&uri).await;
            }
        }
        self.relisten.borrow().cancel();
        let result = if legacy { self.delete_session().await } else { Ok(()) };
        let generation = self.session.borrow().generation;
        *self.session.borrow_mut() = Session { generation, ..Session::default() };
        self.set_state(Connection::Disconnected);
        result
    }

    /// The headers every request carries besides the user's own: in 2025 the session id and
    /// negotiated version (C-09, C-12); in 2026-07-28 only the version (the rest is per request).
    pub(super) fn session_headers(&self) -> Headers {
        let s = self.session.borrow();
        let mut h = Headers::new();
        if let Some(id) = s.id.as_ref().filter(|_| s.modern.is_none()) {
            h.set("mcp-session-id", id.clone());
        }
        if let Some(version) = &s.version {
            h.set("mcp-protocol-version", version.clone());
        }
        h
    }

    /// What a request must carry, given the era, and whether the era has the method at all.
    pub(super) fn allows(&self, rpc_method: &str) -> Result<(), McpError> {
        let modern = self.modern().is_some();
        let gone_in_2026 = [
            method::INITIALIZE,
            method::PING,
            method::LOGGING_SET_LEVEL,
            method::RESOURCES_SUBSCRIBE,
            method::RESOURCES_UNSUBSCRIBE,
        ];
        let new_in_2026 = [method::SERVER_DISCOVER, method::SUBSCRIPTIONS_LISTEN];
        if modern && gone_in_2026.contains(&rpc_method) {
            return Err(McpError::Client(format!("{rpc_method} does not exist in 2026-07-28")));
        }
        if !modern && self.is_connected() && new_in_2026.contains(&rpc_method) {
            return Err(McpError::Client(format!("{rpc_method} does not exist before 2026-07-28")));
        }
        Ok(())
    }

    /// Whether `capability` may be relied on (unknown capabilities refuse nothing).
    pub(super) fn declared(&self, capabilities: impl FnOnce(&ServerCapabilities) -> bool) -> Result<bool, McpError> {
        let s = self.session.borrow();
        let info = s.info.as_ref().ok_or(McpError::Protocol(ProtocolError::NotConnected))?;
        Ok(s.caps_unknown || capabilities(&info.capabilities))
    }
}
