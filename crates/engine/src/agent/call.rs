//! Phase 3 for one tool_use: where it goes (after any fault injected on Claude's side), then
//! running it — a local function, or `tools/call` on its server — and turning whatever happened
//! into the tool_result Claude receives in phase 4. Never fails: every failure is an is_error
//! result that names its layer.

use serde_json::Value;
use std::rc::Rc;

use super::catalog::Catalog;
use super::events::AgentEvent;
use super::run::{Agent, Emit, ServerHandle, Turn};
use super::{content, route};
use crate::apps::AppCall;
use crate::cancel::CancelToken;
use crate::faults::{Fault, Target, break_arguments, unknown_tool};
use crate::layer::{Failure, Layer};
use crate::mcp::{McpError, RequestOptions};
use crate::platform::Platform;
use crate::trace::{Peer, RouteTarget, TraceKind};
use protocol::claude::{ToolResult, ToolUse};
use protocol::mcp::{CallToolResult, Tool};

impl<P: Platform> Agent<P> {
    /// Phase 3's decision for one tool_use (after any fault injected on Claude's side): the
    /// call as it will be routed, and where to.
    pub(super) fn decide(
        &self,
        tool_use: &ToolUse,
        catalog: &Catalog,
        input_error: Option<&String>,
        turn: &Turn<'_, P>,
    ) -> (ToolUse, RouteTarget) {
        let injected = turn.faults.as_ref().and_then(|f| f.take(&Target::Claude, &tool_use.name));
        let call = match injected {
            Some(fault) => self.injected_call(tool_use, &fault, catalog),
            None => tool_use.clone(),
        };
        let target = route::decide(&call, catalog, input_error);
        (call, target)
    }

    /// Phase 3 for one tool_use: (ask,) run, and turn the outcome into the tool_result Claude
    /// will receive in phase 4. Never fails: every failure is an is_error result.
    pub(super) async fn execute(
        &self,
        tool_use: &ToolUse,
        mut target: RouteTarget,
        turn: &Turn<'_, P>,
        catalog: &Catalog,
        emit: &Emit,
    ) -> (ToolResult, Option<Failure>) {
        if let Some(why) = turn.consent.ask_why(&target, catalog.destructive(&target)) {
            let approved = match &turn.approve {
                Some(ask) => ask(tool_use, &target, &why).await,
                None => false,
            };
            if !approved {
                target = RouteTarget::Refused { reason: "The user denied this tool call.".into() };
            }
        }
        let id = tool_use.id.clone();
        self.tracer.emit(
            Peer::Client,
            TraceKind::Route { tool_use_id: id.clone(), name: tool_use.name.clone(), target: target.clone() },
        );
        emit(AgentEvent::ToolStarted {
            tool_use_id: id.clone(),
            name: tool_use.name.clone(),
            target: target.clone(),
            input: tool_use.input.clone(),
        });

        let (result, failure) = match &target {
            RouteTarget::Refused { reason } => (
                content::error(&id, reason.clone()),
                Some(Failure { layer: Layer::Client, message: reason.clone(), hint: None }),
            ),
            RouteTarget::Local { function } if super::skills::is_skill_function(function) => {
                let started = self.platform.now_ms();
                let servers = turn.servers.iter().map(super::skills::Offering::of).collect();
                let outcome = match self.skills.get() {
                    Some(runner) => {
                        runner.call(function.clone(), tool_use.input.clone(), catalog.skills.clone(), servers).await
                    }
                    None => Err("this page offers no skills".to_owned()),
                };
                self.local_outcome(&id, function, &tool_use.input, outcome, started)
            }
            RouteTarget::Local { function } => self.run_local(&id, function, &tool_use.input),
            RouteTarget::Server { server_id, label, tool } => {
                match turn.servers.iter().find(|s| &s.client.config().id == server_id) {
                    None => {
                        let why = format!("The MCP server \"{label}\" was disconnected before the call.");
                        (
                            content::error(&id, why.clone()),
                            Some(Failure { layer: Layer::Client, message: why, hint: None }),
                        )
                    }
                    Some(server) => {
                        let outcome = self.run_mcp(&id, server, tool, &tool_use.input, turn.cancel, emit).await;
                        let app = catalog.apps.iter().find(|(s, t)| s == server_id && &t.name == tool);
                        if let Some(app) = app.and_then(|(_, t)| app_call(t, label, server_id, tool_use, &outcome)) {
                            emit(AgentEvent::AppCalled(Box::new(app)));
                        }
                        mcp_outcome(&id, &server.label, tool, outcome)
                    }
                }
            }
        };
        emit(AgentEvent::ToolFinished { tool_use_id: id, result: result.clone(), failure: failure.clone() });
        (result, failure)
    }

    /// The tool_use as a Claude-side fault changes it, traced as injected.
    fn injected_call(&self, tool_use: &ToolUse, fault: &Fault, catalog: &Catalog) -> ToolUse {
        let mut changed = tool_use.clone();
        match fault {
            Fault::UnknownTool => changed.name = unknown_tool(&tool_use.name),
            Fault::BadArguments => {
                let schema =
                    catalog.entries.iter().find(|e| e.name == tool_use.name).map(|e| e.def.input_schema.clone());
                changed.input = break_arguments(&schema.unwrap_or(Value::Null), &tool_use.input);
            }
            _ => return changed,
        }
        let detail = format!("{} {} → {} {}", tool_use.name, tool_use.input, changed.name, changed.input);
        self.tracer
            .emit(Peer::Claude, TraceKind::Injected { exchange: None, fault: fault.clone(), detail: Some(detail) });
        changed
    }

