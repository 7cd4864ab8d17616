//! Workshop mode in the page: the faults in force (the engine's `Faults`, shared by every MCP
//! client and the agent; mirrored here only by its own callback, for the views).

use leptos::prelude::*;

use super::Services;
use engine::faults::{Fault, FaultRule, Faults, Target, Times};

#[derive(Clone, Copy)]
pub struct Workshop {
    /// The faults in force, as the engine's `Faults` last reported them.
    pub faults: RwSignal<Vec<FaultRule>>,
}

impl Workshop {
    /// The page's mirror of `faults`.
    pub fn new(faults: &Faults) -> Self {
        let rules = RwSignal::new(faults.rules());
        faults.on_change(move |r| rules.set(r.to_vec()));
        Workshop { faults: rules }
    }
}

impl Services {
    pub fn faults(&self) -> Faults {
        self.runtime(|r| r.faults.clone())
    }

    pub fn add_fault(&self, target: Target, tool: Option<String>, fault: Fault, times: Times) {
        self.faults().add(target, tool, fault, times);
    }

    pub fn remove_fault(&self, id: u32) {
        self.faults().remove(id);
    }
}
