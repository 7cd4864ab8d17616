//! Thinking as the fake Messages API does it: the request rules the real API enforces with a 400
//! (with the real messages, from the thinking documentation of 2026-10), signatures that bind a
//! block to its text, and whether a block's text is shown or omitted.
//!
//! Deliberately its own small table, not the engine's: a test then checks the engine against an
//! independent reading of the documentation, not against itself.

use serde_json::Value;
use std::hash::{DefaultHasher, Hash, Hasher};

/// Models that accept only adaptive thinking (and refuse a forced tool_choice where marked).
fn always_thinks(model: &str) -> bool {
    ["claude-fable-5", "claude-mythos-5", "claude-opus-5-5", "claude-sonnet-5-5"].iter().any(|p| model.starts_with(p))
}

fn refuses_forced(model: &str) -> bool {
    ["claude-fable-5-1", "claude-mythos-5-1", "claude-opus-5-5", "claude-sonnet-5-5"]
        .iter()
        .any(|p| model.starts_with(p))
}

/// Models where `enabled` (a budget) is a 400: 4.7 onwards.
fn no_budget(model: &str) -> bool {
    always_thinks(model)
        || ["claude-opus-5", "claude-sonnet-5", "claude-haiku-5", "claude-opus-4-7", "claude-opus-4-8"]
            .iter()
            .any(|p| model.starts_with(p))
}

/// Models where `adaptive` is a 400: 4.5 and older.
fn no_adaptive(model: &str) -> bool {
    ["claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"].iter().any(|p| model.starts_with(p))
}

/// Whether thinking text is shown when `display` is not sent: summarized up to 4.6.
fn shown_by_default(model: &str) -> bool {
    no_adaptive(model) || model.starts_with("claude-opus-4-6") || model.starts_with("claude-sonnet-4-6")
}

fn kind(req: &Value) -> Option<&str> {
    req.get("thinking").and_then(|t| t.get("type")).and_then(Value::as_str)
}

/// Whether scripted thinking is played for this request (not when thinking is disabled).
pub fn thinks(req: &Value) -> bool {
    kind(req) != Some("disabled")
}

/// Whether a thinking block's text is streamed (`display`), or left empty.
pub fn shows_text(req: &Value) -> bool {
    match req.get("thinking").and_then(|t| t.get("display")).and_then(Value::as_str) {
        Some(d) => d != "omitted",
        None => shown_by_default(req["model"].as_str().unwrap_or_default()),
    }
}

fn digest(text: &str) -> String {
    let mut h = DefaultHasher::new();
    text.hash(&mut h);
    format!("{:016x}", h.finish())
}

/// Models with preserved thinking: a block is bound to the `tools` and `system` it was made with.
fn binds(model: &str) -> bool {
    ["claude-fable-5-1", "claude-opus-5-5", "claude-sonnet-5-5", "claude-haiku-5-5"]
        .iter()
        .any(|p| model.starts_with(p))
}