    fn run_local(&self, id: &str, function: &str, input: &Value) -> (ToolResult, Option<Failure>) {
        let started = self.platform.now_ms();
        let tool = self.local.iter().find(|t| t.name == function).expect("routed to an existing local tool");
        let outcome = (tool.run)(input, self.platform.now_ms());
        self.local_outcome(id, function, input, outcome, started)
    }

    /// A page function's outcome, traced, as the tool_result Claude receives.
    fn local_outcome(
        &self,
        id: &str,
        function: &str,
        input: &Value,
        outcome: Result<String, String>,
        started: f64,
    ) -> (ToolResult, Option<Failure>) {
        let (output, is_error) = match &outcome {
            Ok(s) => (s.clone(), false),
            Err(e) => (e.clone(), true),
        };
        self.tracer.emit(
            Peer::Local,
            TraceKind::LocalCall {
                tool_use_id: id.into(),
                function: function.into(),
                input: input.clone(),
                output: output.clone(),
                is_error,
                elapsed_ms: self.platform.now_ms() - started,
            },
        );
        match outcome {
            Ok(text) => (content::text(id, text), None),
            Err(e) => {
                let failure = Failure { layer: Layer::Tool, message: format!("{function}: {e}"), hint: None };
                (content::error(id, format!("{function} failed: {e}")), Some(failure))
            }
        }
    }

    async fn run_mcp(
        &self,
        id: &str,
        server: &ServerHandle<P>,
        tool: &str,
        input: &Value,
        cancel: &CancelToken,
        emit: &Emit,
    ) -> Result<CallToolResult, McpError> {
        let progress_emit = emit.clone();
        let progress_id = id.to_owned();
        let opts = RequestOptions {
            cancel: Some(cancel.clone()),
            timeout_ms: None,
            on_progress: Some(Rc::new(move |p| {
                progress_emit(AgentEvent::ToolProgress {
                    tool_use_id: progress_id.clone(),
                    progress: p.progress,
                    total: p.total,
                    message: p.message.clone(),
                })
            })),
            trace_link: Some(id.to_owned()),
        };
        server.client.call_tool(tool, input.clone(), &opts).await
    }
}

/// A `tools/call`'s outcome as the tool_result Claude receives.
fn mcp_outcome(
    id: &str,
    label: &str,
    tool: &str,
    outcome: Result<CallToolResult, McpError>,
) -> (ToolResult, Option<Failure>) {
    match outcome {
        Ok(r) => {
            let result = content::from_call(id, &r);
            let failure = r.is_error.then(|| Failure {
                layer: Layer::Tool,
                message: format!("{tool} reported isError: {}", crate::text::content_text(&result.content)),
                hint: None,
            });
            (result, failure)
        }
        Err(e) => (content::error(id, mcp_failure_text(label, tool, &e)), Some(e.to_failure())),
    }
}

/// What the app of a tool that comes with one is shown of its call (MCP Apps).
fn app_call(
    tool: &Tool,
    label: &str,
    server_id: &str,
    tool_use: &ToolUse,
    outcome: &Result<CallToolResult, McpError>,
) -> Option<AppCall> {
    let result = match outcome {
        Ok(r) => Ok(serde_json::to_value(r).unwrap_or(Value::Null)),
        Err(e) => Err(e.to_string()),
    };
    let app = AppCall::of(tool, server_id, label, &tool_use.id)?;
    Some(AppCall { arguments: Some(tool_use.input.clone()), result: Some(result), ..app })
}

/// What Claude reads when an MCP call fails: which layer, what happened, what it can do.
fn mcp_failure_text(label: &str, tool: &str, e: &McpError) -> String {
    let head = format!("Calling {tool} on the MCP server \"{label}\" failed");
    match e {
        McpError::Rpc(err) => format!(
            "{head}: the server answered with JSON-RPC error {} ({}): {}. Check the arguments against the tool's input schema and try again.",
            err.code.0,
            err.code.name(),
            err.message.trim_end_matches('.')
        ),
        McpError::Http { status, body, rpc, .. } => {
            // What the server said, if anything readable: its JSON-RPC message, or the body's start.
            let said = match rpc {
                Some(err) => err.message.clone(),
                None if !body.trim_start().starts_with('<') => body.trim().chars().take(200).collect(),
                None => String::new(),
            };
            let said = if said.is_empty() { String::new() } else { format!(" ({})", said.trim_end_matches('.')) };
            format!("{head}: HTTP {status} from the server{said}. The tool is unavailable right now.")
        }
        McpError::Network { .. } => {
            format!("{head}: the server could not be reached ({e}). The tool is unavailable right now.")
        }
        McpError::Timeout { after_ms } => {
            format!("{head}: no answer within {after_ms} ms, so the client gave up and cancelled it.")
        }
        McpError::Cancelled => format!("{head}: the user stopped it before it finished."),
        McpError::Bridge(f) => {
            format!("{head}: {}. The tool is unavailable right now.", f.error.message.trim_end_matches('.'))
        }
        McpError::TaskEnded { task_id, by_page: true, .. } => format!(
            "{head}: the server ran it as a task ({task_id}), and the user cancelled that task before it finished. \
             Do not call it again unless the user asks."
        ),
        McpError::TaskEnded { task_id, status, message, .. } => format!(
            "{head}: the server ran it as a task ({task_id}), which ended {} with no result{}.",
            status.as_str(),
            message.as_ref().map(|m| format!(" ({})", m.trim_end_matches('.'))).unwrap_or_default()
        ),
        other => format!("{head}: {other}"),
    }
}
