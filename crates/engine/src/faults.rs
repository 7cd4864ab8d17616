//! Faults a workshop injects on purpose, with no change to any server: a server's next call (or
//! every call) fails at a chosen layer, or Claude's next tool_use names a tool that does not
//! exist or breaks the tool's schema. A fault is made where the real one would come from — the
//! MCP client synthesises the HTTP answer a failing server would give (`mcp/inject.rs`), the
//! agent changes the tool_use it routes — so it ends the way the real one does: the same
//! messages, retries and tool_result. The trace marks each one as injected.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::cell::RefCell;
use std::rc::Rc;

use crate::layer::Layer;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// No HTTP answer: the server is down, or the network is.
    Network,
    /// An answer the browser will not let the page read.
    Cors,
    /// An HTTP error status, with `Retry-After` where it matters (429, 503).
    Http { status: u16, retry_after_s: Option<u32> },
    /// No answer at all until the client gives up.
    Timeout,
    /// HTTP 200 with a body that is not JSON.
    MalformedJson,
    /// An SSE answer that breaks off in the middle of an event.
    StreamCut,
    /// A JSON-RPC error object with this code.
    RpcError { code: i64 },
    /// A result with `isError: true`.
    ToolError,
    /// The real answer, this much later.
    Slow { ms: u64 },
    /// Claude's tool_use names a tool that does not exist.
    UnknownTool,
    /// Claude's tool_use carries arguments that break the tool's input schema.
    BadArguments,
}

impl Fault {
    /// Every fault a workshop can pick, with a stable key for forms and lessons.
    pub fn catalog() -> Vec<(&'static str, Fault)> {
        vec![
            ("network", Fault::Network),
            ("cors", Fault::Cors),
            ("http-401", Fault::Http { status: 401, retry_after_s: None }),
            ("http-404", Fault::Http { status: 404, retry_after_s: None }),
            ("http-429", Fault::Http { status: 429, retry_after_s: Some(2) }),
            ("http-500", Fault::Http { status: 500, retry_after_s: None }),
            ("http-503", Fault::Http { status: 503, retry_after_s: Some(2) }),
            ("timeout", Fault::Timeout),
            ("malformed-json", Fault::MalformedJson),
            ("stream-cut", Fault::StreamCut),
            ("rpc-32601", Fault::RpcError { code: -32601 }),
            ("rpc-32602", Fault::RpcError { code: -32602 }),
            ("rpc-32603", Fault::RpcError { code: -32603 }),
            ("tool-error", Fault::ToolError),
            ("slow", Fault::Slow { ms: 3000 }),
            ("unknown-tool", Fault::UnknownTool),
            ("bad-arguments", Fault::BadArguments),
        ]
    }

    pub fn by_key(key: &str) -> Option<Fault> {
        Self::catalog().into_iter().find(|(k, _)| *k == key).map(|(_, f)| f)
    }

