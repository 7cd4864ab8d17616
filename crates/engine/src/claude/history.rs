//! The API's rules for a conversation, checked before every request so a broken history
//! is a clear client-side error instead of the API's 400: the first message is the user's;
//! every `tool_use` is answered in the very next message, which starts with exactly one
//! `tool_result` per `tool_use` before any other block; no `tool_result` answers nothing.

use protocol::claude::{Block, Message, Role};

/// A rule of the API's that a conversation breaks, at the message (0-based) where it shows.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HistoryError {
    #[error("there are no messages")]
    NoMessages,
    #[error("the first message must be the user's")]
    FirstNotUser,
    #[error("message {0} is empty")]
    EmptyMessage(usize),
    #[error("message {0}: a tool_result in an assistant message")]
    ResultFromAssistant(usize),
    #[error("message {at}: tool_result for {id} answers no tool_use of the message before it")]
    Unasked { at: usize, id: String },
    #[error("message {0}: tool_result blocks must come first, before any text")]
    ResultsNotFirst(usize),
    #[error("message {0}: its tool_use blocks are not answered by the user")]
    NotAnsweredByUser(usize),
    #[error("message {at}: no tool_result for {}", ids.join(", "))]
    Unanswered { at: usize, ids: Vec<String> },
    #[error("message {at}: {results} tool_result blocks for {uses} tool_use blocks")]
    Count { at: usize, results: usize, uses: usize },
    #[error("message {0}: its tool_use blocks have no tool_result yet")]
    Pending(usize),
}

/// Checks a conversation against the API's rules: the one place the tool_result pairing rule is
/// written (the loop before each request, an edit at a breakpoint, a resumed session).
pub fn check(messages: &[Message]) -> Result<(), HistoryError> {
    use HistoryError as E;
    let Some(first) = messages.first() else { return Err(E::NoMessages) };
    if first.role != Role::User {
        return Err(E::FirstNotUser);
    }
    let mut before: Option<&Message> = None;
    for (i, m) in messages.iter().enumerate() {
        let last = i + 1 == messages.len();
        if m.content.is_empty() && !(last && m.role == Role::Assistant) {
            return Err(E::EmptyMessage(i));
        }
        let asked: Vec<String> = match before {
            Some(b) if b.role == Role::Assistant => b.tool_uses().map(|t| t.id).collect(),
            _ => Vec::new(),
        };
        let leading: Vec<String> = m.content.iter().map_while(Block::tool_result).map(|r| r.tool_use_id).collect();
        for r in m.tool_results() {
            if m.role != Role::User {
                return Err(E::ResultFromAssistant(i));
            }
            if !asked.contains(&r.tool_use_id) {
                return Err(E::Unasked { at: i, id: r.tool_use_id });
            }
        }
        if m.tool_results().count() > leading.len() {
            return Err(E::ResultsNotFirst(i));
        }
        if !asked.is_empty() {
            if m.role != Role::User {
                return Err(E::NotAnsweredByUser(i - 1));
            }
            let missing: Vec<String> = asked.iter().filter(|id| !leading.contains(id)).cloned().collect();
            if !missing.is_empty() {
                return Err(E::Unanswered { at: i - 1, ids: missing });
            }
            if leading.len() != asked.len() {
                return Err(E::Count { at: i, results: leading.len(), uses: asked.len() });
            }
        }
        if last && m.role == Role::Assistant && m.tool_uses().next().is_some() {
            return Err(E::Pending(i));
        }
        before = Some(m);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn msgs(v: serde_json::Value) -> Vec<Message> {
        serde_json::from_value(v).unwrap()
    }

    fn assistant_calls(ids: &[&str]) -> serde_json::Value {
        let blocks: Vec<_> = ids.iter().map(|id| json!({"type":"tool_use","id":id,"name":"t","input":{}})).collect();
        json!({"role":"assistant","content":blocks})
    }

    fn result(id: &str) -> serde_json::Value {
        json!({"type":"tool_result","tool_use_id":id,"content":"ok"})
    }

    #[test]
    fn a_correct_loop_passes() {
        let h = msgs(json!([
            {"role":"user","content":[{"type":"text","text":"weather?"}]},
            assistant_calls(&["a", "b"]),
            {"role":"user","content":[result("a"), result("b"), {"type":"text","text":"thanks"}]},
            {"role":"assistant","content":[{"type":"text","text":"Sunny."}]},
        ]));
        assert_eq!(check(&h), Ok(()));
    }

    #[test]
    fn each_broken_rule_is_named_a12_p15() {
        let user = json!({"role":"user","content":[{"type":"text","text":"q"}]});
        let cases = [
            (json!([assistant_calls(&["a"])]), "first message"),
            (json!([user, assistant_calls(&["a"])]), "no tool_result yet"),
            (
                json!([user, assistant_calls(&["a", "b"]), {"role":"user","content":[result("a")]}]),
                "no tool_result for b",
            ),
            (
                json!([user, assistant_calls(&["a"]), {"role":"user","content":[{"type":"text","text":"x"}, result("a")]}]),
                "must come first",
            ),
            (
                json!([user, {"role":"assistant","content":[{"type":"text","text":"hi"}]}, {"role":"user","content":[result("z")]}]),
                "answers no tool_use",
            ),
            (
                json!([user, assistant_calls(&["a"]), {"role":"user","content":[result("a"), result("a")]}]),
                "2 tool_result blocks for 1",
            ),
        ];
        for (h, want) in cases {
            let err = check(&msgs(h.clone())).unwrap_err();
            assert!(err.to_string().contains(want), "{h}: {err}");
        }
    }
}
