//! Breakpoints (workshop mode): the loop stops at a phase, shows the payload exactly as it will
//! be sent or used, and goes on as the user says — unchanged, edited, skipped, or stopped. An
//! edit is checked here, against JSON and the Messages API's rules, before anything is sent; a
//! request that breaks a rule may still be sent on purpose (to show the API's 400).

use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::history;
use super::run::{Agent, Turn};
use crate::platform::Platform;
use crate::trace::{Peer, ResumeHow, RouteTarget, TraceKind};
use protocol::claude::{CreateMessage, Message, Role};

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
    pub problem: Option<String>,
    /// At phase 3, where a call may be sent instead: each of the page's functions, each
    /// connected server (its `tool` left empty). Empty elsewhere.
    pub targets: Vec<RouteTarget>,
}

/// How the user lets the loop go on.
#[derive(Clone, Debug, PartialEq)]
pub enum Resume {
    Continue,
    /// This payload instead (checked with [`check_edit`]).
    Edited(Value),
    /// Do not run this call: Claude gets an is_error result saying so.
    Skip,
    /// End the turn here.
    Stop,
}

/// What an edit is worth: `Err` cannot be used at all; `Ok(Some(rule))` can be sent, but breaks
/// one of the API's rules (named), which the API will refuse.
pub fn check_edit(stop: &Stop, edited: &Value) -> Result<Option<String>, String> {
    match stop.at {
        Breakpoint::Request => {
            let request: CreateMessage =
                serde_json::from_value(edited.clone()).map_err(|e| format!("not a Messages request: {e}"))?;
            for t in &request.tools {
                if !t.input_schema.is_object() {
                    return Err(format!("tool {}: input_schema must be a JSON object", t.name));
                }
            }
            Ok(history::check(&request.messages).err().map(|rule| format!("the API will refuse it: {rule}")))
        }
        Breakpoint::ToolUse => {
            let id = edited.get("id").and_then(Value::as_str);
            if id != stop.payload.get("id").and_then(Value::as_str) {
                return Err("the id must stay as it is: the tool_result answers it".into());
            }
            if !edited.get("name").is_some_and(Value::is_string) {
                return Err("\"name\" must be a string".into());
            }
            if !edited.get("input").is_some_and(Value::is_object) {
                return Err("\"input\" must be a JSON object".into());
            }
            Ok(None)
        }
        Breakpoint::Results => {
            let message: Message = serde_json::from_value(edited.clone()).map_err(|e| format!("not a message: {e}"))?;
            if message.role != Role::User {
                return Err("the tool_results go back in a user message".into());
            }
            let mut all = stop.history.clone();
            all.push(message);
            Ok(history::check(&all).err().map(|rule| format!("the API will refuse it: {rule}")))
        }
        Breakpoint::Route => route_edit(stop, edited).map(|_| None),
        Breakpoint::Error => Err("nothing to edit here".into()),
    }
}

/// A destination as the route of a phase 3 edit is written: what the paused banner offers.
pub fn route_hint(t: &RouteTarget) -> String {
    match t {
        RouteTarget::Local { function } => format!("{{\"to\": \"local\", \"function\": \"{function}\"}}"),
        RouteTarget::Server { server_id, label, .. } => {
            format!("{{\"to\": \"server\", \"server_id\": \"{server_id}\", \"tool\": …}} for \"{label}\"")
        }
        RouteTarget::Refused { .. } => String::new(),
    }
}

