//! Recorded sessions in the page: export (a JSON file with no key, header value or token),
//! import (shown read-only, with no key and no network), and replay (the same user messages
//! against the live servers and model, compared turn by turn with the recording).

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::Services;
use engine::session::{SESSION_VERSION, Session, SessionServer, TranscriptItem, TurnDiff, compare, turns};
use engine::trace::TraceEvent;
use protocol::claude::Message;

/// A recorded session the page is showing instead of its own.
#[derive(Clone, Debug, PartialEq)]
pub struct Viewing {
    pub exported_at_ms: f64,
    pub turns: usize,
    /// The recording's server names, by the ids its trace uses.
    pub names: Vec<(String, String)>,
}

#[derive(Clone, Copy)]
pub struct Sessions {
    pub viewing: RwSignal<Option<Viewing>>,
    /// The recording being viewed (or replayed).
    recorded: StoredValue<Option<Session>>,
    /// A replay's comparison, turn by turn, once it is done.
    pub comparison: RwSignal<Option<Vec<TurnDiff>>>,
    pub replaying: RwSignal<bool>,
    /// While a replay runs: the user's servers the recording names (by address), whose calls
    /// run without asking; calls to any other server wait for approval.
    pub replay_agreed: RwSignal<Vec<String>>,
    /// Why the last import failed.
    pub problem: RwSignal<Option<String>>,
    /// The page's own conversation, set aside while a recording is shown in its place.
    own: StoredValue<Option<Own>>,
}

/// What a recording shown read-only sets aside, to give back when it is closed.
struct Own {
    transcript: Vec<TranscriptItem>,
    conversation: Vec<Message>,
    trace: Vec<TraceEvent>,
}

impl Sessions {
    pub fn new() -> Self {
        Sessions {
            viewing: RwSignal::new(None),
            recorded: StoredValue::new(None),
            comparison: RwSignal::new(None),
            replaying: RwSignal::new(false),
            replay_agreed: RwSignal::new(Vec::new()),
            problem: RwSignal::new(None),
            own: StoredValue::new(None),
        }
    }
}

impl Sessions {
    /// Whether the page's own conversation (with anything in it) is set aside.
    pub fn has_own(&self) -> bool {
        self.own.with_value(|o| o.as_ref().is_some_and(|o| !o.transcript.is_empty()))
    }
}

impl Default for Sessions {
    fn default() -> Self {
        Self::new()
    }
}

impl Services {
    /// The server names the timeline's lanes use: the recording's while one is viewed.
    pub fn lane_names(&self) -> Vec<(String, String)> {
        match self.sessions.viewing.with(|v| v.as_ref().map(|v| v.names.clone())) {
            Some(names) => names,
            None => self.servers.names(),
        }
    }

    /// This session as a file.
    pub fn session(&self) -> Session {
        let servers = self.servers.list.with_untracked(|l| {
            l.iter()
                .map(|s| SessionServer {
                    id: s.id.clone(),
                    url: s.url.clone(),
                    label: s.label_untracked(),
                    header_names: s.data.with_untracked(|d| d.header_names.clone()),
                    revision: s.data.with_untracked(|d| engine::saved::pin_of(d.revision)),
                })
                .collect()
        });
        Session {
            loopscope_session: SESSION_VERSION,
            app_version: env!("CARGO_PKG_VERSION").into(),
            exported_at_ms: self.now_ms(),
            settings: self.settings.data.get_untracked(),
            servers,
            conversation: self.conversation.history(),
            transcript: self.chat.transcript(),
            trace: self.trace.with_events_untracked(<[_]>::to_vec),
        }
    }

    pub fn export_session(&self) {
        let session = self.session();
        let text = self.runtime(|r| session.to_json(&r.tracer));
        let (stamp, _) = engine::time::format_iso(session.exported_at_ms, 0);
        let stamp: String = stamp.chars().filter(char::is_ascii_digit).take(12).collect();
        crate::save_file::save_file(&format!("loopscope-session-{stamp}.json"), text.as_bytes(), "application/json");
    }

    /// Shows a recorded session read-only, in place of this one.
    pub fn import_session(&self, text: &str) {
        let limits = self.settings.data.with_untracked(|d| d.limits);
        let session = match Session::from_json(text, &limits) {
            Ok(s) => s,
            Err(e) => {
                self.sessions.problem.set(Some(format!("That file cannot be opened: {e}.")));
                return;
            }
        };
        self.sessions.problem.set(None);
        self.stop_turn();
        let svc = *self;
        self.apps.close_then("A recorded session was opened in its place.", move || svc.view_session(session));
    }

