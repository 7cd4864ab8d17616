//! Breakpoints (workshop mode): the loop stops at a phase, shows the payload exactly as it will
//! be sent or used, and goes on as the user says — unchanged, edited, skipped, or stopped. An
//! edit is checked here, against JSON and the Messages API's rules, before anything is sent; a
//! request that breaks a rule may still be sent on purpose (to show the API's 400).

use futures::FutureExt;
use futures::future::{Either, LocalBoxFuture};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::{Edit, EditError, read_edit};
use super::run::{Agent, Turn};
use crate::cancel::CancelToken;
use crate::platform::Platform;
use crate::trace::{Peer, ResumeHow, RouteTarget, TraceKind, Tracer};
use protocol::claude::Message;

/// Where the loop can stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Breakpoint {
    /// Phase 1 → 2: the Messages request, with the tools array phase 1 built, before it goes.
    Request,
    /// Phase 2: each tool_use, as Claude sent it, before the client looks at it.
    ToolUse,
    /// Phase 3: each routing decision (a local function, or `tools/call` to which server).
    Route,
    /// Phase 4: the user message with every tool_result, before it joins the conversation.
    Results,
    /// Any failure, at any layer.
    Error,
    /// Each message an MCP App sends the page (before the page reads it), outside the phases.
    AppMessage,
}

impl Breakpoint {
    pub const ALL: [Breakpoint; 6] = [
        Breakpoint::Request,
        Breakpoint::ToolUse,
        Breakpoint::Route,
        Breakpoint::Results,
        Breakpoint::Error,
        Breakpoint::AppMessage,
    ];

    /// The phase it belongs to (none for "on error").
    pub fn phase(self) -> Option<u8> {
        match self {
            Breakpoint::Request => Some(1),
            Breakpoint::ToolUse => Some(2),
            Breakpoint::Route => Some(3),
            Breakpoint::Results => Some(4),
            Breakpoint::Error | Breakpoint::AppMessage => None,
        }
    }

    pub fn of_phase(phase: u8) -> Option<Breakpoint> {
        Self::ALL.into_iter().find(|b| b.phase() == Some(phase))
    }

    /// Its name in a lesson (and in the trace's JSON).
    pub fn name(self) -> &'static str {
        match self {
            Breakpoint::Request => "request",
            Breakpoint::ToolUse => "tool_use",
            Breakpoint::Route => "route",
            Breakpoint::Results => "results",
            Breakpoint::Error => "error",
            Breakpoint::AppMessage => "app_message",
        }
    }

    /// What the loop stops before, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Breakpoint::Request => "before the request with the tools array goes to Claude",
            Breakpoint::ToolUse => "when a tool_use arrives from Claude",
            Breakpoint::Route => "before the client routes a call",
            Breakpoint::Results => "before the tool_results go back",
            Breakpoint::Error => "on any error",
            Breakpoint::AppMessage => "when an MCP App sends the page a message",
        }
    }

    /// Where the loop or app stands when stopped here, in a few words ("at phase 2").
    pub fn place(self) -> String {
        match (self, self.phase()) {
            (_, Some(p)) => format!("at phase {p}"),
            (Breakpoint::AppMessage, None) => "on an app's message".to_owned(),
            (_, None) => "on error".to_owned(),
        }
    }

    /// Whether the payload may be edited here.
    pub fn editable(self) -> bool {
        !matches!(self, Breakpoint::Error)
    }

    /// Whether the step may be skipped here (the call is not run; Claude is told so).
    pub fn skippable(self) -> bool {
        matches!(self, Breakpoint::ToolUse | Breakpoint::Route | Breakpoint::AppMessage)
    }

    /// Whether it stops the agent loop (Step goes on to the loop's next phase); an app's
    /// message stops only the app.
    pub fn in_loop(self) -> bool {
        self != Breakpoint::AppMessage
    }

    /// The words of the ways on that differ by where the stop is: skipping, and stopping.
    pub fn skip_words(self) -> &'static str {
        if self.in_loop() { "Skip this call" } else { "Drop this message" }
    }

    pub fn stop_words(self) -> &'static str {
        if self.in_loop() { "Stop the turn" } else { "Close the app" }
    }

    /// What the editable payload is, over its editor.
    pub fn payload_words(self) -> &'static str {
        if self.in_loop() {
            "As it will be sent (edit the JSON to change it)"
        } else {
            "As the page will read it (edit the JSON to change it)"
        }
    }
}

/// Where the loop stands, and what it is about to send or do.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    pub at: Breakpoint,
    pub iteration: u32,
    /// In a few words: "tool_use get_weather", "tools/call echo on everything".
    pub title: String,
    pub payload: Value,
    /// The conversation before the payload, to check an edit of the tool_results against.
    pub history: Vec<Message>,
    /// Why the last edit could not be used, when the loop asks again.
    pub problem: Option<super::edit::EditError>,
    /// At phase 3, where a call may be sent instead: each of the page's functions, each
    /// connected server (its `tool` left empty). Empty elsewhere.
    pub targets: Vec<RouteTarget>,
}

/// How the user lets the loop go on: with the payload as the user wrote it (`Resume<Value>`,
/// what the page sends), or, once the loop has read and checked it, as the change it makes
/// (`Resume<Edit>`, what the loop's steps act on).
#[derive(Clone, Debug, PartialEq)]
pub enum Resume<T = Value> {
    Continue,
    /// This payload instead (checked with [`check_edit`]).
    Edited(T),
    /// Do not run this call: Claude gets an is_error result saying so (an app's message is
    /// dropped: a request is answered with an error saying so).
    Skip,
    /// End the turn here (close the app).
    Stop,
}

