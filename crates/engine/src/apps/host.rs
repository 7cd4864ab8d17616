//! One app's host: the JSON-RPC the app and the page exchange over `postMessage`, read as a
//! stranger's input. The lifecycle in the specified order (the proxy is ready → the app's HTML
//! under its policy → `ui/initialize` → `initialized` → the tool's input, then its result), the
//! app's calls to its own server (only tools whose visibility includes the app, only that
//! server), and limits: a message's size and nesting, how many a second, how tall the frame may
//! grow, how long the app may take to start. Every message, both ways, is traced on the app's
//! lane; what the page must do (resize, say a problem, remove the frame) comes back as
//! [`Effect`]s.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use serde_json::{Value, json};

use super::context::ModelContext;
use super::teardown::{Closing, TEARDOWN_MS};
use super::{AppCall, AppFeed, Policy, document};
use crate::agent::edit::app_edit;
use crate::agent::pause::wait;
use crate::agent::{Breakpoint, Consent, Edit, Pauser, Resume, Stop};
use crate::limits::check_json_depth;
use crate::mcp::{McpClient, RequestOptions};
use crate::platform::Platform;
use crate::trace::{Direction, Peer, TraceKind, Tracer};
use crate::url_policy::WebUrl;
use futures::future::LocalBoxFuture;
use protocol::jsonrpc::{ErrorCode, ErrorObject, Message};
use protocol::mcp::Tool;
use protocol::mcp::apps::{AppResource, HTML_MIME};

/// The protocol version of MCP Apps this host speaks.
pub(super) const APPS_VERSION: &str = "2026-01-26";
/// What the sandbox proxy says when it is ready for the app's HTML.
const PROXY_READY: &str = "ui/notifications/sandbox-proxy-ready";
/// What Loopscope's own sandbox proxy says when the app's frame loaded a second document (a
/// navigation tried, or a reload): the app is ended (`assets/sandbox.js`). An app that forges
/// it only ends itself.
const DOCUMENT_CHANGED: &str = "ui/notifications/x-loopscope-app-document-changed";
/// The largest message an app may send.
const MAX_MESSAGE_BYTES: usize = 1024 * 1024;
/// Messages an app may send within one second before it is stopped.
pub const MAX_PER_SECOND: usize = 120;
/// Bytes an app may send within one second before it is stopped: a few messages near the size
/// limit pass, a flood of them does not (1,500 of 1 MB in 0.7 s grew the page by 116 MB).
pub const MAX_BYTES_PER_SECOND: usize = 4 * 1024 * 1024;
/// Malformed messages an app may send before it is stopped.
const MAX_MALFORMED: u32 = 20;
/// The smallest and tallest the frame is made, whatever the app asks.
const MIN_HEIGHT: u32 = 40;

/// What the page must do after a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// Make the frame this tall (already clamped).
    Height(u32),
    /// Say this under the frame; the app goes on.
    Problem(String),
    /// Remove the frame and say why: the app is stopped, nothing it sends is read.
    Stopped(String),
    /// Remove the frame: the app ended as asked (`teardown.rs`), and nothing it sends is read.
    Closed(String),
    /// Keep this as the app's latest context for Claude's next request (replacing the last).
    Context(ModelContext),
    /// Show the app in this mode (`"inline"`, `"fullscreen"` or `"pip"`).
    Mode(&'static str),
    /// What the app may reach outside its document, in words for its header (`csp::reach`).
    Reach(String),
}

/// What an app asks the user to agree to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AppAsk {
    /// Send this text as the user's next message to Claude (`ui/message`).
    Message(String),
    /// Open this address, already through the URL policy, in a new tab (`ui/open-link`).
    Link(WebUrl),
    /// Let the app call this tool of its server, with these arguments, for this reason (the
    /// same consent as Claude's calls: `agent::Consent`).
    Call { tool: String, arguments: Value, why: String },
    /// Save these files (`ui/download-file`, already read by `download.rs`).
    Download(Vec<super::DownloadFile>),
}

/// Asks the user, and carries out what was agreed to: `Err` says why it was not.
pub type AskUser = Rc<dyn Fn(AppAsk) -> LocalBoxFuture<'static, Result<(), String>>>;

/// The display modes the page offers (picture-in-picture: a small frame that stays in a
/// corner while the chat scrolls).
pub(super) const MODES: [&str; 3] = ["inline", "fullscreen", "pip"];

