//! The bridge's own record: what its children wrote on stderr, how they ended, lines on stdout
//! that were not JSON-RPC, and requests it refused. It is a side channel of the bridge's
//! (`GET /bridge/log`, behind the token like everything else), never mixed into the MCP stream,
//! and it is bounded: the oldest entries go first.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use protocol::bridge::LogEntry;
pub use protocol::bridge::LogKind as Kind;

const MAX_ENTRIES: usize = 2_000;
/// One entry's text at most (a stderr line can be any length).
pub const MAX_TEXT: usize = 4_096;

#[derive(Default)]
pub struct Log {
    inner: Mutex<(u64, VecDeque<LogEntry>)>,
}

impl Log {
    /// Records an entry and says it on the bridge's stderr too (the user's terminal).
    pub fn add(&self, kind: Kind, session: Option<&str>, text: &str) {
        let text = cut(text);
        let at = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0);
        let who = session.map(|s| format!(" {}", s.get(..8).unwrap_or(s))).unwrap_or_default();
        match label(kind) {
            "" => eprintln!("[bridge{who}] {text}"),
            label => eprintln!("[bridge{who}] {label}: {text}"),
        }
        let Ok(mut inner) = self.inner.lock() else { return };
        inner.0 += 1;
        let n = inner.0;
        inner.1.push_back(LogEntry { n, at, kind, session: session.map(str::to_owned), text });
        while inner.1.len() > MAX_ENTRIES {
            inner.1.pop_front();
        }
    }

    /// The entries after `after` (at most the last [`MAX_ENTRIES`]).
    pub fn since(&self, after: u64) -> Vec<LogEntry> {
        self.inner.lock().map(|inner| inner.1.iter().filter(|e| e.n > after).cloned().collect()).unwrap_or_default()
    }

    /// The last `count` stderr lines of a session (named in a bridge error).
    pub fn stderr_tail(&self, session: Option<&str>, count: usize) -> Vec<String> {
        let Ok(inner) = self.inner.lock() else { return Vec::new() };
        let mut lines: Vec<String> = inner
            .1
            .iter()
            .rev()
            .filter(|e| e.kind == Kind::Stderr && e.session.as_deref() == session)
            .take(count)
            .map(|e| e.text.clone())
            .collect();
        lines.reverse();
        lines
    }
}

fn label(kind: Kind) -> &'static str {
    match kind {
        Kind::Start => "started",
        Kind::Stderr => "stderr",
        Kind::Junk => "not JSON-RPC on stdout",
        Kind::TooLong => "line too long on stdout",
        Kind::Exit => "ended",
        Kind::Refused => "",
        Kind::Other => "note",
    }
}

/// At most [`MAX_TEXT`] bytes, cut on a character boundary.
fn cut(text: &str) -> String {
    let mut end = text.len().min(MAX_TEXT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let kept = text.get(..end).unwrap_or_default();
    if end < text.len() { format!("{kept}… ({} bytes in all)", text.len()) } else { kept.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_keeps_the_last_entries_and_reads_from_a_point() {
        let log = Log::default();
        for i in 0..(MAX_ENTRIES + 10) {
            log.add(Kind::Stderr, Some("s1"), &format!("line {i}"));
        }
        let all = log.since(0);
        assert_eq!(all.len(), MAX_ENTRIES);
        assert_eq!(all[0].n, 11);
        assert_eq!(log.since(all.last().unwrap().n - 2).len(), 2);
        assert_eq!(
            log.stderr_tail(Some("s1"), 2),
            [format!("line {}", MAX_ENTRIES + 8), format!("line {}", MAX_ENTRIES + 9)]
        );
        assert!(log.stderr_tail(None, 2).is_empty());
    }

    #[test]
    fn long_text_is_cut_on_a_character() {
        let text = "é".repeat(MAX_TEXT);
        let kept = cut(&text);
        assert!(kept.len() < MAX_TEXT + 40 && kept.ends_with("bytes in all)"), "{}", kept.len());
    }
}
