//! Builds the assistant message from stream events (A-07…A-09): blocks by `index`, text and
//! thinking appended, tool input JSON buffered and parsed only at `content_block_stop` (`""`
//! means `{}`), usage overwritten, unknown events and deltas ignored.

use serde_json::{Map, Value};

use crate::protocol::claude::{Block, Message, Role, ToolUse, Usage};

/// The finished (or interrupted) answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Assembled {
    pub id: String,
    pub model: String,
    pub message: Message,
    pub stop_reason: Option<String>,
    pub stop_sequence: Option<String>,
    pub stop_details: Option<Value>,
    pub usage: Usage,
    /// tool_use id → why its input could not be parsed (becomes an is_error result: A-08).
    pub input_errors: Vec<(String, String)>,
    /// Blocks that started but never stopped (cut off by max_tokens): index and what it was,
    /// e.g. `tool_use get_weather`.
    pub unfinished: Vec<(usize, String)>,
    /// Whether `message_stop` arrived.
    pub complete: bool,
}

#[derive(Debug, Default)]
pub struct Accumulator {
    id: String,
    model: String,
    /// By index: the block so far, and the tool input JSON received so far.
    blocks: Vec<Option<(Value, String)>>,
    open: Vec<usize>,
    usage: Usage,
    delta: Value,
    input_errors: Vec<(String, String)>,
    complete: bool,
}

fn text(v: &Value, key: &str) -> String {
    v.get(key).and_then(Value::as_str).unwrap_or("").to_owned()
}

fn usage(v: Option<&Value>) -> Option<Usage> {
    v.and_then(|u| serde_json::from_value(u.clone()).ok())
}

impl Accumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event (the parsed `data` of an SSE event).
    pub fn apply(&mut self, event: &Value) {
        let index = event.get("index").and_then(Value::as_u64).map(|i| i as usize);
        match (event.get("type").and_then(Value::as_str).unwrap_or(""), index) {
            ("message_start", _) => {
                let m = event.get("message").cloned().unwrap_or(Value::Null);
                self.id = text(&m, "id");
                self.model = text(&m, "model");
                if let Some(u) = usage(m.get("usage")) {
                    self.usage = u;
                }
            }
            ("content_block_start", Some(i)) => {
                if self.blocks.len() <= i {
                    self.blocks.resize(i + 1, None);
                }
                self.blocks[i] = Some((event.get("content_block").cloned().unwrap_or(Value::Null), String::new()));
                self.open.push(i);
            }
            ("content_block_delta", Some(i)) => self.delta(i, event.get("delta").unwrap_or(&Value::Null)),
            ("content_block_stop", Some(i)) => self.stop(i),
            ("message_delta", _) => {
                self.delta = event.get("delta").cloned().unwrap_or(Value::Null);
                if let Some(u) = usage(event.get("usage")) {
                    self.usage.update(&u);
                }
            }
            ("message_stop", _) => self.complete = true,
            _ => {} // ping, error (handled by the client), and types we do not know
        }
    }

    fn delta(&mut self, index: usize, delta: &Value) {
        let Some(Some((Value::Object(block), json))) = self.blocks.get_mut(index) else { return };
        let mut append = |field: &str, piece: &str| {
            let current = block.get(field).and_then(Value::as_str).unwrap_or("").to_owned();
            block.insert(field.into(), Value::String(current + piece));
        };
        match delta.get("type").and_then(Value::as_str).unwrap_or("") {
            "text_delta" => append("text", &text(delta, "text")),
            "thinking_delta" => append("thinking", &text(delta, "thinking")),
            "signature_delta" => append("signature", &text(delta, "signature")),
            "input_json_delta" => json.push_str(&text(delta, "partial_json")),
            "citations_delta" => {
                let list = block.entry("citations").or_insert_with(|| Value::Array(Vec::new()));
                if let (Value::Array(items), Some(c)) = (list, delta.get("citation")) {
                    items.push(c.clone());
                }
            }
            _ => {}
        }
    }

    fn stop(&mut self, index: usize) {
        self.open.retain(|i| *i != index);
        let Some(Some((Value::Object(block), json))) = self.blocks.get_mut(index) else { return };
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            return;
        }
        let raw = std::mem::take(json);
        let input = if raw.trim().is_empty() {
            Ok(Value::Object(Map::new()))
        } else {
            serde_json::from_str::<Value>(&raw).map_err(|e| format!("{e} in {raw:?}"))
        };
        match input {
            Ok(v) => {
                block.insert("input".into(), v);
            }
            Err(why) => {
                let id = block.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
                self.input_errors.push((id, why));
            }
        }
    }

    /// The message so far. Blocks still open (a tool_use cut off mid-input) are dropped from
    /// the message and listed in `unfinished`: they must never be executed.
    pub fn finish(self) -> Assembled {
        let mut unfinished = Vec::new();
        let mut content = Vec::new();
        for (i, slot) in self.blocks.into_iter().enumerate() {
            let Some((block, _)) = slot else { continue };
            if self.open.contains(&i) {
                let kind = text(&block, "type");
                let what = match block.get("name").and_then(Value::as_str) {
                    Some(n) => format!("{kind} {n}"),
                    None => kind,
                };
                unfinished.push((i, what));
            } else {
                content.push(Block(block));
            }
        }
        let d = &self.delta;
        let opt = |k: &str| d.get(k).and_then(Value::as_str).map(str::to_owned);
        Assembled {
            id: self.id,
            model: self.model,
            message: Message { role: Role::Assistant, content },
            stop_reason: opt("stop_reason"),
            stop_sequence: opt("stop_sequence"),
            stop_details: d.get("stop_details").filter(|v| !v.is_null()).cloned(),
            usage: self.usage,
            input_errors: self.input_errors,
            unfinished,
            complete: self.complete,
        }
    }
}

