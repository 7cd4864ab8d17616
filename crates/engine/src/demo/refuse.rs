//! The 400s the demo model gives, in the API's words: a `tool_use` not answered by a
//! `tool_result` at the start of the next message, and a changed thinking block in the latest
//! assistant message. The teaching switch makes both mistakes on purpose, and a workshop
//! without a key should see what Claude's API would say.

use serde_json::Value;

fn blocks(message: &Value) -> &[Value] {
    message["content"].as_array().map(Vec::as_slice).unwrap_or_default()
}

/// Why the Messages API would refuse this request body's history, if the demo knows the reason.
pub fn why(request: &Value) -> Option<String> {
    missing_tool_results(request).or_else(|| modified_thinking(request))
}

/// The demo's signature of a thinking block: a checksum of its text (FNV-1a), so a changed text
/// no longer matches. The API's signatures are cryptographic; the lesson is the same.
pub fn signature(text: &str) -> String {
    format!("demo-{:016x}", crate::text::checksum(text))
}

/// A thinking block that no longer matches its signature: in the latest assistant message the
/// API says it cannot be modified; in an earlier one, that its signature is invalid.
fn modified_thinking(request: &Value) -> Option<String> {
    let messages = request["messages"].as_array()?;
    let latest = messages.iter().rposition(|m| m["role"] == "assistant")?;
    let changed = |b: &Value| {
        b["type"] == "thinking"
            && b["signature"].as_str() != Some(signature(b["thinking"].as_str().unwrap_or_default()).as_str())
    };
    let (i, j) = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| m["role"] == "assistant")
        .find_map(|(i, m)| blocks(m).iter().position(changed).map(|j| (i, j)))?;
    Some(if i == latest {
        format!(
            "messages.{i}.content.{j}: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot \
             be modified. These blocks must remain as they were in the original response."
        )
    } else {
        format!("messages.{i}.content.{j}: Invalid `signature` in `thinking` block")
    })
}

fn missing_tool_results(request: &Value) -> Option<String> {
    let messages = request["messages"].as_array()?;
    for (i, message) in messages.iter().enumerate() {
        if message["role"] != "assistant" {
            continue;
        }
        let uses: Vec<&str> =
            blocks(message).iter().filter(|b| b["type"] == "tool_use").filter_map(|b| b["id"].as_str()).collect();
        if uses.is_empty() {
            continue;
        }
        // Answered only by tool_result blocks at the very start of the next message.
        let answered: Vec<&str> = messages
            .get(i + 1)
            .map(blocks)
            .unwrap_or_default()
            .iter()
            .take_while(|b| b["type"] == "tool_result")
            .filter_map(|b| b["tool_use_id"].as_str())
            .collect();
        let missing: Vec<&str> = uses.into_iter().filter(|u| !answered.contains(u)).collect();
        if !missing.is_empty() {
            // The API names the ids only when a next message exists.
            let ids = if i + 1 < messages.len() { format!(": {}", missing.join(", ")) } else { String::new() };
            return Some(format!(
                "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after{ids}. \
                 Each `tool_use` block must have a corresponding `tool_result` block in the next message."
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn body(next: Value) -> Value {
        json!({"messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}]},
            next,
        ]})
    }

    #[test]
    fn a_tool_use_without_its_result_is_refused_in_the_apis_words() {
        let left_out = body(json!({"role": "user", "content": [{"type": "text", "text": "(left out)"}]}));
        let why = missing_tool_results(&left_out).unwrap();
        assert!(
            why.starts_with(
                "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1."
            ),
            "{why}"
        );
        let answered = body(
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Sunny"}]}),
        );
        assert_eq!(missing_tool_results(&answered), None);
        assert_eq!(missing_tool_results(&json!({"messages": [{"role": "user", "content": "hi"}]})), None);
        let unanswered = json!({"messages": [{"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}]}]});
        assert!(missing_tool_results(&unanswered).unwrap().contains("immediately after. Each"));
    }

    #[test]
    fn a_changed_thinking_block_is_refused_and_an_unchanged_one_is_not() {
        let thinking = |text: &str| {
            json!({"messages": [
                {"role": "user", "content": "weather?"},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": text, "signature": signature("Use the weather tool.")},
                    {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Sunny"}]},
            ]})
        };
        assert_eq!(why(&thinking("Use the weather tool.")), None);
        let changed = why(&thinking("Use the weather tool. (Changed.)")).unwrap();
        assert!(changed.starts_with("messages.1.content.0: `thinking` or `redacted_thinking` blocks"), "{changed}");
        assert_ne!(signature("a"), signature("b"));
        // Changed in an earlier message: the signature is refused.
        let mut earlier = thinking("Use the weather tool.");
        earlier["messages"].as_array_mut().unwrap().extend([
            json!({"role": "assistant", "content": [{"type": "text", "text": "Sunny."}]}),
            json!({"role": "user", "content": "and tomorrow?"}),
        ]);
        earlier["messages"][1]["content"][0]["thinking"] = json!("Changed.");
        assert_eq!(why(&earlier).unwrap(), "messages.1.content.0: Invalid `signature` in `thinking` block");
    }
}
