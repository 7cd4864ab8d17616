//! The limits as Settings → Limits shows them: each in the unit a person thinks in, within
//! bounds that keep the page working, and saved values brought within the same bounds.

use std::fmt;

use super::{Limits, MIB};

/// One limit as Settings shows it: in the unit a person thinks in, within bounds that keep the
/// page working (no limit can be switched off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Setting {
    BodyMib,
    SseEventMib,
    JsonDepth,
    TraceMib,
    FileMib,
    ReconnectFloorMs,
    ReconnectCapS,
    ReconnectsPerMinute,
    AuthStepS,
}

impl Setting {
    pub const ALL: [Setting; 9] = [
        Setting::BodyMib,
        Setting::SseEventMib,
        Setting::JsonDepth,
        Setting::TraceMib,
        Setting::FileMib,
        Setting::ReconnectFloorMs,
        Setting::ReconnectCapS,
        Setting::ReconnectsPerMinute,
        Setting::AuthStepS,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Setting::BodyMib => "limit-body",
            Setting::SseEventMib => "limit-sse",
            Setting::JsonDepth => "limit-depth",
            Setting::TraceMib => "limit-trace",
            Setting::FileMib => "limit-file",
            Setting::ReconnectFloorMs => "limit-floor",
            Setting::ReconnectCapS => "limit-cap",
            Setting::ReconnectsPerMinute => "limit-reconnects",
            Setting::AuthStepS => "limit-auth",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Setting::BodyMib => "Response body (MiB)",
            Setting::SseEventMib => "SSE line or event (MiB)",
            Setting::JsonDepth => "JSON nesting (levels)",
            Setting::TraceMib => "Timeline details kept (MiB)",
            Setting::FileMib => "Lesson or session file (MiB)",
            Setting::ReconnectFloorMs => "Shortest wait before reopening a stream (ms)",
            Setting::ReconnectCapS => "Longest wait between attempts (s)",
            Setting::ReconnectsPerMinute => "Stream reopenings per minute",
            Setting::AuthStepS => "One authorization step (s)",
        }
    }

    /// The bounds a value may take, in the setting's unit.
    pub fn range(self) -> (u64, u64) {
        match self {
            Setting::BodyMib | Setting::SseEventMib | Setting::FileMib => (1, 256),
            Setting::JsonDepth => (8, 120),
            Setting::TraceMib => (4, 512),
            Setting::ReconnectFloorMs => (100, 60_000),
            Setting::ReconnectCapS => (1, 600),
            Setting::ReconnectsPerMinute => (1, 600),
            Setting::AuthStepS => (5, 600),
        }
    }

    pub fn get(self, l: &Limits) -> u64 {
        let mib = |b: usize| (b / MIB) as u64;
        match self {
            Setting::BodyMib => mib(l.body_bytes),
            Setting::SseEventMib => mib(l.sse_event_bytes),
            Setting::JsonDepth => l.json_depth as u64,
            Setting::TraceMib => mib(l.trace_bytes),
            Setting::FileMib => mib(l.file_bytes),
            Setting::ReconnectFloorMs => l.reconnect_floor_ms,
            Setting::ReconnectCapS => l.reconnect_cap_ms / 1000,
            Setting::ReconnectsPerMinute => u64::from(l.reconnects_per_minute),
            Setting::AuthStepS => l.auth_step_ms / 1000,
        }
    }

    /// Sets the limit from what the user typed, brought within its bounds; `false` when it is
    /// not a whole number.
    pub fn set(self, l: &mut Limits, text: &str) -> bool {
        let Ok(n) = text.trim().parse::<u64>() else { return false };
        let (lo, hi) = self.range();
        self.put_raw(l, n.clamp(lo, hi).saturating_mul(self.scale()));
        true
    }

    /// How many of the unit `Limits` keeps (bytes, ms, a count) make one of the setting's unit.
    fn scale(self) -> u64 {
        match self {
            Setting::BodyMib | Setting::SseEventMib | Setting::TraceMib | Setting::FileMib => MIB as u64,
            Setting::ReconnectCapS | Setting::AuthStepS => 1000,
            Setting::JsonDepth | Setting::ReconnectFloorMs | Setting::ReconnectsPerMinute => 1,
        }
    }

    /// The value as `Limits` keeps it.
    fn raw(self, l: &Limits) -> u64 {
        let wide = |n: usize| u64::try_from(n).unwrap_or(u64::MAX);
        match self {
            Setting::BodyMib => wide(l.body_bytes),
            Setting::SseEventMib => wide(l.sse_event_bytes),
            Setting::JsonDepth => wide(l.json_depth),
            Setting::TraceMib => wide(l.trace_bytes),
            Setting::FileMib => wide(l.file_bytes),
            Setting::ReconnectFloorMs => l.reconnect_floor_ms,
            Setting::ReconnectCapS => l.reconnect_cap_ms,
            Setting::ReconnectsPerMinute => u64::from(l.reconnects_per_minute),
            Setting::AuthStepS => l.auth_step_ms,
        }
    }

    /// Writes a value in `Limits`' own unit (already within bounds).
    fn put_raw(self, l: &mut Limits, n: u64) {
        let narrow = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
        match self {
            Setting::BodyMib => l.body_bytes = narrow(n),
            Setting::SseEventMib => l.sse_event_bytes = narrow(n),
            Setting::JsonDepth => l.json_depth = narrow(n),
            Setting::TraceMib => l.trace_bytes = narrow(n),
            Setting::FileMib => l.file_bytes = narrow(n),
            Setting::ReconnectFloorMs => l.reconnect_floor_ms = n,
            Setting::ReconnectCapS => l.reconnect_cap_ms = n,
            Setting::ReconnectsPerMinute => l.reconnects_per_minute = u32::try_from(n).unwrap_or(u32::MAX),
            Setting::AuthStepS => l.auth_step_ms = n,
        }
    }
}

