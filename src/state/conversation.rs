//! Running the loop from the page: send, stop, retry, start over. The engine owns the turn;
//! this only feeds it the user's settings and servers and shows what it reports.

use engine::apps::ModelContext;
use leptos::prelude::*;
use leptos::task::spawn_local;

mod turn;

pub use turn::TurnInput;

use super::Services;
use super::chat::NoticeLevel;
use crate::chunks::{did_not_arrive, run_turn};
use engine::agent::{Consent, Driver, Teach};
use engine::cancel::CancelToken;
use engine::claude::connector::ConnectorServer;
use protocol::claude::Message;

/// What an app is told when a new conversation removes it.
const NEW: &str = "The user began a new conversation.";

#[derive(Clone, Copy)]
pub struct Conversation {
    /// The history sent to Claude (valid to send at every moment between turns).
    history: StoredValue<Vec<Message>>,
    /// What the history's thinking is bound to (preserved thinking; `engine::claude::thinking`).
    binding: StoredValue<Option<u64>>,
    cancel: StoredValue<Option<CancelToken>, LocalStorage>,
    /// The last message the user sent, for Retry.
    pub(super) last: StoredValue<Option<(String, usize)>>,
    /// Which conversation this is: bumped by New conversation and by a history put in place
    /// (a session opened or closed). A turn that outlives its conversation writes nothing.
    pub(super) epoch: StoredValue<u64>,
    pub running: RwSignal<bool>,
    /// Whether Retry makes sense (the last turn did not end normally).
    pub can_retry: RwSignal<bool>,
    pub draft: RwSignal<String>,
    /// The teaching switch, for the next turn only (never saved): a mistake made on purpose in
    /// its first request that can show it (`engine::agent::Teach`).
    pub teach_next: RwSignal<Option<Teach>>,
    /// A question the last turn could not ask in this conversation but can in a new one (its
    /// thinking is bound to tools or a system prompt that changed): offered with a button.
    pub offer_new: RwSignal<Option<String>>,
    /// The last "Ask both ways" (`both_ways.rs`), once both runs ended.
    pub comparison: RwSignal<Option<super::both_ways::Comparison>>,
    /// The latest context each MCP App gave for Claude (`ui/update-model-context`), sent once
    /// with the next message.
    pub app_context: RwSignal<Vec<ModelContext>>,
}

/// How a turn's tool calls reach the MCP servers.
#[derive(Clone)]
pub enum Way {
    /// The page's loop routes every call (the article's loop); the outcome is the conversation's.
    InPage,
    /// A comparison run from `history` (the conversation before the question), the API's MCP
    /// connector calling `servers`; its outcome is not kept.
    Connector { history: Vec<Message>, servers: Vec<ConnectorServer> },
}

impl Conversation {
    pub fn new() -> Self {
        Conversation {
            history: StoredValue::new(Vec::new()),
            binding: StoredValue::new(None),
            cancel: StoredValue::new_local(None),
            last: StoredValue::new(None),
            epoch: StoredValue::new(0),
            running: RwSignal::new(false),
            can_retry: RwSignal::new(false),
            draft: RwSignal::new(String::new()),
            teach_next: RwSignal::new(None),
            comparison: RwSignal::new(None),
            offer_new: RwSignal::new(None),
            app_context: RwSignal::new(Vec::new()),
        }
    }

    pub fn history_len(&self) -> usize {
        self.history.with_value(Vec::len)
    }

    pub fn stop(&self) {
        self.cancel.with_value(|c| {
            if let Some(c) = c {
                c.cancel();
            }
        });
    }

    /// The conversation (a recorded session's, to view or replay).
    pub fn history(&self) -> Vec<protocol::claude::Message> {
        self.history.get_value()
    }

    pub fn set_history(&self, history: Vec<protocol::claude::Message>) {
        self.supersede();
        self.history.set_value(history);
        // A recorded conversation's binding is not known: the API is the judge.
        self.binding.set_value(None);
        self.last.set_value(None);
        self.can_retry.set(false);
    }

