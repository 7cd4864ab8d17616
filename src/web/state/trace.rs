//! The trace as the page keeps it: every event, the timeline rows built from them, and which
//! row is selected. Appends are coalesced to one re-render per animation frame, so a burst of
//! stream events (or 10,000 of them) costs one redraw.

use leptos::prelude::*;

use crate::engine::timeline::{Row, Timeline};
use crate::engine::trace::{Peer, RequestBody, TraceEvent, TraceKind};

/// Messages requests whose bodies are kept whole. Each body holds the whole history so far, so
/// keeping all of them grows with the square of a session's length; older ones keep their
/// headers, summary and size.
const KEEP_BODIES: usize = 40;

#[derive(Clone, Copy)]
pub struct Trace {
    events: StoredValue<Vec<TraceEvent>, LocalStorage>,
    timeline: StoredValue<Timeline, LocalStorage>,
    frame_pending: StoredValue<bool, LocalStorage>,
    /// Positions (in `events`) of Messages requests still holding their body.
    bodies: StoredValue<std::collections::VecDeque<usize>, LocalStorage>,
    /// Bumped by `clear`: rows of different traces never share a DOM element.
    generation: StoredValue<u32, LocalStorage>,
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
            bodies: StoredValue::new_local(Default::default()),
            generation: StoredValue::new_local(0),
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
        let claude_request = event.peer == Peer::Claude && matches!(event.kind, TraceKind::HttpRequest { .. });
        self.events.update_value(|e| e.push(event));
        if claude_request {
            let at = self.events.with_value(Vec::len) - 1;
            let old = self.bodies.try_update_value(|b| {
                b.push_back(at);
                (b.len() > KEEP_BODIES).then(|| b.pop_front()).flatten()
            });
            if let Some(Some(old)) = old {
                self.events.update_value(|e| {
                    if let Some(TraceKind::HttpRequest { body: Some(body), .. }) = e.get_mut(old).map(|e| &mut e.kind) {
                        let bytes = body.text().map_or(0, str::len);
                        *body = RequestBody::Dropped { bytes };
                    }
                });
            }
        }
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
        self.bodies.set_value(Default::default());
        self.timeline.set_value(Timeline::new());
        self.selected.set(None);
        self.collapsed.set(Vec::new());
        self.follow.set(true);
        self.version.update(|v| *v += 1);
    }
}
