//! The bridge's error layer: what its `{"bridge_error": …}` answers and its log say.

use serde::Deserialize;
use serde_json::Value;

/// What went wrong on the bridge's side of the hop (crates/cli's `BridgeError::kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultKind {
    /// The command could not be started.
    Spawn,
    /// The server's process ended (its session is over).
    Exited,
    /// It wrote a line over the bridge's limit on stdout.
    TooLong,
    /// The bridge runs as many sessions as it may.
    Busy,
    /// The session is unknown: it ended, or belongs to an earlier run.
    NoSession,
    /// The server `--to` names did not answer.
    Relay,
    /// The bridge refused the request: a missing or wrong token.
    Token,
    /// The bridge refused this page's origin.
    Origin,
    /// The bridge refused the Host it was asked for.
    Host,
    /// Anything else the bridge said (a body too large, not JSON-RPC, a path it does not serve).
    Other,
}

impl FaultKind {
    fn read(text: &str) -> FaultKind {
        match text {
            "spawn" => FaultKind::Spawn,
            "exited" => FaultKind::Exited,
            "too_long" => FaultKind::TooLong,
            "busy" => FaultKind::Busy,
            "no_session" => FaultKind::NoSession,
            "relay" => FaultKind::Relay,
            "token" => FaultKind::Token,
            "origin" => FaultKind::Origin,
            "host" => FaultKind::Host,
            _ => FaultKind::Other,
        }
    }
}

/// A bridge error, read from its answer.
#[derive(Clone, Debug, PartialEq)]
pub struct BridgeFault {
    pub kind: FaultKind,
    pub status: u16,
    /// The bridge's own sentence.
    pub message: String,
    pub exit_code: Option<i32>,
    /// The last lines the server wrote on stderr before it ended.
    pub stderr: Vec<String>,
}

#[derive(Deserialize)]
struct Wire {
    kind: String,
    message: String,
    #[serde(default)]
    exit_code: Option<i32>,
    #[serde(default)]
    stderr: Vec<String>,
}

impl BridgeFault {
    /// The fault an answer carries: `kind` from its `Loopscope-Bridge-Error` header (present only
    /// on the bridge's own errors), the rest from its body when it reads.
    pub fn read(status: u16, kind: &str, body: &str) -> BridgeFault {
        let wire = serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| v.get("bridge_error").cloned())
            .and_then(|v| serde_json::from_value::<Wire>(v).ok());
        match wire {
            Some(w) => BridgeFault {
                kind: FaultKind::read(&w.kind),
                status,
                message: w.message,
                exit_code: w.exit_code,
                stderr: w.stderr.into_iter().take(20).collect(),
            },
            None => BridgeFault {
                kind: FaultKind::read(kind),
                status,
                message: format!("the bridge answered HTTP {status} ({kind})"),
                exit_code: None,
                stderr: Vec::new(),
            },
        }
    }

    /// What to do, for the person at the bridge's terminal.
    pub fn hint(&self) -> String {
        let tail = if self.stderr.is_empty() {
            String::new()
        } else {
            format!(" Its last lines on stderr: {}", self.stderr.join(" ⏎ "))
        };
        match self.kind {
            FaultKind::Spawn => {
                "The bridge could not start the command: check it runs in a terminal (the bridge's own output says \
                                 more), then press Reconnect."
                    .to_owned()
            }
            FaultKind::Exited => format!(
                "The server's process ended{}. Fix what it says, then press Reconnect: the bridge starts it again.{tail}",
                self.exit_code.map(|c| format!(" with code {c}")).unwrap_or_default()
            ),
            FaultKind::TooLong => {
                "The server wrote one line larger than the bridge reads on stdout; that message was dropped. \
                                   The card's Log tab has the bridge's record."
                    .to_owned()
            }
            FaultKind::Busy => {
                "The bridge runs as many sessions as it may: disconnect other tabs or restart the bridge.".to_owned()
            }
            FaultKind::NoSession => {
                "The session ended (its process exited, or the bridge restarted): press Reconnect.".to_owned()
            }
            FaultKind::Relay => {
                "The server behind the bridge (--to) does not answer: start it, then press Reconnect.".to_owned()
            }
            FaultKind::Token => {
                "The bridge did not get its current token: each run prints a new one. Open its latest connect \
                                 link, or paste the Authorization line it printed into this server's headers."
                    .to_owned()
            }
            FaultKind::Origin => {
                "The bridge does not allow this page's origin: restart it with --page set to this page's address."
                    .to_owned()
            }
            FaultKind::Host => {
                "The bridge answers only for 127.0.0.1 or localhost at its port: use the address it printed.".to_owned()
            }
            FaultKind::Other => format!("The bridge said: {}", self.message),
        }
    }
}

/// What the bridge's log records (`GET /bridge/log`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogKind {
    Start,
    Stderr,
    Junk,
    TooLong,
    Exit,
    Refused,
    #[serde(other)]
    Other,
}

/// One entry of the bridge's log.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct LogEntry {
    pub n: u64,
    pub kind: LogKind,
    #[serde(default)]
    pub session: Option<String>,
    pub text: String,
}

impl LogEntry {
    /// The entries of a `/bridge/log` answer (what does not read is left out).
    pub fn read_all(body: &str) -> Vec<LogEntry> {
        serde_json::from_str::<Value>(body)
            .ok()
            .and_then(|v| v.get("entries").and_then(Value::as_array).cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|e| serde_json::from_value(e).ok())
            .collect()
    }

    /// Whether it says something went wrong (shown as a failure on the card).
    pub fn is_fault(&self) -> bool {
        matches!(self.kind, LogKind::Junk | LogKind::TooLong | LogKind::Exit | LogKind::Refused)
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn an_exit_names_its_code_and_last_words() {
        let body = r#"{"bridge_error":{"kind":"exited","message":"the server's process exited with code 3; its session is over","exit_code":3,"stderr":["boom"]}}"#;
        let f = BridgeFault::read(502, "exited", body);
        assert_eq!(f.kind, FaultKind::Exited);
        assert_eq!(f.exit_code, Some(3));
        let hint = f.hint();
        assert!(hint.contains("with code 3") && hint.contains("boom"), "{hint}");
        let unread = BridgeFault::read(403, "token", "<html>");
        assert_eq!(unread.kind, FaultKind::Token);
        assert!(unread.message.contains("HTTP 403"));
    }

    #[test]
    fn the_log_reads_what_it_can() {
        let entries = LogEntry::read_all(
            r#"{"entries":[{"n":1,"at":0,"kind":"stderr","session":"ab","text":"hi"},{"n":2,"kind":"new_kind","text":"x"},{"bad":1}]}"#,
        );
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].kind, LogKind::Stderr);
        assert_eq!(entries[1].kind, LogKind::Other);
        assert!(!entries[0].is_fault());
    }
}
