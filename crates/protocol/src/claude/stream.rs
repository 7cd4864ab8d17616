//! The streaming event sequence (A-07): `message_start`, then per block `content_block_start`,
//! `content_block_delta`*, `content_block_stop`, then `message_delta` and `message_stop`, with
//! `ping` anywhere and `error` possibly after HTTP 200. Each event is read once into
//! [`StreamEvent`]; unknown events and deltas become `Unknown` (A-07), and a block's start is
//! kept as the JSON that came, so block types this client does not know go back verbatim.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ApiErrorDetail;
use crate::ReadError;

/// One event of the stream, as its `data` says.
#[derive(Clone, Debug, PartialEq)]
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
        usage: Option<Usage>,
    },
    MessageStop,
    Ping,
    /// An error after HTTP 200 (A-10), e.g. `overloaded_error`.
    Error {
        error: ApiErrorDetail,
    },
    Unknown,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MessageStart {
    pub id: String,
    pub model: String,
    pub usage: Option<Usage>,
}

/// What a `content_block_delta` adds to its block (A-08).
#[derive(Clone, Debug, PartialEq)]
pub enum Delta {
    TextDelta { text: String },
    InputJsonDelta { partial_json: String },
    ThinkingDelta { thinking: String },
    SignatureDelta { signature: String },
    CitationsDelta { citation: Value },
    Unknown,
}

/// The `delta` of `message_delta`: how the message ended.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MessageDeltaBody {
    pub stop_reason: Option<String>,
    pub stop_sequence: Option<String>,
    pub stop_details: Option<Value>,
    /// `{"id": "container_…", "expires_at": …}`: the code execution container this answer ran in.
    pub container: Option<Value>,
}

/// Takes a string member out of an object.
fn take_str(v: &mut Value, key: &str) -> Option<String> {
    match v.get_mut(key).map(Value::take) {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

fn usage_of(v: Option<&Value>) -> Option<Usage> {
    v.and_then(|u| serde_json::from_value(u.clone()).ok())
}

impl StreamEvent {
    /// Reads one event's data, once. Read from the JSON value by hand rather than derived: a
    /// derived internally tagged enum costs the page about 20 KB gzip (docs/size.md).
    pub fn parse(data: &str) -> Result<StreamEvent, ReadError> {
        let mut v: Value = serde_json::from_str(data)?;
        let kind = take_str(&mut v, "type").ok_or(ReadError::Missing("type"))?;
        let index = || v.get("index").and_then(Value::as_u64).map(|i| i as usize).ok_or(ReadError::Missing("index"));
        Ok(match kind.as_str() {
            "message_start" => {
                let mut m = v.get_mut("message").map(Value::take).unwrap_or_default();
                let usage = usage_of(m.get("usage"));
                StreamEvent::MessageStart {
                    message: MessageStart {
                        id: take_str(&mut m, "id").unwrap_or_default(),
                        model: take_str(&mut m, "model").unwrap_or_default(),
                        usage,
                    },
                }
            }
            "content_block_start" => StreamEvent::ContentBlockStart {
                index: index()?,
                content_block: v.get_mut("content_block").map(Value::take).unwrap_or_default(),
            },
            "content_block_delta" => {
                let index = index()?;
                let mut d = v.get_mut("delta").map(Value::take).unwrap_or_default();
                let delta_type = take_str(&mut d, "type").unwrap_or_default();
                let mut field = |k: &str| take_str(&mut d, k).unwrap_or_default();
                let delta = match delta_type.as_str() {
                    "text_delta" => Delta::TextDelta { text: field("text") },
                    "input_json_delta" => Delta::InputJsonDelta { partial_json: field("partial_json") },
                    "thinking_delta" => Delta::ThinkingDelta { thinking: field("thinking") },
                    "signature_delta" => Delta::SignatureDelta { signature: field("signature") },
                    "citations_delta" => {
                        Delta::CitationsDelta { citation: d.get_mut("citation").map(Value::take).unwrap_or_default() }
                    }
                    _ => Delta::Unknown,
                };
                StreamEvent::ContentBlockDelta { index, delta }
            }
            "content_block_stop" => StreamEvent::ContentBlockStop { index: index()? },
            "message_delta" => {
                let usage = usage_of(v.get("usage"));
                let mut d = v.get_mut("delta").map(Value::take).unwrap_or_default();
                StreamEvent::MessageDelta {
                    delta: MessageDeltaBody {
                        stop_reason: take_str(&mut d, "stop_reason"),
                        stop_sequence: take_str(&mut d, "stop_sequence"),
                        stop_details: d.get_mut("stop_details").map(Value::take).filter(|v| !v.is_null()),
                        container: d.get_mut("container").map(Value::take).filter(|v| !v.is_null()),
                    },
                    usage,
                }
            }
            "message_stop" => StreamEvent::MessageStop,
            "ping" => StreamEvent::Ping,
            "error" => {
                let mut e = v.get_mut("error").map(Value::take).unwrap_or_default();
                StreamEvent::Error {
                    error: ApiErrorDetail {
                        kind: take_str(&mut e, "type").unwrap_or_default(),
                        message: take_str(&mut e, "message").unwrap_or_default(),
                    },
                }
            }
            _ => StreamEvent::Unknown,
        })
    }
}

/// Token counters. In a stream they are cumulative: each report replaces the last (A-09).
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
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_are_typed_and_unknown_ones_survive_a07() {
        let read = |v: Value| StreamEvent::parse(&v.to_string()).unwrap();
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
        assert!(StreamEvent::parse(r#"{"type":"content_block_stop"}"#).is_err(), "a known event missing its index");
        assert!(StreamEvent::parse("{oops").is_err());
    }

    #[test]
    fn usage_overwrites_never_adds_a09() {
        let mut u = Usage { input_tokens: 10, output_tokens: 1, ..Default::default() };
        u.update(&Usage { output_tokens: 7, ..Default::default() });
        u.update(&Usage { output_tokens: 9, ..Default::default() });
        assert_eq!((u.input_tokens, u.output_tokens), (10, 9));
    }
}
