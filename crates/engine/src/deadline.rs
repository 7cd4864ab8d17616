//! A timeout that can move: progress notifications push it back up to a hard maximum (C-19),
//! and it stands still while the user answers a server's question (elicitation, sampling).

use std::cell::Cell;
use std::rc::Rc;

use super::platform::Platform;

#[derive(Clone)]
pub struct Deadline(Rc<State>);

struct State {
    started_ms: Cell<f64>,
    step_ms: f64,
    hard_max_ms: f64,
    until_ms: Cell<f64>,
    paused: Cell<u32>,
}

impl Deadline {
    /// Expires `step_ms` from now unless extended; never later than `hard_max_ms` after now.
    pub fn new(now_ms: f64, step_ms: u64, hard_max_ms: u64) -> Self {
        let step = step_ms as f64;
        let hard = (hard_max_ms as f64).max(step);
        Self(Rc::new(State {
            started_ms: Cell::new(now_ms),
            step_ms: step,
            hard_max_ms: hard,
            until_ms: Cell::new(now_ms + step),
            paused: Cell::new(0),
        }))
    }

    /// Progress arrived: give the request another full step, within the hard maximum.
    pub fn extend(&self, now_ms: f64) {
        let s = &self.0;
        let until = (now_ms + s.step_ms).min(s.started_ms.get() + s.hard_max_ms);
        s.until_ms.set(s.until_ms.get().max(until));
    }

    /// Stops the clock while the user answers a server; [`PauseGuard::resume`] restarts it with
    /// a full step, and the hard maximum does not count the time the user spent.
    pub fn pause(&self, now_ms: f64) -> PauseGuard {
        self.0.paused.set(self.0.paused.get() + 1);
        PauseGuard { deadline: self.clone(), since_ms: now_ms }
    }

    /// How long the request may still take, in ms (0 when expired).
    pub fn remaining_ms(&self, now_ms: f64) -> f64 {
        (self.0.until_ms.get() - now_ms).max(0.0)
    }

    /// Milliseconds between the start and now.
    pub fn elapsed_ms(&self, now_ms: f64) -> f64 {
        now_ms - self.0.started_ms.get()
    }

    /// Resolves when the deadline passes (re-checking after every extension or pause).
    pub async fn expired<P: Platform>(&self, platform: &P) {
        loop {
            if self.0.paused.get() > 0 {
                platform.sleep(200).await;
                continue;
            }
            let left = self.remaining_ms(platform.now_ms());
            if left <= 0.0 {
                return;
            }
            platform.sleep(left.ceil() as u64).await;
        }
    }
}

pub struct PauseGuard {
    deadline: Deadline,
    since_ms: f64,
}

impl PauseGuard {
    /// Ends the pause at `now_ms`.
    pub fn resume(self, now_ms: f64) {
        let s = &self.deadline.0;
        s.started_ms.set(s.started_ms.get() + (now_ms - self.since_ms).max(0.0));
        s.until_ms.set(now_ms + s.step_ms);
    }
}

impl Drop for PauseGuard {
    fn drop(&mut self) {
        let s = &self.deadline.0;
        s.paused.set(s.paused.get().saturating_sub(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_extends_up_to_the_hard_maximum_c19() {
        let d = Deadline::new(0.0, 1_000, 2_500);
        assert_eq!(d.remaining_ms(0.0), 1_000.0);
        d.extend(900.0);
        assert_eq!(d.remaining_ms(900.0), 1_000.0);
        d.extend(1_800.0);
        // 1_800 + 1_000 would pass the hard maximum of 2_500.
        assert_eq!(d.remaining_ms(1_800.0), 700.0);
        assert_eq!(d.remaining_ms(3_000.0), 0.0);
    }

    #[test]
    fn pausing_restarts_the_step() {
        let d = Deadline::new(0.0, 1_000, 1_500);
        let guard = d.pause(500.0);
        guard.resume(5_000.0);
        assert_eq!(d.remaining_ms(5_000.0), 1_000.0);
        // The 4.5 s pause does not count against the hard maximum either.
        d.extend(5_900.0);
        assert_eq!(d.remaining_ms(5_900.0), 100.0);
    }
}
