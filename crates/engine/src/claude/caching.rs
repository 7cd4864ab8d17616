//! Prompt caching: where the loop puts its `cache_control` breakpoints, and what `usage`
//! says about them. The prefix runs tools → system → messages; the catalog marks the last tool
//! (its order is stable, so the prefix stays the same across turns), and each request marks the
//! system prompt and the last block of the conversation. Three of the four breakpoints allowed.

use serde_json::{Value, json};

use protocol::claude::{Message, Usage};

fn ephemeral() -> Value {
    json!({ "type": "ephemeral" })
}

/// The system prompt as one text block ending a cacheable prefix; `None` when empty.
pub fn system_blocks(system: &str) -> Option<Value> {
    (!system.trim().is_empty()).then(|| json!([{ "type": "text", "text": system, "cache_control": ephemeral() }]))
}

/// The history as sent: the last block of the last message marked, so the next request reads
/// everything up to here from the cache. The history itself is left unmarked.
pub fn with_breakpoint(history: &[Message]) -> Vec<Message> {
    let mut messages = history.to_vec();
    let last = messages.last_mut().and_then(|m| m.content.last_mut());
    if let Some(block) = last
        && !matches!(block.kind(), "thinking" | "redacted_thinking")
        && let Some(o) = block.0.as_object_mut()
    {
        o.insert("cache_control".into(), ephemeral());
    }
    messages
}

/// `usage` in words, named as the API names them: "tokens — input 1,234 · cache read 1,100 ·
/// output 56" (cache parts only when non-zero).
pub fn describe_usage(u: &Usage) -> String {
    let n = |v: u64| {
        let digits = v.to_string();
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(',');
            }
            out.push(c);
        }
        out
    };
    let mut parts = vec![format!("input {}", n(u.input_tokens))];
    if let Some(read) = u.cache_read_input_tokens.filter(|t| *t > 0) {
        parts.push(format!("cache read {}", n(read)));
    }
    if let Some(written) = u.cache_creation_input_tokens.filter(|t| *t > 0) {
        parts.push(format!("cache write {}", n(written)));
    }
    parts.push(format!("output {}", n(u.output_tokens)));
    format!("tokens — {}", parts.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::claude::Block;

    #[test]
    fn only_the_sent_copy_is_marked_and_never_a_thinking_block() {
        let history = vec![Message::user_text("hi")];
        let sent = with_breakpoint(&history);
        assert_eq!(sent[0].content[0].0["cache_control"], ephemeral());
        assert!(history[0].content[0].0.get("cache_control").is_none());
        let thinking = vec![Message {
            role: protocol::claude::Role::Assistant,
            content: vec![Block(json!({"type": "thinking", "thinking": "…", "signature": "s"}))],
        }];
        assert!(with_breakpoint(&thinking)[0].content[0].0.get("cache_control").is_none());
        assert_eq!(system_blocks("  "), None);
    }

    #[test]
    fn usage_reads_as_a_sentence() {
        let u = Usage {
            input_tokens: 1234,
            output_tokens: 56,
            cache_read_input_tokens: Some(1_100_000),
            cache_creation_input_tokens: Some(0),
        };
        assert_eq!(describe_usage(&u), "tokens — input 1,234 · cache read 1,100,000 · output 56");
    }
}
