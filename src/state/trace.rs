//! The trace as the page keeps it: every event, the timeline rows built from them, and which
//! row is selected. Appends are coalesced to one re-render per animation frame, so a burst of
//! stream events (or 10,000 of them) costs one redraw. The rows are built by the engine's
//! projection (`Timeline::push`), which comes with the timeline's rows view in the agent chunk
//! (`chunks::timeline_rows`): events kept before it arrives are projected when it does.

use leptos::prelude::*;

use engine::timeline::{BandKey, Row, Timeline};
use engine::trace::TraceEvent;
use engine::trace::budget::{TraceBudget, drop_detail};

/// Builds the timeline's rows from one more event.
pub type Project = fn(&mut Timeline, &TraceEvent);

#[derive(Clone, Copy)]
pub struct Trace {
    events: StoredValue<Vec<TraceEvent>, LocalStorage>,
    timeline: StoredValue<Timeline, LocalStorage>,
    /// The projection, once its chunk is in, and how many events the timeline holds.
    project: StoredValue<Option<Project>, LocalStorage>,
    projected: StoredValue<usize, LocalStorage>,
    frame_pending: StoredValue<bool, LocalStorage>,
    /// The payloads the trace holds, against `Limits::trace_bytes`: past it the oldest go
    /// (each Messages request body holds the whole history so far, and a server may send
    /// anything, so either would otherwise grow without bound).
    budget: StoredValue<TraceBudget, LocalStorage>,
    /// The limit in bytes the last event was counted against (Settings → Limits).
    pub limit: StoredValue<usize, LocalStorage>,
    /// Bumped by `clear`: rows of different traces never share a DOM element.
    generation: StoredValue<u32, LocalStorage>,
    /// Bumped (once per frame at most) when rows change.
    pub version: RwSignal<u64>,
    pub selected: RwSignal<Option<usize>>,
    /// Collapsed phase bands, as (phase, iteration, first row of the turn).
    pub collapsed: RwSignal<Vec<BandKey>>,
    /// Scroll to new rows as they come, until the user scrolls away.
    pub follow: RwSignal<bool>,
}

impl Default for Trace {
    fn default() -> Self {
        Self::new()
    }
}

impl Trace {
    pub fn new() -> Self {
        Trace {
            events: StoredValue::new_local(Vec::new()),
            timeline: StoredValue::new_local(Timeline::new()),
            project: StoredValue::new_local(None),
            projected: StoredValue::new_local(0),
            frame_pending: StoredValue::new_local(false),
            budget: StoredValue::new_local(TraceBudget::default()),
            limit: StoredValue::new_local(engine::limits::Limits::default().trace_bytes),
            generation: StoredValue::new_local(0),
            version: RwSignal::new(0),
            selected: RwSignal::new(None),
            collapsed: RwSignal::new(Vec::new()),
            follow: RwSignal::new(true),
        }
    }

    /// Adds an event, dropping the oldest details past `limit` bytes of them.
    pub fn push(&self, event: TraceEvent, limit: usize) {
        self.limit.set_value(limit);
        let at = self.events.with_value(Vec::len);
        // Projected before the budget may drop its detail.
        if let Some(project) = self.project.get_value().filter(|_| self.projected.get_value() == at) {
            self.timeline.update_value(|t| project(t, &event));
            self.projected.set_value(at + 1);
        }
        let gone = self.budget.try_update_value(|b| b.push(at, &event, limit)).unwrap_or_default();
        self.events.update_value(|e| {
            e.push(event);
            for i in gone {
                if let Some(old) = e.get_mut(i) {
                    drop_detail(&mut old.kind);
                }
            }
        });
        self.redraw();
    }

    /// Builds the rows from here on with `project`, starting with the events kept so far.
    pub fn project_with(&self, project: Project) {
        self.project.set_value(Some(project));
        let from = self.projected.get_value();
        let to = self.events.with_value(|events| {
            self.timeline.update_value(|t| events.get(from..).unwrap_or_default().iter().for_each(|e| project(t, e)));
            events.len()
        });
        if to != from {
            self.projected.set_value(to);
            self.redraw();
        }
    }

    /// Redraws once in the next animation frame, however many changes come before it.
    fn redraw(&self) {
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

    /// The timeline as it is now, without subscribing the caller.
    pub fn with_timeline_untracked<R>(&self, f: impl FnOnce(&Timeline) -> R) -> R {
        self.timeline.with_value(f)
    }

    /// Whether the trace holds no event (subscribing the caller).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many events the trace holds (subscribing the caller).
    pub fn len(&self) -> usize {
        self.version.track();
        self.events.with_value(Vec::len)
    }

    pub fn row(&self, index: usize) -> Option<Row> {
        self.with_timeline(|t| t.rows().get(index).cloned())
    }

    /// Reads every event so far, subscribing the caller to changes.
    pub fn with_events<R>(&self, f: impl FnOnce(&[TraceEvent]) -> R) -> R {
        self.version.track();
        self.events.with_value(|e| f(e))
    }

    /// Reads every event so far without subscribing.
    pub fn with_events_untracked<R>(&self, f: impl FnOnce(&[TraceEvent]) -> R) -> R {
        self.events.with_value(|e| f(e))
    }

    pub fn generation(&self) -> u32 {
        self.generation.get_value()
    }

    pub fn clear(&self) {
        self.generation.update_value(|g| *g += 1);
        self.events.set_value(Vec::new());
        self.budget.update_value(TraceBudget::clear);
        self.timeline.set_value(Timeline::new());
        self.projected.set_value(0);
        self.selected.set(None);
        self.collapsed.set(Vec::new());
        self.follow.set(true);
        self.version.update(|v| *v += 1);
    }
}
