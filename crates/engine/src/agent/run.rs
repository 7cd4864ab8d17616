//! The loop the article describes, one turn at a time: (1) aggregate tools, (2) let Claude
//! answer, (3) route each tool_use, (4) send the results back as one user message, and again
//! until Claude stops. Every step goes to the trace and to the page.

use futures::FutureExt;
use futures::future::{LocalBoxFuture, join_all};
use serde_json::json;
use std::borrow::Cow;
use std::cell::Cell;
use std::rc::Rc;

use super::catalog::{Catalog, ServerTools};
use super::consent::Consent;
use super::events::{AgentEvent, TurnEnd, TurnOutcome};
use super::history;
use super::local::{LocalTool, builtin};
use super::pause::{Breakpoint, Go, Pauser};
use crate::cancel::CancelToken;
use crate::claude::{ClaudeClient, ClaudeError, ClaudeSettings, StreamNews, caching};
use crate::faults::Faults;
use crate::layer::Failure;
use crate::mcp::{McpClient, McpError, RequestOptions, ToolList};
use crate::platform::Platform;
use crate::trace::{AggregatedTool, Peer, RouteTarget, TraceKind, Tracer};
use protocol::claude::{CreateMessage, Message, Role, ToolResult, ToolUse};

pub type Emit = Rc<dyn Fn(AgentEvent)>;
/// Asks the user whether a call may run (C-31), saying why it asks; `false` denies it.
pub type Approver = Rc<dyn Fn(&ToolUse, &RouteTarget, &super::consent::AskWhy) -> LocalBoxFuture<'static, bool>>;

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
    /// How the user is asked about a call; without it, a call that needs asking is denied.
    pub approve: Option<Approver>,
    /// Which calls need asking (`consent.rs`).
    pub consent: Consent,
    /// Teaching switch: the first request that owes Claude tool_results is sent without them,
    /// so the API's 400 for that mistake can be seen. The history the turn returns keeps them.
    pub leave_out_results: bool,
    /// Faults injected on Claude's side (workshop mode): a tool_use is routed as if Claude had
    /// named a tool that does not exist, or broken its schema. The history keeps what Claude sent.
    pub faults: Option<Faults>,
    /// Breakpoints (workshop mode): where the loop stops for the user, and how it hears back.
    pub pause: Option<Rc<dyn Pauser>>,
}

impl<'a, P: Platform> Turn<'a, P> {
    /// A turn of at most `max_iterations` rounds, with no approval asked and no teaching switch.
    pub fn new(
        settings: &'a ClaudeSettings,
        servers: &'a [ServerHandle<P>],
        cancel: &'a CancelToken,
        max_iterations: u32,
    ) -> Self {
        Turn {
            settings,
            servers,
            cancel,
            max_iterations,
            approve: None,
            consent: Consent::All,
            leave_out_results: false,
            faults: None,
            pause: None,
        }
    }
}

