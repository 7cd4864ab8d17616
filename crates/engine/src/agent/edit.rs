//! What the user may change at a breakpoint, and whether it can be used: each edit is read
//! once, into what it changes (`Edit`), and checked against JSON and the Messages API's rules
//! before anything is sent. A request that breaks a rule may still be sent on purpose (to show
//! the API's 400); one that cannot be read at all is refused with the reason.

use serde_json::Value;

use super::pause::{Breakpoint, Stop};
use crate::claude::history::{self, HistoryError};
use crate::trace::RouteTarget;
use protocol::claude::{CreateMessage, Message, Role};

/// An edit made at a breakpoint, read into what it changes. Read once, where it is checked:
/// the loop applies it as it is, with no fallback to guess at.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Phase 1 → 2: this Messages request instead.
    Request(Box<CreateMessage>),
    /// Phase 2: the tool_use as Claude is shown to have sent it.
    ToolUse { name: String, input: Value },
    /// Phase 3: these arguments, to this destination.
    Route { input: Value, to: RouteTarget },
    /// Phase 4: this user message with the tool_results.
    Results(Message),
    /// An MCP App's message, as the page will read it instead of what the app sent.
    AppMessage(protocol::jsonrpc::Message),
}

/// Why an edit at a breakpoint cannot be used at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The draft does not parse as JSON.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// It parses, but not as the thing edited here (`what`: "a Messages request", "a message").
    #[error("not {what}: {reason}")]
    NotA { what: &'static str, reason: String },
    #[error("tool {0}: input_schema must be a JSON object")]
    SchemaNotObject(String),
    /// The tool_use id (at `field`) was changed: the tool_result answers the original.
    #[error("{field} must stay as it is: the tool_result answers it")]
    IdChanged { field: &'static str },
    /// A member is missing or of the wrong kind.
    #[error("{field} must be {must}")]
    Field { field: &'static str, must: &'static str },
    #[error("the tool_results go back in a user message")]
    ResultsNotFromUser,
    #[error(
        "route must be {{\"to\": \"local\", \"function\": …}} or {{\"to\": \"server\", \"server_id\": …, \"tool\": …}} ({0})"
    )]
    RouteShape(String),
    /// The route names a function or server the page does not have; `can_go` lists those it has.
    #[error("route goes nowhere this page knows; it can go {}", can_go.join("; "))]
    RouteUnknown { can_go: Vec<String> },
    /// An app's request kept its id but not as it was (or a notification gained one): the app
    /// waits for the answer to the id it sent.
    #[error("the id must stay as it is: the app waits for the answer to the id it sent")]
    AppIdChanged,
    #[error("nothing to edit here")]
    NotEditable,
}

/// What a draft at a breakpoint is worth, as the paused banner shows it before Continue.
#[derive(Clone, Debug, PartialEq)]
pub enum Draft {
    /// The payload as it was: Continue sends the original.
    Unchanged,
    /// An edit the loop can use and the API accepts.
    Valid(Value),
    /// An edit the loop can use that breaks one of the API's rules: sent only on purpose, to show
    /// the API's answer.
    BreaksRule(Value, HistoryError),
    /// Cannot be used at all.
    Invalid(EditError),
}

impl Draft {
    /// What Continue sends: the edit, the original (`None`), or nothing at all (`Err`).
    pub fn to_send(&self) -> Result<Option<Value>, &EditError> {
        match self {
            Draft::Unchanged => Ok(None),
            Draft::Valid(v) | Draft::BreaksRule(v, _) => Ok(Some(v.clone())),
            Draft::Invalid(e) => Err(e),
        }
    }
}

/// Judges the text of a draft at `stop`.
pub fn judge(stop: &Stop, text: &str) -> Draft {
    match serde_json::from_str::<Value>(text) {
        Err(e) => Draft::Invalid(EditError::NotJson(e.to_string())),
        Ok(v) if v == stop.payload => Draft::Unchanged,
        Ok(v) => match check_edit(stop, &v) {
            Ok(None) => Draft::Valid(v),
            Ok(Some(rule)) => Draft::BreaksRule(v, rule),
            Err(e) => Draft::Invalid(e),
        },
    }
}

/// What an edit is worth: `Err` cannot be used at all; `Ok(Some(rule))` can be sent, but breaks
/// one of the API's rules, which the API will refuse.
pub fn check_edit(stop: &Stop, edited: &Value) -> Result<Option<HistoryError>, EditError> {
    read_edit(stop, edited).map(|(_, rule)| rule)
}

/// Reads an edit made at `stop`: what it changes, and the API rule it breaks, if any.
pub fn read_edit(stop: &Stop, edited: &Value) -> Result<(Edit, Option<HistoryError>), EditError> {
    let not_a = |what: &'static str| move |e: serde_json::Error| EditError::NotA { what, reason: e.to_string() };
    match stop.at {
        Breakpoint::Request => {
            let request: CreateMessage = serde_json::from_value(edited.clone()).map_err(not_a("a Messages request"))?;
            if let Some(t) = request.tools.iter().find(|t| !t.input_schema.is_object()) {
                return Err(EditError::SchemaNotObject(t.name.clone()));
            }
            let rule = history::check(&request.messages).err();
            Ok((Edit::Request(Box::new(request)), rule))
        }
        Breakpoint::ToolUse => {
            let id = edited.get("id").and_then(Value::as_str);
            if id != stop.payload.get("id").and_then(Value::as_str) {
                return Err(EditError::IdChanged { field: "the id" });
            }
            let name = edited.get("name").and_then(Value::as_str);
            let name = name.ok_or(EditError::Field { field: "\"name\"", must: "a string" })?;
            let input = edited.get("input").filter(|i| i.is_object());
            let input = input.ok_or(EditError::Field { field: "\"input\"", must: "a JSON object" })?;
            Ok((Edit::ToolUse { name: name.to_owned(), input: input.clone() }, None))
        }
        Breakpoint::Results => {
            let message: Message = serde_json::from_value(edited.clone()).map_err(not_a("a message"))?;
            if message.role != Role::User {
                return Err(EditError::ResultsNotFromUser);
            }
            let mut all = stop.history.clone();
            all.push(message.clone());
            Ok((Edit::Results(message), history::check(&all).err()))
        }
        Breakpoint::Route => route_edit(stop, edited).map(|(input, to)| (Edit::Route { input, to }, None)),
        Breakpoint::AppMessage => app_edit(stop, edited).map(|edit| (edit, None)),
        Breakpoint::Error => Err(EditError::NotEditable),
    }
}