impl Assembled {
    pub fn tool_uses(&self) -> Vec<ToolUse> {
        self.message.tool_uses().collect()
    }

    pub fn input_error(&self, tool_use_id: &str) -> Option<&String> {
        self.input_errors.iter().find(|(id, _)| id == tool_use_id).map(|(_, why)| why)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(events: &[Value]) -> Assembled {
        let mut acc = Accumulator::new();
        for e in events {
            acc.apply(e);
        }
        acc.finish()
    }

    #[test]
    fn text_and_tool_input_assemble_by_index_a07_a08() {
        let a = run(&[
            json!({"type":"message_start","message":{"id":"msg_1","model":"m","content":[],"usage":{"input_tokens":50,"output_tokens":1}}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
            json!({"type":"ping"}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me "}}),
            json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get_weather","input":{}}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"check."}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"ci"}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"ty\": \"Tokyo\"}"}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"future_delta","x":1}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_stop","index":1}),
            json!({"type":"some_future_event","x":1}),
            json!({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}),
            json!({"type":"message_stop"}),
        ]);
        assert_eq!(a.message.text(), "Let me check.");
        assert_eq!(a.tool_uses()[0].input, json!({"city": "Tokyo"}));
        assert_eq!(a.stop_reason.as_deref(), Some("tool_use"));
        assert_eq!((a.usage.input_tokens, a.usage.output_tokens), (50, 30));
        assert!(a.complete && a.unfinished.is_empty());
    }

    #[test]
    fn empty_input_is_an_empty_object_and_bad_json_is_reported_a08() {
        let a = run(&[
            json!({"type":"message_start","message":{"id":"m","content":[]}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t0","name":"now","input":{}}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t1","name":"x","input":{}}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\": tru"}}),
            json!({"type":"content_block_stop","index":1}),
        ]);
        assert_eq!(a.tool_uses()[0].input, json!({}));
        assert!(a.input_error("t1").unwrap().contains("tru"), "{:?}", a.input_errors);
    }

    #[test]
    fn a_tool_use_cut_off_by_max_tokens_is_not_in_the_message_a11() {
        let a = run(&[
            json!({"type":"message_start","message":{"id":"m","content":[]}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":"I'll write it"}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"write","input":{}}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"text\": \"a long"}}),
            json!({"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":100}}),
            json!({"type":"message_stop"}),
        ]);
        assert_eq!(a.unfinished, [(1, "tool_use write".to_owned())]);
        assert!(a.tool_uses().is_empty());
        assert_eq!(a.message.content.len(), 1);
    }

    #[test]
    fn thinking_and_signature_are_kept_for_the_next_request() {
        let a = run(&[
            json!({"type":"message_start","message":{"id":"m","content":[]}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Weather means "}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a tool."}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIY"}}),
            json!({"type":"content_block_stop","index":0}),
        ]);
        assert_eq!(
            a.message.content[0].0,
            json!({"type":"thinking","thinking":"Weather means a tool.","signature":"EqQBCgIY"})
        );
    }
}
