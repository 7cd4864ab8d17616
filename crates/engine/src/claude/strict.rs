//! What a `strict: true` tool's schema must satisfy before the API compiles it into the grammar
//! that holds Claude's input to it (the API's 400s, named before sending), and what strict mode
//! leaves unenforced (said in phase 1, not refused: the SDKs move such keywords into the
//! description, and the API's answer to them is not documented as a 400).

use serde_json::Value;

use super::server_tools::PROGRAMMATIC;
use protocol::claude::ToolDef;

/// Per request, across every strict tool (structured outputs' documented limits).
pub const MAX_STRICT_TOOLS: usize = 20;
pub const MAX_OPTIONAL: usize = 24;
pub const MAX_UNIONS: usize = 16;

/// Keywords a strict schema may hold that strict mode does not enforce.
const UNENFORCED: [&str; 8] =
    ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "maxItems"];

/// A request the API would refuse for its per-tool fields, named before sending.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ToolFieldRule {
    #[error(
        "strict tool {tool}: the object at {path} must say \"additionalProperties\": false (a strict schema is closed)"
    )]
    OpenObject { tool: String, path: String },
    #[error("{count} strict tools in one request; the API compiles at most {MAX_STRICT_TOOLS}")]
    TooManyStrict { count: usize },
    #[error(
        "{count} optional parameters across the strict tools; the API allows at most {MAX_OPTIONAL} (list more in \"required\", or mark fewer tools strict)"
    )]
    TooManyOptional { count: usize },
    #[error(
        "{count} parameters with a union type (a type list or anyOf) across the strict tools; the API allows at most {MAX_UNIONS}"
    )]
    TooManyUnions { count: usize },
    #[error(
        "strict tool {tool} may be called from code execution, which the API refuses: untick code that calls your tools, or strict"
    )]
    StrictFromCode { tool: String },
    #[error("{field} names \"{name}\", which matches none of this request's tools")]
    NotOffered { field: &'static str, name: String },
    #[error("every tool would be deferred; the API needs at least one with defer_loading false")]
    AllDeferred,
}

/// What the strict tools in `defs` need: the first rule broken, or the keywords strict mode will
/// not enforce (`tool: path keyword`), for phase 1 to say.
pub fn check(defs: &[ToolDef]) -> Result<Vec<String>, ToolFieldRule> {
    let strict: Vec<&ToolDef> = defs.iter().filter(|d| d.strict).collect();
    if strict.len() > MAX_STRICT_TOOLS {
        return Err(ToolFieldRule::TooManyStrict { count: strict.len() });
    }
    let mut walk = Walk::default();
    for def in &strict {
        if def.allowed_callers.iter().any(|c| c == PROGRAMMATIC) {
            return Err(ToolFieldRule::StrictFromCode { tool: def.name.clone() });
        }
        walk.tool = def.name.clone();
        walk.node(&def.input_schema, "")?;
    }
    if walk.optional > MAX_OPTIONAL {
        return Err(ToolFieldRule::TooManyOptional { count: walk.optional });
    }
    if walk.unions > MAX_UNIONS {
        return Err(ToolFieldRule::TooManyUnions { count: walk.unions });
    }
    Ok(walk.unenforced)
}

#[derive(Default)]
struct Walk {
    tool: String,
    optional: usize,
    unions: usize,
    unenforced: Vec<String>,
}

impl Walk {
    fn node(&mut self, schema: &Value, path: &str) -> Result<(), ToolFieldRule> {
        let Some(map) = schema.as_object() else { return Ok(()) };
        let at = |more: &str| format!("{path}/{more}");
        for word in UNENFORCED.iter().filter(|w| map.contains_key(**w)) {
            self.unenforced.push(format!("{}: {} {word}", self.tool, if path.is_empty() { "/" } else { path }));
        }
        if map.get("items").is_some_and(Value::is_object) {
            self.node(&map["items"], &at("items"))?;
        }
        for key in ["anyOf", "allOf"] {
            for (i, sub) in map.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
                self.node(sub, &at(&format!("{key}/{i}")))?;
            }
        }
        for key in ["$defs", "definitions"] {
            for (name, sub) in map.get(key).and_then(Value::as_object).into_iter().flatten() {
                self.node(sub, &at(&format!("{key}/{name}")))?;
            }
        }
        let is_object = map.get("type").and_then(Value::as_str) == Some("object") || map.contains_key("properties");
        if !is_object {
            return Ok(());
        }
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            let path = if path.is_empty() { "/".to_owned() } else { path.to_owned() };
            return Err(ToolFieldRule::OpenObject { tool: self.tool.clone(), path });
        }
        let required: Vec<&str> =
            map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        for (name, sub) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
            self.optional += usize::from(!required.contains(&name.as_str()));
            self.unions += usize::from(sub.get("type").is_some_and(Value::is_array) || sub.get("anyOf").is_some());
            self.node(sub, &at(&format!("properties/{name}")))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn strict(name: &str, schema: Value) -> ToolDef {
        ToolDef { name: name.into(), input_schema: schema, strict: true, ..ToolDef::default() }
    }

    #[test]
    fn a_strict_schema_is_closed_at_every_object_and_its_unenforced_keywords_are_named() {
        let closed = json!({"type": "object", "additionalProperties": false, "required": ["a"], "properties": {
            "a": {"type": "integer", "minimum": 0},
            "b": {"type": "array", "items": {"type": "object", "properties": {"c": {"type": "string"}}}}
        }});
        let err = check(&[strict("t", closed.clone())]).unwrap_err();
        assert_eq!(err, ToolFieldRule::OpenObject { tool: "t".into(), path: "/properties/b/items".into() });
        let mut fixed = closed;
        fixed["properties"]["b"]["items"]["additionalProperties"] = json!(false);
        assert_eq!(check(&[strict("t", fixed)]).unwrap(), ["t: /properties/a minimum"]);
        // A tool that is not strict is not checked.
        let open = ToolDef { name: "open".into(), input_schema: json!({"type": "object"}), ..ToolDef::default() };
        assert_eq!(check(&[open]), Ok(vec![]));
    }

    #[test]
    fn the_per_request_limits_count_across_every_strict_tool() {
        let optional = |n: usize| {
            let props: serde_json::Map<String, Value> =
                (0..n).map(|i| (format!("p{i}"), json!({"type": ["string", "null"]}))).collect();
            json!({"type": "object", "additionalProperties": false, "properties": props})
        };
        let two = [strict("a", optional(12)), strict("b", optional(12))];
        assert_eq!(check(&two), Err(ToolFieldRule::TooManyUnions { count: 24 }));
        let three = [strict("a", optional(9)), strict("b", optional(9)), strict("c", optional(9))];
        assert_eq!(check(&three), Err(ToolFieldRule::TooManyOptional { count: 27 }));
        let many: Vec<ToolDef> = (0..21).map(|i| strict(&format!("t{i}"), optional(0))).collect();
        assert_eq!(check(&many), Err(ToolFieldRule::TooManyStrict { count: 21 }));
        let from_code =
            ToolDef { allowed_callers: vec!["direct".into(), PROGRAMMATIC.into()], ..strict("x", optional(0)) };
        assert_eq!(check(&[from_code]), Err(ToolFieldRule::StrictFromCode { tool: "x".into() }));
    }
}