/// What the loop does after a breakpoint: the user's answer, its edit read and checked.
pub(crate) type Go = Resume<Edit>;

/// Edits that cannot be used are asked for again, at most this many times (then the loop goes
/// on with the payload as it was).
const MAX_ASKS: u32 = 20;

impl<P: Platform> Agent<P> {
    /// Where a call may be routed at phase 3: each function of the page, each server of the turn.
    fn targets(&self, turn: &Turn<'_, P>) -> Vec<RouteTarget> {
        let local = self.local.iter().map(|t| RouteTarget::Local { function: t.name.to_owned() });
        let servers = turn.servers.iter().map(|s| RouteTarget::Server {
            server_id: s.client.config().id.clone(),
            label: s.label.clone(),
            tool: String::new(),
        });
        local.chain(servers).collect()
    }

    /// Stops at `at` if the user set a breakpoint there, traces where and how the loop went on,
    /// and says what to do; an edit that cannot be used is asked for again, with the reason.
    pub(super) async fn stop_at(
        &self,
        turn: &Turn<'_, P>,
        at: Breakpoint,
        iteration: u32,
        title: String,
        payload: Value,
        history: &[Message],
    ) -> Go {
        let Some(pauser) = turn.pause.as_ref().filter(|p| p.breaks_at(at)) else { return Resume::Continue };
        let targets = if at == Breakpoint::Route { self.targets(turn) } else { Vec::new() };
        let stop = Stop { at, iteration, title, payload, history: history.to_vec(), problem: None, targets };
        let read = |stop: &Stop, v: &Value| read_edit(stop, v).map(|(edit, _)| edit);
        let pauser = UntilCancelled { pauser: pauser.as_ref(), cancel: turn.cancel.clone() };
        wait(&pauser, &self.tracer, Peer::Client, stop, read).await
    }
}

/// The page's pauser for as long as the turn runs: a turn stopped some other way (the chat's
/// Stop, a new conversation) ends its stop as if the user had stopped there, and the page's
/// answer is no longer awaited.
struct UntilCancelled<'a> {
    pauser: &'a dyn Pauser,
    cancel: CancelToken,
}

impl Pauser for UntilCancelled<'_> {
    fn breaks_at(&self, at: Breakpoint) -> bool {
        self.pauser.breaks_at(at)
    }

    fn pause(&self, stop: Stop) -> LocalBoxFuture<'static, Resume> {
        let (asked, cancelled) = (self.pauser.pause(stop), self.cancel.cancelled());
        async move {
            match futures::future::select(asked, cancelled).await {
                Either::Left((how, _)) => how,
                Either::Right(_) => Resume::Stop,
            }
        }
        .boxed_local()
    }
}

/// Waits at `stop` for the user, traced on `peer`'s lane, and reads the answer with `read`: an
/// edit that cannot be used is asked for again with the reason, at most [`MAX_ASKS`] times.
pub(crate) async fn wait(
    pauser: &dyn Pauser,
    tracer: &Tracer,
    peer: Peer,
    mut stop: Stop,
    read: impl Fn(&Stop, &Value) -> Result<Edit, EditError>,
) -> Go {
    let at = stop.at;
    let paused =
        TraceKind::Paused { at, iteration: stop.iteration, title: stop.title.clone(), payload: stop.payload.clone() };
    tracer.emit(peer.clone(), paused);
    let mut outcome = (ResumeHow::Continued, Resume::Continue, None);
    for _ in 0..MAX_ASKS {
        outcome = match pauser.pause(stop.clone()).await {
            Resume::Continue => (ResumeHow::Continued, Resume::Continue, None),
            Resume::Skip if at.skippable() => (ResumeHow::Skipped, Resume::Skip, None),
            Resume::Skip => (ResumeHow::Continued, Resume::Continue, None),
            Resume::Stop => (ResumeHow::Stopped, Resume::Stop, None),
            // A rule the edit breaks was shown; sending it anyway is the user's lesson.
            Resume::Edited(v) if v == stop.payload => (ResumeHow::Continued, Resume::Continue, None),
            Resume::Edited(v) => match read(&stop, &v) {
                Ok(edit) => (ResumeHow::Edited, Resume::Edited(edit), Some(v)),
                Err(problem) => {
                    stop.problem = Some(problem);
                    continue;
                }
            },
        };
        break;
    }
    let (how, go, edited) = outcome;
    tracer.emit(peer, TraceKind::Resumed { at, how, edited });
    go
}

impl Stop {
    /// The paused banner's heading: where the loop (or the app) stands.
    pub fn heading(&self) -> String {
        match (self.at, self.at.phase()) {
            (_, Some(p)) => {
                format!("Paused at phase {p}: {} (round {})", crate::timeline::phase_title(p), self.iteration)
            }
            (Breakpoint::AppMessage, None) => "Paused on an MCP App's message".to_owned(),
            (_, None) => format!("Paused on an error (round {})", self.iteration),
        }
    }
}

/// Stops the loop and waits for the user.
pub trait Pauser {
    /// Whether the loop stops at `at` now (the set can change while a turn runs: "step").
    fn breaks_at(&self, at: Breakpoint) -> bool;
    fn pause(&self, stop: Stop) -> LocalBoxFuture<'static, Resume>;
}
