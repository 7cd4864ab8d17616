//! Every limit on what a stranger can make the page hold or do, in one place (docs/security.md).
//!
//! A server, an authorization server, a lesson or a session file decides how much it sends; the
//! page decides how much it reads. Each limit is enforced while the input arrives (a body is
//! refused at the byte that crosses the limit, not after it was all read), ends in an error that
//! names the limit, its layer and what to change, and is the user's to raise in Settings. The
//! defaults come from what real servers send (docs/security.md, "Limits").

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use std::fmt;

use super::layer::Layer;
use super::platform::{Body, NetworkError};

mod listing;
mod setting;
pub use listing::{LISTING_ITEMS, LISTING_PAGES, ListingBudget};
pub use setting::{OutOfBounds, Setting};

pub(crate) const MIB: usize = 1024 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Limits {
    /// One HTTP response body read whole: a JSON-RPC answer, a metadata document, an error body.
    pub body_bytes: usize,
    /// One SSE line, and one SSE event's data (a line may carry a whole JSON-RPC message).
    pub sse_event_bytes: usize,
    /// How deeply JSON from outside may nest (arrays and objects).
    pub json_depth: usize,
    /// What the trace may hold of bodies and payloads before the oldest details are dropped.
    pub trace_bytes: usize,
    /// A lesson or session file opened from a link or from disk.
    pub file_bytes: usize,
    /// The shortest wait before a server's stream is opened again, whatever its `retry:` says.
    pub reconnect_floor_ms: u64,
    /// The longest wait between two attempts.
    pub reconnect_cap_ms: u64,
    /// Reopenings of a server's stream in one minute before the page stops listening to it.
    pub reconnects_per_minute: u32,
    /// The longest one authorization step may take (a metadata fetch, a registration, a token
    /// request) before it fails with its name.
    pub auth_step_ms: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_bytes: 16 * MIB,
            sse_event_bytes: 16 * MIB,
            json_depth: 64,
            trace_bytes: 48 * MIB,
            file_bytes: 16 * MIB,
            reconnect_floor_ms: 500,
            reconnect_cap_ms: 30_000,
            reconnects_per_minute: 20,
            auth_step_ms: 30_000,
        }
    }
}

/// Which limit was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Limit {
    Body,
    SseLine,
    SseEvent,
    JsonDepth,
    File,
    Reconnects,
    AuthStep,
    /// One paginated listing: its pages, its items, and its bytes over all pages (`listing.rs`).
    ListingPages,
    ListingItems,
    ListingBytes,
}

impl Limit {
    /// What the limit is about, as Settings names it.
    pub fn name(self) -> &'static str {
        match self {
            Limit::Body => "response body size",
            Limit::SseLine => "SSE line size",
            Limit::SseEvent => "SSE event size",
            Limit::JsonDepth => "JSON nesting depth",
            Limit::File => "file size",
            Limit::Reconnects => "stream reopenings per minute",
            Limit::AuthStep => "time for one authorization step",
            Limit::ListingPages => "pages in one listing",
            Limit::ListingItems => "items in one listing",
            Limit::ListingBytes => "size of one listing, all its pages together",
        }
    }

    /// The layer a limit belongs to.
    pub fn layer(self) -> Layer {
        match self {
            Limit::Body | Limit::SseLine | Limit::SseEvent | Limit::File => Layer::Http,
            Limit::JsonDepth => Layer::Decode,
            Limit::Reconnects | Limit::ListingPages | Limit::ListingItems | Limit::ListingBytes => Layer::Protocol,
            Limit::AuthStep => Layer::Timeout,
        }
    }

    fn unit(self) -> Unit {
        match self {
            Limit::Body | Limit::SseLine | Limit::SseEvent | Limit::File | Limit::ListingBytes => Unit::Bytes,
            Limit::JsonDepth => Unit::Levels,
            Limit::Reconnects => Unit::Times,
            Limit::AuthStep => Unit::Millis,
            Limit::ListingPages => Unit::Pages,
            Limit::ListingItems => Unit::Items,
        }
    }
}

enum Unit {
    Bytes,
    Pages,
    Items,
    Levels,
    Times,
    Millis,
}

/// A limit reached: which one, at what value. The page stopped there, and nothing past it was
/// kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitExceeded {
    pub limit: Limit,
    pub max: u64,
}

