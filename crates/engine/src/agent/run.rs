//! The loop the article describes, one turn at a time: (1) aggregate tools, (2) let Claude
//! answer, (3) route each tool_use, (4) send the results back as one user message, and again
//! until Claude stops. Every step goes to the trace and to the page.

use futures::FutureExt;
use futures::future::{LocalBoxFuture, join_all};
use std::cell::{Cell, OnceCell};
use std::rc::Rc;

use super::catalog::{Catalog, ServerTools};
use super::consent::Consent;
use super::events::{AgentEvent, TurnEnd, TurnOutcome};
use super::local::{LocalTool, builtin};
use super::pause::Pauser;
use super::skills::{Offer, Offering, SkillRunner};
use super::steps::TurnState;
use crate::cancel::CancelToken;
use crate::claude::{ClaudeClient, ClaudeSettings, StreamNews};
use crate::faults::Faults;
use crate::mcp::{McpClient, McpError, RequestOptions, ToolList};
use crate::platform::Platform;
use crate::trace::{AggregatedTool, Peer, RouteTarget, TraceKind, Tracer};
use protocol::claude::{Message, ToolUse};

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
    /// Teaching switch: the first request in which this mistake can be made is sent with it, so
    /// the API's answer can be seen. The history the turn returns keeps what was real.
    pub teach: Option<super::teach::Teach>,
    /// Faults injected on Claude's side (workshop mode): a tool_use is routed as if Claude had
    /// named a tool that does not exist, or broken its schema. The history keeps what Claude sent.
    pub faults: Option<Faults>,
    /// Breakpoints (workshop mode): where the loop stops for the user, and how it hears back.
    pub pause: Option<Rc<dyn Pauser>>,
    /// What the conversation's thinking is bound to, from the last turn's outcome
    /// (`TurnOutcome::binding`); `None` for a conversation that holds none, or unknown.
    pub binding: Option<u64>,
    /// A `tool_choice` for the turn's first request only, in place of the settings' (a lesson
    /// step's); later requests of the turn use the settings'.
    pub opening_choice: Option<protocol::claude::ToolChoice>,
    /// Servers the API calls itself through its MCP connector (`claude::connector`): not in
    /// `servers`, never listed or called by the page; each an `mcp_toolset` in `tools`.
    pub connector: Vec<crate::claude::connector::ConnectorServer>,
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
            consent: Consent::default(),
            teach: None,
            faults: None,
            pause: None,
            binding: None,
            opening_choice: None,
            connector: Vec::new(),
        }
    }
}

pub struct Agent<P: Platform> {
    pub(super) platform: Rc<P>,
    pub(super) tracer: Tracer,
    pub(super) claude: ClaudeClient<P>,
    pub(super) local: Vec<LocalTool>,
    /// Who lists and reads skills: set once (`new`: in place; the page: from its agent chunk,
    /// [`Agent::give_skills`]). Unset, no server's skills are offered.
    pub(super) skills: OnceCell<Rc<dyn SkillRunner<P>>>,
}

impl<P: Platform> Agent<P> {
    /// An agent that lists and reads skills in place ([`super::skills::InPlace`]).
    pub fn new(platform: Rc<P>, tracer: Tracer) -> Self
    where
        P: 'static,
    {
        let agent = Self::without_skills(platform, tracer);
        agent.give_skills(Rc::new(super::skills::InPlace));
        agent
    }

    /// An agent that offers no skills until [`Agent::give_skills`]: the page gives it its
    /// runner from the agent chunk, so that the first screen carries none of it.
    pub fn without_skills(platform: Rc<P>, tracer: Tracer) -> Self {
        let claude = ClaudeClient::new(platform.clone(), tracer.clone());
        Self { platform, tracer, claude, local: builtin(), skills: OnceCell::new() }
    }

    /// Sets who lists and reads skills; the first runner given stays.
    pub fn give_skills(&self, skills: Rc<dyn SkillRunner<P>>) {
        let _ = self.skills.set(skills);
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
        if let Some(offer) = self.offer_skills(ok.iter().map(|(s, _)| *s)) {
            let offer = offer.await;
            for why in &offer.left_out {
                self.tracer.note(Peer::Client, why.clone());
            }
            catalog.offer_skills(offer);
        }
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

    /// The skills of every server that declares them (`skills/list` only: nothing of any skill
    /// is read here), through the runner; `None` when no server declares skills. A server whose
    /// list fails offers none this turn, and the offer says why.
    fn offer_skills<'s>(
        &self,
        servers: impl Iterator<Item = &'s ServerHandle<P>>,
    ) -> Option<LocalBoxFuture<'static, Offer>>
    where
        P: 's,
    {
        let offering: Vec<Offering<P>> = servers.filter(|s| s.client.offers_skills()).map(Offering::of).collect();
        let runner = self.skills.get().filter(|_| !offering.is_empty())?;
        Some(runner.offer(offering))
    }

    pub(super) fn phase(&self, phase: u8, iteration: u32, emit: &Emit) {
        self.tracer.emit(Peer::Client, TraceKind::Phase { phase, iteration });
        emit(AgentEvent::Phase { phase, iteration });
    }

    pub(super) fn end(&self, state: TurnState, end: TurnEnd, emit: &Emit) -> TurnOutcome {
        self.tracer.emit(
            Peer::Client,
            TraceKind::TurnEnd { stop_reason: end.stop_reason().map(str::to_owned), summary: end.explain() },
        );
        emit(AgentEvent::Ended(end.clone()));
        TurnOutcome { history: state.history, end, iterations: state.iteration, binding: state.binding }
    }

    /// Runs one user turn to its end: phase 1, then rounds of phases 2–4 (`steps.rs`) until
    /// Claude stops, the user does, or the round limit is reached. The returned history is valid
    /// to continue from, whatever happened (a failed request leaves it as it was, plus the
    /// user's message).
    pub async fn run(&self, mut history: Vec<Message>, user: Message, turn: &Turn<'_, P>, emit: Emit) -> TurnOutcome {
        self.tracer.emit(Peer::User, TraceKind::UserMessage { text: user.text() });
        history.push(user);
        let catalog = self.aggregate(turn.servers, 1, &emit).await;
        if let Some(note) = crate::claude::server_tools::phase_one_note(&turn.settings.server_tools) {
            self.tracer.note(Peer::Client, note);
        }
        if let Some(note) = crate::claude::connector::phase_one_note(&turn.connector) {
            self.tracer.note(Peer::Client, note);
        }
        let fields = catalog.tools_with(&turn.settings.server_tools, &turn.settings.tool_flags).ok().and_then(|defs| {
            let unenforced = crate::claude::strict::check(&defs).ok()?;
            crate::claude::tool_flags::phase_one_note(&defs, &unenforced)
        });
        if let Some(note) = fields {
            self.tracer.note(Peer::Client, note);
        }
        let binding = turn.binding;
        let mut state =
            TurnState { history, catalog, iteration: 0, broken_results: None, taught: false, binding, container: None };
        while state.iteration < turn.max_iterations {
            state.iteration += 1;
            match self.round(&mut state, turn, &emit).await {
                Ok(None) => continue,
                Ok(Some(end)) | Err(end) => return self.end(state, end, &emit),
            }
        }
        let end = TurnEnd::IterationLimit { limit: turn.max_iterations };
        self.end(state, end, &emit)
    }
}

/// Forwards stream news to the page as agent events.
pub(super) fn forward(emit: &Emit, news: StreamNews<'_>) {
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
