//! Builds the assistant message from stream events (A-07…A-09): blocks by `index`, text and
//! thinking appended, tool input JSON buffered and parsed only at `content_block_stop` (`""`
//! means `{}`), usage overwritten, unknown events and deltas ignored.
//!
//! Each event is read once: [`Accumulator::apply`] folds it into the message and returns what
//! it changed, so the live view and the final message come from the same reading.

use serde_json::{Map, Value};

use protocol::claude::{Block, Delta, Message, MessageDeltaBody, Role, StreamEvent, ToolUse, Usage};

/// What kind of content block a stream opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    Text,
    Thinking,
    /// Reasoning the API encrypted: no text, opaque `data`.
    RedactedThinking,
    ToolUse,
    /// A call the API runs itself (`server_tool_use`, `mcp_tool_use`): shown, never routed.
    ApiCall,
    /// A block type the page does not draw (tool results the API made, future types).
    Other,
}

impl BlockKind {
    fn of(block: &Value) -> Self {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => BlockKind::Text,
            Some("thinking") => BlockKind::Thinking,
            Some("redacted_thinking") => BlockKind::RedactedThinking,
            Some("tool_use") => BlockKind::ToolUse,
            Some("server_tool_use" | "mcp_tool_use") => BlockKind::ApiCall,
            _ => BlockKind::Other,
        }
    }
}

/// A tool call Claude began: its id and name are known from `content_block_start`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCallStub {
    pub id: String,
    pub name: String,
}

/// What one event changed, for the page to show as it streams.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamUpdate {
    BlockStarted {
        index: usize,
        kind: BlockKind,
        tool: Option<ToolCallStub>,
    },
    Text {
        index: usize,
        text: String,
    },
    Thinking {
        index: usize,
        text: String,
    },
    /// A piece of a call's arguments (`input_json_delta`), as Claude writes them.
    Input {
        index: usize,
        partial: String,
    },
}

/// A block that started and never stopped (cut off by max_tokens).
#[derive(Clone, Debug, PartialEq)]
pub struct Unfinished {
    pub index: usize,
    pub kind: BlockKind,
    /// The call, when the block was a `tool_use`: it must never run.
    pub tool: Option<ToolCallStub>,
}

/// The finished (or interrupted) answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Assembled {
    pub id: String,
    pub model: String,
    pub message: Message,
    pub stop_reason: Option<String>,
    pub stop_sequence: Option<String>,
    pub stop_details: Option<Value>,
    /// The code execution container the answer ran in (its id), if any.
    pub container: Option<String>,
    pub usage: Usage,
    /// tool_use id → why its input could not be parsed (becomes an is_error result: A-08).
    pub input_errors: Vec<(String, String)>,
    /// tool_use id → its arguments as they streamed, one `input_json_delta` each.
    pub fragments: Vec<(String, Vec<String>)>,
    pub unfinished: Vec<Unfinished>,
    /// Whether `message_stop` arrived.
    pub complete: bool,
}

struct Slot {
    block: Value,
    /// The tool input JSON received so far.
    json: String,
    /// The same, as the pieces it came in.
    pieces: Vec<String>,
    open: bool,
}

#[derive(Default)]
pub struct Accumulator {
    id: String,
    model: String,
    blocks: Vec<Option<Slot>>,
    usage: Usage,
    end: MessageDeltaBody,
    input_errors: Vec<(String, String)>,
    fragments: Vec<(String, Vec<String>)>,
    complete: bool,
}

fn tool_stub(block: &Value) -> Option<ToolCallStub> {
    let field = |k: &str| block.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(ToolCallStub { id: field("id").unwrap_or_default(), name: field("name")? })
}