/// What the page tells the app of where it is shown.
#[derive(Clone, Debug, PartialEq)]
pub struct HostContext {
    pub theme: &'static str,
    pub locale: String,
    pub time_zone: Option<String>,
    /// The chat column's width, in CSS pixels.
    pub width: u32,
    /// The tallest the frame is made inline.
    pub max_height: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Stage {
    /// Waiting for the proxy to say it is ready.
    Proxy,
    /// The HTML is on its way or in; waiting for `ui/initialize`.
    Resource,
    /// Answered `ui/initialize`; waiting for `ui/notifications/initialized`.
    Initializing,
    Ready,
    /// Sent `ui/resource-teardown`; waiting for the app's answer (`teardown.rs`).
    Closing,
    Stopped,
}

pub(super) struct State {
    pub(super) stage: Stage,
    /// When each message of the last second arrived, and its size.
    pub(super) recent: VecDeque<(f64, usize)>,
    pub(super) malformed: u32,
    /// The display modes the app said it supports, and the one it is shown in.
    pub(super) app_modes: Vec<String>,
    pub(super) mode: &'static str,
    /// The app asked for more than the container holds: said once on its lane, until it asks
    /// for a height that fits again.
    pub(super) held: bool,
    /// The user held one of its messages at a breakpoint before it initialised: the start limit
    /// is not the app's fault then, and is not applied.
    pub(super) held_at_start: bool,
    /// What is known of the call, and what the app was told of it (`feed.rs`).
    pub(super) known: AppFeed,
    pub(super) told: Told,
    /// The teardown sent, while its answer is awaited.
    pub(super) closing: Option<Closing>,
}

/// What the app was told of its call: the last partial arguments, and whether it has the input
/// and the result (each is sent at most once).
#[derive(Default)]
pub(super) struct Told {
    pub(super) partial: Option<serde_json::Map<String, Value>>,
    pub(super) input: bool,
    pub(super) result: bool,
}

pub struct AppHost<P: Platform> {
    pub(super) call: AppCall,
    pub(super) client: Rc<McpClient<P>>,
    /// The tools the app's server listed (an app may call the ones for apps).
    pub(super) tools: Vec<Tool>,
    pub(super) context: HostContext,
    pub(super) tracer: Tracer,
    /// The app's lane name, and the trace's peer for it.
    pub(super) lane: String,
    pub(super) peer: Peer,
    pub(super) post: Rc<dyn Fn(Value)>,
    pub(super) ask: AskUser,
    /// Which of the app's calls wait for the user, as Claude's do.
    pub(super) consent: Consent,
    /// The page's breakpoints (break on an app's message), if any.
    pub(super) pause: Option<Rc<dyn Pauser>>,
    /// The app's messages pass the breakpoint one at a time, in the order they came.
    pub(super) gate: futures::lock::Mutex<()>,
    pub(super) state: RefCell<State>,
}

impl<P: Platform> AppHost<P> {
    /// The host of one app, shown as lane `instance`; `post` carries a message to its frame,
    /// `ask` asks the user to agree to what the app wants done.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        call: AppCall,
        client: Rc<McpClient<P>>,
        tools: Vec<Tool>,
        context: HostContext,
        instance: u32,
        post: Rc<dyn Fn(Value)>,
        ask: AskUser,
    ) -> Self {
        let tracer = client.tracer().clone();
        let lane = call.lane(instance);
        let peer = Peer::App(lane.clone());
        let state = State {
            stage: Stage::Proxy,
            recent: VecDeque::new(),
            malformed: 0,
            held: false,
            held_at_start: false,
            known: AppFeed { partial: None, input: call.arguments.clone(), result: call.result.clone() },
            told: Told::default(),
            closing: None,
            app_modes: Vec::new(),
            mode: "inline",
        };
        let (consent, pause, gate) = (Consent::default(), None, futures::lock::Mutex::new(()));
        let state = RefCell::new(state);
        AppHost { call, client, tools, context, tracer, lane, peer, post, ask, consent, pause, gate, state }
    }

    /// Lets the user stop at each message the app sends (`Breakpoint::AppMessage`), read it,
    /// edit it, drop it or close the app, before the page reads it.
    pub fn with_pause(mut self, pause: Rc<dyn Pauser>) -> Self {
        self.pause = Some(pause);
        self
    }

    /// Makes the app's calls wait for the user as Claude's would ("ask before every tool call",
    /// a lesson's servers).
    pub fn with_consent(mut self, consent: Consent) -> Self {
        self.consent = consent;
        self
    }

    pub fn call(&self) -> &AppCall {
        &self.call
    }