/// A phase 3 edit, read: the arguments the call will carry and where it goes. The tool_use's
/// id stays (the tool_result answers it); the destination must be one of the stop's targets (a
/// function of the page, or a connected server, whose label is the page's own).
pub fn route_edit(stop: &Stop, edited: &Value) -> Result<(Value, RouteTarget), String> {
    let id = edited.pointer("/tool_use/id").and_then(Value::as_str);
    if id != stop.payload.pointer("/tool_use/id").and_then(Value::as_str) {
        return Err("tool_use.id must stay as it is: the tool_result answers it".into());
    }
    let input = edited.pointer("/tool_use/input").filter(|i| i.is_object()).cloned();
    let input = input.ok_or("tool_use.input must be a JSON object: the call's arguments")?;
    let mut route = edited.get("route").cloned().unwrap_or(Value::Null);
    // The label is the page's, whatever the edit says: it may be left out.
    if let Some(r) = route.as_object_mut().filter(|r| r.get("to").and_then(Value::as_str) == Some("server")) {
        r.entry("label").or_insert_with(|| Value::String(String::new()));
    }
    let target: RouteTarget = serde_json::from_value(route).map_err(|e| {
        format!("route must be {{\"to\": \"local\", \"function\": …}} or {{\"to\": \"server\", \"server_id\": …, \"tool\": …}} ({e})")
    })?;
    let known = |t: &RouteTarget| match (t, &target) {
        (RouteTarget::Local { function: a }, RouteTarget::Local { function: b }) => a == b,
        (RouteTarget::Server { server_id: a, .. }, RouteTarget::Server { server_id: b, .. }) => a == b,
        _ => false,
    };
    let Some(place) = stop.targets.iter().find(|t| known(t)) else {
        let names: Vec<String> = stop.targets.iter().map(RouteTarget::arrow).collect();
        return Err(format!("route goes nowhere this page knows; it can go {}", names.join("; ")));
    };
    let target = match (place, target) {
        (RouteTarget::Server { server_id, label, .. }, RouteTarget::Server { tool, .. }) => {
            if tool.trim().is_empty() {
                return Err("route.tool must name the server's tool".into());
            }
            RouteTarget::Server { server_id: server_id.clone(), label: label.clone(), tool }
        }
        (_, local) => local,
    };
    Ok((input, target))
}