/// An edit of an app's message: a JSON-RPC 2.0 message with the id the app sent (it waits for
/// the answer to that id). Apart from [`read_edit`], so that an app's host carries no reader of
/// the loop's payloads.
pub fn app_edit(stop: &Stop, edited: &Value) -> Result<Edit, EditError> {
    let message = protocol::jsonrpc::Message::from_value(edited.clone())
        .map_err(|e| EditError::NotA { what: "a JSON-RPC 2.0 message", reason: e.to_string() })?;
    if edited.get("id") != stop.payload.get("id") {
        return Err(EditError::AppIdChanged);
    }
    Ok(Edit::AppMessage(message))
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
pub fn route_edit(stop: &Stop, edited: &Value) -> Result<(Value, RouteTarget), EditError> {
    let id = edited.pointer("/tool_use/id").and_then(Value::as_str);
    if id != stop.payload.pointer("/tool_use/id").and_then(Value::as_str) {
        return Err(EditError::IdChanged { field: "tool_use.id" });
    }
    let input = edited.pointer("/tool_use/input").filter(|i| i.is_object()).cloned();
    let input =
        input.ok_or(EditError::Field { field: "tool_use.input", must: "a JSON object: the call's arguments" })?;
    let mut route = edited.get("route").cloned().unwrap_or(Value::Null);
    // The label is the page's, whatever the edit says: it may be left out.
    if let Some(r) = route.as_object_mut().filter(|r| r.get("to").and_then(Value::as_str) == Some("server")) {
        r.entry("label").or_insert_with(|| Value::String(String::new()));
    }
    let target: RouteTarget = serde_json::from_value(route).map_err(|e| EditError::RouteShape(e.to_string()))?;
    let known = |t: &RouteTarget| match (t, &target) {
        (RouteTarget::Local { function: a }, RouteTarget::Local { function: b }) => a == b,
        (RouteTarget::Server { server_id: a, .. }, RouteTarget::Server { server_id: b, .. }) => a == b,
        _ => false,
    };
    let Some(place) = stop.targets.iter().find(|t| known(t)) else {
        return Err(EditError::RouteUnknown { can_go: stop.targets.iter().map(RouteTarget::arrow).collect() });
    };
    let target = match (place, target) {
        (RouteTarget::Server { server_id, label, .. }, RouteTarget::Server { tool, .. }) => {
            if tool.trim().is_empty() {
                return Err(EditError::Field { field: "route.tool", must: "the name of the server's tool" });
            }
            RouteTarget::Server { server_id: server_id.clone(), label: label.clone(), tool }
        }
        (_, local) => local,
    };
    Ok((input, target))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::pause::{Breakpoint, Stop};
    use serde_json::json;

    fn stop(at: Breakpoint, payload: Value, history: Vec<Message>) -> Stop {
        Stop { at, iteration: 1, title: String::new(), payload, history, problem: None, targets: vec![] }
    }

    #[test]
    fn an_edited_tool_use_keeps_its_id_and_an_object_input() {
        let s = stop(Breakpoint::ToolUse, json!({"type":"tool_use","id":"t1","name":"a","input":{}}), vec![]);
        assert_eq!(check_edit(&s, &json!({"id":"t1","name":"a","input":{"x":1}})), Ok(None));
        assert!(
            check_edit(&s, &json!({"id":"t2","name":"a","input":{}})).unwrap_err().to_string().contains("id must stay")
        );
        assert!(check_edit(&s, &json!({"id":"t1","name":"a","input":"x"})).unwrap_err().to_string().contains("input"));
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
        assert!(check_edit(&s, &orphan).unwrap().unwrap().to_string().contains("no tool_result for t2"));
        let late = json!({"role":"user","content":[{"type":"text","text":"x"},
            {"type":"tool_result","tool_use_id":"t1","content":"1"},{"type":"tool_result","tool_use_id":"t2","content":"2"}]});
        assert!(check_edit(&s, &late).unwrap().unwrap().to_string().contains("must come first"));
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
        assert!(check_edit(&s, &broken).unwrap().unwrap().to_string().contains("first message must be the user's"));
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
        assert!(check_edit(&s, &nowhere).unwrap_err().to_string().contains("goes nowhere this page knows"));
        let other_id =
            json!({"tool_use": {"id": "t2", "input": {}}, "route": {"to": "local", "function": "calculate"}});
        assert!(check_edit(&s, &other_id).unwrap_err().to_string().contains("id must stay"));
        let no_tool =
            json!({"tool_use": {"id": "t1", "input": {}}, "route": {"to": "server", "server_id": "s2", "tool": " "}});
        assert!(check_edit(&s, &no_tool).unwrap_err().to_string().contains("route.tool"));
        let refused = json!({"tool_use": {"id": "t1", "input": {}}, "route": {"to": "refused", "reason": "no"}});
        assert!(check_edit(&s, &refused).is_err());
    }
}
