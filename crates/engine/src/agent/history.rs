//! The API's rules for a conversation, checked before every request so a broken history
//! is a clear client-side error instead of the API's 400: the first message is the user's;
//! every `tool_use` is answered in the very next message, which starts with exactly one
//! `tool_result` per `tool_use` before any other block; no `tool_result` answers nothing.

use protocol::claude::{Block, Message, Role};

/// The history with the last message's tool_result blocks left out: the mistake the article
/// warns of, made on purpose by the teaching switch so the API's 400 can be seen. A message left
/// empty says what was removed (the API would refuse an empty one for another reason).
pub fn without_tool_results(messages: &[Message]) -> Vec<Message> {
    let mut out = messages.to_vec();
    if let Some(last) = out.last_mut() {
        last.content.retain(|b| b.tool_result().is_none());
        if last.content.is_empty() {
            last.content.push(Block::text("(The tool results were left out of this message.)"));
        }
    }
    out
}

pub fn check(messages: &[Message]) -> Result<(), String> {
    let Some(first) = messages.first() else { return Err("there are no messages".into()) };
    if first.role != Role::User {
        return Err("the first message must be the user's".into());
    }
    for (i, m) in messages.iter().enumerate() {
        let last = i + 1 == messages.len();
        if m.content.is_empty() && !(last && m.role == Role::Assistant) {
            return Err(format!("message {i} is empty"));
        }
        let asked: Vec<String> = if i > 0 && messages[i - 1].role == Role::Assistant {
            messages[i - 1].tool_uses().map(|t| t.id).collect()
        } else {
            Vec::new()
        };
        let asked: Vec<&str> = asked.iter().map(String::as_str).collect();
        let leading: Vec<String> = m.content.iter().map_while(Block::tool_result).map(|r| r.tool_use_id).collect();
        let leading: Vec<&str> = leading.iter().map(String::as_str).collect();
        for r in m.tool_results() {
            if m.role != Role::User {
                return Err(format!("message {i}: a tool_result in an assistant message"));
            }
            if !asked.contains(&r.tool_use_id.as_str()) {
                return Err(format!(
                    "message {i}: tool_result for {} answers no tool_use of the message before it",
                    r.tool_use_id
                ));
            }
        }
        if m.tool_results().count() > leading.len() {
            return Err(format!("message {i}: tool_result blocks must come first, before any text"));
        }
        if !asked.is_empty() {
            if m.role != Role::User {
                return Err(format!("message {}: its tool_use blocks are not answered by the user", i - 1));
            }
            let missing: Vec<&str> = asked.iter().filter(|id| !leading.contains(id)).copied().collect();
            if !missing.is_empty() {
                return Err(format!("message {}: no tool_result for {}", i - 1, missing.join(", ")));
            }
            if leading.len() != asked.len() {
                return Err(format!(
                    "message {i}: {} tool_result blocks for {} tool_use blocks",
                    leading.len(),
                    asked.len()
                ));
            }
        }
        if last && m.role == Role::Assistant && m.tool_uses().next().is_some() {
            return Err(format!("message {i}: its tool_use blocks have no tool_result yet"));
        }
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
            assert!(err.contains(want), "{h}: {err}");
        }
    }
}
