//! `GET /v1/models` as the fake Messages API answers it: the models of the documentation of
//! 2026-10 with the capabilities it describes, plus one Loopscope has never heard of
//! (`claude-next-6`, no strict tools), so a test sees the API's list decide. Pages hold at most
//! three models (the real API's pages hold up to 1,000), so a client must follow `after_id`.

use serde_json::{Value, json};

const PAGE: usize = 3;

fn caps(thinking: &[&str], effort: &[&str], structured: bool) -> Value {
    let flags = |names: &[&str], all: &[&str]| -> Value {
        all.iter().map(|n| (n.to_string(), json!({ "supported": names.contains(n) }))).collect()
    };
    let mut effort_caps = flags(effort, &["low", "medium", "high", "xhigh", "max"]);
    effort_caps["supported"] = json!(!effort.is_empty());
    json!({
        "thinking": { "supported": true, "types": flags(thinking, &["adaptive", "enabled", "disabled"]) },
        "effort": effort_caps,
        "structured_outputs": { "supported": structured },
    })
}

fn models() -> Vec<Value> {
    let all = ["low", "medium", "high", "xhigh", "max"];
    let model = |id: &str, name: &str, input: u64, output: u64, caps: Value| {
        json!({ "type": "model", "id": id, "display_name": name, "created_at": "2026-10-01T00:00:00Z",
                "max_input_tokens": input, "max_tokens": output, "capabilities": caps })
    };
    vec![
        model("claude-fable-5-1", "Claude Fable 5.1", 1_000_000, 128_000, caps(&["adaptive"], &all, true)),
        model("claude-opus-5-5", "Claude Opus 5.5", 1_000_000, 128_000, caps(&["adaptive"], &all, true)),
        model("claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, 128_000, caps(&["adaptive"], &all, true)),
        model(
            "claude-haiku-5-5",
            "Claude Haiku 5.5",
            1_000_000,
            128_000,
            caps(&["adaptive", "disabled"], &all[..3], true),
        ),
        model(
            "claude-haiku-4-5-20251001",
            "Claude Haiku 4.5",
            200_000,
            64_000,
            caps(&["enabled", "disabled"], &[], true),
        ),
        model(
            "claude-next-6",
            "Claude Next 6",
            500_000,
            32_000,
            caps(&["adaptive", "disabled"], &["low", "high"], false),
        ),
    ]
}

/// The API key that gets a hostile listing: pages that never end, each naming the next with an
/// id that would break a URL built by hand (`&`, `#`, `/`).
pub const ENDLESS_KEY: &str = "sk-models-endless";

/// An endless listing's page: one model, and always more.
pub fn endless(query: &str) -> Value {
    let n = query.matches("page").count();
    json!({
        "data": [{ "type": "model", "id": format!("claude-endless-{n}"), "display_name": "Endless" }],
        "has_more": true,
        "last_id": format!("x&page=evil#/../{n}"),
    })
}

/// The page after `after_id` in `query` (or the first).
pub fn page(query: &str) -> Value {
    let all = models();
    let after = query.split('&').find_map(|p| p.strip_prefix("after_id="));
    let start = after.and_then(|id| all.iter().position(|m| m["id"] == id)).map_or(0, |i| i + 1);
    let data: Vec<Value> = all.iter().skip(start).take(PAGE).cloned().collect();
    json!({
        "data": data,
        "has_more": start + PAGE < all.len(),
        "first_id": data.first().map(|m| m["id"].clone()),
        "last_id": data.last().map(|m| m["id"].clone()),
    })
}