    /// The app's lane name (`App: …` on the timeline).
    pub fn lane(&self) -> &str {
        &self.lane
    }

    /// Whether the app was stopped (nothing it sends is read any more).
    pub fn stopped(&self) -> bool {
        self.state.borrow().stage == Stage::Stopped
    }

    /// Stops the app if it has not initialised after `within_ms`.
    pub async fn watch_start(&self, within_ms: u64) -> Option<Effect> {
        self.client.platform().sleep(within_ms).await;
        let (stage, held) = (self.state.borrow().stage, self.state.borrow().held_at_start);
        match stage {
            Stage::Ready | Stage::Closing | Stage::Stopped => None,
            _ if held => {
                let why = "not initialised yet, but held at a breakpoint: the start limit is not applied";
                self.tracer.note(self.peer.clone(), why.to_owned());
                None
            }
            _ => Some(self.stop(format!(
                "The app did not initialise within {} s (no ui/notifications/initialized): Loopscope removed it.",
                within_ms / 1000
            ))),
        }
    }

    /// One message from the app's frame, as JSON text (the page stringifies what arrived).
    pub async fn receive(&self, text: &str) -> Vec<Effect> {
        if let Some(effects) = self.admit(text.len()) {
            return effects;
        }
        self.read_admitted(text).await
    }

    /// Whether a message of `bytes` may be read at all, asked before its text is copied into
    /// the page's memory: `Some` with what to do instead when the app is stopped, floods (in
    /// count or in bytes: it is then stopped), or sent a message over the size limit.
    pub fn admit(&self, bytes: usize) -> Option<Vec<Effect>> {
        if self.stopped() {
            return Some(Vec::new());
        }
        if let Some(flood) = self.count(bytes) {
            return Some(vec![flood]);
        }
        (bytes > MAX_MESSAGE_BYTES).then(|| {
            self.malformed(format!(
                "a message of {} is over the {} limit",
                crate::limits::bytes(bytes as u64),
                crate::limits::bytes(MAX_MESSAGE_BYTES as u64)
            ))
        })
    }

    /// Reads a message [`admit`](Self::admit) let through.
    pub async fn read_admitted(&self, text: &str) -> Vec<Effect> {
        let message = match self.read(text) {
            Ok(m) => m,
            Err(why) => return self.malformed(why),
        };
        self.tracer.emit(
            self.peer.clone(),
            TraceKind::Rpc { direction: Direction::In, exchange: None, message: message.clone(), dropped: None },
        );
        let message = match self.breakpoint(message).await {
            Ok(m) if !self.stopped() => m,
            Ok(_) => return Vec::new(),
            Err(effects) => return effects,
        };
        if self.stage() == Stage::Closing {
            self.while_closing(message);
            return Vec::new();
        }
        match message {
            Message::Request { id, method, params } => {
                let mut effects = Vec::new();
                let answer = self.answer(&method, params.unwrap_or(Value::Null), &mut effects).await;
                if self.stopped() {
                    return Vec::new();
                }
                match answer {
                    Ok(result) => self.send(Message::Response { id, result }),
                    Err(error) => self.send(Message::Error { id: Some(id), error }),
                }
                effects
            }
            Message::Notification { method, params } => self.notified(&method, params.unwrap_or(Value::Null)).await,
            // Answers to the page's own requests (none that it waits on).
            Message::Response { .. } | Message::Error { .. } => Vec::new(),
        }
    }

    /// Stops at the user's breakpoint on app messages, one message at a time in the order they
    /// came. What the page reads then: the message, or the user's edit of it; or nothing (`Err`):
    /// dropped (a request is answered saying so), or the app closed.
    async fn breakpoint(&self, message: Message) -> Result<Message, Vec<Effect>> {
        let Some(pauser) = self.pause.as_ref() else { return Ok(message) };
        // The proxy's notice is the page's own sandbox speaking, not the app.
        if matches!(&message, Message::Notification { method, .. } if method == PROXY_READY) {
            return Ok(message);
        }
        let _one_at_a_time = self.gate.lock().await;
        if self.stopped() || !pauser.breaks_at(Breakpoint::AppMessage) {
            return Ok(message);
        }
        if !matches!(self.stage(), Stage::Ready) {
            self.state.borrow_mut().held_at_start = true;
        }
        let what = match &message {
            Message::Request { method, .. } | Message::Notification { method, .. } => method.as_str(),
            Message::Response { .. } => "a response",
            Message::Error { .. } => "an error answer",
        };
        let title = format!("{} from App: {}", crate::text::one_line(what, 60).0, self.lane);
        let payload = message.to_value();
        let (history, problem, targets) = (Vec::new(), None, Vec::new());
        let stop = Stop { at: Breakpoint::AppMessage, iteration: 0, title, payload, history, problem, targets };
        match wait(pauser.as_ref(), &self.tracer, self.peer.clone(), stop, app_edit).await {
            Resume::Edited(Edit::AppMessage(edited)) => Ok(edited),
            Resume::Continue | Resume::Edited(_) => Ok(message),
            Resume::Skip => {
                if let Message::Request { id, method, .. } = message {
                    let why = format!("The user dropped {method} at a breakpoint in Loopscope.");
                    self.send(Message::Error { id: Some(id), error: ErrorObject::new(ErrorCode(-32000), why) });
                }
                Err(Vec::new())
            }
            Resume::Stop => Err(vec![self.stop("Closed by the user at a breakpoint.".to_owned())]),
        }
    }

