//! The loop the article describes, one turn at a time: (1) aggregate tools, (2) let Claude
//! answer, (3) route each tool_use, (4) send the results back as one user message, and again
//! until Claude stops. Every step goes to the trace and to the page.

use futures::FutureExt;
use futures::future::{LocalBoxFuture, join_all};
use serde_json::Value;
use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;

use super::catalog::{Catalog, ServerTools};
use super::events::{AgentEvent, TurnEnd, TurnOutcome};
use super::local::{LocalTool, builtin};
use super::{content, history, route};
use crate::engine::cancel::CancelToken;
use crate::engine::claude::{ClaudeClient, ClaudeError, ClaudeSettings, StreamNews, caching};
use crate::engine::faults::{Fault, Faults, Target, break_arguments, unknown_tool};
use crate::engine::layer::{Failure, Layer};
use crate::engine::mcp::{McpClient, McpError, RequestOptions, ToolList};
use crate::engine::platform::Platform;
use crate::engine::trace::{AggregatedTool, Peer, RouteTarget, TraceKind, Tracer};
use crate::protocol::claude::{CreateMessage, Message, Role, ToolResult, ToolUse};

pub type Emit = Rc<dyn Fn(AgentEvent)>;
/// Asks the user whether a call may run (C-31); `false` denies it.
pub type Approver = Rc<dyn Fn(&ToolUse, &RouteTarget) -> LocalBoxFuture<'static, bool>>;

/// A connected server the loop may use.
pub struct ServerHandle<P: Platform> {
    pub client: Rc<McpClient<P>>,
    pub label: String,
    /// Set when the server says its tools changed (C-25): phase 1 runs again before the next
    /// request.
    pub stale: Rc<Cell<bool>>,
}

pub struct Turn<'a, P: Platform> {
    pub settings: &'a ClaudeSettings,
    pub servers: &'a [ServerHandle<P>],
    pub cancel: &'a CancelToken,
    pub max_iterations: u32,
    pub approve: Option<Approver>,
    /// Teaching switch: the first request that owes Claude tool_results is sent without them,
    /// so the API's 400 for that mistake can be seen. The history the turn returns keeps them.
    pub leave_out_results: bool,
    /// Faults injected on Claude's side (workshop mode): a tool_use is routed as if Claude had
    /// named a tool that does not exist, or broken its schema. The history keeps what Claude sent.
    pub faults: Option<Faults>,
}

impl<'a, P: Platform> Turn<'a, P> {
    /// A turn of at most `max_iterations` rounds, with no approval asked and no teaching switch.
    pub fn new(
        settings: &'a ClaudeSettings,
        servers: &'a [ServerHandle<P>],
        cancel: &'a CancelToken,
        max_iterations: u32,
    ) -> Self {
        Turn { settings, servers, cancel, max_iterations, approve: None, leave_out_results: false, faults: None }
    }
}

pub struct Agent<P: Platform> {
    platform: Rc<P>,
    tracer: Tracer,
    claude: ClaudeClient<P>,
    local: Vec<LocalTool>,
}

impl<P: Platform> Agent<P> {
    pub fn new(platform: Rc<P>, tracer: Tracer) -> Self {
        let claude = ClaudeClient::new(platform.clone(), tracer.clone());
        Self { platform, tracer, claude, local: builtin() }
    }

    pub fn claude(&self) -> &ClaudeClient<P> {
        &self.claude
    }

    pub fn local_tools(&self) -> &[LocalTool] {
        &self.local
    }

    /// Phase 1: asks every server for its tools (C-24: all pages) and builds the array. A
    /// server that fails to answer contributes nothing, and the trace says why.
    pub async fn aggregate(&self, servers: &[ServerHandle<P>], iteration: u32, emit: &Emit) -> Catalog {
        self.phase(1, iteration, emit);
        let opts = RequestOptions::default();
        let lists: Vec<Result<ToolList, McpError>> = join_all(servers.iter().map(|s| s.client.list_tools(&opts))).await;
        let mut unavailable = Vec::new();
        let mut ok = Vec::new();
        for (s, list) in servers.iter().zip(lists) {
            s.stale.set(false);
            match list {
                Ok(l) => ok.push((s, l)),
                Err(e) => unavailable.push(super::catalog::Unavailable {
                    server_id: s.client.config().id.clone(),
                    label: s.label.clone(),
                    failure: e.to_failure(),
                }),
            }
        }
        let views: Vec<ServerTools<'_>> = ok
            .iter()
            .map(|(s, l)| ServerTools { server_id: &s.client.config().id, label: &s.label, list: l })
            .collect();
        let mut catalog = Catalog::build(&self.local, &views);
        catalog.unavailable = unavailable;
        self.tracer.emit(
            Peer::Client,
            TraceKind::ToolsAggregated {
                tools: catalog
                    .entries
                    .iter()
                    .map(|e| AggregatedTool {
                        name: e.name.clone(),
                        origin: e.origin.describe(),
                        notes: e.notes.clone(),
                    })
                    .collect(),
                excluded: catalog
                    .unavailable
                    .iter()
                    .map(|u| {
                        let why = format!("tools/list failed ({} layer): {}", u.failure.layer, u.failure.message);
                        (format!("every tool of MCP server \"{}\"", u.label), why)
                    })
                    .chain(catalog.excluded.iter().map(|x| (x.origin.describe(), x.reason.clone())))
                    .collect(),
            },
        );
        emit(AgentEvent::Catalog(catalog.clone()));
        catalog
    }