    /// Forgets the conversation (the timeline stays until cleared). A turn still running is
    /// stopped, and whatever it finishes with stays out of the new conversation.
    pub fn reset(&self, svc: Services) {
        svc.stop_turn();
        self.supersede();
        self.history.set_value(Vec::new());
        self.binding.set_value(None);
        self.last.set_value(None);
        self.can_retry.set(false);
        self.comparison.set(None);
        self.offer_new.set(None);
        self.app_context.set(Vec::new());
        svc.chat.clear();
    }

    /// A new conversation begins: a turn of the old one writes nothing more.
    fn supersede(&self) {
        self.epoch.update_value(|e| *e += 1);
        self.cancel.set_value(None);
        self.running.set(false);
    }

    /// Whether the conversation a turn began in is still the page's.
    pub(super) fn current(&self, epoch: u64) -> bool {
        self.epoch.get_value() == epoch
    }

    /// Sends the last user message again, from the history as it was before it.
    pub fn retry(&self, svc: Services) {
        if let Some((text, len)) = self.last.get_value() {
            self.history.update_value(|h| h.truncate(len));
            self.run(svc, text);
        }
    }

    /// `text` as the next question, if one can be asked now: not empty, no turn running, the
    /// settings ready (else the chat says what is missing).
    pub(super) fn question(&self, svc: Services, text: &str) -> Option<String> {
        let text = text.trim();
        if text.is_empty() || self.running.get_untracked() {
            return None;
        }
        if let Err(why) = svc.settings.ready() {
            svc.chat.notice(NoticeLevel::Error, why.to_string(), None);
            return None;
        }
        Some(text.to_owned())
    }

    /// New conversation: the turn stops, the apps shown end (each told why), then the
    /// conversation is forgotten.
    pub fn start_anew(&self, svc: Services) {
        svc.stop_turn();
        let conv = *self;
        svc.apps.close_then(NEW, move || conv.reset(svc));
    }

    /// Asks the offered question again in a new conversation.
    pub fn ask_anew(&self, svc: Services) {
        if let Some(text) = self.offer_new.get_untracked() {
            let conv = *self;
            svc.apps.close_then(NEW, move || {
                conv.reset(svc);
                conv.send(svc, text);
            });
        }
    }

    /// Keeps an app's latest context for Claude (replacing its last).
    pub fn keep_app_context(&self, context: ModelContext) {
        self.app_context.update(|all| {
            all.retain(|c| c.app != context.app);
            all.push(context);
        });
    }

    /// Sends a message an MCP App asked to send and the user agreed to (`ui/message`), said
    /// as the app's in the chat; `Err` says why it could not be sent now.
    pub fn send_from_app(&self, svc: Services, app: &str, text: String) -> Result<(), String> {
        if self.running.get_untracked() {
            return Err("A turn is running: the app's message was not sent. Send it again when the turn ends.".into());
        }
        svc.settings.ready().map_err(|why| format!("The app's message was not sent: {why}"))?;
        svc.chat.notice(
            NoticeLevel::Info,
            format!("The next message comes from the MCP App \"{app}\" (ui/message); you agreed to send it."),
            None,
        );
        self.send(svc, text);
        Ok(())
    }

    /// Sends `text` as the user's next message and runs the loop until Claude stops.
    pub fn send(&self, svc: Services, text: String) {
        let Some(text) = self.question(svc, &text) else { return };
        self.last.set_value(Some((text.clone(), self.history_len())));
        self.draft.set(String::new());
        self.run(svc, text);
    }

    fn run(&self, svc: Services, text: String) {
        spawn_local(self.turn(svc, text));
    }

