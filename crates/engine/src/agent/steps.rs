//! One round of the loop as named steps, phases 2 to 4: the request (and its breakpoint),
//! Claude's answer, each tool_use (its breakpoint), each call's route (its breakpoint) and run,
//! the tool_results back (their breakpoint), and whether the turn goes on. Each step either
//! lets the round go on or says how the turn ends.

use futures::future::join_all;
use serde_json::json;
use std::borrow::Cow;

use super::catalog::Catalog;
use super::edit::Edit;
use super::events::{AgentEvent, TurnEnd};
use super::pause::{Breakpoint, Resume};
use super::run::{Agent, Emit, Turn, forward};
use crate::claude::connector::ConnectorServer;
use crate::claude::{Assembled, BlockKind, ClaudeError, StreamNews, StreamUpdate, caching};
use crate::claude::{history, thinking};
use crate::claude::{server_tools, strict};
use crate::layer::Failure;
use crate::platform::Platform;
use crate::trace::{Peer, RouteTarget, TraceKind};
use protocol::claude::{CreateMessage, Message, Role, ToolChoice, ToolResult, ToolUse};

/// Where a turn stands between its steps.
pub(super) struct TurnState {
    pub history: Vec<Message>,
    pub catalog: Catalog,
    /// The round, from 1.
    pub iteration: u32,
    /// tool_results edited at a breakpoint into a message the API refuses: sent once, as edited.
    pub broken_results: Option<Message>,
    /// The teaching switch made its mistake (once per turn).
    pub taught: bool,
    /// What the conversation's thinking is bound to (`thinking::binding`), once it holds some.
    pub binding: Option<u64>,
    /// The code execution container of this turn, once an answer ran in one: calls made from
    /// code wait there for their results (programmatic tool calling).
    pub container: Option<String>,
}

/// A step goes on with its value, or ends the turn.
type Step<T> = Result<T, TurnEnd>;

/// The calls of a round, each with where it goes.
type Routed = Vec<(ToolUse, RouteTarget)>;

impl<P: Platform> Agent<P> {
    /// One round: Claude answers, its calls run, their results go back. `Ok(None)`: another
    /// round follows; `Ok(Some(end))` or `Err(end)`: the turn ends so.
    pub(super) async fn round(&self, s: &mut TurnState, turn: &Turn<'_, P>, emit: &Emit) -> Step<Option<TurnEnd>> {
        if turn.cancel.is_cancelled() {
            return Err(TurnEnd::Aborted);
        }
        if s.iteration > 1 && turn.servers.iter().any(|server| server.stale.get()) {
            s.catalog = self.aggregate(turn.servers, s.iteration, emit).await;
        }
        // Phase 2: Claude answers. It sees a tools array; it knows nothing of MCP.
        self.phase(2, s.iteration, emit);
        let request = self.request(s, turn).await?;
        let mut answer = self.ask(s, turn, &request, emit).await?;
        if let Some(container) = &answer.container {
            s.container = Some(container.clone());
        }
        if answer.message.content.iter().any(|b| b.kind() == "thinking") {
            s.binding = Some(thinking::binding(&request.tools, request.system.as_ref()));
        }
        let (tool_uses, skipped) = self.review_tool_uses(s, turn, &request, &mut answer).await?;
        if !answer.message.content.is_empty() {
            // Appended verbatim: text, tool_use, thinking with its signature.
            s.history.push(answer.message.clone());
        }
        emit(AgentEvent::Assistant {
            message: answer.message.clone(),
            stop_reason: answer.stop_reason.clone(),
            usage: answer.usage.clone(),
        });
        if !tool_uses.is_empty() {
            // Phase 3: route every call (one at a time, so a breakpoint stops at each), then run
            // them all, concurrently.
            self.phase(3, s.iteration, emit);
            let (calls, mut stop_after) = self.route(s, turn, &answer, &tool_uses, &skipped).await;
            let results = self.run_calls(s, turn, &calls, emit, &mut stop_after).await;
            // Phase 4: one user message, starting with one tool_result per tool_use, in order.
            self.return_results(s, turn, results, emit, &mut stop_after).await;
            if turn.cancel.is_cancelled() || stop_after {
                return Err(TurnEnd::Aborted);
            }
        }
        if answer.stop_reason.as_deref() == Some("pause_turn") {
            self.tracer.note(
                Peer::Client,
                "pause_turn: the API paused its own loop of server tools (it runs a limited number of steps per \
                 request). Claude's message goes back unchanged, with no new user message, and the API carries on.",
            );
        }
        Ok(ending(&answer, !tool_uses.is_empty()))
    }