/// A saved value that was outside the bounds Settings enforces, and the bound used instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    /// As Settings labels it.
    pub label: &'static str,
    /// In the setting's unit, rounded down.
    pub saved: u64,
    pub used: u64,
    pub range: (u64, u64),
}

impl fmt::Display for OutOfBounds {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (lo, hi) = self.range;
        write!(f, "{}: {} saved, outside {lo} to {hi}, so {} is used", self.label, self.saved, self.used)
    }
}

impl Limits {
    /// The limits brought within the bounds Settings enforces: saved values are a stranger's
    /// (another page of this origin may have written them), so none is used as written if the
    /// settings screen could not have set it. Each value changed is named.
    pub fn within_bounds(mut self) -> (Limits, Vec<OutOfBounds>) {
        let mut changed = Vec::new();
        for setting in Setting::ALL {
            let (lo, hi) = setting.range();
            let scale = setting.scale();
            let raw = setting.raw(&self);
            let bounded = raw.clamp(lo.saturating_mul(scale), hi.saturating_mul(scale));
            if bounded != raw {
                setting.put_raw(&mut self, bounded);
                changed.push(OutOfBounds {
                    label: setting.label(),
                    saved: raw / scale,
                    used: bounded / scale,
                    range: (lo, hi),
                });
            }
        }
        (self, changed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_and_write_each_limit_within_its_bounds() {
        let mut l = Limits::default();
        for s in Setting::ALL {
            let value = s.get(&l);
            assert!(s.set(&mut l, &value.to_string()), "{s:?}");
            assert_eq!(s.get(&l), value, "{s:?} round trip");
        }
        assert_eq!(l, Limits::default());
        assert!(Setting::BodyMib.set(&mut l, " 0 "));
        assert_eq!(l.body_bytes, MIB, "no limit can be switched off");
        assert!(Setting::JsonDepth.set(&mut l, "100000"));
        assert_eq!(l.json_depth, 120, "serde_json's own recursion limit is 128");
        assert!(!Setting::AuthStepS.set(&mut l, "soon"));
    }
}
