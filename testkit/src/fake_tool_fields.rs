//! The per-tool fields as the fake Messages API reads them: `strict` (the schema rules the real
//! API enforces with a 400 before compiling a strict schema; the limits are the documented ones,
//! the wording of these 400s is not confirmed by the documentation) and `eager_input_streaming`
//! (how a tool's arguments are cut into `input_json_delta` fragments).
//!
//! Its own reading of the documentation, not the engine's `strict` module: a test then checks
//! one against the other.

use serde_json::Value;

fn closed_everywhere(schema: &Value, path: &str) -> Result<(), String> {
    let Some(map) = schema.as_object() else { return Ok(()) };
    let object = map.get("type") == Some(&Value::from("object")) || map.contains_key("properties");
    if object && map.get("additionalProperties") != Some(&Value::Bool(false)) {
        return Err(format!("{path}: For 'object' type, 'additionalProperties' must be explicitly set to false"));
    }
    for (key, sub) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
        closed_everywhere(sub, &format!("{path}.properties.{key}"))?;
    }
    if let Some(items) = map.get("items") {
        closed_everywhere(items, &format!("{path}.items"))?;
    }
    for key in ["anyOf", "allOf"] {
        for (i, sub) in map.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
            closed_everywhere(sub, &format!("{path}.{key}.{i}"))?;
        }
    }
    Ok(())
}

/// Counts optional and union-typed parameters at every level of a schema.
fn count(schema: &Value, optional: &mut usize, unions: &mut usize) {
    let Some(map) = schema.as_object() else { return };
    let required: Vec<&Value> = map.get("required").and_then(Value::as_array).into_iter().flatten().collect();
    for (key, sub) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
        if !required.contains(&&Value::from(key.as_str())) {
            *optional += 1;
        }
        if sub.get("type").is_some_and(Value::is_array) || sub.get("anyOf").is_some() {
            *unions += 1;
        }
        count(sub, optional, unions);
    }
    if let Some(items) = map.get("items") {
        count(items, optional, unions);
    }
}

/// The 400 the real API gives for the strict tools of `tools`, if any.
pub fn validate(tools: &[Value]) -> Result<(), String> {
    let strict: Vec<(usize, &Value)> = tools.iter().enumerate().filter(|(_, t)| t["strict"] == true).collect();
    if strict.len() > 20 {
        return Err(format!("Too many strict tools ({}). The maximum number of strict tools is 20.", strict.len()));
    }
    let (mut optional, mut unions) = (0, 0);
    for (i, tool) in &strict {
        let callers = tool["allowed_callers"].as_array().cloned().unwrap_or_default();
        if callers.iter().any(|c| c.as_str().is_some_and(|c| c.starts_with("code_execution"))) {
            return Err(format!("tools.{i}: strict tools cannot be called from code execution"));
        }
        closed_everywhere(&tool["input_schema"], &format!("tools.{i}.custom.input_schema"))?;
        count(&tool["input_schema"], &mut optional, &mut unions);
    }
    if optional > 24 {
        return Err(format!(
            "Schemas contains too many optional parameters ({optional}), which would make grammar compilation inefficient. Reduce the number of optional parameters in your tool schemas (limit: 24)."
        ));
    }
    if unions > 16 {
        return Err(format!(
            "Schemas contains too many parameters with union types ({unions}), which would result in exponential compilation cost. Reduce the number of parameters with union types (limit: 16)."
        ));
    }
    Ok(())
}

/// Whether the request sends the tool named `name` with eager input streaming.
pub fn eager(request: &Value, name: &Value) -> bool {
    request["tools"].as_array().into_iter().flatten().any(|t| t["name"] == *name && t["eager_input_streaming"] == true)
}

/// How a tool's arguments arrive: eager, in small pieces as written (which may be cut anywhere);
/// otherwise one piece per parameter, each sent once the API has it whole. Raw text that is not
/// a JSON object (a script's broken input) comes in small pieces either way.
pub fn fragments(input: &str, eager: bool) -> Vec<String> {
    let small = || {
        let chars: Vec<char> = input.chars().collect();
        chars.chunks(7).map(|c| c.iter().collect()).collect()
    };
    let Ok(Value::Object(map)) = serde_json::from_str::<Value>(input) else { return small() };
    if eager || map.is_empty() {
        return small();
    }
    let mut pieces: Vec<String> = map
        .iter()
        .enumerate()
        .map(|(i, (k, v))| format!("{}{}: {v}", if i == 0 { "{" } else { ", " }, Value::from(k.as_str())))
        .collect();
    pieces.push("}".into());
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn buffered_arguments_come_a_parameter_at_a_time_and_eager_ones_in_small_pieces() {
        let input = r#"{"city": "Tokyo", "days": 3}"#;
        let buffered = fragments(input, false);
        assert_eq!(buffered, [r#"{"city": "Tokyo""#, r#", "days": 3"#, "}"]);
        assert_eq!(serde_json::from_str::<Value>(&buffered.concat()).unwrap(), json!({"city": "Tokyo", "days": 3}));
        let eager = fragments(input, true);
        assert!(eager.len() > 3 && eager.concat() == input);
    }

    #[test]
    fn an_open_strict_schema_is_a_400() {
        let open = json!({"name": "t", "strict": true, "input_schema": {"type": "object", "properties": {}}});
        assert!(validate(&[open]).unwrap_err().contains("additionalProperties"));
        let closed =
            json!({"name": "t", "strict": true, "input_schema": {"type": "object", "additionalProperties": false}});
        assert_eq!(validate(&[closed]), Ok(()));
    }
}
