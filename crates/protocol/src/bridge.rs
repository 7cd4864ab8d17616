//! The bridge's own wire (`loopscope bridge`, docs/bridge.md): what it marks its answers with, the
//! body of its errors and the entries of its log. `crates/cli` writes them; the engine reads them.
//! Neither is an MCP message: they travel beside the protocol, never inside it.

use serde::{Deserialize, Serialize};

/// The response header on every answer of the bridge's (its version).
pub const MARK_HEADER: &str = "loopscope-bridge";
/// The response header that names a bridge error's kind ([`ErrorKind`]'s wire name).
pub const ERROR_HEADER: &str = "loopscope-bridge-error";

/// What went wrong on the bridge's side of the hop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The command could not be started.
    Spawn,
    /// The server's process ended (its session is over).
    Exited,
    /// It wrote a line over the bridge's limit on stdout (dropped).
    TooLong,
    /// The bridge runs as many sessions as it may.
    Busy,
    /// No such session: it ended, or belongs to an earlier run.
    NoSession,
    /// A request body over the bridge's limit.
    TooLarge,
    /// A body that is not one JSON-RPC 2.0 message.
    NotJsonRpc,
    /// The server `--to` names did not answer.
    Relay,
    /// A missing or wrong token.
    Token,
    /// An origin the bridge does not allow (or `null`).
    Origin,
    /// A `Host` other than the address it serves.
    Host,
    /// A path or method the bridge does not serve.
    NotFound,
    /// A session's GET stream is open already.
    StreamOpen,
    /// A kind this reader does not know (a newer bridge).
    #[serde(other)]
    Other,
}

impl ErrorKind {
    /// As the `Loopscope-Bridge-Error` header writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Spawn => "spawn",
            ErrorKind::Exited => "exited",
            ErrorKind::TooLong => "too_long",
            ErrorKind::Busy => "busy",
            ErrorKind::NoSession => "no_session",
            ErrorKind::TooLarge => "too_large",
            ErrorKind::NotJsonRpc => "not_json_rpc",
            ErrorKind::Relay => "relay",
            ErrorKind::Token => "token",
            ErrorKind::Origin => "origin",
            ErrorKind::Host => "host",
            ErrorKind::NotFound => "not_found",
            ErrorKind::StreamOpen => "stream_open",
            ErrorKind::Other => "other",
        }
    }

    /// From the header's value.
    pub fn parse(text: &str) -> ErrorKind {
        serde_json::from_value(serde_json::Value::String(text.to_owned())).unwrap_or(ErrorKind::Other)
    }
}

/// A bridge error: `{"bridge_error": …}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub kind: ErrorKind,
    /// The bridge's own sentence.
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The last lines the server wrote on stderr before it ended.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stderr: Vec<String>,
}

/// What a log entry records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogKind {
    /// A child started (its command line).
    Start,
    /// A line the child wrote on stderr.
    Stderr,
    /// A line on stdout that is not a JSON-RPC message (dropped).
    Junk,
    /// A line on stdout over the bridge's limit (dropped).
    TooLong,
    /// The child could not start, or ended.
    Exit,
    /// A request the bridge refused.
    Refused,
    /// A kind this reader does not know.
    #[serde(other)]
    Other,
}

/// One entry of the bridge's log (`GET /bridge/log` answers `{"entries": […]}`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// Counts from 1 over the bridge's run: `?after=n` reads what came since.
    pub n: u64,
    /// Milliseconds since 1970.
    #[serde(default)]
    pub at: u64,
    pub kind: LogKind,
    /// The session it belongs to (none: the bridge's own, or a session-less child).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_what_they_write_and_unknown_ones_as_other() {
        for kind in [ErrorKind::Spawn, ErrorKind::NoSession, ErrorKind::NotJsonRpc, ErrorKind::StreamOpen] {
            assert_eq!(ErrorKind::parse(kind.as_str()), kind);
            assert_eq!(serde_json::to_value(kind).ok(), Some(serde_json::Value::String(kind.as_str().into())));
        }
        assert_eq!(ErrorKind::parse("from_the_future"), ErrorKind::Other);
        let e: LogEntry = serde_json::from_str(r#"{"n":1,"kind":"new","text":"x"}"#).expect("reads");
        assert_eq!(e.kind, LogKind::Other);
    }
}