impl Accumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds one event into the message; returns what the page should show of it.
    pub fn apply(&mut self, event: StreamEvent) -> Option<StreamUpdate> {
        match event {
            StreamEvent::MessageStart { message } => {
                self.id = message.id;
                self.model = message.model;
                if let Some(u) = message.usage {
                    self.usage = u;
                }
                None
            }
            StreamEvent::ContentBlockStart { index, content_block } => {
                if self.blocks.len() <= index {
                    self.blocks.resize_with(index + 1, || None);
                }
                let kind = BlockKind::of(&content_block);
                let calls = matches!(kind, BlockKind::ToolUse | BlockKind::ApiCall);
                let tool = if calls { tool_stub(&content_block) } else { None };
                self.blocks[index] =
                    Some(Slot { block: content_block, json: String::new(), pieces: Vec::new(), open: true });
                Some(StreamUpdate::BlockStarted { index, kind, tool })
            }
            StreamEvent::ContentBlockDelta { index, delta } => self.delta(index, delta),
            StreamEvent::ContentBlockStop { index } => {
                self.stop(index);
                None
            }
            StreamEvent::MessageDelta { delta, usage } => {
                self.end = delta;
                if let Some(u) = usage {
                    self.usage.update(&u);
                }
                None
            }
            StreamEvent::MessageStop => {
                self.complete = true;
                None
            }
            // `error` is the client's to handle; ping and unknown events change nothing.
            StreamEvent::Ping | StreamEvent::Error { .. } | StreamEvent::Unknown => None,
        }
    }

    fn delta(&mut self, index: usize, delta: Delta) -> Option<StreamUpdate> {
        let Some(Some(Slot { block: Value::Object(block), json, pieces, .. })) = self.blocks.get_mut(index) else {
            return None;
        };
        let mut append = |field: &str, piece: &str| {
            let current = block.get(field).and_then(Value::as_str).unwrap_or("");
            let joined = format!("{current}{piece}");
            block.insert(field.into(), Value::String(joined));
        };
        match delta {
            Delta::TextDelta { text } => {
                append("text", &text);
                Some(StreamUpdate::Text { index, text })
            }
            Delta::ThinkingDelta { thinking } => {
                append("thinking", &thinking);
                Some(StreamUpdate::Thinking { index, text: thinking })
            }
            Delta::SignatureDelta { signature } => {
                append("signature", &signature);
                None
            }
            Delta::InputJsonDelta { partial_json } => {
                json.push_str(&partial_json);
                if !partial_json.is_empty() {
                    pieces.push(partial_json.clone());
                }
                (!partial_json.is_empty()).then_some(StreamUpdate::Input { index, partial: partial_json })
            }
            Delta::CitationsDelta { citation } => {
                if let Value::Array(items) = block.entry("citations").or_insert_with(|| Value::Array(Vec::new())) {
                    items.push(citation);
                }
                None
            }
            Delta::Unknown => None,
        }
    }

    fn stop(&mut self, index: usize) {
        let Some(Some(slot)) = self.blocks.get_mut(index) else { return };
        slot.open = false;
        let Value::Object(block) = &mut slot.block else { return };
        // Every call block streams its input: Claude's tool_use, and the calls the API runs
        // itself (server_tool_use, mcp_tool_use), which go back in the next request as they came.
        if !block.contains_key("input") {
            return;
        }
        let raw = std::mem::take(&mut slot.json);
        let pieces = std::mem::take(&mut slot.pieces);
        if block.get("type").and_then(Value::as_str) == Some("tool_use") && !pieces.is_empty() {
            let id = block.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            self.fragments.push((id, pieces));
        }
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
        for (index, slot) in self.blocks.into_iter().enumerate() {
            let Some(slot) = slot else { continue };
            if slot.open {
                let kind = BlockKind::of(&slot.block);
                let tool = if kind == BlockKind::ToolUse { tool_stub(&slot.block) } else { None };
                unfinished.push(Unfinished { index, kind, tool });
            } else {
                content.push(Block(slot.block));
            }
        }
        Assembled {
            id: self.id,
            model: self.model,
            message: Message { role: Role::Assistant, content },
            stop_reason: self.end.stop_reason,
            stop_sequence: self.end.stop_sequence,
            stop_details: self.end.stop_details.filter(|v| !v.is_null()),
            container: self.end.container.as_ref().and_then(|c| c.get("id")).and_then(Value::as_str).map(str::to_owned),
            usage: self.usage,
            input_errors: self.input_errors,
            fragments: self.fragments,
            unfinished,
            complete: self.complete,
        }
    }
}

impl Assembled {
    pub fn tool_uses(&self) -> Vec<ToolUse> {
        self.message.tool_uses().collect()
    }

