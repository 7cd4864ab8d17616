//! The streaming event sequence: `message_start`, then per block `content_block_start`,
//! `content_block_delta`*, `content_block_stop`, then `message_delta` and `message_stop`, with
//! `ping` anywhere and `error` possibly after HTTP 200. Each event is read once into
//! [`StreamEvent`]; unknown events and deltas become `Unknown`, and a block's start is
//! kept as the JSON that came, so block types this client does not know go back verbatim.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ApiErrorDetail;

/// One event of the stream, as its `data` says.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: usize,
        content_block: Value,
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
    /// An error after HTTP 200, e.g. `overloaded_error`.
    Error {
        error: ApiErrorDetail,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct MessageStart {
    #[serde(default)]
    pub id: String,
    #[serde(default)]
    pub model: String,
    #[serde(default)]
    pub usage: Option<Usage>,
}

/// What a `content_block_delta` adds to its block.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Delta {
    TextDelta {
        text: String,
    },
    InputJsonDelta {
        partial_json: String,
    },
    ThinkingDelta {
        thinking: String,
    },
    SignatureDelta {
        signature: String,
    },
    CitationsDelta {
        citation: Value,
    },
    #[serde(other)]
    Unknown,
}

/// The `delta` of `message_delta`: how the message ended.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct MessageDeltaBody {
    #[serde(default)]
    pub stop_reason: Option<String>,
    #[serde(default)]
    pub stop_sequence: Option<String>,
    #[serde(default)]
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
    fn events_are_typed_and_unknown_ones_survive_a07() {
        let read = |v: Value| serde_json::from_value::<StreamEvent>(v).unwrap();
        assert_eq!(
            read(
                json!({"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{"}})
            ),
            StreamEvent::ContentBlockDelta { index: 2, delta: Delta::InputJsonDelta { partial_json: "{".into() } }
        );
        assert_eq!(read(json!({"type":"some_future_event","x":1})), StreamEvent::Unknown);
        assert_eq!(
            read(json!({"type":"content_block_delta","index":0,"delta":{"type":"future_delta","x":1}})),
            StreamEvent::ContentBlockDelta { index: 0, delta: Delta::Unknown }
        );
        let StreamEvent::MessageDelta { delta, usage } = read(
            json!({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":3}}),
        ) else {
            panic!("not a message_delta")
        };
        assert_eq!((delta.stop_reason.as_deref(), usage.map(|u| u.output_tokens)), (Some("tool_use"), Some(3)));
        assert!(matches!(
            read(json!({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})),
            StreamEvent::Error { error } if error.kind == "overloaded_error"
        ));
    }

    #[test]
    fn usage_overwrites_never_adds_a09() {
        let mut u = Usage { input_tokens: 10, output_tokens: 1, ..Default::default() };
        u.update(&Usage { output_tokens: 7, ..Default::default() });
        u.update(&Usage { output_tokens: 9, ..Default::default() });
        assert_eq!((u.input_tokens, u.output_tokens), (10, 9));
    }
}
