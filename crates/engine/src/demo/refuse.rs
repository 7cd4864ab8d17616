//! The one 400 the demo model gives, in the API's words: a `tool_use` not answered by a
//! `tool_result` at the start of the next message. The teaching switch leaves the results out
//! on purpose, and a workshop without a key should see what Claude's API would say.

use serde_json::Value;

fn blocks(message: &Value) -> &[Value] {
    message["content"].as_array().map(Vec::as_slice).unwrap_or_default()
}

/// Why the Messages API would refuse this request body's history, if it would for this reason.
pub fn missing_tool_results(request: &Value) -> Option<String> {
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
}
