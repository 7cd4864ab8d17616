//! Tasks that belong to what started them. A component that starts a request (a tool call from
//! its card, a token count, a prompt) hands it to [`spawn_owned`]: when the component goes (its
//! server removed, its list reloaded) the task is dropped at its next await, and with it the
//! request's fetch (the platform aborts a dropped fetch). Nothing then writes into the signals
//! of a view that no longer exists. Services that live as long as the page keep `spawn_local`.

use std::future::Future;

use futures::future::{AbortHandle, Abortable, LocalBoxFuture};
use leptos::prelude::on_cleanup;
use leptos::task::spawn_local;

/// Runs `task` until it ends or the current reactive owner is cleaned up, whichever is first.
pub fn spawn_owned(task: impl Future<Output = ()> + 'static) {
    spawn_boxed(Box::pin(task));
}

/// One copy of the abortable wrapper for every caller (generic, it was one per call site).
fn spawn_boxed(task: LocalBoxFuture<'static, ()>) {
    let (handle, registration) = AbortHandle::new_pair();
    on_cleanup(move || handle.abort());
    spawn_local(async move {
        // Aborted means its owner is gone: there is nobody left to tell.
        let _ = Abortable::new(task, registration).await;
    });
}
