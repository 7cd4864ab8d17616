//! Recorded sessions as a file format: an export made by a released build must open in every
//! later one (docs/session.md). Each golden file in `fixtures/` is a real export, kept as it was
//! written; a change that cannot read one must bump `SESSION_VERSION` and say why here.
#![cfg(not(target_arch = "wasm32"))]

use engine::limits::Limits;
use engine::session::{Session, SessionError, TranscriptItem, turns};
use engine::timeline::Timeline;

/// Exported by the page on 2026-12-05 (format 1): the demo model and the demo server, two turns
/// (two local calls in parallel, then an MCP call to the demo server).
const V1: &str = include_str!("fixtures/session-v1.json");

#[test]
fn a_format_1_export_opens_whole() {
    let s = Session::from_json(V1, &Limits::default()).expect("a format 1 export reads");
    assert_eq!(s.loopscope_session, 1);
    assert!(s.settings.demo);
    assert_eq!(s.servers.len(), 1);
    assert_eq!(s.servers[0].url, "demo://notebook/mcp");
    let users: Vec<&str> = s
        .transcript
        .iter()
        .filter_map(|t| match t {
            TranscriptItem::User { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(users.len(), 2);
    assert!(users[0].starts_with("What's the weather in Tokyo"));
    // The trace reads back into typed events, and the timeline draws it as it did.
    let t = turns(&s.trace);
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].calls.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>(), ["get_weather", "calculate"]);
    assert_eq!(t[1].calls[0].0, "demo_search_notes");
    let mut timeline = Timeline::new();
    for e in &s.trace {
        timeline.push(e);
    }
    let labels: Vec<&str> = timeline.rows().iter().map(|r| r.label.as_str()).collect();
    assert!(labels.contains(&"tool_use get_weather"), "{labels:?}");
    assert!(labels.iter().any(|l| l.starts_with("tools/call")), "{labels:?}");
    // And the history is still valid to continue the conversation with.
    assert!(engine::claude::history::check(&s.conversation).is_ok());
}

#[test]
fn a_file_this_build_cannot_read_says_why() {
    let newer = V1.replacen("\"loopscope_session\": 1", "\"loopscope_session\": 2", 1);
    let e = Session::from_json(&newer, &Limits::default()).unwrap_err();
    assert_eq!(e, SessionError::Newer(2));
    assert!(e.to_string().contains("made by a newer Loopscope (session format 2"), "{e}");
    let big = Limits { file_bytes: 1024, ..Limits::default() };
    let e = Session::from_json(V1, &big).unwrap_err();
    assert!(matches!(e, SessionError::Limit(_)) && e.to_string().contains("file size"), "{e}");
    let e = Session::from_json(&V1.replacen("\"loopscope_session\": 1", "\"session\": 1", 1), &Limits::default());
    assert_eq!(e.unwrap_err(), SessionError::NotASession);
}
