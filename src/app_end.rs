//! The apps shown, and their end (in the explore chunk, with `app_frame.rs`): each frame
//! registers how to end its app; before the chat is cleared or replaced, every app is asked to
//! tear down at once and the page waits for them all, each wait bounded by the engine
//! (`engine::apps::TEARDOWN_MS`), then goes on (`state::LiveApps::close_then`).

use std::cell::RefCell;
use std::rc::Rc;

use futures::future::{LocalBoxFuture, join_all};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::state::LiveApps;

/// Ends one app for the reason given, once it answered or its time ran out.
pub type Close = Rc<dyn Fn(&'static str) -> LocalBoxFuture<'static, ()>>;

thread_local! {
    /// The apps on the page, by the instance number of their lane.
    static OPEN: RefCell<Vec<(u32, Close)>> = const { RefCell::new(Vec::new()) };
    /// What asked to clear the chat while the apps were being ended: run, in order, after.
    static WAITING: RefCell<Vec<Box<dyn FnOnce()>>> = const { RefCell::new(Vec::new()) };
}

/// Registers a frame's app until the frame goes; the first one installs the ending.
pub fn shown(apps: LiveApps, instance: u32, close: Close) {
    OPEN.with(|o| o.borrow_mut().push((instance, close)));
    apps.install(Rc::new(move |why, then| end_all(apps, why, then)));
}

pub fn gone(instance: u32) {
    OPEN.with(|o| o.borrow_mut().retain(|(i, _)| *i != instance));
}

fn end_all(apps: LiveApps, why: &'static str, then: Box<dyn FnOnce()>) {
    let all: Vec<Close> = OPEN.with(|o| o.borrow().iter().map(|(_, c)| c.clone()).collect());
    if all.is_empty() {
        return then();
    }
    // A second removal while the first waits (a recording opened then) goes after it.
    if apps.closing.get_untracked() {
        return WAITING.with(|w| w.borrow_mut().push(then));
    }
    apps.closing.set(true);
    spawn_local(async move {
        join_all(all.iter().map(|close| close(why))).await;
        apps.closing.set(false);
        then();
        for next in WAITING.with(|w| std::mem::take(&mut *w.borrow_mut())) {
            next();
        }
    });
}