pub struct Agent<P: Platform> {
    pub(super) platform: Rc<P>,
    pub(super) tracer: Tracer,
    claude: ClaudeClient<P>,
    pub(super) local: Vec<LocalTool>,
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
        // tool_results edited at a breakpoint into a message the API refuses: sent once.
        let mut broken_results: Option<Message> = None;
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
            let sent = if let Some(edited) = broken_results.take() {
                self.tracer.note(
                    Peer::Client,
                    "Sent as edited at the breakpoint, breaking the API's rules on purpose; the conversation keeps \
                     the tool_results as they were.",
                );
                let mut with_edit = history.clone();
                with_edit.pop();
                with_edit.push(edited);
                Cow::Owned(with_edit)
            } else if turn.leave_out_results && owed {
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
            let payload = serde_json::to_value(&request).unwrap_or_default();
            let title = format!(
                "the request of round {iteration}: {} messages, {} tools",
                request.messages.len(),
                request.tools.len()
            );
            let request = match self.stop_at(turn, Breakpoint::Request, iteration, title, payload, &history).await {
                Go::With(edited) => serde_json::from_value(edited).unwrap_or(request),
                Go::Stop => return self.end(history, TurnEnd::Aborted, iteration, &emit),
                // Skipping and rerouting are phase 3's; here they leave the request as it is.
                Go::On | Go::Skip | Go::Rerouted { .. } => request,
            };
            emit(AgentEvent::AttemptStarted { iteration });
            let mut on_news = |news: StreamNews<'_>| forward(&emit, news);
            let mut answer = match self.claude.stream(turn.settings, &request, turn.cancel, &mut on_news).await {
                Ok(a) => a,
                Err(ClaudeError::Cancelled) => return self.end(history, TurnEnd::Aborted, iteration, &emit),
                Err(e) => {
                    let failure = json!({ "layer": e.layer(), "message": e.to_string() });
                    let title = format!("the request failed at the {} layer", e.layer());
                    self.stop_at(turn, Breakpoint::Error, iteration, title, failure, &history).await;
                    return self.end(history, TurnEnd::Failed(e), iteration, &emit);
                }
            };

            // a tool_use cut off by max_tokens is never run; nothing of this answer is kept.
            if let Some(call) = answer.cut_off_call() {
                let end = TurnEnd::MaxTokens { cut_off: Some(call.clone()) };
                return self.end(history, end, iteration, &emit);
            }
            let mut tool_uses = answer.tool_uses();
            for t in &tool_uses {
                self.tracer.emit(
                    Peer::Claude,
                    TraceKind::ToolUse { tool_use_id: t.id.clone(), name: t.name.clone(), input: t.input.clone() },
                );
            }
            // Phase 2's breakpoint: each tool_use as it came; an edit is what Claude is shown to
            // have sent, in the conversation too.
            let mut skipped = Vec::new();
            for t in tool_uses.iter_mut() {
                let block = json!({ "type": "tool_use", "id": t.id, "name": t.name, "input": t.input });
                match self
                    .stop_at(turn, Breakpoint::ToolUse, iteration, format!("tool_use {}", t.name), block, &history)
                    .await
                {
                    Go::With(edited) => {
                        t.name = edited["name"].as_str().unwrap_or(&t.name).to_owned();
                        t.input = edited["input"].clone();
                        answer.replace_tool_use(t);
                    }
                    Go::Skip => skipped.push(t.id.clone()),
                    Go::Stop => return self.end(history, TurnEnd::Aborted, iteration, &emit),
                    Go::On | Go::Rerouted { .. } => {}
                }
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
                // Phase 3: route every call (one at a time, so a breakpoint stops at each), then
                // run them all, concurrently.
                self.phase(3, iteration, &emit);
                let mut stop_after = false;
                let mut calls = Vec::new();
                for t in &tool_uses {
                    let (mut call, mut target) = self.decide(t, &catalog, answer.input_error(&t.id), turn);
                    let not_run = |why: &str| RouteTarget::Refused { reason: format!("{why}: not executed.") };
                    if skipped.contains(&t.id) {
                        target = not_run("Skipped at a breakpoint");
                    } else if stop_after {
                        target = not_run("Stopped at a breakpoint");
                    } else if !matches!(target, RouteTarget::Refused { .. }) {
                        let payload = json!({ "tool_use": { "id": call.id, "name": call.name, "input": call.input }, "route": target });
                        let title = format!("route {}: {}", call.name, target.arrow());
                        match self.stop_at(turn, Breakpoint::Route, iteration, title, payload, &history).await {
                            Go::Skip => target = not_run("Skipped at a breakpoint"),
                            Go::Stop => {
                                stop_after = true;
                                target = not_run("Stopped at a breakpoint");
                            }
                            // Checked at the breakpoint: its arguments and destination.
                            Go::Rerouted { input, to } => {
                                call.input = input;
                                target = to;
                            }
                            Go::On | Go::With(_) => {}
                        }
                    }
                    calls.push((call, target));
                }
                let runs = calls.iter().map(|(call, target)| self.execute(call, target.clone(), turn, &emit));
                let results: Vec<(ToolResult, Option<Failure>)> = join_all(runs).await;
                for (result, failure) in &results {
                    let Some(f) = failure else { continue };
                    let payload = json!({ "failure": f, "tool_result": result.to_block().0 });
                    let title = format!("a call failed at the {} layer", f.layer);
                    if self.stop_at(turn, Breakpoint::Error, iteration, title, payload, &history).await == Go::Stop {
                        stop_after = true;
                    }
                }

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
                let mut message =
                    Message { role: Role::User, content: results.iter().map(|(r, _)| r.to_block()).collect() };
                let payload = serde_json::to_value(&message).unwrap_or_default();
                let title = format!("the tool_results of {} calls", results.len());
                match self.stop_at(turn, Breakpoint::Results, iteration, title, payload, &history).await {
                    Go::With(edited) => {
                        let edited: Message = serde_json::from_value(edited).unwrap_or_else(|_| message.clone());
                        let mut all = history.clone();
                        all.push(edited.clone());
                        if history::check(&all).is_ok() {
                            message = edited;
                        } else {
                            // Broken on purpose: sent once as edited; the conversation keeps the
                            // results as they were, so it stays valid to continue.
                            broken_results = Some(edited);
                        }
                    }
                    Go::Stop => stop_after = true,
                    Go::On | Go::Skip | Go::Rerouted { .. } => {}
                }
                history.push(message.clone());
                emit(AgentEvent::ToolResults { message });
                if turn.cancel.is_cancelled() || stop_after {
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

impl<P: Platform> ServerHandle<P> {
    pub fn new(client: Rc<McpClient<P>>, label: impl Into<String>) -> Self {
        Self { client, label: label.into(), stale: Rc::new(Cell::new(false)) }
    }
}

/// Boxes an approval answer (for callers building an [`Approver`]).
pub fn approval(answer: impl std::future::Future<Output = bool> + 'static) -> LocalBoxFuture<'static, bool> {
    answer.boxed_local()
}
