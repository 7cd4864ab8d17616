//! The trace as the page keeps it: every event, the timeline rows built from them, and which
//! row is selected. Appends are coalesced to one re-render per animation frame, so a burst of
//! stream events (or 10,000 of them) costs one redraw.

use leptos::prelude::*;

use crate::engine::timeline::{Row, Timeline};
use crate::engine::trace::TraceEvent;

#[derive(Clone, Copy)]
pub struct Trace {
    events: StoredValue<Vec<TraceEvent>, LocalStorage>,
    timeline: StoredValue<Timeline, LocalStorage>,
    frame_pending: StoredValue<bool, LocalStorage>,
    /// Bumped (once per frame at most) when rows change.
    pub version: RwSignal<u64>,
    pub selected: RwSignal<Option<usize>>,
    /// Collapsed phase bands, as (phase, iteration, first row of the turn).
    pub collapsed: RwSignal<Vec<(u8, u32, usize)>>,
    /// Scroll to new rows as they come, until the user scrolls away.
    pub follow: RwSignal<bool>,
}

impl Trace {
    pub fn new() -> Self {
        Trace {
            events: StoredValue::new_local(Vec::new()),
            timeline: StoredValue::new_local(Timeline::new()),
            frame_pending: StoredValue::new_local(false),
            version: RwSignal::new(0),
            selected: RwSignal::new(None),
            collapsed: RwSignal::new(Vec::new()),
            follow: RwSignal::new(true),
        }
    }

    pub fn push(&self, event: TraceEvent) {
        self.timeline.update_value(|t| {
            t.push(&event);
        });
        self.events.update_value(|e| e.push(event));
        if !self.frame_pending.get_value() {
            self.frame_pending.set_value(true);
            let this = *self;
            request_animation_frame(move || {
                this.frame_pending.set_value(false);
                this.version.update(|v| *v += 1);
            });
        }
    }

    /// Reads the timeline, subscribing the caller to changes.
    pub fn with_timeline<R>(&self, f: impl FnOnce(&Timeline) -> R) -> R {
        self.version.track();
        self.timeline.with_value(f)
    }

    pub fn row(&self, index: usize) -> Option<Row> {
        self.with_timeline(|t| t.rows().get(index).cloned())
    }

    /// Reads every event so far, subscribing the caller to changes.
    pub fn with_events<R>(&self, f: impl FnOnce(&[TraceEvent]) -> R) -> R {
        self.version.track();
        self.events.with_value(|e| f(e))
    }

    pub fn clear(&self) {
        self.events.set_value(Vec::new());
        self.timeline.set_value(Timeline::new());
        self.selected.set(None);
        self.collapsed.set(Vec::new());
        self.follow.set(true);
        self.version.update(|v| *v += 1);
    }
}