    pub fn key(&self) -> &'static str {
        Self::catalog().into_iter().find(|(_, f)| f == self).map_or("custom", |(k, _)| k)
    }

    /// Whether Claude's side makes it (the agent), rather than a server (the MCP client).
    pub fn on_claude_side(&self) -> bool {
        matches!(self, Fault::UnknownTool | Fault::BadArguments)
    }

    /// The layer a user will see it fail at.
    pub fn layer(&self) -> Layer {
        match self {
            Fault::Network | Fault::Cors | Fault::StreamCut => Layer::Network,
            Fault::Http { .. } => Layer::Http,
            Fault::Timeout | Fault::Slow { .. } => Layer::Timeout,
            Fault::MalformedJson => Layer::Decode,
            Fault::RpcError { .. } => Layer::JsonRpc,
            Fault::ToolError => Layer::Tool,
            Fault::UnknownTool | Fault::BadArguments => Layer::Client,
        }
    }

    /// A title and a body for the timeline's detail pane.
    pub fn explain(&self, detail: Option<&str>) -> (String, String) {
        let detail = detail.map(|d| format!("{d}\n\n")).unwrap_or_default();
        let how = if self.on_claude_side() {
            "Claude did not send this: Loopscope changed the tool_use before routing it (workshop mode). \
             The conversation keeps what Claude really sent; the tool_result answers the changed call."
                .to_owned()
        } else {
            format!(
                "The server was not asked to fail: Loopscope made this answer in its place (workshop mode), as a \
                 server failing at the {} layer would, and the client handled it as it handles the real thing.",
                self.layer()
            )
        };
        (format!("Injected fault: {}", self.describe()), format!("{detail}{how}"))
    }

    /// In a few words, for menus and the timeline.
    pub fn describe(&self) -> String {
        match self {
            Fault::Network => "network failure (no answer)".into(),
            Fault::Cors => "CORS refusal (an answer the page may not read)".into(),
            Fault::Http { status, retry_after_s: Some(s) } => format!("HTTP {status} (Retry-After: {s} s)"),
            Fault::Http { status, .. } => format!("HTTP {status}"),
            Fault::Timeout => "timeout (no answer until the client gives up)".into(),
            Fault::MalformedJson => "malformed JSON body".into(),
            Fault::StreamCut => "SSE stream cut mid-event".into(),
            Fault::RpcError { code } => format!("JSON-RPC error {code}"),
            Fault::ToolError => "tool result with isError: true".into(),
            Fault::Slow { ms } => format!("slow answer (+{} s)", ms / 1000),
            Fault::UnknownTool => "Claude asks for a tool that does not exist".into(),
            Fault::BadArguments => "Claude's arguments break the tool's schema".into(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Times {
    /// The next matching call only.
    Next,
    Every,
}

/// Where a fault is made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The MCP server with this id in the page.
    Server(String),
    /// Claude's tool_use blocks, as the page routes them.
    Claude,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaultRule {
    pub id: u32,
    pub target: Target,
    /// One tool (by its name on the server, or as Claude names it), or every tool.
    pub tool: Option<String>,
    pub fault: Fault,
    pub times: Times,
}

/// Told the rules whenever they change.
type Listener = Rc<dyn Fn(&[FaultRule])>;

#[derive(Default)]
struct Plan {
    next_id: u32,
    rules: Vec<FaultRule>,
    on_change: Option<Listener>,
}

/// The faults in force, shared by the page, its MCP clients and the agent.
#[derive(Clone, Default)]
pub struct Faults(Rc<RefCell<Plan>>);

impl Faults {
    pub fn new() -> Self {
        Self::default()
    }

    /// Called with the rules whenever they change (the page shows them).
    pub fn on_change(&self, f: impl Fn(&[FaultRule]) + 'static) {
        self.0.borrow_mut().on_change = Some(Rc::new(f));
    }

    fn changed(&self) {
        let (f, rules) = {
            let p = self.0.borrow();
            (p.on_change.clone(), p.rules.clone())
        };
        if let Some(f) = f {
            f(&rules);
        }
    }

    pub fn add(&self, target: Target, tool: Option<String>, fault: Fault, times: Times) -> u32 {
        let id = {
            let mut p = self.0.borrow_mut();
            p.next_id += 1;
            let id = p.next_id;
            p.rules.push(FaultRule { id, target, tool, fault, times });
            id
        };
        self.changed();
        id
    }

    pub fn remove(&self, id: u32) {
        self.0.borrow_mut().rules.retain(|r| r.id != id);
        self.changed();
    }

    /// Removes every fault of one target (a server that goes away).
    pub fn clear(&self, target: &Target) {
        self.0.borrow_mut().rules.retain(|r| r.target != *target);
        self.changed();
    }

    pub fn rules(&self) -> Vec<FaultRule> {
        self.0.borrow().rules.clone()
    }

    /// The fault for this call, if one is in force; a `Next` fault is used up.
    pub fn take(&self, target: &Target, tool: &str) -> Option<Fault> {
        let taken = {
            let mut p = self.0.borrow_mut();
            let i = p.rules.iter().position(|r| r.target == *target && r.tool.as_deref().is_none_or(|t| t == tool))?;
            let fault = p.rules[i].fault.clone();
            if p.rules[i].times == Times::Next {
                p.rules.remove(i);
                Some((fault, true))
            } else {
                Some((fault, false))
            }
        };
        let (fault, used_up) = taken?;
        if used_up {
            self.changed();
        }
        Some(fault)
    }
}

/// Arguments that break `schema`: the first property (a required one if any) gets a value of
/// the wrong type; with no properties, an argument nobody asked for.
pub fn break_arguments(schema: &Value, input: &Value) -> Value {
    let mut args = input.as_object().cloned().unwrap_or_default();
    let props = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let required = crate::form::required(schema);
    let chosen = required
        .iter()
        .find(|r| props.contains_key(**r))
        .map(|r| r.to_string())
        .or_else(|| props.keys().next().cloned());
    match chosen {
        Some(name) => {
            let wrong = match props[&name].get("type").and_then(Value::as_str) {
                Some("string") => json!(42),
                Some("number" | "integer") => json!("not a number"),
                Some("boolean") => json!("yes"),
                Some("array") => json!({ "not": "an array" }),
                _ => json!(["not", "an", "object"]),
            };
            args.insert(name, wrong);
        }
        None => {
            args.insert("unexpected_argument".into(), json!(true));
        }
    }
    Value::Object(args)
}

/// A tool name nobody offers, made from the one Claude asked for.
pub fn unknown_tool(name: &str) -> String {
    format!("{name}_that_does_not_exist")
}

/// The standard message of a JSON-RPC error code.
pub fn rpc_message(code: i64) -> &'static str {
    match code {
        -32700 => "Parse error",
        -32600 => "Invalid Request",
        -32601 => "Method not found",
        -32602 => "Invalid params",
        -32603 => "Internal error",
        _ => "Server error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_next_fault_is_used_once_and_an_every_fault_stays() {
        let faults = Faults::new();
        let server = Target::Server("s1".into());
        faults.add(server.clone(), Some("echo".into()), Fault::ToolError, Times::Next);
        faults.add(server.clone(), None, Fault::Http { status: 503, retry_after_s: Some(2) }, Times::Every);
        assert_eq!(faults.take(&server, "add"), Some(Fault::Http { status: 503, retry_after_s: Some(2) }));
        assert_eq!(faults.take(&server, "echo"), Some(Fault::ToolError));
        assert_eq!(faults.take(&server, "echo"), Some(Fault::Http { status: 503, retry_after_s: Some(2) }));
        assert_eq!(faults.take(&Target::Server("s2".into()), "echo"), None);
        assert_eq!(faults.rules().len(), 1);
    }

    #[test]
    fn broken_arguments_break_the_schema_where_it_looks_first() {
        let schema =
            json!({"type":"object","properties":{"a":{"type":"number"},"b":{"type":"string"}},"required":["b"]});
        assert_eq!(break_arguments(&schema, &json!({"a": 1, "b": "x"})), json!({"a": 1, "b": 42}));
        let none = json!({"type":"object"});
        assert_eq!(break_arguments(&none, &json!({})), json!({"unexpected_argument": true}));
    }

    #[test]
    fn every_fault_in_the_menu_has_a_key_a_layer_and_words() {
        for (key, fault) in Fault::catalog() {
            assert_eq!(Fault::by_key(key).as_ref(), Some(&fault));
            assert_eq!(fault.key(), key);
            assert!(!fault.describe().is_empty());
        }
        assert_eq!(Fault::by_key("nope"), None);
    }
}
