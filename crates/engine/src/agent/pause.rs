//! Breakpoints (workshop mode): the loop stops at a phase, shows the payload exactly as it will
//! be sent or used, and goes on as the user says — unchanged, edited, skipped, or stopped. An
//! edit is checked here, against JSON and the Messages API's rules, before anything is sent; a
//! request that breaks a rule may still be sent on purpose (to show the API's 400).

use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::edit::{Edit, read_edit};
use super::run::{Agent, Turn};
use crate::platform::Platform;
use crate::trace::{Peer, ResumeHow, RouteTarget, TraceKind};
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
}

impl Breakpoint {
    pub const ALL: [Breakpoint; 5] =
        [Breakpoint::Request, Breakpoint::ToolUse, Breakpoint::Route, Breakpoint::Results, Breakpoint::Error];

    /// The phase it belongs to (none for "on error").
    pub fn phase(self) -> Option<u8> {
        match self {
            Breakpoint::Request => Some(1),
            Breakpoint::ToolUse => Some(2),
            Breakpoint::Route => Some(3),
            Breakpoint::Results => Some(4),
            Breakpoint::Error => None,
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
        }
    }

    /// Whether the payload may be edited here.
    pub fn editable(self) -> bool {
        !matches!(self, Breakpoint::Error)
    }

    /// Whether the step may be skipped here (the call is not run; Claude is told so).
    pub fn skippable(self) -> bool {
        matches!(self, Breakpoint::ToolUse | Breakpoint::Route)
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
    /// Do not run this call: Claude gets an is_error result saying so.
    Skip,
    /// End the turn here.
    Stop,
}

/// What the loop does after a breakpoint: the user's answer, its edit read and checked.
pub(super) type Go = Resume<Edit>;

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
        let paused = TraceKind::Paused { at, iteration, title: title.clone(), payload: payload.clone() };
        self.tracer.emit(Peer::Client, paused);
        let targets = if at == Breakpoint::Route { self.targets(turn) } else { Vec::new() };
        let mut stop = Stop { at, iteration, title, payload, history: history.to_vec(), problem: None, targets };
        let mut outcome = (ResumeHow::Continued, Resume::Continue, None);
        for _ in 0..MAX_ASKS {
            outcome = match pauser.pause(stop.clone()).await {
                Resume::Continue => (ResumeHow::Continued, Resume::Continue, None),
                Resume::Skip if at.skippable() => (ResumeHow::Skipped, Resume::Skip, None),
                Resume::Skip => (ResumeHow::Continued, Resume::Continue, None),
                Resume::Stop => (ResumeHow::Stopped, Resume::Stop, None),
                // A rule the edit breaks was shown; sending it anyway is the user's lesson.
                Resume::Edited(v) if v == stop.payload => (ResumeHow::Continued, Resume::Continue, None),
                Resume::Edited(v) => match read_edit(&stop, &v) {
                    Ok((edit, _)) => (ResumeHow::Edited, Resume::Edited(edit), Some(v)),
                    Err(problem) => {
                        stop.problem = Some(problem);
                        continue;
                    }
                },
            };
            break;
        }
        let (how, go, edited) = outcome;
        self.tracer.emit(Peer::Client, TraceKind::Resumed { at, how, edited });
        go
    }
}

/// Stops the loop and waits for the user.
pub trait Pauser {
    /// Whether the loop stops at `at` now (the set can change while a turn runs: "step").
    fn breaks_at(&self, at: Breakpoint) -> bool;
    fn pause(&self, stop: Stop) -> LocalBoxFuture<'static, Resume>;
}
