//! What an app is told of its call, as the call moves on: the arguments as Claude writes them
//! (`ui/notifications/tool-input-partial`, each closed by `partial.rs`, only while the input is
//! not complete, and only when they changed), then the input once, then the result once (or
//! `tool-cancelled` with why there is none). Nothing before the app said it is initialised.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::json;

use super::AppFeed;
use super::host::{AppHost, Stage};
use super::partial;
use crate::platform::Platform;

impl<P: Platform> AppHost<P> {
    /// What is now known of the call: the app is told what is new, once it is initialised.
    pub fn feed(&self, feed: AppFeed) {
        self.state.borrow_mut().known = feed;
        self.deliver();
    }

    /// Tells the app what is known and not yet told, in the specified order.
    pub(super) fn deliver(&self) {
        if self.stage() != Stage::Ready {
            return;
        }
        let (input, partial, result) = {
            let s = self.state.borrow();
            let input = (!s.told.input).then(|| s.known.input.clone()).flatten();
            let partial = match (&input, s.told.input, &s.known.partial) {
                (None, false, Some(text)) => partial::close(text).filter(|p| s.told.partial.as_ref() != Some(p)),
                _ => None,
            };
            let result = (!s.told.result).then(|| s.known.result.clone()).flatten();
            (input, partial, result)
        };
        if let Some(input) = input {
            self.state.borrow_mut().told.input = true;
            self.notify("ui/notifications/tool-input", json!({ "arguments": input }));
        } else if let Some(partial) = partial {
            self.notify("ui/notifications/tool-input-partial", json!({ "arguments": partial }));
            self.state.borrow_mut().told.partial = Some(partial);
        }
        let input_told = self.state.borrow().told.input;
        match result {
            // A result comes after the input it answers.
            Some(Ok(result)) if input_told => {
                self.state.borrow_mut().told.result = true;
                self.notify("ui/notifications/tool-result", result);
            }
            // A call that never ran (cut off, declined, stopped) may have no complete input.
            Some(Err(reason)) => {
                self.state.borrow_mut().told.result = true;
                self.notify("ui/notifications/tool-cancelled", json!({ "reason": reason }));
            }
            Some(Ok(_)) | None => {}
        }
    }
}
