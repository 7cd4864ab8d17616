//! Breakpoints in the page: which are set, the stop the loop (or an app) waits at, with the
//! user's draft of the payload, and the answer that lets it go on. The loop and each app may stop
//! at once: one stop is shown, the others wait in line. The agent and the app's host decide where
//! they stop and check every edit (`engine::agent::pause`); this only holds the page's side.

use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use std::collections::VecDeque;
use std::rc::Rc;

use super::Services;
use engine::agent::{Breakpoint, Pauser, Resume, Stop};

#[derive(Clone, Copy)]
pub struct Pausing {
    /// The breakpoints set (the timeline's phase bands, the Workshop panel).
    pub set: RwSignal<Vec<Breakpoint>>,
    /// Stepping: stop at every phase whether a breakpoint is set or not, until Continue (or the
    /// turn's end). Step (F10) and the chat's Step button turn it on.
    pub step: RwSignal<bool>,
    /// Where the loop waits, if it does.
    pub stop: RwSignal<Option<Stop>>,
    /// The payload as the user is editing it.
    pub draft: RwSignal<String>,
    reply: StoredValue<Option<oneshot::Sender<Resume>>, LocalStorage>,
    /// Stops that came while another was shown, in the order they came.
    waiting: StoredValue<VecDeque<(Stop, oneshot::Sender<Resume>)>, LocalStorage>,
}

impl Default for Pausing {
    fn default() -> Self {
        Self::new()
    }
}

impl Pausing {
    pub fn new() -> Self {
        Pausing {
            set: RwSignal::new(Vec::new()),
            step: RwSignal::new(false),
            stop: RwSignal::new(None),
            draft: RwSignal::new(String::new()),
            reply: StoredValue::new_local(None),
            waiting: StoredValue::new_local(VecDeque::new()),
        }
    }

    pub fn is_set(&self, at: Breakpoint) -> bool {
        self.set.with(|s| s.contains(&at))
    }

    pub fn toggle(&self, at: Breakpoint) {
        self.set.update(|s| {
            if let Some(i) = s.iter().position(|b| *b == at) {
                s.remove(i);
            } else {
                s.push(at);
            }
        });
    }

    fn show(&self, stop: Stop, reply: oneshot::Sender<Resume>) {
        self.reply.set_value(Some(reply));
        self.draft.set(engine::text::pretty(&stop.payload));
        self.stop.set(Some(stop));
    }

    /// Answers the stop shown, and shows the next in line whose loop or app still waits.
    fn answer(&self, how: Resume) {
        self.stop.set(None);
        if let Some(reply) = self.reply.try_update_value(Option::take).flatten() {
            let _ = reply.send(how);
        }
        while let Some((stop, reply)) = self.waiting.try_update_value(VecDeque::pop_front).flatten() {
            if !reply.is_canceled() {
                self.show(stop, reply);
                break;
            }
        }
    }

    /// Lets the loop run on to the next breakpoint that is set (Continue, F8). An app's stop
    /// leaves the loop's stepping as it was.
    pub fn resume(&self, how: Resume) {
        if self.stop.with_untracked(|s| s.as_ref().is_none_or(|s| s.at.in_loop())) {
            self.step.set(false);
        }
        self.answer(how);
    }

    /// Goes on, and stops again at the next phase (Step, F10).
    pub fn step_on(&self, how: Resume) {
        self.step.set(true);
        self.answer(how);
    }

    /// Skips this call, stepping on if stepping.
    pub fn skip(&self) {
        self.answer(Resume::Skip);
    }

    /// The agent's view of the page's breakpoints.
    pub fn pauser(&self) -> Rc<dyn Pauser> {
        Rc::new(PagePauser(*self))
    }
}

struct PagePauser(Pausing);

impl Pauser for PagePauser {
    fn breaks_at(&self, at: Breakpoint) -> bool {
        let p = self.0;
        let stepping = p.step.get_untracked() && at.phase().is_some();
        stepping || p.set.with_untracked(|s| s.contains(&at))
    }

    fn pause(&self, stop: Stop) -> LocalBoxFuture<'static, Resume> {
        let p = self.0;
        let (reply, answer) = oneshot::channel();
        if p.stop.with_untracked(Option::is_some) {
            p.waiting.update_value(|w| w.push_back((stop, reply)));
        } else {
            p.show(stop, reply);
        }
        // Dropped (the page stopped the turn some other way): the loop goes on.
        async move { answer.await.unwrap_or(Resume::Continue) }.boxed_local()
    }
}

impl Services {
    /// Stops the running turn, also when it waits at a breakpoint (shown, or in line: the
    /// stopped loop no longer waits for it, and it is passed over). An app's stop stays: the
    /// turn is not the app's.
    pub fn stop_turn(&self) {
        self.conversation.stop();
        let p = self.pausing;
        if p.stop.with_untracked(|s| s.as_ref().is_some_and(|s| s.at.in_loop())) {
            p.resume(Resume::Stop);
        }
        p.step.set(false);
    }

    /// Ends the stop shown the way its banner's stop button says: the turn, or the app.
    pub fn stop_here(&self) {
        match self.pausing.stop.with_untracked(|s| s.as_ref().map(|s| s.at.in_loop())) {
            Some(false) => self.pausing.resume(Resume::Stop),
            _ => self.stop_turn(),
        }
    }
}