    /// Counts a message against the flood limits, in messages and in bytes; stops the app
    /// past either.
    fn count(&self, bytes: usize) -> Option<Effect> {
        let now = self.tracer.now_ms();
        let (count, total) = {
            let mut s = self.state.borrow_mut();
            s.recent.push_back((now, bytes));
            while s.recent.front().is_some_and(|(t, _)| now - t > 1000.0) {
                s.recent.pop_front();
            }
            (s.recent.len(), s.recent.iter().map(|(_, b)| b).fold(0usize, |a, b| a.saturating_add(*b)))
        };
        if count > MAX_PER_SECOND {
            return Some(self.stop(format!(
                "The app sent more than {MAX_PER_SECOND} messages within a second: Loopscope stopped reading it and removed it."
            )));
        }
        (total > MAX_BYTES_PER_SECOND).then(|| {
            self.stop(format!(
                "The app sent more than {} within a second: Loopscope stopped reading it and removed it.",
                crate::limits::bytes(MAX_BYTES_PER_SECOND as u64)
            ))
        })
    }

    fn read(&self, text: &str) -> Result<Message, String> {
        // Again in UTF-8 bytes: the page admits by the JSON's length in UTF-16 units.
        if text.len() > MAX_MESSAGE_BYTES {
            return Err(format!(
                "a message of {} is over the {} limit",
                crate::limits::bytes(text.len() as u64),
                crate::limits::bytes(MAX_MESSAGE_BYTES as u64)
            ));
        }
        let depth = self.client.config().limits.json_depth;
        check_json_depth(text, depth).map_err(|_| format!("a message nests deeper than {depth} levels"))?;
        let value: Value = serde_json::from_str(text).map_err(|e| format!("a message is not JSON ({e})"))?;
        Message::from_value(value).map_err(|e| format!("a message is not JSON-RPC 2.0 ({e})"))
    }

    fn malformed(&self, why: String) -> Vec<Effect> {
        self.tracer.note(self.peer.clone(), format!("ignored: {why}"));
        let count = {
            let mut s = self.state.borrow_mut();
            s.malformed += 1;
            s.malformed
        };
        if count > MAX_MALFORMED {
            return vec![self.stop(format!(
                "The app sent more than {MAX_MALFORMED} malformed messages: Loopscope stopped reading it and removed it."
            ))];
        }
        vec![Effect::Problem(format!("The app sent something Loopscope ignored: {why}."))]
    }

    /// Stops the app: nothing more is read or sent; the page removes the frame.
    fn stop(&self, why: String) -> Effect {
        self.end(&why);
        Effect::Stopped(why)
    }

    /// Nothing more is read from the app or sent to it; the reason is noted on its lane.
    pub(super) fn end(&self, why: &str) {
        self.state.borrow_mut().stage = Stage::Stopped;
        self.tracer.note(self.peer.clone(), why.to_owned());
    }

    pub(super) fn send(&self, message: Message) {
        if self.stopped() {
            return;
        }
        let value = message.to_value();
        self.tracer.emit(
            self.peer.clone(),
            TraceKind::Rpc { direction: Direction::Out, exchange: None, message, dropped: None },
        );
        (self.post)(value);
    }

    pub(super) fn notify(&self, method: &str, params: Value) {
        self.send(Message::notification(method, Some(params)));
    }

    pub(super) fn stage(&self) -> Stage {
        self.state.borrow().stage
    }

    pub(super) fn set_stage(&self, stage: Stage) {
        self.state.borrow_mut().stage = stage;
    }

