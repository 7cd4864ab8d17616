//! A recorded session (workshop mode): one versioned JSON file with the settings (never the key),
//! the servers (never a header value or a token), the conversation, the chat as it was shown,
//! and the whole trace with its timings — to open again read-only with no key and no network,
//! or to replay against live servers and compare, turn by turn. The format is documented in
//! docs/session.md; `SESSION_VERSION` goes up with any change a reader must know about.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::layer::Failure;
use crate::limits::{Limit, LimitExceeded, Limits, check_json_depth};
use crate::settings::UserSettings;
use crate::trace::{RouteTarget, TraceEvent, TraceKind, Tracer};
use protocol::claude::Message;

pub const SESSION_VERSION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The format's version (this field's name marks the file as a Loopscope session).
    pub loopscope_session: u32,
    pub app_version: String,
    pub exported_at_ms: f64,
    /// The settings, which hold no key (the key is never part of them).
    pub settings: UserSettings,
    pub servers: Vec<SessionServer>,
    pub conversation: Vec<Message>,
    pub transcript: Vec<TranscriptItem>,
    pub trace: Vec<TraceEvent>,
}

/// A server as the session remembers it: where, and under which name; header names only.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SessionServer {
    /// Its id in the page that recorded it: the trace's lanes name it.
    pub id: String,
    pub url: String,
    pub label: String,
    pub header_names: Vec<String>,
    pub revision: Option<String>,
}

/// The chat as it was shown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TranscriptItem {
    User { text: String },
    Assistant { blocks: Vec<TranscriptBlock>, demo: bool, usage: Option<String> },
    Notice { level: NoticeLevel, text: String, hint: Option<String> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

impl NoticeLevel {
    /// The notice's style name.
    pub fn class(self) -> &'static str {
        match self {
            NoticeLevel::Info => "info",
            NoticeLevel::Warning => "warning",
            NoticeLevel::Error => "error",
        }
    }

    /// Whether a screen reader interrupts to say it (an ARIA alert), rather than saying it when
    /// idle (a status): only what stopped the turn.
    pub fn interrupts(self) -> bool {
        self == NoticeLevel::Error
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
// A file's shape, read and written once per export: its size in memory does not matter.
#[allow(clippy::large_enum_variant)]
pub enum TranscriptBlock {
    Text {
        text: String,
    },
    /// A call the API ran itself.
    ApiCall {
        name: String,
    },
    Thinking {
        text: String,
        /// The API redacted it (opaque data, no text).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        redacted: bool,
    },
    Tool {
        tool_use_id: Option<String>,
        name: String,
        input: Option<Value>,
        target: Option<RouteTarget>,
        outcome: ToolOutcome,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    Done {
        is_error: bool,
        text: String,
        failure: Option<Failure>,
    },
    NotRun {
        why: String,
    },
    /// The recording ended while it was being written or run.
    Unfinished,
}

impl ToolOutcome {
    /// Why the call has no result, when it has none.
    pub fn why_not_run(&self) -> Option<&str> {
        match self {
            Self::Done { .. } => None,
            Self::NotRun { why } => Some(why),
            Self::Unfinished => Some("The recording ended before this call did."),
        }
    }
}

/// Why a file does not open as a session.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// Too large, or nested too deep, to read safely.
    #[error("{0}")]
    Limit(LimitExceeded),
    #[error("not JSON: {0}")]
    NotJson(String),
    #[error("not a Loopscope session (no \"loopscope_session\" version field)")]
    NotASession,
    #[error("made by a newer Loopscope (session format {0}; this page reads up to {SESSION_VERSION})")]
    Newer(u64),
    /// The version field is right, the rest is not what that version writes.
    #[error("a Loopscope session, but damaged: {0}")]
    Damaged(String),
}

/// How much deeper than a server's JSON a session file nests it.
const SESSION_NESTING: usize = 16;

impl Session {
    /// The file's text. Every secret the page knows (the key, header values, tokens) is masked
    /// once more over the whole text: one the user typed into a message by mistake included.
    pub fn to_json(&self, tracer: &Tracer) -> String {
        tracer.mask(&serde_json::to_string_pretty(self).unwrap_or_default())
    }

    /// Reads a session file, saying what is wrong with one that is not. A stranger may have
    /// written it: its size and nesting are checked first (a session holds the servers' JSON
    /// about a dozen levels down, so it may nest that much deeper than `Limits::json_depth`).
    pub fn from_json(text: &str, limits: &Limits) -> Result<Session, SessionError> {
        if text.len() > limits.file_bytes {
            return Err(SessionError::Limit(LimitExceeded::new(Limit::File, limits.file_bytes)));
        }
        check_json_depth(text, limits.json_depth + SESSION_NESTING).map_err(SessionError::Limit)?;
        let value: Value = serde_json::from_str(text).map_err(|e| SessionError::NotJson(e.to_string()))?;
        match value.get("loopscope_session").and_then(Value::as_u64) {
            None => return Err(SessionError::NotASession),
            Some(v) if v > u64::from(SESSION_VERSION) => return Err(SessionError::Newer(v)),
            Some(_) => {}
        }
        serde_json::from_value(value).map_err(|e| SessionError::Damaged(e.to_string()))
    }
}

/// One turn as a comparison needs it: what the user asked, the tools Claude was offered, the
/// calls it made, and what each call gave back.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TurnSummary {
    pub user: String,
    pub tools: Vec<String>,
    pub calls: Vec<(String, Value)>,
    pub results: Vec<(bool, String)>,
}

/// The turns of a trace, in order.
pub fn turns(trace: &[TraceEvent]) -> Vec<TurnSummary> {
    let mut out: Vec<TurnSummary> = Vec::new();
    for e in trace {
        match &e.kind {
            TraceKind::UserMessage { text } => out.push(TurnSummary { user: text.clone(), ..TurnSummary::default() }),
            TraceKind::ToolsAggregated { tools, .. } => {
                if let Some(t) = out.last_mut().filter(|t| t.tools.is_empty()) {
                    t.tools = tools.iter().map(|t| t.name.clone()).collect();
                }
            }
            TraceKind::ToolUse { name, input, .. } => {
                if let Some(t) = out.last_mut() {
                    t.calls.push((name.clone(), input.clone()));
                }
            }
            TraceKind::ToolResult { is_error, content, .. } => {
                if let Some(t) = out.last_mut() {
                    t.results.push((*is_error, crate::text::content_text(content)));
                }
            }
            _ => {}
        }
    }
    out
}

/// One turn of a replay next to the recording.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnDiff {
    pub user: String,
    pub tools_added: Vec<String>,
    pub tools_removed: Vec<String>,
    /// (before, after) per position; `None` where one side made fewer calls.
    pub calls: Vec<(Option<String>, Option<String>)>,
    pub results: Vec<(Option<String>, Option<String>)>,
}

