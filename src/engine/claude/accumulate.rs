//! Builds the assistant message from stream events (A-07…A-09): blocks by `index`, text and
//! thinking appended, tool input JSON buffered and parsed only at `content_block_stop` (`""`
//! means `{}`), usage overwritten, unknown events and deltas ignored.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

use crate::protocol::claude::{
    Block, Delta, KnownBlock, KnownDelta, KnownEvent, Message, MessageDeltaBody, Role, StreamEvent, Usage,
};

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
    pub input_errors: BTreeMap<String, String>,
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
    blocks: BTreeMap<usize, Value>,
    json: BTreeMap<usize, String>,
    open: Vec<usize>,
    usage: Usage,
    delta: Option<MessageDeltaBody>,
    input_errors: BTreeMap<String, String>,
    complete: bool,
}

impl Accumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event.
    pub fn apply(&mut self, event: &StreamEvent) {
        let StreamEvent::Known(event) = event else { return };
        match event {
            KnownEvent::MessageStart { message } => {
                self.id = message.id.clone();
                self.model = message.model.clone();
                if let Some(u) = &message.usage {
                    self.usage = u.clone();
                }
            }
            KnownEvent::ContentBlockStart { index, content_block } => {
                let value = serde_json::to_value(content_block).unwrap_or(Value::Null);
                self.blocks.insert(*index, value);
                self.open.push(*index);
            }
            KnownEvent::ContentBlockDelta { index, delta } => self.delta(*index, delta),
            KnownEvent::ContentBlockStop { index } => self.stop(*index),
            KnownEvent::MessageDelta { delta, usage } => {
                self.delta = Some(delta.clone());
                if let Some(u) = usage {
                    self.usage.update(u);
                }
            }
            KnownEvent::MessageStop => self.complete = true,
            KnownEvent::Ping | KnownEvent::Error { .. } => {}
        }
    }

    fn delta(&mut self, index: usize, delta: &Delta) {
        let Delta::Known(delta) = delta else { return };
        let Some(Value::Object(block)) = self.blocks.get_mut(&index) else { return };
        let mut append = |field: &str, piece: &str| {
            let current = block.get(field).and_then(Value::as_str).unwrap_or("").to_owned();
            block.insert(field.into(), Value::String(current + piece));
        };
        match delta {
            KnownDelta::TextDelta { text } => append("text", text),
            KnownDelta::ThinkingDelta { thinking } => append("thinking", thinking),
            KnownDelta::SignatureDelta { signature } => append("signature", signature),
            KnownDelta::InputJsonDelta { partial_json } => self.json.entry(index).or_default().push_str(partial_json),
            KnownDelta::CitationsDelta { citation } => {
                let list = block.entry("citations").or_insert_with(|| Value::Array(Vec::new()));
                if let Value::Array(items) = list {
                    items.push(citation.clone());
                }
            }
        }
    }

    fn stop(&mut self, index: usize) {
        self.open.retain(|i| *i != index);
        let Some(Value::Object(block)) = self.blocks.get_mut(&index) else { return };
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            return;
        }
        let raw = self.json.remove(&index).unwrap_or_default();
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
                self.input_errors.insert(id, why);
            }
        }
    }

    /// The message so far. Blocks still open (a tool_use cut off mid-input) are dropped from
    /// the message and listed in `unfinished`: they must never be executed.
    pub fn finish(self) -> Assembled {
        let unfinished: Vec<(usize, String)> = self
            .open
            .iter()
            .map(|i| {
                let block = self.blocks.get(i);
                let kind = block.and_then(|b| b.get("type")).and_then(Value::as_str).unwrap_or("block");
                let name = block.and_then(|b| b.get("name")).and_then(Value::as_str);
                (*i, name.map_or_else(|| kind.to_owned(), |n| format!("{kind} {n}")))
            })
            .collect();
        let content: Vec<Block> = self
            .blocks
            .into_iter()
            .filter(|(i, _)| !self.open.contains(i))
            .map(|(_, v)| serde_json::from_value(v.clone()).unwrap_or(Block::Unknown(v)))
            .collect();
        let delta =
            self.delta.unwrap_or(MessageDeltaBody { stop_reason: None, stop_sequence: None, stop_details: None });
        Assembled {
            id: self.id,
            model: self.model,
            message: Message { role: Role::Assistant, content },
            stop_reason: delta.stop_reason,
            stop_sequence: delta.stop_sequence,
            stop_details: delta.stop_details,
            usage: self.usage,
            input_errors: self.input_errors,
            unfinished,
            complete: self.complete,
        }
    }

    /// The block at `index` as it stands (for showing a tool_use name while its input streams).
    pub fn block(&self, index: usize) -> Option<&Value> {
        self.blocks.get(&index)
    }
}

impl Assembled {
    pub fn tool_uses(&self) -> Vec<crate::protocol::claude::ToolUse> {
        self.message
            .content
            .iter()
            .filter_map(|b| match b {
                Block::Known(KnownBlock::ToolUse(t)) => Some(t.clone()),
                _ => None,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(events: &[Value]) -> Assembled {
        let mut acc = Accumulator::new();
        for e in events {
            acc.apply(&serde_json::from_value(e.clone()).unwrap());
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
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_stop","index":1}),
            json!({"type":"some_future_event","x":1}),
            json!({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}),
            json!({"type":"message_stop"}),
        ]);
        assert_eq!(a.message.text(), "Let me check.");
        let uses = a.tool_uses();
        assert_eq!(uses[0].input, json!({"city": "Tokyo"}));
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
        assert!(a.input_errors["t1"].contains("tru"), "{:?}", a.input_errors);
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
            serde_json::to_value(&a.message.content[0]).unwrap(),
            json!({"type":"thinking","thinking":"Weather means a tool.","signature":"EqQBCgIY"})
        );
    }
}
