//! An incremental Server-Sent Events parser for `fetch` body streams (C-05).
//!
//! `EventSource` cannot POST or set headers, so MCP and the Claude API stream SSE over a plain
//! response body. Chunks arrive split anywhere (inside a field, a UTF-8 character or a CRLF); the
//! parser buffers bytes until a line is complete and follows the WHATWG event-stream rules:
//! LF, CR or CRLF line ends, `data:` lines joined with `\n`, comment lines, `id:` kept as the
//! last event id even across events, `retry:` as the reconnection delay, and events with empty
//! data (MCP "priming" events) not dispatched.

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

#[derive(Debug, Default)]
pub struct SseParser {
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

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// The last `id:` seen (what to send as `Last-Event-ID` when resuming).
    pub fn last_event_id(&self) -> Option<&str> {
        self.last_id.as_deref()
    }

    /// The last `retry:` value in milliseconds.
    pub fn retry_ms(&self) -> Option<u64> {
        self.retry_ms
    }

    /// Feeds one chunk and returns the events it completed, in order.
    pub fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
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
            match bytes[i] {
                b'\n' | b'\r' => {
                    self.line.extend_from_slice(&bytes[start..i]);
                    let line = std::mem::take(&mut self.line);
                    self.take_line(&line, &mut out);
                    if bytes[i] == b'\r' {
                        if i + 1 == bytes.len() {
                            self.after_cr = true;
                        } else if bytes[i + 1] == b'\n' {
                            i += 1;
                        }
                    }
                    start = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        self.line.extend_from_slice(&bytes[start..]);
        out
    }

    /// The stream ended: a half-received event is discarded, as the spec says.
    pub fn finish(&mut self) {
        self.line.clear();
        self.data.clear();
        self.has_data = false;
        self.event = None;
    }

    fn take_line(&mut self, raw: &[u8], out: &mut Vec<SseEvent>) {
        let mut line = String::from_utf8_lossy(raw);
        if !self.started {
            self.started = true;
            if let Some(rest) = line.strip_prefix('\u{feff}') {
                line = rest.to_owned().into();
            }
        }
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line.starts_with(':') {
            return; // a comment (often a keep-alive)
        }
        let (field, value) = match line.find(':') {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "data" => {
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
mod tests {
    use super::*;

    fn parse_in_chunks(input: &[u8], size: usize) -> (Vec<SseEvent>, SseParser) {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for chunk in input.chunks(size) {
            out.extend(p.feed(chunk));
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
        let mut p = SseParser::new();
        assert!(p.feed(b"id: evt-7\ndata: \n\n").is_empty());
        assert_eq!(p.last_event_id(), Some("evt-7"));
    }

    #[test]
    fn unfinished_event_is_discarded_at_end_of_stream() {
        let mut p = SseParser::new();
        assert!(p.feed(b"data: half").is_empty());
        p.finish();
        assert!(p.feed(b"\n\n").is_empty());
    }

    #[test]
    fn field_without_colon_and_unknown_fields() {
        let mut p = SseParser::new();
        let ev = p.feed(b"data\nfoo: bar\ndata: b\n\n");
        assert_eq!(ev[0].data, "\nb");
        assert_eq!(ev[0].kind(), "message");
    }
}
