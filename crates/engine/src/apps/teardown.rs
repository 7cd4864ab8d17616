//! An app's end, when the page removes it (a new conversation, a recording opened in its
//! place) or the app asks to be closed (`ui/notifications/request-teardown`): the host sends
//! `ui/resource-teardown` and waits for the app's answer, so it can save its state, for at most
//! a bounded time; then the app is stopped and its frame removed. An app that never said it is
//! initialised is sent nothing (the host may not speak to it yet) and is removed at once.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::{Either, select};
use serde_json::json;

use super::host::{AppHost, Effect, Stage};
use crate::platform::Platform;
use protocol::jsonrpc::{ErrorCode, ErrorObject, Message, RequestId};

/// How long the host waits for an app to answer `ui/resource-teardown` before removing it
/// anyway.
pub const TEARDOWN_MS: u64 = 2_000;

/// The host's one request of its own: its id, and who waits for the answer.
pub(super) struct Closing {
    id: RequestId,
    answered: Option<oneshot::Sender<()>>,
}

impl<P: Platform> AppHost<P> {
    /// Ends the app for `why`: asks it to tear down and waits for its answer (at most
    /// `within_ms`), then stops it (`Effect::Closed`). `None` when it had already stopped or is being closed.
    pub async fn teardown(&self, why: &str, within_ms: u64) -> Option<Effect> {
        match self.stage() {
            Stage::Stopped | Stage::Closing => return None,
            Stage::Ready => {}
            Stage::Proxy | Stage::Resource | Stage::Initializing => {
                let said = format!("{why} It had not initialised, so no ui/resource-teardown was sent.");
                self.end(&said);
                return Some(Effect::Closed(said));
            }
        }
        let id = RequestId::String("loopscope-teardown".into());
        let (tell, told) = oneshot::channel();
        self.state.borrow_mut().closing = Some(Closing { id: id.clone(), answered: Some(tell) });
        self.set_stage(Stage::Closing);
        self.send(Message::request(id, "ui/resource-teardown", Some(json!({ "reason": why }))));
        let waited = self.client.platform().sleep(within_ms).boxed_local();
        if let Either::Right(_) = select(told, waited).await {
            let secs = crate::num::shortest(within_ms as f64 / 1000.0);
            self.tracer.note(self.peer.clone(), format!("did not answer ui/resource-teardown within {secs} s"));
        }
        self.end(why);
        Some(Effect::Closed(why.to_owned()))
    }

    /// A message that came while the app is being closed: the answer to the teardown ends the
    /// wait; a request is refused, saying why; anything else is not read.
    pub(super) fn while_closing(&self, message: Message) {
        let answered = |id: &RequestId| {
            let mut s = self.state.borrow_mut();
            let closing = s.closing.as_mut().filter(|c| &c.id == id)?;
            closing.answered.take()
        };
        match message {
            Message::Response { id, .. } | Message::Error { id: Some(id), .. } => {
                if let Some(tell) = answered(&id) {
                    let _ = tell.send(());
                }
            }
            Message::Request { id, method, .. } => {
                let why = format!("{method} came while the app is being closed: Loopscope does not answer it.");
                self.send(Message::Error { id: Some(id), error: ErrorObject::new(ErrorCode(-32000), why) });
            }
            Message::Notification { method, .. } => {
                self.tracer.note(self.peer.clone(), format!("ignored: {method} came while the app is being closed"));
            }
            Message::Error { id: None, .. } => {}
        }
    }
}