/// What the loop does after a breakpoint.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Go {
    On,
    With(Value),
    /// Phase 3, edited: these arguments, to this destination.
    Rerouted {
        input: Value,
        to: RouteTarget,
    },
    Skip,
    Stop,
}

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
        let Some(pauser) = turn.pause.as_ref().filter(|p| p.breaks_at(at)) else { return Go::On };
        let paused = TraceKind::Paused { at, iteration, title: title.clone(), payload: payload.clone() };
        self.tracer.emit(Peer::Client, paused);
        let targets = if at == Breakpoint::Route { self.targets(turn) } else { Vec::new() };
        let mut stop = Stop { at, iteration, title, payload, history: history.to_vec(), problem: None, targets };
        let mut outcome = (ResumeHow::Continued, Go::On, None);
        for _ in 0..MAX_ASKS {
            outcome = match pauser.pause(stop.clone()).await {
                Resume::Continue => (ResumeHow::Continued, Go::On, None),
                Resume::Skip if at.skippable() => (ResumeHow::Skipped, Go::Skip, None),
                Resume::Skip => (ResumeHow::Continued, Go::On, None),
                Resume::Stop => (ResumeHow::Stopped, Go::Stop, None),
                // A rule the edit breaks was shown; sending it anyway is the user's lesson.
                Resume::Edited(v) if v == stop.payload => (ResumeHow::Continued, Go::On, None),
                Resume::Edited(v) => match check_edit(&stop, &v) {
                    Ok(_) if at == Breakpoint::Route => match route_edit(&stop, &v) {
                        Ok((input, to)) => (ResumeHow::Edited, Go::Rerouted { input, to }, Some(v)),
                        Err(problem) => {
                            stop.problem = Some(problem);
                            continue;
                        }
                    },
                    Ok(_) => (ResumeHow::Edited, Go::With(v.clone()), Some(v)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stop(at: Breakpoint, payload: Value, history: Vec<Message>) -> Stop {
        Stop { at, iteration: 1, title: String::new(), payload, history, problem: None, targets: vec![] }
    }

    #[test]
    fn an_edited_tool_use_keeps_its_id_and_an_object_input() {
        let s = stop(Breakpoint::ToolUse, json!({"type":"tool_use","id":"t1","name":"a","input":{}}), vec![]);
        assert_eq!(check_edit(&s, &json!({"id":"t1","name":"a","input":{"x":1}})), Ok(None));
        assert!(check_edit(&s, &json!({"id":"t2","name":"a","input":{}})).unwrap_err().contains("id must stay"));
        assert!(check_edit(&s, &json!({"id":"t1","name":"a","input":"x"})).unwrap_err().contains("input"));
    }

    #[test]
    fn edited_results_are_checked_against_the_apis_rules_and_may_still_be_sent() {
        let history: Vec<Message> = serde_json::from_value(json!([
            {"role":"user","content":[{"type":"text","text":"hi"}]},
            {"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}},{"type":"tool_use","id":"t2","name":"b","input":{}}]}
        ]))
        .unwrap();
        let s = stop(Breakpoint::Results, json!({}), history);
        let both = json!({"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":"1"},{"type":"tool_result","tool_use_id":"t2","content":"2"}]});
        assert_eq!(check_edit(&s, &both), Ok(None));
        let orphan = json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"1"}]});
        assert!(check_edit(&s, &orphan).unwrap().unwrap().contains("no tool_result for t2"));
        let late = json!({"role":"user","content":[{"type":"text","text":"x"},
            {"type":"tool_result","tool_use_id":"t1","content":"1"},{"type":"tool_result","tool_use_id":"t2","content":"2"}]});
        assert!(check_edit(&s, &late).unwrap().unwrap().contains("must come first"));
        assert!(check_edit(&s, &json!({"role":"user"})).is_err(), "not a message at all");
    }

    #[test]
    fn an_edited_request_must_be_a_request() {
        let s = stop(Breakpoint::Request, json!({}), vec![]);
        let ok =
            json!({"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]});
        assert_eq!(check_edit(&s, &ok), Ok(None));
        assert!(check_edit(&s, &json!({"model":"m"})).is_err());
        let broken = json!({"model":"m","max_tokens":10,"messages":[{"role":"assistant","content":[{"type":"text","text":"hi"}]}]});
        assert!(check_edit(&s, &broken).unwrap().unwrap().contains("first message must be the user's"));
    }

    #[test]
    fn a_route_may_go_to_another_server_or_function_with_other_arguments() {
        let payload = json!({"tool_use": {"id": "t1", "name": "a_echo", "input": {"text": "x"}},
            "route": {"to": "server", "server_id": "s1", "label": "a", "tool": "echo"}});
        let s = Stop {
            targets: vec![
                RouteTarget::Local { function: "calculate".into() },
                RouteTarget::Server { server_id: "s1".into(), label: "a".into(), tool: String::new() },
                RouteTarget::Server { server_id: "s2".into(), label: "b".into(), tool: String::new() },
            ],
            ..stop(Breakpoint::Route, payload, vec![])
        };
        // Another server, another tool, other arguments; the label is the page's own.
        let elsewhere = json!({"tool_use": {"id": "t1", "input": {"text": "y"}},
            "route": {"to": "server", "server_id": "s2", "label": "made up", "tool": "shout"}});
        assert_eq!(check_edit(&s, &elsewhere), Ok(None));
        assert_eq!(
            route_edit(&s, &elsewhere),
            Ok((
                json!({"text": "y"}),
                RouteTarget::Server { server_id: "s2".into(), label: "b".into(), tool: "shout".into() }
            ))
        );
        let local = json!({"tool_use": {"id": "t1", "input": {"expression": "1+1"}}, "route": {"to": "local", "function": "calculate"}});
        assert_eq!(route_edit(&s, &local).unwrap().1, RouteTarget::Local { function: "calculate".into() });
        // What cannot be used says why.
        let nowhere =
            json!({"tool_use": {"id": "t1", "input": {}}, "route": {"to": "server", "server_id": "s9", "tool": "x"}});
        assert!(check_edit(&s, &nowhere).unwrap_err().contains("goes nowhere this page knows"));
        let other_id =
            json!({"tool_use": {"id": "t2", "input": {}}, "route": {"to": "local", "function": "calculate"}});
        assert!(check_edit(&s, &other_id).unwrap_err().contains("id must stay"));
        let no_tool =
            json!({"tool_use": {"id": "t1", "input": {}}, "route": {"to": "server", "server_id": "s2", "tool": " "}});
        assert!(check_edit(&s, &no_tool).unwrap_err().contains("route.tool"));
        let refused = json!({"tool_use": {"id": "t1", "input": {}}, "route": {"to": "refused", "reason": "no"}});
        assert!(check_edit(&s, &refused).is_err());
    }
}