    /// The request this round sends: the history (or the edited results sent once, or the
    /// teaching switch's history without its tool_results), the tools array, the settings; then
    /// its breakpoint.
    async fn request(&self, s: &mut TurnState, turn: &Turn<'_, P>) -> Step<CreateMessage> {
        let taught = if s.taught { None } else { turn.teach.and_then(|t| Some((t, t.apply(&s.history)?))) };
        let sent = if let Some(edited) = s.broken_results.take() {
            self.tracer.note(
                Peer::Client,
                "Sent as edited at the breakpoint, breaking the API's rules on purpose; the conversation keeps \
                 the tool_results as they were.",
            );
            let mut with_edit = s.history.clone();
            with_edit.pop();
            with_edit.push(edited);
            Cow::Owned(with_edit)
        } else if let Some((teach, broken)) = taught {
            s.taught = true;
            self.tracer.note(Peer::Client, teach.note());
            Cow::Owned(broken)
        } else {
            history::check(&s.history).map_err(|why| TurnEnd::Failed(ClaudeError::InvalidHistory(why)))?;
            Cow::Borrowed(&s.history)
        };
        let chosen = &turn.settings.server_tools;
        server_tools::check(chosen, turn.settings.parallel_tool_use)
            .map_err(|rule| TurnEnd::Failed(ClaudeError::ServerTools(rule)))?;
        let mut tools = s
            .catalog
            .tools_with(chosen, &turn.settings.tool_flags)
            .and_then(|tools| strict::check(&tools).map(|_| tools))
            .map_err(|rule| TurnEnd::Failed(ClaudeError::ToolFields(rule)))?;
        tools.extend(turn.connector.iter().map(ConnectorServer::toolset));
        // A lesson step's choice goes with the turn's first request only: forced on every request,
        // a call would be forced after every result and the loop would never end by itself.
        let choice = match (&turn.opening_choice, s.iteration) {
            (Some(opening), 1) => Some(opening.clone()),
            _ => turn.settings.tool_choice(),
        }
        .filter(|_| !tools.is_empty());
        let forced = choice.as_ref().and_then(ToolChoice::forces);
        if let Some(ToolChoice::Tool { name, .. }) = &choice
            && !tools.iter().any(|t| t.name == *name)
        {
            return Err(TurnEnd::Failed(ClaudeError::UnknownToolChoice { name: name.clone() }));
        }
        let settings = turn.settings;
        settings
            .thinking
            .check(&settings.model, settings.max_tokens, forced)
            .map_err(|rule| TurnEnd::Failed(ClaudeError::Thinking(rule)))?;
        if let Some(listed) = &settings.listed {
            listed
                .check(&settings.thinking, tools.iter().any(|t| t.strict))
                .map_err(|rule| TurnEnd::Failed(ClaudeError::Listed(rule)))?;
        }
        let request = CreateMessage {
            model: turn.settings.model.clone(),
            max_tokens: turn.settings.max_tokens,
            messages: caching::with_breakpoint(&sent),
            system: caching::system_blocks(&turn.settings.system),
            tool_choice: choice,
            tools,
            stream: true,
            stop_sequences: None,
            temperature: None,
            thinking: turn.settings.thinking.field(),
            output_config: turn.settings.thinking.output_config(),
            container: s.container.clone(),
            mcp_servers: turn.connector.iter().map(ConnectorServer::entry).collect(),
        };
        let now = thinking::binding(&request.tools, request.system.as_ref());
        thinking::check_binding(&settings.model, s.binding, now, &request.messages)
            .map_err(|rule| TurnEnd::Failed(ClaudeError::Thinking(rule)))?;
        let payload = serde_json::to_value(&request).unwrap_or_default();
        let title = format!(
            "the request of round {}: {} messages, {} tools",
            s.iteration,
            request.messages.len(),
            request.tools.len()
        );
        match self.stop_at(turn, Breakpoint::Request, s.iteration, title, payload, &s.history).await {
            Resume::Edited(Edit::Request(edited)) => Ok(*edited),
            Resume::Stop => Err(TurnEnd::Aborted),
            // Only a request can be edited here, and a request cannot be skipped.
            Resume::Continue | Resume::Skip | Resume::Edited(_) => Ok(request),
        }
    }

