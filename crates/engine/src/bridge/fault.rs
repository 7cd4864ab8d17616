//! The bridge's error layer: what its `{"bridge_error": …}` answers and its log say (the wire is
//! `protocol::bridge`), and what the user is told to do about each.

use protocol::bridge::{ErrorBody, ErrorKind, LogEntry, LogKind};
use serde_json::Value;

/// A bridge error, read from its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct BridgeFault {
    pub status: u16,
    pub error: ErrorBody,
}

impl BridgeFault {
    /// The fault an answer carries: its kind from the `Loopscope-Bridge-Error` header (present
    /// only on the bridge's own errors), the rest from its body when it reads.
    pub fn read(status: u16, kind: &str, body: &str) -> BridgeFault {
        let read = serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| v.get("bridge_error").cloned())
            .and_then(|v| serde_json::from_value::<ErrorBody>(v).ok());
        let mut error = read.unwrap_or_else(|| ErrorBody {
            kind: ErrorKind::parse(kind),
            message: format!("the bridge answered HTTP {status} ({kind})"),
            exit_code: None,
            stderr: Vec::new(),
        });
        error.stderr.truncate(20);
        BridgeFault { status, error }
    }

    pub fn kind(&self) -> ErrorKind {
        self.error.kind
    }

    /// What to do, for the person at the bridge's terminal.
    pub fn hint(&self) -> String {
        let e = &self.error;
        let tail = if e.stderr.is_empty() {
            String::new()
        } else {
            format!(" Its last lines on stderr: {}", e.stderr.join(" ⏎ "))
        };
        match e.kind {
            ErrorKind::Spawn => {
                "The bridge could not start the command: check it runs in a terminal (the bridge's own output says \
                                 more), then press Reconnect."
                    .to_owned()
            }
            ErrorKind::Exited => format!(
                "The server's process ended{}. Fix what it says, then press Reconnect: the bridge starts it again.{tail}",
                e.exit_code.map(|c| format!(" with code {c}")).unwrap_or_default()
            ),
            ErrorKind::TooLong => {
                "The server wrote one line larger than the bridge reads on stdout; that message was dropped. \
                                   The card's Log tab has the bridge's record."
                    .to_owned()
            }
            ErrorKind::Busy => {
                "The bridge runs as many sessions as it may: disconnect other tabs or restart the bridge.".to_owned()
            }
            ErrorKind::NoSession => {
                "The session ended (its process exited, or the bridge restarted): press Reconnect.".to_owned()
            }
            ErrorKind::Relay => {
                "The server behind the bridge (--to) does not answer: start it, then press Reconnect.".to_owned()
            }
            ErrorKind::Token => {
                "The bridge did not get its current token: each run prints a new one. Open its latest connect \
                                 link, or paste the Authorization line it printed into this server's headers."
                    .to_owned()
            }
            ErrorKind::Origin => {
                "The bridge does not allow this page's origin: restart it with --page set to this page's address."
                    .to_owned()
            }
            ErrorKind::Host => {
                "The bridge answers only for 127.0.0.1 or localhost at its port: use the address it printed.".to_owned()
            }
            ErrorKind::TooLarge
            | ErrorKind::NotJsonRpc
            | ErrorKind::NotFound
            | ErrorKind::StreamOpen
            | ErrorKind::Other => {
                format!("The bridge said: {}", e.message)
            }
        }
    }
}

/// The entries of a `/bridge/log` answer (what does not read is left out).
pub fn read_log(body: &str) -> Vec<LogEntry> {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.get("entries").and_then(Value::as_array).cloned())
        .unwrap_or_default()
        .into_iter()
        .filter_map(|e| serde_json::from_value(e).ok())
        .collect()
}

/// Whether a log entry says something went wrong (shown as a failure on the card).
pub fn is_fault(kind: LogKind) -> bool {
    matches!(kind, LogKind::Junk | LogKind::TooLong | LogKind::Exit | LogKind::Refused)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_names_its_code_and_last_words() {
        let body = r#"{"bridge_error":{"kind":"exited","message":"the server's process exited with code 3; its session is over","exit_code":3,"stderr":["boom"]}}"#;
        let f = BridgeFault::read(502, "exited", body);
        assert_eq!(f.kind(), ErrorKind::Exited);
        assert_eq!(f.error.exit_code, Some(3));
        let hint = f.hint();
        assert!(hint.contains("with code 3") && hint.contains("boom"), "{hint}");
        let unread = BridgeFault::read(403, "token", "<html>");
        assert_eq!(unread.kind(), ErrorKind::Token);
        assert!(unread.error.message.contains("HTTP 403"));
    }

    #[test]
    fn the_log_reads_what_it_can() {
        let entries = read_log(
            r#"{"entries":[{"n":1,"at":0,"kind":"stderr","session":"ab","text":"hi"},{"n":2,"kind":"new_kind","text":"x"},{"bad":1}]}"#,
        );
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].kind, LogKind::Stderr);
        assert_eq!(entries[1].kind, LogKind::Other);
        assert!(!is_fault(entries[0].kind));
    }
}