impl TurnDiff {
    pub fn unchanged(&self) -> bool {
        self.tools_added.is_empty()
            && self.tools_removed.is_empty()
            && self.calls.iter().all(|(a, b)| a == b)
            && self.results.iter().all(|(a, b)| a == b)
    }
}

fn pairs(before: Vec<String>, after: Vec<String>) -> Vec<(Option<String>, Option<String>)> {
    let n = before.len().max(after.len());
    (0..n).map(|i| (before.get(i).cloned(), after.get(i).cloned())).collect()
}

/// The recording and the replay, turn by turn (by position).
pub fn compare(before: &[TurnSummary], after: &[TurnSummary]) -> Vec<TurnDiff> {
    let n = before.len().max(after.len());
    let empty = TurnSummary::default();
    (0..n)
        .map(|i| {
            let (b, a) = (before.get(i).unwrap_or(&empty), after.get(i).unwrap_or(&empty));
            let call = |(name, input): &(String, Value)| format!("{name} {input}");
            let result = |(is_error, text): &(bool, String)| {
                format!("{}{}", if *is_error { "is_error: " } else { "" }, text.chars().take(200).collect::<String>())
            };
            TurnDiff {
                user: if b.user.is_empty() { a.user.clone() } else { b.user.clone() },
                tools_added: a.tools.iter().filter(|t| !b.tools.contains(t)).cloned().collect(),
                tools_removed: b.tools.iter().filter(|t| !a.tools.contains(t)).cloned().collect(),
                calls: pairs(b.calls.iter().map(call).collect(), a.calls.iter().map(call).collect()),
                results: pairs(b.results.iter().map(result).collect(), a.results.iter().map(result).collect()),
            }
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;
    use crate::trace::AggregatedTool;
    use serde_json::json;

    fn event(seq: u64, kind: TraceKind) -> TraceEvent {
        TraceEvent { seq, at_ms: seq as f64, peer: crate::trace::Peer::Client, kind }
    }

    fn turn(user: &str, tools: &[&str], call: (&str, Value), result: &str) -> Vec<TraceEvent> {
        let tools =
            tools.iter().map(|t| AggregatedTool { name: (*t).into(), origin: String::new(), notes: vec![] }).collect();
        vec![
            event(0, TraceKind::UserMessage { text: user.into() }),
            event(1, TraceKind::ToolsAggregated { tools, excluded: vec![] }),
            event(
                2,
                TraceKind::ToolUse {
                    tool_use_id: "t".into(),
                    name: call.0.into(),
                    input: call.1,
                    caller: None,
                    fragments: vec![],
                    eager: false,
                },
            ),
            event(
                3,
                TraceKind::ToolResult {
                    tool_use_id: "t".into(),
                    is_error: false,
                    content: json!(result),
                    failure: None,
                },
            ),
        ]
    }

    #[test]
    fn a_replay_is_compared_turn_by_turn() {
        let before =
            turns(&turn("weather?", &["get_weather", "calc"], ("get_weather", json!({"city": "Tokyo"})), "sunny"));
        let same =
            turns(&turn("weather?", &["get_weather", "calc"], ("get_weather", json!({"city": "Tokyo"})), "sunny"));
        assert!(compare(&before, &same).iter().all(TurnDiff::unchanged));
        let after =
            turns(&turn("weather?", &["get_weather", "time"], ("get_weather", json!({"city": "Kyoto"})), "rain"));
        let d = &compare(&before, &after)[0];
        assert_eq!(
            (d.tools_added.clone(), d.tools_removed.clone()),
            (vec!["time".to_owned()], vec!["calc".to_owned()])
        );
        assert_eq!(d.calls[0].1.as_deref(), Some("get_weather {\"city\":\"Kyoto\"}"));
        assert_eq!(d.results[0], (Some("sunny".to_owned()), Some("rain".to_owned())));
        assert!(!d.unchanged());
    }

    #[test]
    fn only_a_session_this_page_can_read_is_read() {
        let read = |text: &str| Session::from_json(text, &Limits::default()).unwrap_err();
        assert!(matches!(read("{"), SessionError::NotJson(_)));
        assert_eq!(read("{}"), SessionError::NotASession);
        assert_eq!(read(r#"{"loopscope_session": 99}"#), SessionError::Newer(99));
        let damaged = read(r#"{"loopscope_session": 1}"#);
        assert!(matches!(damaged, SessionError::Damaged(_)), "{damaged}");
        assert!(damaged.to_string().starts_with("a Loopscope session, but damaged"), "{damaged}");
    }
}