impl LimitExceeded {
    pub fn new(limit: Limit, max: impl TryInto<u64>) -> Self {
        LimitExceeded { limit, max: max.try_into().unwrap_or(u64::MAX) }
    }

    pub fn hint(&self) -> String {
        match self.limit {
            Limit::ListingPages | Limit::ListingItems => format!(
                "A listing may have at most {LISTING_PAGES} pages and {LISTING_ITEMS} items, whatever the settings: \
                 far more than Claude could use. The server is misbehaving; nothing of this listing was kept, and the \
                 rest of the page goes on."
            ),
            Limit::ListingBytes => "A whole listing may be as large as one response body: if the server really lists \
                 that much, raise the response body size in Settings → Limits; otherwise it is misbehaving. Nothing of \
                 this listing was kept, and the rest of the page goes on."
                .to_owned(),
            _ => format!(
                "If it really sends that much, raise the {} in Settings → Limits; otherwise it is misbehaving. Nothing \
                 past the limit was kept, and the rest of the page goes on.",
                self.limit.name()
            ),
        }
    }
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let max = match self.limit.unit() {
            Unit::Bytes => bytes(self.max),
            Unit::Levels => format!("{} levels", self.max),
            Unit::Times => format!("{} times", self.max),
            Unit::Millis => format!("{} s", self.max / 1000),
            Unit::Pages => format!("{} pages", self.max),
            Unit::Items => format!("{} items", self.max),
        };
        let stopped = match self.limit {
            Limit::Reconnects => "the page stopped listening",
            Limit::AuthStep => "the page stopped waiting",
            Limit::ListingPages | Limit::ListingItems | Limit::ListingBytes => "the page asked for no more pages",
            _ => "the page stopped reading there",
        };
        write!(f, "limit reached: {} ({max}); {stopped}", self.limit.name())
    }
}

impl std::error::Error for LimitExceeded {}

/// A size in words: "16 MiB", "512 KiB", "900 bytes".
pub fn bytes(n: u64) -> String {
    const K: u64 = 1024;
    match n {
        n if n >= K * K && n % (K * K) == 0 => format!("{} MiB", n / (K * K)),
        n if n >= K * K => format!("{}.{} MiB", n / (K * K), n % (K * K) * 10 / (K * K)),
        n if n >= K => format!("{} KiB", n / K),
        n => format!("{n} bytes"),
    }
}

/// Reading a body stopped: the network broke, or the body passed the limit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyError {
    Network(NetworkError),
    TooBig(LimitExceeded),
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::Network(e) => e.fmt(f),
            BodyError::TooBig(e) => e.fmt(f),
        }
    }
}