    fn phase(&self, phase: u8, iteration: u32, emit: &Emit) {
        self.tracer.emit(Peer::Client, TraceKind::Phase { phase, iteration });
        emit(AgentEvent::Phase { phase, iteration });
    }

    fn end(&self, history: Vec<Message>, end: TurnEnd, iterations: u32, emit: &Emit) -> TurnOutcome {
        self.tracer.emit(
            Peer::Client,
            TraceKind::TurnEnd { stop_reason: end.stop_reason().map(str::to_owned), summary: end.explain() },
        );
        emit(AgentEvent::Ended(end.clone()));
        TurnOutcome { history, end, iterations }
    }

    /// Runs one user turn to its end. The returned history is valid to continue from, whatever
    /// happened (a failed request leaves it as it was, plus the user's message).
    pub async fn run(&self, mut history: Vec<Message>, user: Message, turn: &Turn<'_, P>, emit: Emit) -> TurnOutcome {
        self.tracer.emit(Peer::User, TraceKind::UserMessage { text: user.text() });
        history.push(user);
        let mut catalog = self.aggregate(turn.servers, 1, &emit).await;
        let mut iteration = 0;
        while iteration < turn.max_iterations {
            iteration += 1;
            if turn.cancel.is_cancelled() {
                return self.end(history, TurnEnd::Aborted, iteration, &emit);
            }
            if iteration > 1 && turn.servers.iter().any(|s| s.stale.get()) {
                catalog = self.aggregate(turn.servers, iteration, &emit).await;
            }

            // Phase 2: Claude answers. It sees a tools array; it knows nothing of MCP.
            self.phase(2, iteration, &emit);
            let owed = history.last().is_some_and(|m| m.tool_results().next().is_some());
            let sent = if turn.leave_out_results && owed {
                self.tracer.note(
                    Peer::Client,
                    "Teaching switch: this request leaves out the tool_result blocks Claude is owed. \
                     The API refuses such a history (400); the conversation itself keeps them.",
                );
                Cow::Owned(history::without_tool_results(&history))
            } else {
                if let Err(why) = history::check(&history) {
                    return self.end(history, TurnEnd::Failed(ClaudeError::InvalidHistory(why)), iteration, &emit);
                }
                Cow::Borrowed(&history)
            };
            let tools = catalog.tool_defs();
            let request = CreateMessage {
                model: turn.settings.model.clone(),
                max_tokens: turn.settings.max_tokens,
                messages: caching::with_breakpoint(&sent),
                system: caching::system_blocks(&turn.settings.system),
                tool_choice: if tools.is_empty() { None } else { turn.settings.tool_choice() },
                tools,
                stream: true,
                stop_sequences: None,
                temperature: None,
                thinking: None,
            };
            emit(AgentEvent::AttemptStarted { iteration });
            let mut on_news = |news: StreamNews<'_>| forward(&emit, news);
            let answer = match self.claude.stream(turn.settings, &request, turn.cancel, &mut on_news).await {
                Ok(a) => a,
                Err(ClaudeError::Cancelled) => return self.end(history, TurnEnd::Aborted, iteration, &emit),
                Err(e) => return self.end(history, TurnEnd::Failed(e), iteration, &emit),
            };

            // a tool_use cut off by max_tokens is never run; nothing of this answer is kept.
            if let Some(call) = answer.cut_off_call() {
                let end = TurnEnd::MaxTokens { cut_off: Some(call.clone()) };
                return self.end(history, end, iteration, &emit);
            }
            let tool_uses = answer.tool_uses();
            for t in &tool_uses {
                self.tracer.emit(
                    Peer::Claude,
                    TraceKind::ToolUse { tool_use_id: t.id.clone(), name: t.name.clone(), input: t.input.clone() },
                );
            }
            if !answer.message.content.is_empty() {
                // Appended verbatim: text, tool_use, thinking with its signature.
                history.push(answer.message.clone());
            }
            emit(AgentEvent::Assistant {
                message: answer.message.clone(),
                stop_reason: answer.stop_reason.clone(),
                usage: answer.usage.clone(),
            });

            if !tool_uses.is_empty() {
                // Phase 3: route and run every call, concurrently.
                self.phase(3, iteration, &emit);
                let runs = tool_uses.iter().map(|t| self.execute(t, &catalog, answer.input_error(&t.id), turn, &emit));
                let results: Vec<(ToolResult, Option<Failure>)> = join_all(runs).await;

                // Phase 4: one user message, starting with one tool_result per tool_use, in order.
                self.phase(4, iteration, &emit);
                for (result, failure) in &results {
                    self.tracer.emit(
                        Peer::Claude,
                        TraceKind::ToolResult {
                            tool_use_id: result.tool_use_id.clone(),
                            is_error: result.is_error,
                            content: result.content.clone(),
                            failure: failure.clone(),
                        },
                    );
                }
                let message =
                    Message { role: Role::User, content: results.iter().map(|(r, _)| r.to_block()).collect() };
                history.push(message.clone());
                emit(AgentEvent::ToolResults { message });
                if turn.cancel.is_cancelled() {
                    return self.end(history, TurnEnd::Aborted, iteration, &emit);
                }
            }

            let end = match answer.stop_reason.as_deref() {
                Some("tool_use") if !tool_uses.is_empty() => continue,
                // send the paused turn back unchanged and let Claude go on.
                Some("pause_turn") => continue,
                Some("end_turn") | None => TurnEnd::EndTurn,
                Some("stop_sequence") => TurnEnd::StopSequence { sequence: answer.stop_sequence.clone() },
                Some("max_tokens") => TurnEnd::MaxTokens { cut_off: None },
                Some("refusal") => TurnEnd::Refusal { details: answer.stop_details.clone() },
                Some("model_context_window_exceeded") => TurnEnd::ContextWindowExceeded,
                Some(other) => TurnEnd::Other { stop_reason: other.to_owned() },
            };
            return self.end(history, end, iteration, &emit);
        }
        self.end(history, TurnEnd::IterationLimit { limit: turn.max_iterations }, iteration, &emit)
    }

