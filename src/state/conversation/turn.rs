//! A turn as the agent chunk runs it. The first screen prepares a [`TurnInput`] from what the
//! user set (plain data, read when they pressed Send); the agent chunk's `run_turn` hands it here,
//! where the page's hooks are made (approval through the dialogs, the breakpoints' pauser, the
//! chat fed with each event), the engine's loop runs, and its end is kept. None of this code is in
//! the first chunk (docs/size.md).

use leptos::prelude::*;
use std::rc::Rc;

use super::Conversation;
use crate::PagePlatform;
use crate::state::Services;
use crate::state::dialogs::{Answer, DialogKind};
use engine::agent::{Approver, AskWhy, Consent, Emit, ServerHandle, Teach, Turn, approval};
use engine::cancel::CancelToken;
use engine::claude::ClaudeSettings;
use engine::claude::connector::ConnectorServer;
use engine::trace::RouteTarget;
use protocol::claude::{Message, ToolUse};

/// What a turn is given, owned, so its future can outlive the call that started it.
pub struct TurnInput {
    pub(super) history: Vec<Message>,
    pub(super) message: Message,
    pub(super) settings: ClaudeSettings,
    pub(super) servers: Vec<ServerHandle<PagePlatform>>,
    pub(super) cancel: CancelToken,
    pub(super) max_iterations: u32,
    /// Which calls run without asking, as it stood when the user sent the message.
    pub(super) consent: Consent,
    pub(super) teach: Option<Teach>,
    /// The thinking binding of the history (preserved thinking).
    pub(super) binding: Option<u64>,
    /// A lesson step's `tool_choice` for the turn's first request.
    pub(super) opening_choice: Option<protocol::claude::ToolChoice>,
    /// The servers the API's MCP connector calls (a comparison's second run), else none.
    pub(super) connector: Vec<ConnectorServer>,
    /// The conversation the turn belongs to: a turn that outlives it writes nothing.
    pub(super) epoch: u64,
    /// Whether the outcome is the conversation's (not a comparison's run).
    pub(super) keep: bool,
    /// The user's question, offered again in a new conversation if this one cannot ask it.
    pub(super) asked: String,
}

impl Conversation {
    /// Runs a prepared turn to its end; whether Claude ended it itself (false when it failed,
    /// was stopped, or its conversation was left).
    pub(crate) async fn run_prepared(self, svc: Services, input: TurnInput) -> bool {
        let TurnInput {
            history,
            message,
            settings,
            servers,
            cancel,
            max_iterations,
            consent,
            teach,
            binding,
            opening_choice,
            connector,
            epoch,
            keep,
            asked,
        } = input;
        let (agent, faults) = svc.runtime(|r| (r.agent.clone(), r.faults.clone()));
        // Given here, not where the agent is made: the first screen carries none of it.
        agent.give_skills(Rc::new(crate::chunks::SkillsFromChunk));
        let approve: Approver = Rc::new(move |t: &ToolUse, target: &RouteTarget, why: &AskWhy| {
            let kind = DialogKind::Approval {
                tool: t.name.clone(),
                target: target.describe(),
                input: t.input.clone(),
                why: why.clone(),
            };
            approval(async move { matches!(svc.dialogs.ask(kind).await, Some(Answer::Approve(true))) })
        });
        let turn = Turn {
            approve: Some(approve),
            // The servers whose destructive tools the user lets run (their cards), as the turn starts.
            consent: consent.with_destructive_allowed(svc.servers.destructive_allowed()),
            teach,
            faults: Some(faults),
            pause: Some(svc.pausing.pauser()),
            binding,
            opening_choice,
            connector,
            ..Turn::new(&settings, &servers, &cancel, max_iterations)
        };
        let emit: Emit = Rc::new(move |e| {
            if self.current(epoch) {
                svc.chat.apply(&e);
            }
        });
        let outcome = agent.run(history, message, &turn, emit).await;
        if !self.current(epoch) {
            // New conversation (or a session opened) while it ran: it ended with its own.
            return false;
        }
        if keep {
            self.history.set_value(outcome.history);
            self.binding.set_value(outcome.binding);
        }
        self.cancel.set_value(None);
        // Stepping through a turn ends with it.
        svc.pausing.step.set(false);
        self.can_retry.set(keep && !outcome.end.is_finished());
        if keep && outcome.end.wants_new_conversation() {
            self.offer_new.set(Some(asked));
        }
        svc.chat.ended(&outcome.end);
        self.running.set(false);
        outcome.end.is_finished()
    }
}