/// Reads a whole body, refusing it at the chunk that would take it past `max` bytes (the
/// stream is dropped there, which aborts the request). Never holds more than `max` bytes.
pub async fn read_bytes(mut body: Body, max: usize) -> Result<Vec<u8>, BodyError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(BodyError::Network)?;
        if bytes.len().saturating_add(chunk.len()) > max {
            return Err(BodyError::TooBig(LimitExceeded::new(Limit::Body, max)));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// [`read_bytes`] as text (lossy UTF-8).
pub async fn read_text(body: Body, max: usize) -> Result<String, BodyError> {
    read_bytes(body, max).await.map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Whether JSON text nests no deeper than `max` (arrays and objects), checked before it is
/// parsed: one pass over the bytes, strings skipped.
pub fn json_depth_within(text: &str, max: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for b in text.bytes() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    true
}

/// [`json_depth_within`] as an error.
pub fn check_json_depth(text: &str, max: usize) -> Result<(), LimitExceeded> {
    if json_depth_within(text, max) { Ok(()) } else { Err(LimitExceeded::new(Limit::JsonDepth, max)) }
}

/// How long to wait before reopening a stream: the server's `retry:` (or one second), doubled
/// for each failure in a row, never below the floor nor above the cap.
pub fn reconnect_delay(limits: &Limits, retry_ms: Option<u64>, failures: u32) -> u64 {
    let base = retry_ms.unwrap_or(1_000).max(limits.reconnect_floor_ms);
    base.saturating_mul(1 << failures.min(16)).clamp(limits.reconnect_floor_ms, limits.reconnect_cap_ms.max(1))
}

/// Reopenings of a stream in the last minute, against the limit.
#[derive(Clone, Debug, Default)]
pub struct ReconnectBudget {
    /// When each reopening in the last minute happened (ms).
    at: std::collections::VecDeque<f64>,
}

impl ReconnectBudget {
    /// Counts one reopening at `now_ms`; an error once there were more than the limit in the
    /// last minute.
    pub fn spend(&mut self, limits: &Limits, now_ms: f64) -> Result<(), LimitExceeded> {
        while self.at.front().is_some_and(|t| now_ms - t > 60_000.0) {
            self.at.pop_front();
        }
        self.at.push_back(now_ms);
        if self.at.len() > limits.reconnects_per_minute as usize {
            return Err(LimitExceeded::new(Limit::Reconnects, limits.reconnects_per_minute));
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;
    use futures::executor::block_on;

    fn body(chunks: Vec<Vec<u8>>) -> Body {
        futures::stream::iter(chunks.into_iter().map(Ok)).boxed_local()
    }

    #[test]
    fn a_body_is_refused_at_the_chunk_that_crosses_the_limit() {
        assert_eq!(block_on(read_text(body(vec![b"ab".to_vec(), b"cd".to_vec()]), 4)), Ok("abcd".into()));
        let e = block_on(read_bytes(body(vec![b"ab".to_vec(), b"cde".to_vec(), vec![0; 1 << 20]]), 4)).unwrap_err();
        assert_eq!(e, BodyError::TooBig(LimitExceeded::new(Limit::Body, 4)));
        assert_eq!(e.to_string(), "limit reached: response body size (4 bytes); the page stopped reading there");
    }

    #[test]
    fn an_endless_body_is_never_held_past_the_limit() {
        // A body that never ends: the reader must stop by itself.
        let endless = futures::stream::repeat_with(|| Ok(vec![b'x'; 64 * 1024])).boxed_local();
        let e = block_on(read_bytes(endless, MIB)).unwrap_err();
        assert!(matches!(e, BodyError::TooBig(LimitExceeded { limit: Limit::Body, .. })));
    }

    #[test]
    fn json_depth_counts_brackets_outside_strings() {
        assert!(json_depth_within(r#"{"a":[1,{"b":2}]}"#, 3));
        assert!(!json_depth_within(r#"{"a":[1,{"b":2}]}"#, 2));
        assert!(json_depth_within(r#"{"a":"[[[[[[\"[[[["}"#, 1));
        assert!(!json_depth_within(&"[".repeat(100_000), 64));
        assert!(json_depth_within(&"[]".repeat(100_000), 1));
        assert_eq!(check_json_depth("[[[]]]", 2), Err(LimitExceeded::new(Limit::JsonDepth, 2)));
    }

    #[test]
    fn reconnecting_waits_at_least_the_floor_and_at_most_the_cap() {
        let l = Limits::default();
        assert_eq!(reconnect_delay(&l, Some(0), 0), 500, "retry: 0 does not mean at once");
        assert_eq!(reconnect_delay(&l, Some(2_000), 0), 2_000);
        assert_eq!(reconnect_delay(&l, None, 3), 8_000);
        assert_eq!(reconnect_delay(&l, Some(u64::MAX), 20), 30_000);
    }

    #[test]
    fn a_stream_reopened_too_often_in_a_minute_stops() {
        let l = Limits { reconnects_per_minute: 3, ..Limits::default() };
        let mut b = ReconnectBudget::default();
        for t in [0.0, 100.0, 200.0] {
            assert!(b.spend(&l, t).is_ok());
        }
        assert_eq!(b.spend(&l, 300.0), Err(LimitExceeded::new(Limit::Reconnects, 3)));
        let mut later = ReconnectBudget::default();
        for t in [0.0, 30_000.0, 61_000.0, 62_000.0, 91_000.0] {
            assert!(later.spend(&l, t).is_ok(), "at {t}");
        }
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes(16 * MIB as u64), "16 MiB");
        assert_eq!(bytes(1536 * 1024), "1.5 MiB");
        assert_eq!(bytes(2048), "2 KiB");
        assert_eq!(bytes(12), "12 bytes");
    }
}
