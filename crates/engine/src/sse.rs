//! An incremental Server-Sent Events parser for `fetch` body streams (C-05).
//!
//! `EventSource` cannot POST or set headers, so MCP and the Claude API stream SSE over a plain
//! response body. Chunks arrive split anywhere (inside a field, a UTF-8 character or a CRLF); the
//! parser buffers bytes until a line is complete and follows the WHATWG event-stream rules:
//! LF, CR or CRLF line ends, `data:` lines joined with `\n`, comment lines, `id:` kept as the
//! last event id even across events, `retry:` as the reconnection delay, and events with empty
//! data (MCP "priming" events) not dispatched.
//!
//! A stranger decides how long a line is: the parser holds at most `max_bytes` of one line and of
//! one event's data, and refuses the stream at the byte that would pass it (`limits::Limits`).

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use crate::limits::{Limit, LimitExceeded};

/// One dispatched event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `None` means the default type, "message".
    pub event: Option<String>,
    pub data: String,
    /// The last event id in effect when this event was dispatched.
    pub id: Option<String>,
}

impl SseEvent {
    /// The event type, defaulting to "message" as the spec does.
    pub fn kind(&self) -> &str {
        self.event.as_deref().unwrap_or("message")
    }
}

#[derive(Debug)]
pub struct SseParser {
    /// The most one line, or one event's data, may hold.
    max_bytes: usize,
    line: Vec<u8>,
    /// The previous chunk ended in CR: a LF at the start of the next one belongs to it.
    after_cr: bool,
    started: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    last_id: Option<String>,
    retry_ms: Option<u64>,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::new(crate::limits::Limits::default().sse_event_bytes)
    }
}

impl SseParser {
    /// A parser that holds at most `max_bytes` of one line and of one event's data.
    pub fn new(max_bytes: usize) -> Self {
        SseParser {
            max_bytes,
            line: Vec::new(),
            after_cr: false,
            started: false,
            data: String::new(),
            has_data: false,
            event: None,
            last_id: None,
            retry_ms: None,
        }
    }

