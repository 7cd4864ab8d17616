//! What the user may change at a breakpoint, and whether it can be used: each edit is read
//! once, into what it changes (`Edit`), and checked against JSON and the Messages API's rules
//! before anything is sent. A request that breaks a rule may still be sent on purpose (to show
//! the API's 400); one that cannot be read at all is refused with the reason.

use serde_json::Value;

use super::history;
use super::pause::{Breakpoint, Stop};
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
}

/// What an edit is worth: `Err` cannot be used at all; `Ok(Some(rule))` can be sent, but breaks
/// one of the API's rules (named), which the API will refuse.
pub fn check_edit(stop: &Stop, edited: &Value) -> Result<Option<String>, String> {
    read_edit(stop, edited).map(|(_, rule)| rule)
}

/// Reads an edit made at `stop`: what it changes, and the API rule it breaks, if any.
pub fn read_edit(stop: &Stop, edited: &Value) -> Result<(Edit, Option<String>), String> {
    let refused = |rule: String| format!("the API will refuse it: {rule}");
    match stop.at {
        Breakpoint::Request => {
            let request: CreateMessage =
                serde_json::from_value(edited.clone()).map_err(|e| format!("not a Messages request: {e}"))?;
            if let Some(t) = request.tools.iter().find(|t| !t.input_schema.is_object()) {
                return Err(format!("tool {}: input_schema must be a JSON object", t.name));
            }
            let rule = history::check(&request.messages).err().map(refused);
            Ok((Edit::Request(Box::new(request)), rule))
        }
        Breakpoint::ToolUse => {
            let id = edited.get("id").and_then(Value::as_str);
            if id != stop.payload.get("id").and_then(Value::as_str) {
                return Err("the id must stay as it is: the tool_result answers it".into());
            }
            let name = edited.get("name").and_then(Value::as_str).ok_or("\"name\" must be a string")?;
            let input = edited.get("input").filter(|i| i.is_object()).ok_or("\"input\" must be a JSON object")?;
            Ok((Edit::ToolUse { name: name.to_owned(), input: input.clone() }, None))
        }
        Breakpoint::Results => {
            let message: Message = serde_json::from_value(edited.clone()).map_err(|e| format!("not a message: {e}"))?;
            if message.role != Role::User {
                return Err("the tool_results go back in a user message".into());
            }
            let mut all = stop.history.clone();
            all.push(message.clone());
            Ok((Edit::Results(message), history::check(&all).err().map(refused)))
        }
        Breakpoint::Route => route_edit(stop, edited).map(|(input, to)| (Edit::Route { input, to }, None)),
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