    /// Starts a turn now and returns the rest of it, to await (a replay runs turns in order).
    pub fn turn(&self, svc: Services, text: String) -> impl std::future::Future<Output = ()> + 'static {
        let run = self.turn_with(svc, text, Way::InPage);
        async move {
            run.await;
        }
    }

    /// Starts a turn whose calls go the `way` given; the rest of it says whether Claude ended
    /// the turn itself (false when it failed, was stopped, or its conversation was left).
    pub(super) fn turn_with(
        &self,
        svc: Services,
        text: String,
        way: Way,
    ) -> impl std::future::Future<Output = bool> + 'static {
        let this = *self;
        svc.chat.user(text.clone());
        let keep = matches!(way, Way::InPage);
        this.offer_new.set(None);
        let asked = text.clone();
        let teach = this.teach_next.get_untracked().filter(|_| keep);
        if let Some(teach) = teach {
            this.teach_next.set(None);
            svc.chat.notice(NoticeLevel::Warning, teach.announce(), None);
        }
        let cancel = CancelToken::new();
        let epoch = this.epoch.get_value();
        this.cancel.set_value(Some(cancel.clone()));
        this.running.set(true);
        this.can_retry.set(false);
        let settings = svc.settings.claude();
        let data = svc.settings.data.get_untracked();
        svc.chat.set_demo(data.demo);
        let mut servers = svc.servers.handles();
        let (history, binding, connector) = match way {
            Way::InPage => (this.history.get_value(), this.binding.get_value(), Vec::new()),
            Way::Connector { history, servers: via } => {
                servers.retain(|h| !via.iter().any(|v| v.label == h.label));
                (history, None, via)
            }
        };
        let opening_choice = svc
            .lessons
            .current
            .with_untracked(|l| l.as_ref().and_then(|l| l.opening_choice(svc.lessons.step.get_untracked())));
        // The apps' latest contexts go with this message, once (never with a comparison's).
        let contexts = if keep { this.app_context.try_update(std::mem::take).unwrap_or_default() } else { Vec::new() };
        if !contexts.is_empty() {
            let apps: Vec<&str> = contexts.iter().map(|c| c.app.as_str()).collect();
            svc.chat.notice(
                NoticeLevel::Info,
                format!(
                    "Sent with the context {} gave for Claude (ui/update-model-context): the request in phase 2 shows it as Claude reads it.",
                    apps.join(", ")
                ),
                None,
            );
        }
        let input = TurnInput {
            history,
            message: engine::apps::with_contexts(text, &contexts),
            settings,
            servers,
            cancel,
            max_iterations: data.rounds(),
            consent: svc.consent().with_ask_each(data.ask_before_tools),
            teach,
            binding,
            opening_choice,
            connector,
            epoch,
            keep,
            asked,
        };
        // The rest of the turn is the agent chunk's code (`turn.rs`).
        async move {
            match run_turn(svc, input).await {
                Ok(run) => run.await,
                Err(_) => {
                    if this.current(epoch) {
                        this.cancel.set_value(None);
                        this.can_retry.set(true);
                        svc.chat.notice(NoticeLevel::Error, did_not_arrive("loop's code"), None);
                        this.running.set(false);
                    }
                    false
                }
            }
        }
    }
}

impl Services {
    /// Which calls of the next turn run without asking: while a lesson is open or a recording
    /// is replayed, only those to the servers the user agreed to for it.
    pub fn consent(&self) -> Consent {
        if let Some(title) = self.lessons.current.with_untracked(|l| l.as_ref().map(|l| l.title.clone())) {
            return Consent::agreed(self.lessons.agreed.get_untracked(), Driver::Lesson(title));
        }
        if self.sessions.replaying.get_untracked() {
            return Consent::agreed(self.sessions.replay_agreed.get_untracked(), Driver::Replay);
        }
        // The servers whose destructive tools the user lets run are added where the calls run
        // (the agent chunk's turn, an app's frame): that code is not the first screen's.
        Consent::default()
    }
}
