//! JSON-RPC 2.0 (https://www.jsonrpc.org/specification), the envelope MCP travels in.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// A request id: a string or an integer, never null (MCP forbids null ids, C-18).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    Number(i64),
    String(String),
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "\"{s}\""),
        }
    }
}

/// A JSON-RPC error code. Kept as a number so codes we do not know survive untouched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    pub const PARSE_ERROR: Self = Self(-32700);
    pub const INVALID_REQUEST: Self = Self(-32600);
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    pub const INVALID_PARAMS: Self = Self(-32602);
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// MCP: resource not found (≤ 2025-11-25).
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);
    /// MCP 2025-11-25: the request needs URL-mode elicitations first.
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);
    /// MCP 2026-07-28: the server does not speak the requested protocol version.
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);

    /// The code's name as the specs give it, for badges on the timeline.
    pub fn name(self) -> &'static str {
        match self.0 {
            -32700 => "Parse error",
            -32600 => "Invalid Request",
            -32601 => "Method not found",
            -32602 => "Invalid params",
            -32603 => "Internal error",
            -32002 => "Resource not found",
            -32042 => "URL elicitation required",
            -32020 => "Header mismatch",
            -32021 => "Missing required client capability",
            -32022 => "Unsupported protocol version",
            -32099..=-32000 => "Server error",
            -32768..=-32100 => "Reserved error",
            _ => "Application error",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, self.name())
    }
}

/// The `error` member of an error response.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl ErrorObject {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), data: None }
    }

    /// Reads an error object already parsed as JSON (a task's `error`): by hand, as a derived
    /// reader from a `Value` costs the page another copy of the derived one.
    pub fn read(v: &Value) -> Option<Self> {
        Some(Self {
            code: ErrorCode(v.get("code")?.as_i64()?),
            message: v.get("message")?.as_str()?.to_owned(),
            data: v.get("data").cloned(),
        })
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

/// One JSON-RPC message, in either direction.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Request {
        id: RequestId,
        method: String,
        params: Option<Value>,
    },
    Notification {
        method: String,
        params: Option<Value>,
    },
    Response {
        id: RequestId,
        result: Value,
    },
    /// `id` is `None` when the peer could not read the request's id (it sends `null`).
    Error {
        id: Option<RequestId>,
        error: ErrorObject,
    },
}

/// Why some JSON is not a JSON-RPC message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("`jsonrpc` must be \"2.0\"")]
    Version,
    #[error("not a request, notification or response: {0}")]
    Shape(&'static str),
}

impl Message {
    pub fn request(id: RequestId, method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Request { id, method: method.into(), params }
    }

    pub fn notification(method: impl Into<String>, params: Option<Value>) -> Self {
        Message::Notification { method: method.into(), params }
    }