    fn view_session(&self, session: Session) {
        if self.sessions.viewing.with_untracked(Option::is_none) {
            // Set the page's own conversation aside (a stopped turn's calls already say so).
            self.sessions.own.set_value(Some(Own {
                transcript: self.chat.transcript(),
                conversation: self.conversation.history(),
                trace: self.trace.with_events_untracked(<[_]>::to_vec),
            }));
        }
        self.show(&session.transcript, session.conversation.clone(), &session.trace);
        let names =
            session.servers.iter().map(|s| (s.id.clone(), engine::mcp::display_name(&s.label, &s.url))).collect();
        self.sessions.viewing.set(Some(Viewing {
            exported_at_ms: session.exported_at_ms,
            turns: turns(&session.trace).len(),
            names,
        }));
        self.sessions.comparison.set(None);
        self.sessions.recorded.set_value(Some(session));
    }

    /// Puts a chat, a history and a trace on the page in place of what is there.
    fn show(&self, transcript: &[TranscriptItem], conversation: Vec<Message>, trace: &[TraceEvent]) {
        self.trace.clear();
        for event in trace {
            self.trace.push(event.clone(), self.settings.data.with_untracked(|d| d.limits.trace_bytes));
        }
        self.chat.load(transcript);
        self.conversation.set_history(conversation);
    }

    /// Back to the page's own conversation, as it was when the recording was opened.
    pub fn close_session(&self) {
        let svc = *self;
        self.apps.close_then("The recorded session was closed.", move || svc.leave_session());
    }

    fn leave_session(&self) {
        self.sessions.viewing.set(None);
        self.sessions.comparison.set(None);
        match self.sessions.own.try_update_value(Option::take).flatten() {
            Some(own) => self.show(&own.transcript, own.conversation, &own.trace),
            None => {
                self.trace.clear();
                self.conversation.reset(*self);
            }
        }
    }

    /// Runs the recording's user messages again, in order, against the live servers and model,
    /// then compares the two turn by turn.
    pub fn replay_session(&self) {
        let Some(recorded) = self.sessions.recorded.get_value() else { return };
        if let Err(why) = self.settings.ready() {
            self.sessions.problem.set(Some(why.to_string()));
            return;
        }
        let svc = *self;
        self.apps.close_then("A replay of a recorded session began.", move || svc.start_replay(recorded));
    }

    fn start_replay(&self, recorded: Session) {
        let svc = *self;
        let before = turns(&recorded.trace);
        // The recording's messages are a stranger's: its calls may reach, without asking, only
        // the servers it names that are in the list.
        let agreed = self.replay_agreed().into_iter().map(|(id, _)| id).collect();
        self.sessions.replay_agreed.set(agreed);
        self.sessions.viewing.set(None);
        self.sessions.problem.set(None);
        self.sessions.own.set_value(None);
        self.trace.clear();
        self.conversation.reset(svc);
        self.sessions.replaying.set(true);
        spawn_local(async move {
            for turn in &before {
                svc.conversation.turn(svc, turn.user.clone()).await;
            }
            let after = svc.trace.with_events_untracked(turns);
            svc.sessions.comparison.set(Some(compare(&before, &after)));
            svc.sessions.replaying.set(false);
            svc.sessions.replay_agreed.set(Vec::new());
        });
    }

    /// The user's servers (id, name) the recording being viewed names by address: what a replay
    /// may call without asking.
    fn replay_agreed(&self) -> Vec<(String, String)> {
        let named: Vec<String> =
            self.sessions.recorded.with_value(|r| r.iter().flat_map(|r| &r.servers).map(|s| s.url.clone()).collect());
        self.servers.list.with_untracked(|l| {
            l.iter().filter(|s| named.contains(&s.url)).map(|s| (s.id.clone(), s.name_untracked())).collect()
        })
    }

    /// Their names, for the banner.
    pub fn replay_agreed_names(&self) -> Vec<String> {
        self.replay_agreed().into_iter().map(|(_, name)| name).collect()
    }

    /// When the recording was made, in the page's words.
    pub fn recorded_when(&self, at_ms: f64) -> String {
        let offset = -(js_sys::Date::new_0().get_timezone_offset() as i64);
        let (iso, _) = engine::time::format_iso(at_ms, offset);
        iso.replace('T', " ").chars().take(16).collect()
    }
}
