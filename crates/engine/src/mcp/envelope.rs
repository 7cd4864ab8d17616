//! What every 2026-07-28 request carries besides its params: the `_meta` envelope
//! (protocol version, client capabilities, client info, log level) and the HTTP headers that
//! mirror the body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` for the
//! tool parameters a schema marks with `x-mcp-header`, SEP-2243).

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::{Map, Value, json};

use crate::encoding::base64;
use crate::platform::Headers;
use protocol::mcp::{ClientCapabilities, Revision, meta, method};

/// The envelope added to a request's `params._meta`.
pub fn add_meta(
    params: &mut Map<String, Value>,
    revision: Revision,
    caps: &ClientCapabilities,
    log_level: Option<&str>,
) {
    let entry = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(m) = entry else { return };
    m.insert(meta::PROTOCOL_VERSION.into(), revision.as_str().into());
    m.insert(meta::CLIENT_CAPABILITIES.into(), serde_json::to_value(caps).unwrap_or_else(|_| json!({})));
    m.insert(meta::CLIENT_INFO.into(), json!({ "name": "Loopscope", "version": env!("CARGO_PKG_VERSION") }));
    if let Some(level) = log_level {
        m.insert(meta::LOG_LEVEL.into(), level.into());
    }
}

/// A value as a header carries it: as it is when it is plain visible ASCII (spaces inside
/// allowed), else `=?base64?…?=` of its UTF-8 (so is a value that looks like that sentinel).
pub fn header_value(value: &str) -> String {
    let printable = value.bytes().all(|b| (0x20..=0x7e).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    if printable && !padded && !sentinel {
        value.to_owned()
    } else {
        format!("=?base64?{}?=", base64(value.as_bytes()))
    }
}

/// A tool parameter mirrored into a header: `Mcp-Param-{header}` gets the value at `path`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderParam {
    pub header: String,
    pub path: Vec<String>,
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The `x-mcp-header` declarations of a tool's input schema, or why the tool must be left out
/// (SEP-2243: only statically reachable primitive properties, valid and unique names).
pub fn header_params(schema: &Value) -> Result<Vec<HeaderParam>, String> {
    let mut found = Vec::new();
    walk(schema, &mut Vec::new(), true, &mut found)?;
    for (i, a) in found.iter().enumerate() {
        if found.iter().take(i).any(|b| b.header.eq_ignore_ascii_case(&a.header)) {
            return Err(format!("x-mcp-header \"{}\" is declared twice", a.header));
        }
    }
    Ok(found)
}

/// Keywords under which a property is not statically reachable.
const DYNAMIC: [&str; 13] = [
    "items",
    "prefixItems",
    "additionalProperties",
    "oneOf",
    "anyOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "$defs",
    "definitions",
    "patternProperties",
];

fn walk(node: &Value, path: &mut Vec<String>, reachable: bool, found: &mut Vec<HeaderParam>) -> Result<(), String> {
    let Value::Object(m) = node else { return Ok(()) };
    if let Some(h) = m.get("x-mcp-header") {
        let where_ = if path.is_empty() { "the schema root".to_owned() } else { path.join(".") };
        let Some(name) = h.as_str() else { return Err(format!("x-mcp-header on {where_} is not a string")) };
        if !reachable || path.is_empty() {
            return Err(format!(
                "x-mcp-header \"{name}\" on {where_} is not on a property reachable through properties alone"
            ));
        }
        if name.is_empty() || !name.bytes().all(is_tchar) {
            return Err(format!("x-mcp-header \"{name}\" is not a valid header name"));
        }
        match m.get("type").and_then(Value::as_str) {
            Some("string" | "integer" | "boolean") => {}
            other => {
                return Err(format!(
                    "x-mcp-header \"{name}\" is on {where_}, of type {}: only string, integer and boolean may be mirrored",
                    other.unwrap_or("(none)")
                ));
            }
        }
        found.push(HeaderParam { header: name.to_owned(), path: path.clone() });
    }
    if let Some(Value::Object(props)) = m.get("properties") {
        for (key, child) in props {
            path.push(key.clone());
            walk(child, path, reachable, found)?;
            path.pop();
        }
    }
    for keyword in DYNAMIC {
        match m.get(keyword) {
            Some(Value::Array(list)) => {
                for child in list {
                    walk(child, path, false, found)?;
                }
            }
            Some(Value::Object(o)) if matches!(keyword, "$defs" | "definitions" | "patternProperties") => {
                for child in o.values() {
                    walk(child, path, false, found)?;
                }
            }
            Some(child @ Value::Object(_)) => walk(child, path, false, found)?,
            _ => {}
        }
    }
    Ok(())
}

/// The headers mirroring a request's body. `params` are the request's params;
/// `tool_headers` the `x-mcp-header` declarations of the tool a `tools/call` calls.
pub fn request_headers(revision: Revision, rpc_method: &str, params: &Value, tool_headers: &[HeaderParam]) -> Headers {
    let mut h = Headers::new().with("mcp-protocol-version", revision.as_str()).with("mcp-method", rpc_method);
    let name = match rpc_method {
        method::TOOLS_CALL | method::PROMPTS_GET => params.get("name"),
        method::RESOURCES_READ => params.get("uri"),
        // The tasks extension names the task (SEP-2663).
        method::TASKS_GET | method::TASKS_UPDATE | method::TASKS_CANCEL => params.get("taskId"),
        _ => None,
    };
    if let Some(name) = name.and_then(Value::as_str) {
        h.set("mcp-name", header_value(name));
    }
    if rpc_method == method::TOOLS_CALL {
        let args = params.get("arguments").unwrap_or(&Value::Null);
        for p in tool_headers {
            let value = p.path.iter().try_fold(args, |v, key| v.get(key));
            let text = match value {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Bool(b)) => Some(b.to_string()),
                Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Some(n.to_string()),
                _ => None, // absent or null: no header
            };
            if let Some(text) = text {
                h.set(&format!("mcp-param-{}", p.header), header_value(&text));
            }
        }
    }
    h
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    #[test]
    fn values_that_are_not_plain_ascii_go_base64_sep2243() {
        // The specification's own examples.
        assert_eq!(header_value("us-west1"), "us-west1");
        assert_eq!(header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(header_value("=?base64?literal?="), "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=");
        assert_eq!(base64(b"ab"), "YWI=");
    }

    #[test]
    fn headers_mirror_the_body_r03() {
        let params = serde_json::json!({"name": "execute_sql", "arguments": {"region": "us-west1", "query": "SELECT 1", "n": 42, "flag": false, "gone": null}});
        let decl = |h: &str, p: &str| HeaderParam { header: h.into(), path: vec![p.into()] };
        let h = request_headers(
            Revision::V2026_07_28,
            "tools/call",
            &params,
            &[
                decl("Region", "region"),
                decl("N", "n"),
                decl("Flag", "flag"),
                decl("Gone", "gone"),
                decl("Missing", "nope"),
            ],
        );
        assert_eq!(h.get("MCP-Protocol-Version"), Some("2026-07-28"));
        assert_eq!(h.get("Mcp-Method"), Some("tools/call"));
        assert_eq!(h.get("Mcp-Name"), Some("execute_sql"));
        assert_eq!(
            (h.get("Mcp-Param-Region"), h.get("Mcp-Param-N"), h.get("Mcp-Param-Flag")),
            (Some("us-west1"), Some("42"), Some("false"))
        );
        assert_eq!((h.get("Mcp-Param-Gone"), h.get("Mcp-Param-Missing")), (None, None), "null or absent: no header");
        let read =
            request_headers(Revision::V2026_07_28, "resources/read", &serde_json::json!({"uri": "file:///é"}), &[]);
        assert!(read.get("Mcp-Name").unwrap().starts_with("=?base64?"));
        assert_eq!(
            request_headers(Revision::V2026_07_28, "tools/list", &serde_json::json!({}), &[]).get("Mcp-Name"),
            None
        );
    }

    #[test]
    fn invalid_x_mcp_header_declarations_exclude_the_tool_sep2243() {
        let ok = serde_json::json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "nested": {"type": "object", "properties": {"id": {"type": "integer", "x-mcp-header": "Id"}}}
        }});
        assert_eq!(
            header_params(&ok).unwrap(),
            [
                HeaderParam { header: "Region".into(), path: vec!["region".into()] },
                HeaderParam { header: "Id".into(), path: vec!["nested".into(), "id".into()] }
            ]
        );
        let bad = [
            serde_json::json!({"properties": {"x": {"type": "number", "x-mcp-header": "X"}}}),
            serde_json::json!({"properties": {"x": {"type": "string", "x-mcp-header": ""}}}),
            serde_json::json!({"properties": {"x": {"type": "string", "x-mcp-header": "has space"}}}),
            serde_json::json!({"properties": {"a": {"type": "string", "x-mcp-header": "Dup"}, "b": {"type": "string", "x-mcp-header": "dup"}}}),
            serde_json::json!({"properties": {"list": {"type": "array", "items": {"type": "string", "x-mcp-header": "Item"}}}}),
            serde_json::json!({"properties": {"x": {"anyOf": [{"type": "string", "x-mcp-header": "X"}]}}}),
            serde_json::json!({"properties": {"x": {"type": "object", "x-mcp-header": "X"}}}),
        ];
        for schema in bad {
            assert!(header_params(&schema).is_err(), "{schema}");
        }
    }
}
