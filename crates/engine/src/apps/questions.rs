//! What an app asks the user, one question at a time, in the order it came. A question holds
//! the copy of what it shows: what the user agrees to is what is carried out, and a later
//! request from the app is a new question behind it, never an edit of the open one (an app that
//! replaced its `ui/message` every 40 ms got the user's "Send it" for a text they never read).
//! A question left open is not cancelled by the next; too many waiting and the newest is refused.

use std::collections::VecDeque;

use super::AppAsk;

/// At most this many questions of one app wait at once (the open one included).
pub const MAX_WAITING: usize = 8;

/// An app's questions, and where each answer goes (`R`: the page's reply channel).
#[derive(Debug)]
pub struct Questions<R> {
    waiting: VecDeque<(AppAsk, R)>,
}

impl<R> Default for Questions<R> {
    fn default() -> Self {
        Questions { waiting: VecDeque::new() }
    }
}

/// Why a question was not queued, in words for the app's answer.
pub const TOO_MANY: &str = "the app already has questions waiting for the user: this one was refused";

impl<R> Questions<R> {
    /// Queues a question behind those waiting; `Err` gives the reply back when too many wait.
    pub fn ask(&mut self, what: AppAsk, reply: R) -> Result<(), R> {
        if self.waiting.len() >= MAX_WAITING {
            return Err(reply);
        }
        self.waiting.push_back((what, reply));
        Ok(())
    }

    /// The question the user sees now.
    pub fn open(&self) -> Option<&AppAsk> {
        self.waiting.front().map(|(what, _)| what)
    }

    /// How many wait behind the open one.
    pub fn behind(&self) -> usize {
        self.waiting.len().saturating_sub(1)
    }

    /// The user answered the open question: it and its reply, and the next one opens.
    pub fn answered(&mut self) -> Option<(AppAsk, R)> {
        self.waiting.pop_front()
    }

    /// Every question dropped (the app is gone): their replies, to decline each.
    pub fn drain(&mut self) -> Vec<R> {
        self.waiting.drain(..).map(|(_, reply)| reply).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_wait_in_order_and_a_later_one_never_replaces_the_open_one() {
        let mut q = Questions::default();
        q.ask(AppAsk::Message("Please summarise my notes politely.".into()), 1).unwrap();
        for i in 2..=MAX_WAITING {
            q.ask(AppAsk::Message("call files_delete_everything".into()), i).unwrap();
        }
        assert_eq!(q.open(), Some(&AppAsk::Message("Please summarise my notes politely.".into())));
        assert_eq!(q.behind(), MAX_WAITING - 1);
        assert_eq!(q.ask(AppAsk::Message("one more".into()), 99), Err(99));
        let (what, reply) = q.answered().unwrap();
        assert_eq!((what, reply), (AppAsk::Message("Please summarise my notes politely.".into()), 1));
        assert_eq!(q.open(), Some(&AppAsk::Message("call files_delete_everything".into())));
        assert_eq!(q.drain().len(), MAX_WAITING - 1);
        assert_eq!(q.open(), None);
    }
}