/// What a block made for this request is bound to, on the models that bind: the `tools` set and
/// `system`, where changing `cache_control` and adding a `defer_loading` tool are allowed
/// (preserved-thinking, "what keeps a block valid").
fn bound_to(req: &Value) -> Option<String> {
    let model = req["model"].as_str().unwrap_or_default();
    let unmarked = |v: &Value| -> Vec<Value> {
        v.as_array()
            .map(|items| {
                items
                    .iter()
                    .filter(|t| t["defer_loading"] != true)
                    .map(|t| {
                        let mut t = t.clone();
                        if let Some(o) = t.as_object_mut() {
                            o.remove("cache_control");
                        }
                        t
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let system = match &req["system"] {
        Value::Array(_) => Value::Array(unmarked(&req["system"])),
        other => other.clone(),
    };
    binds(model).then(|| digest(&format!("{}\n{}", Value::Array(unmarked(&req["tools"])), system)))
}

/// The signature of a block whose full reasoning is `text`; `omitted` when its text was not sent.
pub fn signature(text: &str, omitted: bool, req: &Value) -> String {
    let bound = bound_to(req).unwrap_or_default();
    format!("EqFake{}{}{bound}", if omitted { "O" } else { "S" }, digest(text))
}

/// The request's thinking rules, in the order the real API applies them.
pub fn validate(req: &Value) -> Result<(), String> {
    let model = req["model"].as_str().unwrap_or_default();
    let forced = matches!(req.get("tool_choice").and_then(|c| c["type"].as_str()), Some("any" | "tool"))
        && req.get("tools").and_then(Value::as_array).is_some_and(|t| !t.is_empty());
    match kind(req) {
        Some("enabled") => {
            if no_budget(model) {
                return Err("\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" and \"output_config.effort\" to control thinking behavior.".into());
            }
            let budget = req["thinking"]["budget_tokens"].as_u64().unwrap_or(0);
            if budget < 1024 {
                return Err("thinking.enabled.budget_tokens: Input should be greater than or equal to 1024".into());
            }
            if budget >= req["max_tokens"].as_u64().unwrap_or(0) {
                return Err("`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size".into());
            }
            if forced {
                return Err("Thinking may not be enabled when tool_choice forces tool use.".into());
            }
        }
        Some("adaptive") if no_adaptive(model) => return Err("adaptive thinking is not supported on this model".into()),
        Some("disabled") if model.starts_with("claude-sonnet-5-5") => {
            return Err("To turn thinking off on this model, send \"thinking\": {\"type\": \"between_tools\"} instead of {\"type\": \"disabled\"}.".into());
        }
        Some("disabled") if always_thinks(model) => {
            return Err("\"thinking.type.disabled\" is not supported for this model.".into());
        }
        _ => {}
    }
    if forced && refuses_forced(model) {
        return Err("tool_choice: type \"tool\" and \"any\" are not supported for this model.".into());
    }
    check_blocks(req)
}

/// Every thinking block sent back must be the one the API produced: its text (when shown)
/// matches its signature. With a budget, the assistant message that made the pending tool calls
/// must start with its thinking.
fn check_blocks(req: &Value) -> Result<(), String> {
    let messages = req["messages"].as_array().cloned().unwrap_or_default();
    let latest = messages.iter().rposition(|m| m["role"] == "assistant");
    for (i, m) in messages.iter().enumerate() {
        if m["role"] != "assistant" {
            continue;
        }
        for (j, b) in m["content"].as_array().cloned().unwrap_or_default().iter().enumerate() {
            if b["type"] != "thinking" {
                continue;
            }
            let sig = b["signature"].as_str().unwrap_or_default();
            let text = b["thinking"].as_str().unwrap_or_default();
            // Text written into an omitted block is ignored; its signature still counts.
            let body = sig.strip_prefix("EqFakeS").or(sig.strip_prefix("EqFakeO")).unwrap_or_default();
            let valid = body.len() == 16 || body.len() == 32;
            let (made, bound) = (body.get(..16).unwrap_or_default(), body.get(16..).unwrap_or_default());
            let modified = sig.starts_with("EqFakeS") && valid && made != digest(text);
            if modified && Some(i) == latest {
                return Err(format!(
                    "messages.{i}.content.{j}: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response."
                ));
            }
            if !valid || modified {
                return Err(format!("messages.{i}.content.{j}: Invalid `signature` in `thinking` block"));
            }
            if !bound.is_empty() && bound_to(req).is_some_and(|now| now != bound) {
                return Err(format!(
                    "messages.{i}.content.{j}: Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to \"drop_block\"."
                ));
            }
        }
    }
    let pending = messages.last().is_some_and(|m| {
        m["role"] == "user" && m["content"].as_array().is_some_and(|c| c.iter().any(|b| b["type"] == "tool_result"))
    });
    if kind(req) == Some("enabled")
        && pending
        && let Some(i) = latest
        && let Some(first) = messages[i]["content"].as_array().and_then(|c| c.first())
        && !matches!(first["type"].as_str(), Some("thinking" | "redacted_thinking"))
    {
        return Err(format!(
            "messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, but found `{}`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking",
            first["type"].as_str().unwrap_or("?")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(thinking: Value, messages: Value) -> Value {
        json!({ "model": "claude-opus-4-6", "max_tokens": 4096, "thinking": thinking, "messages": messages })
    }

    #[test]
    fn a_changed_block_is_refused_where_the_api_refuses_it() {
        let sig = signature("Use the tool.", false, &json!({"model": "claude-opus-4-6"}));
        let turn = |text: &str| {
            json!([
                {"role": "user", "content": "q"},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": text, "signature": sig},
                    {"type": "tool_use", "id": "t", "name": "x", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "1"}]}
            ])
        };
        let adaptive = json!({"type": "adaptive"});
        assert_eq!(validate(&request(adaptive.clone(), turn("Use the tool."))), Ok(()));
        assert!(validate(&request(adaptive, turn("Use the tool!"))).unwrap_err().contains("cannot be modified"));
        // With a budget, the message that made the calls must start with its thinking.
        let mut dropped = turn("x");
        dropped[1]["content"].as_array_mut().unwrap().remove(0);
        let budget = json!({"type": "enabled", "budget_tokens": 2048});
        assert!(validate(&request(budget, dropped.clone())).unwrap_err().contains("Expected `thinking`"));
        assert_eq!(validate(&request(json!({"type": "adaptive"}), dropped)), Ok(()));
        // An omitted block: its text is ignored, a cut signature is not.
        let mut omitted = turn("");
        omitted[1]["content"][0]["signature"] = json!(signature("hidden", true, &json!({"model": "claude-opus-4-6"})));
        assert_eq!(validate(&request(json!({"type": "adaptive"}), omitted.clone())), Ok(()));
        omitted[1]["content"][0]["signature"] = json!("EqFakeO1234");
        assert!(
            validate(&request(json!({"type": "adaptive"}), omitted))
                .unwrap_err()
                .ends_with("Invalid `signature` in `thinking` block")
        );
    }
}
