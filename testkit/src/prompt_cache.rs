//! The fake Messages API's prompt cache, modelled on the real one: the prefix runs
//! tools → system → messages; a block with `cache_control` ends a cacheable prefix; at most four
//! breakpoints; a prefix shorter than 1,024 tokens is never cached. A request reads the longest
//! prefix an earlier request (with the same key) wrote, found at a breakpoint or up to 20 block
//! boundaries before one, and writes up to its last breakpoint.
//! The markers themselves are not part of the content: moving the breakpoint to a later message
//! still reads the earlier prefix. Tokens are estimated as four characters each.

use serde_json::Value;
use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

pub const MIN_CACHEABLE_TOKENS: u64 = 1024;
const MAX_BREAKPOINTS: usize = 4;
/// How many block boundaries before a breakpoint the API checks for an earlier write.
const LOOKBACK: usize = 20;

/// What `usage` reports for one request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub cache_creation_input_tokens: u64,
    pub cache_read_input_tokens: u64,
}

/// The prefixes written so far, per API key.
#[derive(Default)]
pub struct PromptCache {
    written: HashSet<(String, u64)>,
}

/// The request as the cache sees it: each block (tools, system blocks, message blocks) in order,
/// without its `cache_control`, and whether it carried one.
fn segments(request: &Value) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut push = |block: &Value| {
        let marked = block.get("cache_control").is_some();
        let mut clean = block.clone();
        if let Some(o) = clean.as_object_mut() {
            o.remove("cache_control");
        }
        out.push((clean.to_string(), marked));
    };
    request["tools"].as_array().into_iter().flatten().for_each(&mut push);
    match &request["system"] {
        Value::String(s) => push(&Value::String(s.clone())),
        Value::Array(blocks) => blocks.iter().for_each(&mut push),
        _ => {}
    }
    for message in request["messages"].as_array().into_iter().flatten() {
        match &message["content"] {
            Value::String(s) => push(&Value::String(s.clone())),
            Value::Array(blocks) => blocks.iter().for_each(&mut push),
            _ => {}
        }
    }
    out
}

fn tokens(chars: usize) -> u64 {
    (chars as u64).div_ceil(4)
}

impl PromptCache {
    /// Checks the breakpoints (the real API's 400 when there are too many) and accounts for the
    /// request, remembering what it wrote.
    pub fn account(&mut self, key: &str, request: &Value) -> Result<Usage, String> {
        let segments = segments(request);
        let marks = segments.iter().filter(|(_, m)| *m).count();
        if marks > MAX_BREAKPOINTS {
            return Err(format!(
                "A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {marks}."
            ));
        }
        let total = tokens(segments.iter().map(|(s, _)| s.len()).sum());
        // (prefix hash, prefix tokens) after every block.
        let mut hasher = DefaultHasher::new();
        let mut chars = 0;
        let mut prefixes = Vec::with_capacity(segments.len());
        for (text, _) in &segments {
            text.hash(&mut hasher);
            chars += text.len();
            prefixes.push((hasher.finish(), tokens(chars)));
        }
        let breakpoints: Vec<usize> =
            (0..segments.len()).filter(|&i| segments[i].1 && prefixes[i].1 >= MIN_CACHEABLE_TOKENS).collect();
        // A hit is looked for at each breakpoint and the LOOKBACK block boundaries before it.
        let read = breakpoints
            .iter()
            .flat_map(|&b| b.saturating_sub(LOOKBACK)..=b)
            .map(|i| prefixes[i])
            .filter(|(h, t)| *t >= MIN_CACHEABLE_TOKENS && self.written.contains(&(key.to_owned(), *h)))
            .map(|(_, t)| t)
            .max()
            .unwrap_or(0);
        let end = breakpoints.last().map_or(0, |&b| prefixes[b].1);
        for &b in &breakpoints {
            self.written.insert((key.to_owned(), prefixes[b].0));
        }
        let write = end.saturating_sub(read);
        Ok(Usage {
            input_tokens: total - read - write,
            cache_creation_input_tokens: write,
            cache_read_input_tokens: read,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(last_marked: usize, messages: usize) -> Value {
        let long = "x".repeat(5000);
        let msgs: Vec<Value> = (0..messages)
            .map(|i| {
                let mut block = json!({"type": "text", "text": format!("{i} {long}")});
                if i == last_marked {
                    block["cache_control"] = json!({"type": "ephemeral"});
                }
                json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": [block]})
            })
            .collect();
        json!({"tools": [{"name": "t", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}], "messages": msgs})
    }

    #[test]
    fn the_first_request_writes_and_the_next_reads_the_shared_prefix() {
        let mut cache = PromptCache::default();
        let first = cache.account("k", &request(0, 1)).unwrap();
        assert_eq!(first.cache_read_input_tokens, 0);
        assert!(first.cache_creation_input_tokens >= MIN_CACHEABLE_TOKENS);
        // The breakpoint moved to the new last message; the old prefix is read, the rest written.
        let second = cache.account("k", &request(2, 3)).unwrap();
        assert_eq!(second.cache_read_input_tokens, first.cache_creation_input_tokens);
        assert!(second.cache_creation_input_tokens > 0);
        // Another key shares nothing.
        assert_eq!(cache.account("other", &request(0, 1)).unwrap().cache_read_input_tokens, 0);
    }

    #[test]
    fn short_prefixes_are_not_cached_and_five_breakpoints_are_refused() {
        let mut cache = PromptCache::default();
        let short = json!({"messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}]}]});
        assert_eq!(cache.account("k", &short).unwrap().cache_creation_input_tokens, 0);
        let mark = json!({"type": "ephemeral"});
        let five: Vec<Value> =
            (0..5).map(|i| json!({"name": format!("t{i}"), "input_schema": {}, "cache_control": mark})).collect();
        let err = cache.account("k", &json!({"tools": five, "messages": []})).unwrap_err();
        assert!(err.contains("A maximum of 4 blocks with cache_control"), "{err}");
    }
}
