//! The teaching switch: one mistake a client could make with the history, made on purpose in the
//! next request that can show it, so a room sees what the API answers (a 400, or — for dropped
//! thinking with adaptive thinking — acceptance). The conversation itself keeps what was real.

use protocol::claude::{Block, Message, Role};
use serde_json::Value;

/// A mistake the switch makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Teach {
    /// The tool_result blocks Claude is owed are left out (the article's warning).
    LeaveOutResults,
    /// The thinking blocks of the latest assistant message are left out.
    DropThinking,
    /// A thinking block of the latest assistant message is changed: its text if it has any,
    /// else its signature (the API ignores text written into an omitted block).
    AlterThinking,
}

impl Teach {
    pub const ALL: [Teach; 3] = [Teach::LeaveOutResults, Teach::DropThinking, Teach::AlterThinking];

    /// A stable key for forms.
    pub fn key(self) -> &'static str {
        match self {
            Teach::LeaveOutResults => "leave-out-results",
            Teach::DropThinking => "drop-thinking",
            Teach::AlterThinking => "alter-thinking",
        }
    }

    pub fn by_key(key: &str) -> Option<Teach> {
        Self::ALL.into_iter().find(|t| t.key() == key)
    }

    /// What the switch's choice says.
    pub fn label(self) -> &'static str {
        match self {
            Teach::LeaveOutResults => "leave out the tool_result blocks",
            Teach::DropThinking => "drop the thinking blocks",
            Teach::AlterThinking => "alter a thinking block",
        }
    }

    /// What the chat says when a turn starts with the switch on.
    pub fn announce(self) -> &'static str {
        match self {
            Teach::LeaveOutResults => {
                "Teaching switch: this turn leaves the tool_result blocks out of the request after the tool calls, \
                 to show that the API refuses it (HTTP 400). Retry runs the turn again, with them."
            }
            Teach::DropThinking => {
                "Teaching switch: the first request of this turn that follows Claude's thinking leaves the thinking \
                 blocks out. With a thinking budget the API refuses it (HTTP 400); with adaptive thinking it accepts \
                 it and Claude goes on without its earlier reasoning. Retry runs the turn again, unchanged."
            }
            Teach::AlterThinking => {
                "Teaching switch: the first request of this turn that follows Claude's thinking sends a thinking \
                 block changed, to show that the API checks every block against its signature (HTTP 400). Retry \
                 runs the turn again, unchanged."
            }
        }
    }

    /// The trace's note on the request it changed.
    pub fn note(self) -> &'static str {
        match self {
            Teach::LeaveOutResults => {
                "Teaching switch: this request leaves out the tool_result blocks Claude is owed. The API refuses \
                 such a history (400); the conversation itself keeps them."
            }
            Teach::DropThinking => {
                "Teaching switch: this request leaves out the thinking blocks of Claude's latest message. The \
                 conversation itself keeps them, byte for byte."
            }
            Teach::AlterThinking => {
                "Teaching switch: this request changes a thinking block of Claude's latest message (its text, or \
                 its signature when the text was omitted). The API checks each block against its signature; the \
                 conversation itself keeps the original."
            }
        }
    }

    /// The history to send instead, when the mistake can be made in it: the last message owes
    /// tool_results (leave out), or Claude's latest message holds thinking (drop, alter).
    pub fn apply(self, history: &[Message]) -> Option<Vec<Message>> {
        let mut out = history.to_vec();
        match self {
            Teach::LeaveOutResults => {
                let last = out.last_mut()?;
                last.tool_results().next()?;
                last.content.retain(|b| b.tool_result().is_none());
                if last.content.is_empty() {
                    // The API would refuse an empty message for another reason.
                    last.content.push(Block::text("(The tool results were left out of this message.)"));
                }
            }
            Teach::DropThinking => {
                let latest = out.iter_mut().rev().find(|m| m.role == Role::Assistant)?;
                let before = latest.content.len();
                latest.content.retain(|b| !is_thinking(b));
                if latest.content.len() == before {
                    return None;
                }
            }
            Teach::AlterThinking => {
                let latest = out.iter_mut().rev().find(|m| m.role == Role::Assistant)?;
                let block = latest.content.iter_mut().find(|b| b.kind() == "thinking")?;
                alter(&mut block.0);
            }
        }
        Some(out)
    }
}

fn is_thinking(b: &Block) -> bool {
    matches!(b.kind(), "thinking" | "redacted_thinking")
}

/// Changes what the API can tell was changed: summarized text gains a sentence; an omitted
/// block (empty text, which the API ignores) loses the end of its signature.
fn alter(block: &mut Value) {
    let text = block.get("thinking").and_then(Value::as_str).unwrap_or_default();
    if text.is_empty() {
        let signature = block.get("signature").and_then(Value::as_str).unwrap_or_default();
        let kept: String = signature.chars().take(signature.chars().count().saturating_sub(4)).collect();
        block["signature"] = Value::String(kept);
    } else {
        block["thinking"] = Value::String(format!("{text} (Changed by Loopscope's teaching switch.)"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(role: &str, content: Value) -> Message {
        serde_json::from_value(json!({ "role": role, "content": content })).unwrap()
    }

    fn history(thinking: &str) -> Vec<Message> {
        vec![
            message("user", json!([{"type": "text", "text": "weather?"}])),
            message(
                "assistant",
                json!([
                    {"type": "thinking", "thinking": thinking, "signature": "sig-ABCDEFGH"},
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "tool_use", "id": "t1", "name": "w", "input": {}}
                ]),
            ),
            message("user", json!([{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}])),
        ]
    }

    #[test]
    fn each_mistake_changes_only_what_it_names_and_only_when_it_can() {
        let h = history("Weather needs a tool.");
        let left_out = Teach::LeaveOutResults.apply(&h).unwrap();
        assert_eq!(left_out[2].content[0].as_text(), Some("(The tool results were left out of this message.)"));
        assert_eq!(left_out[1], h[1]);

        let dropped = Teach::DropThinking.apply(&h).unwrap();
        let kinds: Vec<&str> = dropped[1].content.iter().map(Block::kind).collect();
        assert_eq!(kinds, ["tool_use"]);

        let altered = Teach::AlterThinking.apply(&h).unwrap();
        assert!(altered[1].content[0].0["thinking"].as_str().unwrap().ends_with("teaching switch.)"));
        assert_eq!(altered[1].content[0].0["signature"], "sig-ABCDEFGH");
        assert_eq!(altered[1].content[1..], h[1].content[1..]);

        // Omitted text is ignored by the API: the signature is what changes.
        let omitted = Teach::AlterThinking.apply(&history("")).unwrap();
        assert_eq!(omitted[1].content[0].0["signature"], "sig-ABCD");

        // Nothing to break: the request goes as it is.
        let plain = vec![message("user", json!([{"type": "text", "text": "hi"}]))];
        assert!(Teach::ALL.iter().all(|t| t.apply(&plain).is_none()));
        for t in Teach::ALL {
            assert_eq!(Teach::by_key(t.key()), Some(t));
        }
    }
}