    /// The id this message carries, if any.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Message::Request { id, .. } | Message::Response { id, .. } => Some(id),
            Message::Error { id, .. } => id.as_ref(),
            Message::Notification { .. } => None,
        }
    }

    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("jsonrpc".into(), "2.0".into());
        match self {
            Message::Request { id, method, params } => {
                m.insert("id".into(), serde_json::to_value(id).unwrap_or(Value::Null));
                m.insert("method".into(), method.clone().into());
                if let Some(p) = params {
                    m.insert("params".into(), p.clone());
                }
            }
            Message::Notification { method, params } => {
                m.insert("method".into(), method.clone().into());
                if let Some(p) = params {
                    m.insert("params".into(), p.clone());
                }
            }
            Message::Response { id, result } => {
                m.insert("id".into(), serde_json::to_value(id).unwrap_or(Value::Null));
                m.insert("result".into(), result.clone());
            }
            Message::Error { id, error } => {
                m.insert("id".into(), serde_json::to_value(id).unwrap_or(Value::Null));
                m.insert("error".into(), serde_json::to_value(error).unwrap_or(Value::Null));
            }
        }
        Value::Object(m)
    }

    pub fn to_json(&self) -> String {
        self.to_value().to_string()
    }

    /// Reads one message out of a JSON value, deciding its kind from which members it has.
    pub fn from_value(v: Value) -> Result<Self, EnvelopeError> {
        let Value::Object(mut m) = v else {
            return Err(EnvelopeError::Shape("expected a JSON object"));
        };
        if m.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(EnvelopeError::Version);
        }
        let id = match m.remove("id") {
            None => None,
            Some(Value::Null) => Some(None),
            Some(v) => Some(Some(
                serde_json::from_value::<RequestId>(v)
                    .map_err(|_| EnvelopeError::Shape("`id` must be a string or an integer"))?,
            )),
        };
        let params = m.remove("params");
        if let Some(method) = m.remove("method") {
            let Value::String(method) = method else {
                return Err(EnvelopeError::Shape("`method` must be a string"));
            };
            return match id {
                None => Ok(Message::Notification { method, params }),
                Some(Some(id)) => Ok(Message::Request { id, method, params }),
                Some(None) => Err(EnvelopeError::Shape("a request's `id` must not be null")),
            };
        }
        if let Some(error) = m.remove("error") {
            let error = serde_json::from_value(error)
                .map_err(|_| EnvelopeError::Shape("`error` must have a numeric `code` and a `message`"))?;
            return Ok(Message::Error { id: id.flatten(), error });
        }
        if let Some(result) = m.remove("result") {
            return match id {
                Some(Some(id)) => Ok(Message::Response { id, result }),
                _ => Err(EnvelopeError::Shape("a response needs an `id`")),
            };
        }
        Err(EnvelopeError::Shape("no `method`, `result` or `error` member"))
    }

    /// A request's params, a notification's params, a response's result: the payload.
    pub fn params(&self) -> Option<&Value> {
        match self {
            Message::Request { params, .. } | Message::Notification { params, .. } => params.as_ref(),
            Message::Response { result, .. } => Some(result),
            Message::Error { .. } => None,
        }
    }

    /// Parses a body that holds one message or (MCP 2025-03-26) a batch of them (C-13).
    pub fn parse_all(text: &str) -> Result<Vec<Self>, EnvelopeError> {
        let v: Value = serde_json::from_str(text).map_err(|e| EnvelopeError::Json(e.to_string()))?;
        match v {
            Value::Array(items) => items.into_iter().map(Message::from_value).collect(),
            v => Ok(vec![Message::from_value(v)?]),
        }
    }
}

/// On the wire and in saved traces a message is its JSON-RPC object.
impl Serialize for Message {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Message::from_value(Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_kind_round_trips() {
        let cases = [
            json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"a"}}),
            json!({"jsonrpc":"2.0","id":"abc","method":"ping"}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":7,"result":{}}),
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool","data":{"x":1}}}),
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}),
        ];
        for case in cases {
            let msg = Message::from_value(case.clone()).unwrap();
            assert_eq!(msg.to_value(), case, "{msg:?}");
        }
    }

    #[test]
    fn kinds_are_told_apart_by_members() {
        let req = Message::from_value(json!({"jsonrpc":"2.0","id":1,"method":"m"})).unwrap();
        assert!(matches!(req, Message::Request { .. }));
        let note = Message::from_value(json!({"jsonrpc":"2.0","method":"m"})).unwrap();
        assert!(matches!(note, Message::Notification { .. }));
        let err = Message::from_value(json!({"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}})).unwrap();
        assert_eq!(err.id(), None);
    }

    #[test]
    fn rejects_what_is_not_json_rpc() {
        assert_eq!(Message::from_value(json!({"id":1,"result":{}})), Err(EnvelopeError::Version));
        assert!(Message::from_value(json!({"jsonrpc":"2.0","id":1})).is_err());
        assert!(Message::from_value(json!({"jsonrpc":"2.0","id":null,"method":"m"})).is_err());
        assert!(Message::from_value(json!({"jsonrpc":"2.0","id":1.5,"result":1})).is_err());
        assert!(matches!(Message::parse_all("{oops"), Err(EnvelopeError::Json(_))));
    }

    #[test]
    fn batches_are_accepted_c13() {
        let msgs =
            Message::parse_all(r#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":2,"result":1}]"#).unwrap();
        assert_eq!(msgs.len(), 2);
    }

    #[test]
    fn error_codes_have_names() {
        assert_eq!(ErrorCode(-32601).name(), "Method not found");
        assert_eq!(ErrorCode(-32001).name(), "Server error");
        assert_eq!(ErrorCode(-32500).name(), "Reserved error");
        assert_eq!(ErrorCode(42).name(), "Application error");
        assert_eq!(ErrorCode::INVALID_PARAMS.to_string(), "-32602 Invalid params");
    }
}