    /// The last `id:` seen (what to send as `Last-Event-ID` when resuming).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The last `retry:` value in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Feeds one chunk and returns the events it completed, in order; an error when a line or
    /// an event's data would pass the limit (the parser is then reset: nothing is kept).
    pub fn feed(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, LimitExceeded> {
        let result = self.feed_inner(chunk);
        if result.is_err() {
            self.finish();
            self.line = Vec::new();
            self.data = String::new();
        }
        result
    }

    fn feed_inner(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, LimitExceeded> {
        let mut out = Vec::new();
        let mut bytes = chunk;
        if self.after_cr {
            self.after_cr = false;
            if let Some(rest) = bytes.strip_prefix(b"\n") {
                bytes = rest;
            }
        }
        let mut start = 0;
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes.get(i).copied().unwrap_or_default();
            if byte == b'\n' || byte == b'\r' {
                self.extend_line(bytes.get(start..i).unwrap_or_default())?;
                let line = std::mem::take(&mut self.line);
                self.take_line(&line, &mut out)?;
                if byte == b'\r' {
                    match bytes.get(i + 1) {
                        None => self.after_cr = true,
                        Some(b'\n') => i += 1,
                        Some(_) => {}
                    }
                }
                start = i + 1;
            }
            i += 1;
        }
        self.extend_line(bytes.get(start..).unwrap_or_default())?;
        Ok(out)
    }

    fn extend_line(&mut self, more: &[u8]) -> Result<(), LimitExceeded> {
        if self.line.len().saturating_add(more.len()) > self.max_bytes {
            return Err(LimitExceeded::new(Limit::SseLine, self.max_bytes));
        }
        self.line.extend_from_slice(more);
        Ok(())
    }

    /// The stream ended: a half-received event is discarded, as the spec says.
    pub fn finish(&mut self) {
        self.line.clear();
        self.data.clear();
        self.has_data = false;
        self.event = None;
    }

    fn take_line(&mut self, raw: &[u8], out: &mut Vec<SseEvent>) -> Result<(), LimitExceeded> {
        let mut line = String::from_utf8_lossy(raw);
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_owned().into();
            }
        }
        if line.is_empty() {
            self.dispatch(out);
            return Ok(());
        }
        if line.starts_with(':') {
            return Ok(()); // a comment (often a keep-alive)
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (&*line, ""),
        };
        match field {
            "data" => {
                if self.data.len().saturating_add(value.len()).saturating_add(1) > self.max_bytes {
                    return Err(LimitExceeded::new(Limit::SseEvent, self.max_bytes));
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            // An id containing NUL is ignored, per spec; an empty id resets it.
            "id" if !value.contains('\0') => {
                self.last_id = (!value.is_empty()).then(|| value.to_owned());
            }
            "retry" => {
                if let Ok(ms) = value.parse::<u64>() {
                    self.retry_ms = Some(ms);
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn dispatch(&mut self, out: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if !self.has_data || self.data.is_empty() {
            // Empty data is not dispatched: MCP servers send such "priming" events only to
            // hand the client an event id to resume from.
            self.data.clear();
            self.has_data = false;
            return;
        }
        self.has_data = false;
        out.push(SseEvent { event, data: std::mem::take(&mut self.data), id: self.last_id.clone() });
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    fn parse_in_chunks(input: &[u8], size: usize) -> (Vec<SseEvent>, SseParser) {
        let mut p = SseParser::default();
        let mut out = Vec::new();
        for chunk in input.chunks(size) {
            out.extend(p.feed(chunk).unwrap());
        }
        (out, p)
    }

    const STREAM: &str = "\u{feff}: keep-alive\r\nid: 0\r\ndata:\r\n\r\nevent: message\r\nid: 1\r\nretry: 1500\r\ndata: {\"a\":\r\ndata:  1}\r\n\r\ndata: héllo ✓\n\nid\ndata: x\r\r";

    #[test]
    fn crlf_multiline_comments_priming_id_retry_c05() {
        let (events, p) = parse_in_chunks(STREAM.as_bytes(), STREAM.len());
        assert_eq!(
            events,
            vec![
                SseEvent { event: Some("message".into()), data: "{\"a\":\n 1}".into(), id: Some("1".into()) },
                SseEvent { event: None, data: "héllo ✓".into(), id: Some("1".into()) },
                SseEvent { event: None, data: "x".into(), id: None },
            ]
        );
        assert_eq!(p.retry_ms(), Some(1500));
        assert_eq!(p.last_event_id(), None);
    }

    #[test]
    fn every_split_point_gives_the_same_events_c05() {
        let (whole, _) = parse_in_chunks(STREAM.as_bytes(), usize::MAX);
        for size in 1..STREAM.len() {
            let (split, _) = parse_in_chunks(STREAM.as_bytes(), size);
            assert_eq!(split, whole, "chunk size {size}");
        }
    }

    #[test]
    fn priming_event_sets_the_resume_id_without_dispatching() {
        let mut p = SseParser::default();
        assert!(p.feed(b"id: evt-7\ndata: \n\n").unwrap().is_empty());
        assert_eq!(p.last_event_id(), Some("evt-7"));
    }

    #[test]
    fn unfinished_event_is_discarded_at_end_of_stream() {
        let mut p = SseParser::default();
        assert!(p.feed(b"data: half").unwrap().is_empty());
        p.finish();
        assert!(p.feed(b"\n\n").unwrap().is_empty());
    }

    #[test]
    fn field_without_colon_and_unknown_fields() {
        let mut p = SseParser::default();
        let ev = p.feed(b"data\nfoo: bar\ndata: b\n\n").unwrap();
        assert_eq!(ev[0].data, "\nb");
        assert_eq!(ev[0].kind(), "message");
    }

    #[test]
    fn a_line_or_an_event_past_the_limit_is_refused_while_it_arrives() {
        let mut p = SseParser::new(16);
        // One endless line: refused at the chunk that crosses 16 bytes, never held whole.
        assert!(p.feed(b"data: 0123456").unwrap().is_empty());
        assert_eq!(p.feed(b"789abcdef"), Err(LimitExceeded::new(Limit::SseLine, 16)));
        // Many short data lines adding up to one big event.
        let mut p = SseParser::new(16);
        assert_eq!(p.feed(b"data: 0123456789\ndata: abcdefgh\n"), Err(LimitExceeded::new(Limit::SseEvent, 16)));
        // Under the limit all is well, and the parser starts clean after a refusal.
        assert_eq!(p.feed(b"data: ok\n\n").unwrap().len(), 1);
    }
}
