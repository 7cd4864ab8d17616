//! The MCP Apps shown in the chat, so the page can end them properly: whatever clears or
//! replaces the chat (a new conversation, a recording opened or closed, a replay) goes through
//! [`LiveApps::close_then`], which lets the apps end first. How they end — each asked to tear
//! down, all at once, each wait bounded (`engine::apps::AppHost::teardown`) — is the app
//! frames' code (`app_end.rs`, in the explore chunk), installed here by the first frame shown:
//! a page that never showed an app carries none of it.

use leptos::prelude::*;
use std::rc::Rc;

/// Ends every app shown for the reason given, then runs what waited for it.
pub type EndAll = Rc<dyn Fn(&'static str, Box<dyn FnOnce()>)>;

#[derive(Clone, Copy)]
pub struct LiveApps {
    end_all: StoredValue<Option<EndAll>, LocalStorage>,
    /// Apps are being ended: what removes them waits, and says so.
    pub closing: RwSignal<bool>,
}

impl Default for LiveApps {
    fn default() -> Self {
        Self::new()
    }
}

impl LiveApps {
    pub fn new() -> Self {
        LiveApps { end_all: StoredValue::new_local(None), closing: RwSignal::new(false) }
    }

    /// Called by the app frames' code when the first app is shown.
    pub fn install(&self, end_all: EndAll) {
        self.end_all.set_value(Some(end_all));
    }

    /// Runs `then` once every app shown has ended for `why`: at once when none was ever shown.
    pub fn close_then(&self, why: &'static str, then: impl FnOnce() + 'static) {
        match self.end_all.get_value() {
            Some(end_all) => end_all(why, Box::new(then)),
            None => then(),
        }
    }
}