    async fn notified(&self, method: &str, params: Value) -> Vec<Effect> {
        match method {
            PROXY_READY if self.stage() == Stage::Proxy => {
                self.set_stage(Stage::Resource);
                match self.load().await {
                    Ok(reach) => vec![Effect::Reach(reach)],
                    Err(why) => vec![self.stop(why)],
                }
            }
            DOCUMENT_CHANGED => {
                vec![self.stop(
                "The app's frame tried to load another document (a navigation or a reload): Loopscope removed it, \
                 since anything after that would not be the app it showed."
                    .to_owned(),
            )]
            }
            "ui/notifications/initialized" if self.stage() == Stage::Initializing => {
                self.set_stage(Stage::Ready);
                self.deliver();
                Vec::new()
            }
            "ui/notifications/size-changed" => {
                let asked = params.get("height").and_then(Value::as_f64);
                asked.map(|h| self.height(h)).into_iter().collect()
            }
            "ui/notifications/request-teardown" => {
                self.teardown("The app asked to be closed.", TEARDOWN_MS).await.into_iter().collect()
            }
            PROXY_READY | "ui/notifications/initialized" => {
                vec![self.out_of_order(method)]
            }
            // Logs and anything else: the lane shows them.
            _ => Vec::new(),
        }
    }

    fn out_of_order(&self, method: &str) -> Effect {
        let why = format!("{method} came out of order and was ignored");
        self.tracer.note(self.peer.clone(), why.clone());
        Effect::Problem(format!("The app's {why}."))
    }

    /// The frame's height for an app that asked for `asked` pixels.
    fn height(&self, asked: f64) -> Effect {
        let max = self.context.max_height;
        // (Not `f64::clamp`: its panic message formats floats, which costs the page core's float formatting.)
        let height = if asked.is_finite() { asked.max(MIN_HEIGHT as f64).min(max as f64) as u32 } else { max };
        let over = !asked.is_finite() || asked > max as f64;
        let newly = {
            let mut s = self.state.borrow_mut();
            let was = s.held;
            s.held = over;
            over && !was
        };
        if newly {
            let said =
                if asked.is_finite() { format!("{} px", crate::num::shortest(asked)) } else { "no number".into() };
            self.tracer.note(self.peer.clone(), format!("asked to be {said} tall: held to {max} px"));
        }
        Effect::Height(height)
    }

    /// Reads the app's HTML from its server and hands it to the proxy under its policy.
    async fn load(&self) -> Result<String, String> {
        let uri = &self.call.resource_uri;
        let label = &self.call.server_label;
        let read = self.client.read_resource(uri, &RequestOptions::default()).await;
        let contents = read.map_err(|e| {
            format!(
                "Its app ({uri}) could not be read from the MCP server \"{label}\" ({} layer): {e}",
                e.layer().label()
            )
        })?;
        let item = contents.contents.iter().find(|c| &c.uri == uri).or(contents.contents.first());
        let item =
            item.ok_or_else(|| format!("The MCP server \"{label}\" answered resources/read of {uri} with nothing."))?;
        let mime = item.mime_type.as_deref().unwrap_or("no MIME type");
        if mime.replace(' ', "") != HTML_MIME {
            return Err(format!("Its app ({uri}) is {mime}, not {HTML_MIME}: Loopscope shows only that."));
        }
        let html = match (&item.text, &item.blob) {
            (Some(text), _) => text.clone(),
            (None, Some(blob)) => crate::encoding::base64_decode(blob)
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| format!("Its app ({uri}) came as a blob that is not base64 of UTF-8 text."))?,
            (None, None) => return Err(format!("Its app ({uri}) came with no text and no blob.")),
        };
        let declared = AppResource::read(item, None);
        let own = crate::url_policy::WebUrl::parse(&self.client.config().url).ok().map(|u| u.origin());
        let policy = Policy::for_app(&declared, own.as_deref());
        if !policy.dropped.is_empty() {
            self.tracer
                .note(self.peer.clone(), format!("its declared CSP sources left out: {}", policy.dropped.join("; ")));
        }
        let kept = &policy.kept;
        let csp = json!({
            "connectDomains": kept.connect, "resourceDomains": kept.resources,
            "frameDomains": kept.frames, "baseUriDomains": kept.base_uris,
        });
        self.notify("ui/notifications/sandbox-resource-ready", json!({ "html": document(&html, &policy), "csp": csp }));
        Ok(super::csp::reach(&policy.kept))
    }
}