    /// A call's arguments as they streamed (empty when they came whole).
    pub fn fragments_of(&self, tool_use_id: &str) -> &[String] {
        self.fragments.iter().find(|(id, _)| id == tool_use_id).map_or(&[], |(_, f)| f.as_slice())
    }

    pub fn input_error(&self, tool_use_id: &str) -> Option<&String> {
        self.input_errors.iter().find(|(id, _)| id == tool_use_id).map(|(_, why)| why)
    }

    /// Puts an edited tool_use (same id) in the message in place of the one Claude sent: what a
    /// breakpoint's edit changes in the conversation.
    pub fn replace_tool_use(&mut self, edited: &ToolUse) {
        for block in &mut self.message.content {
            if block.tool_use().is_some_and(|t| t.id == edited.id) {
                block.0["name"] = edited.name.clone().into();
                block.0["input"] = edited.input.clone();
            }
        }
    }

    /// The first tool call cut off before its input was complete, if any.
    pub fn cut_off_call(&self) -> Option<&ToolCallStub> {
        self.unfinished.iter().find_map(|u| u.tool.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(events: &[Value]) -> (Assembled, Vec<StreamUpdate>) {
        let mut acc = Accumulator::new();
        let mut updates = Vec::new();
        for e in events {
            updates.extend(acc.apply(StreamEvent::parse(&e.to_string()).unwrap()));
        }
        (acc.finish(), updates)
    }

    #[test]
    fn text_and_tool_input_assemble_by_index_a07_a08() {
        let (a, updates) = run(&[
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
        // The live view hears the same reading: two block starts, two text pieces, the input as it
        // grows, in order.
        assert_eq!(
            updates,
            [
                StreamUpdate::BlockStarted { index: 0, kind: BlockKind::Text, tool: None },
                StreamUpdate::Text { index: 0, text: "Let me ".into() },
                StreamUpdate::BlockStarted {
                    index: 1,
                    kind: BlockKind::ToolUse,
                    tool: Some(ToolCallStub { id: "toolu_1".into(), name: "get_weather".into() })
                },
                StreamUpdate::Text { index: 0, text: "check.".into() },
                StreamUpdate::Input { index: 1, partial: "{\"ci".into() },
                StreamUpdate::Input { index: 1, partial: "ty\": \"Tokyo\"}".into() },
            ]
        );
    }

    #[test]
    fn empty_input_is_an_empty_object_and_bad_json_is_reported_a08() {
        let (a, _) = run(&[
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
        let (a, _) = run(&[
            json!({"type":"message_start","message":{"id":"m","content":[]}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":"I'll write it"}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t","name":"write","input":{}}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"text\": \"a long"}}),
            json!({"type":"message_delta","delta":{"stop_reason":"max_tokens"},"usage":{"output_tokens":100}}),
            json!({"type":"message_stop"}),
        ]);
        let call = ToolCallStub { id: "t".into(), name: "write".into() };
        assert_eq!(a.unfinished, [Unfinished { index: 1, kind: BlockKind::ToolUse, tool: Some(call.clone()) }]);
        assert_eq!(a.cut_off_call(), Some(&call));
        assert!(a.tool_uses().is_empty());
        assert_eq!(a.message.content.len(), 1);
    }

    #[test]
    fn thinking_and_signature_are_kept_for_the_next_request() {
        let (a, _) = run(&[
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

    #[test]
    fn a_call_the_api_runs_itself_keeps_its_streamed_input_and_its_result_block() {
        let result = json!({"type":"web_search_tool_result","tool_use_id":"srvtoolu_1",
            "content":[{"type":"web_search_result","url":"https://example.com","title":"E","encrypted_content":"x"}]});
        let (a, _) = run(&[
            json!({"type":"message_start","message":{"id":"m","content":[]}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"query\": "}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"\"mcp\"}"}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"content_block_start","index":1,"content_block":result}),
            json!({"type":"content_block_stop","index":1}),
        ]);
        assert_eq!(
            a.message.content[0].0,
            json!({"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"mcp"}})
        );
        assert_eq!(a.message.content[1].0, result);
        assert!(a.tool_uses().is_empty(), "the API runs it: the page routes nothing");
    }
}