    /// Claude's answer, streamed to the page as it comes; a failed request stops at the error
    /// breakpoint and ends the turn.
    async fn ask(&self, s: &TurnState, turn: &Turn<'_, P>, request: &CreateMessage, emit: &Emit) -> Step<Assembled> {
        emit(AgentEvent::AttemptStarted { iteration: s.iteration });
        let mut on_news = |news: StreamNews<'_>| {
            // A call of a tool that comes with an app: the app is shown as Claude starts writing it.
            let app = match &news {
                StreamNews::Update(StreamUpdate::BlockStarted { kind: BlockKind::ToolUse, tool: Some(t), .. }) => {
                    s.catalog.app_of(&t.name, &t.id).map(|mut app| {
                        // Whether the app must wait for the user's yes before it hears anything.
                        let target = crate::trace::RouteTarget::Server {
                            server_id: app.server_id.clone(),
                            label: app.server_label.clone(),
                            tool: app.tool.name.clone(),
                        };
                        app.asks_first = turn.consent.ask_why(&target, s.catalog.destructive(&target)).is_some();
                        app
                    })
                }
                _ => None,
            };
            forward(emit, news);
            if let Some(app) = app {
                emit(AgentEvent::AppCalled(Box::new(app)));
            }
        };
        let answer = match self.claude.stream(turn.settings, request, turn.cancel, &mut on_news).await {
            Ok(a) => a,
            Err(ClaudeError::Cancelled) => return Err(TurnEnd::Aborted),
            Err(e) => {
                let failure = json!({ "layer": e.layer(), "message": e.to_string() });
                let title = format!("the request failed at the {} layer", e.layer());
                self.stop_at(turn, Breakpoint::Error, s.iteration, title, failure, &s.history).await;
                return Err(TurnEnd::Failed(e));
            }
        };
        // a tool_use cut off by max_tokens is never run; nothing of this answer is kept.
        if let Some(call) = answer.cut_off_call() {
            return Err(TurnEnd::MaxTokens { cut_off: Some(call.clone()) });
        }
        Ok(answer)
    }

    /// Phase 2's breakpoint: each tool_use as it came. An edit is what Claude is shown to have
    /// sent, in the conversation too; a skipped one is answered "not executed".
    async fn review_tool_uses(
        &self,
        s: &TurnState,
        turn: &Turn<'_, P>,
        request: &CreateMessage,
        answer: &mut Assembled,
    ) -> Step<(Vec<ToolUse>, Vec<String>)> {
        for block in &answer.message.content {
            let chars =
                |field: &str| block.0.get(field).and_then(serde_json::Value::as_str).map_or(0, |s| s.chars().count());
            let kind = match block.kind() {
                "thinking" => TraceKind::Thinking {
                    text: block.0.get("thinking").and_then(serde_json::Value::as_str).unwrap_or_default().to_owned(),
                    redacted: false,
                    signature_chars: chars("signature"),
                },
                "redacted_thinking" => {
                    TraceKind::Thinking { text: String::new(), redacted: true, signature_chars: chars("data") }
                }
                "text" | "tool_use" => continue,
                other => TraceKind::ApiBlock { kind: other.to_owned(), block: block.0.clone() },
            };
            self.tracer.emit(Peer::Claude, kind);
        }
        let mut tool_uses = answer.tool_uses();
        for t in &tool_uses {
            self.tracer.emit(
                Peer::Claude,
                TraceKind::ToolUse {
                    tool_use_id: t.id.clone(),
                    name: t.name.clone(),
                    input: t.input.clone(),
                    caller: answer
                        .message
                        .content
                        .iter()
                        .find(|b| b.tool_use().is_some_and(|u| u.id == t.id))
                        .and_then(|b| b.caller())
                        .map(str::to_owned),
                    fragments: answer.fragments_of(&t.id).to_vec(),
                    // As sent (a breakpoint may have edited the request), not as set.
                    eager: request.tools.iter().any(|d| d.name == t.name && d.eager_input_streaming == Some(true)),
                },
            );
        }
        let mut skipped = Vec::new();
        for t in tool_uses.iter_mut() {
            let block = json!({ "type": "tool_use", "id": t.id, "name": t.name, "input": t.input });
            let title = format!("tool_use {}", t.name);
            match self.stop_at(turn, Breakpoint::ToolUse, s.iteration, title, block, &s.history).await {
                Resume::Edited(Edit::ToolUse { name, input }) => {
                    t.name = name;
                    t.input = input;
                    answer.replace_tool_use(t);
                }
                Resume::Skip => skipped.push(t.id.clone()),
                Resume::Stop => return Err(TurnEnd::Aborted),
                Resume::Continue | Resume::Edited(_) => {}
            }
        }
        Ok((tool_uses, skipped))
    }

    /// Phase 3's decision for each call, and its breakpoint: where it goes (an edit may send it
    /// elsewhere, with other arguments), or not at all. Returns the calls and whether the user
    /// stopped the turn (the calls after that are not run).
    async fn route(
        &self,
        s: &TurnState,
        turn: &Turn<'_, P>,
        answer: &Assembled,
        tool_uses: &[ToolUse],
        skipped: &[String],
    ) -> (Routed, bool) {
        let mut stop_after = false;
        let mut calls = Vec::new();
        for t in tool_uses {
            let (mut call, mut target) = self.decide(t, &s.catalog, answer.input_error(&t.id), turn);
            let not_run = |why: &str| RouteTarget::Refused { reason: format!("{why}: not executed.") };
            if skipped.contains(&t.id) {
                target = not_run("Skipped at a breakpoint");
            } else if stop_after {
                target = not_run("Stopped at a breakpoint");
            } else if !matches!(target, RouteTarget::Refused { .. }) {
                let payload =
                    json!({ "tool_use": { "id": call.id, "name": call.name, "input": call.input }, "route": target });
                let title = format!("route {}: {}", call.name, target.arrow());
                match self.stop_at(turn, Breakpoint::Route, s.iteration, title, payload, &s.history).await {
                    Resume::Skip => target = not_run("Skipped at a breakpoint"),
                    Resume::Stop => {
                        stop_after = true;
                        target = not_run("Stopped at a breakpoint");
                    }
                    Resume::Edited(Edit::Route { input, to }) => {
                        call.input = input;
                        target = to;
                    }
                    Resume::Continue | Resume::Edited(_) => {}
                }
            }
            calls.push((call, target));
        }
        (calls, stop_after)
    }

    /// Runs every routed call at once; a failure stops at the error breakpoint.
    async fn run_calls(
        &self,
        s: &TurnState,
        turn: &Turn<'_, P>,
        calls: &Routed,
        emit: &Emit,
        stop_after: &mut bool,
    ) -> Vec<(ToolResult, Option<Failure>)> {
        let runs = calls.iter().map(|(call, target)| self.execute(call, target.clone(), turn, &s.catalog, emit));
        let results: Vec<(ToolResult, Option<Failure>)> = join_all(runs).await;
        for (result, failure) in &results {
            let Some(f) = failure else { continue };
            let payload = json!({ "failure": f, "tool_result": result.to_block().0 });
            let title = format!("a call failed at the {} layer", f.layer);
            if self.stop_at(turn, Breakpoint::Error, s.iteration, title, payload, &s.history).await == Resume::Stop {
                *stop_after = true;
            }
        }
        results
    }

    /// Phase 4: the tool_results as one user message, after its breakpoint. Results edited to
    /// break the API's rules are sent once as edited; the conversation keeps them as they were,
    /// so it stays valid to continue.
    async fn return_results(
        &self,
        s: &mut TurnState,
        turn: &Turn<'_, P>,
        results: Vec<(ToolResult, Option<Failure>)>,
        emit: &Emit,
        stop_after: &mut bool,
    ) {
        self.phase(4, s.iteration, emit);
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
        let mut message = Message { role: Role::User, content: results.iter().map(|(r, _)| r.to_block()).collect() };
        let payload = serde_json::to_value(&message).unwrap_or_default();
        let title = format!("the tool_results of {} calls", results.len());
        match self.stop_at(turn, Breakpoint::Results, s.iteration, title, payload, &s.history).await {
            Resume::Edited(Edit::Results(edited)) => {
                let mut all = s.history.clone();
                all.push(edited.clone());
                if history::check(&all).is_ok() {
                    message = edited;
                } else {
                    s.broken_results = Some(edited);
                }
            }
            Resume::Stop => *stop_after = true,
            Resume::Continue | Resume::Skip | Resume::Edited(_) => {}
        }
        s.history.push(message.clone());
        emit(AgentEvent::ToolResults { message });
    }
}

/// How the round's answer ends the turn, if it does: `None` when another round follows (its
/// calls' results go back, or the API paused the turn).
fn ending(answer: &Assembled, had_calls: bool) -> Option<TurnEnd> {
    Some(match answer.stop_reason.as_deref() {
        Some("tool_use") if had_calls => return None,
        // send the paused turn back unchanged and let Claude go on.
        Some("pause_turn") => return None,
        Some("end_turn") | None => TurnEnd::EndTurn,
        Some("stop_sequence") => TurnEnd::StopSequence { sequence: answer.stop_sequence.clone() },
        Some("max_tokens") => TurnEnd::MaxTokens { cut_off: None },
        Some("refusal") => TurnEnd::Refusal { details: answer.stop_details.clone() },
        Some("model_context_window_exceeded") => TurnEnd::ContextWindowExceeded,
        Some(other) => TurnEnd::Other { stop_reason: other.to_owned() },
    })
}
