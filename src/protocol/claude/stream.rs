//! The streaming event sequence: `message_start`, then per block `content_block_start`,
//! `content_block_delta`*, `content_block_stop`, then `message_delta` and `message_stop`, with
//! `ping` anywhere and `error` possibly after HTTP 200.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{ApiErrorDetail, Block, Role};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StreamEvent {
    Known(KnownEvent),
    Unknown(Value),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum KnownEvent {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: usize,
        content_block: Block,
    },
    ContentBlockDelta {
        index: usize,
        delta: Delta,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: MessageDeltaBody,
        #[serde(default)]
        usage: Option<Usage>,
    },
    MessageStop,
    Ping,
    Error {
        error: ApiErrorDetail,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MessageStart {
    pub id: String,
    #[serde(default = "assistant")]
    pub role: Role,
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub content: Vec<Block>,
    #[serde(default)]
    pub usage: Option<Usage>,
}

fn assistant() -> Role {
    Role::Assistant
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Delta {
    Known(KnownDelta),
    Unknown(Value),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum KnownDelta {
    TextDelta { text: String },
    InputJsonDelta { partial_json: String },
    ThinkingDelta { thinking: String },
    SignatureDelta { signature: String },
    CitationsDelta { citation: Value },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MessageDeltaBody {
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub stop_sequence: Option<String>,
    /// Present with `refusal`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_details: Option<Value>,
}

/// Token counters. In a stream they are cumulative: each report replaces the last.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
}

impl Usage {
    /// Overwrites the counters `newer` reports (A-09: never add).
    pub fn update(&mut self, newer: &Usage) {
        if newer.input_tokens > 0 {
            self.input_tokens = newer.input_tokens;
        }
        self.output_tokens = newer.output_tokens;
        if newer.cache_creation_input_tokens.is_some() {
            self.cache_creation_input_tokens = newer.cache_creation_input_tokens;
        }
        if newer.cache_read_input_tokens.is_some() {
            self.cache_read_input_tokens = newer.cache_read_input_tokens;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_event_parses_c_a07() {
        let fixtures = [
            json!({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}),
            json!({"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}),
            json!({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"ci"}}),
            json!({"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"t"}}),
            json!({"type":"content_block_delta","index":2,"delta":{"type":"signature_delta","signature":"s"}}),
            json!({"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"x"}}}),
            json!({"type":"content_block_stop","index":0}),
            json!({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}),
            json!({"type":"message_stop"}),
            json!({"type":"ping"}),
            json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}),
        ];
        for f in fixtures {
            let e: StreamEvent = serde_json::from_value(f.clone()).unwrap();
            assert!(matches!(e, StreamEvent::Known(_)), "{f}");
        }
        let unknown: StreamEvent = serde_json::from_value(json!({"type":"message_annotation","x":1})).unwrap();
        assert!(matches!(unknown, StreamEvent::Unknown(_)));
        let delta: Delta = serde_json::from_value(json!({"type":"future_delta","y":2})).unwrap();
        assert!(matches!(delta, Delta::Unknown(_)));
    }

    #[test]
    fn usage_overwrites_never_adds_a09() {
        let mut u = Usage { input_tokens: 10, output_tokens: 1, ..Default::default() };
        u.update(&Usage { output_tokens: 7, ..Default::default() });
        u.update(&Usage { output_tokens: 9, ..Default::default() });
        assert_eq!((u.input_tokens, u.output_tokens), (10, 9));
    }
}