    /// Phase 3 for one tool_use: route, (ask,) run, and turn the outcome into the tool_result
    /// Claude will receive in phase 4. Never fails: every failure is an is_error result.
    async fn execute(
        &self,
        tool_use: &ToolUse,
        catalog: &Catalog,
        input_error: Option<&String>,
        turn: &Turn<'_, P>,
        emit: &Emit,
    ) -> (ToolResult, Option<Failure>) {
        let injected = turn.faults.as_ref().and_then(|f| f.take(&Target::Claude, &tool_use.name));
        let changed = injected.map(|fault| self.injected_call(tool_use, &fault, catalog));
        let tool_use = changed.as_ref().unwrap_or(tool_use);
        let mut target = route::decide(tool_use, catalog, input_error);
        if let (Some(approve), false) = (&turn.approve, matches!(target, RouteTarget::Refused { .. }))
            && !approve(tool_use, &target).await
        {
            target = RouteTarget::Refused { reason: "The user denied this tool call.".into() };
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
                    Some(server) => self.run_mcp(&id, server, tool, &tool_use.input, turn.cancel, emit).await,
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
    ) -> (ToolResult, Option<Failure>) {
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
        match server.client.call_tool(tool, input.clone(), &opts).await {
            Ok(r) => {
                let result = content::from_call(id, &r);
                let failure = r.is_error.then(|| Failure {
                    layer: Layer::Tool,
                    message: format!("{tool} reported isError: {}", crate::engine::text::content_text(&result.content)),
                    hint: None,
                });
                (result, failure)
            }
            Err(e) => (content::error(id, mcp_failure_text(&server.label, tool, &e)), Some(e.to_failure())),
        }
    }
}

/// Forwards stream news to the page as agent events.
fn forward(emit: &Emit, news: StreamNews<'_>) {
    match news {
        StreamNews::Update(update) => emit(AgentEvent::Stream(update)),
        StreamNews::Retrying { error, delay_ms, attempt } => {
            emit(AgentEvent::Retrying { error: error.clone(), delay_ms, attempt })
        }
    }
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
        other => format!("{head}: {other}"),
    }
}

impl<P: Platform> ServerHandle<P> {
    pub fn new(client: Rc<McpClient<P>>, label: impl Into<String>) -> Self {
        Self { client, label: label.into(), stale: Rc::new(Cell::new(false)) }
    }
}

/// Boxes an approval answer (for callers building an [`Approver`]).
pub fn approval(answer: impl std::future::Future<Output = bool> + 'static) -> LocalBoxFuture<'static, bool> {
    answer.boxed_local()
}
