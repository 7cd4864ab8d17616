//! Cancellation the user can trigger: one token per agent turn (or per manual call), checked by
//! every request it covers. Single-threaded, like the rest of the engine.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

#[derive(Default)]
struct Inner {
    cancelled: bool,
    wakers: Vec<Waker>,
}

/// A cheap, clonable handle; all clones see the same state.
#[derive(Clone, Default)]
pub struct CancelToken(Rc<RefCell<Inner>>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        let wakers = {
            let mut inner = self.0.borrow_mut();
            inner.cancelled = true;
            std::mem::take(&mut inner.wakers)
        };
        for w in wakers {
            w.wake();
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.borrow().cancelled
    }

    /// Resolves once `cancel` has been called (at once if it already was).
    pub fn cancelled(&self) -> Cancelled {
        Cancelled(self.clone())
    }
}

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CancelToken(cancelled: {})", self.is_cancelled())
    }
}

pub struct Cancelled(CancelToken);

impl Future for Cancelled {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut inner = (self.0).0.borrow_mut();
        if inner.cancelled {
            Poll::Ready(())
        } else {
            if !inner.wakers.iter().any(|w| w.will_wake(cx.waker())) {
                inner.wakers.push(cx.waker().clone());
            }
            Poll::Pending
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[test]
    fn clones_share_state_and_wake_waiters() {
        let token = CancelToken::new();
        let mut waiting = token.cancelled();
        assert!((&mut waiting).now_or_never().is_none());
        token.clone().cancel();
        assert!(waiting.now_or_never().is_some());
        assert!(token.cancelled().now_or_never().is_some());
    }
}
