//! A form generated from a JSON Schema object: one field per property (text, number, checkbox,
//! select for enums), and a raw JSON box for anything nested. Used to call a tool by hand and
//! to answer a server's elicitation.

use leptos::prelude::*;
use serde_json::{Map, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct FieldSpec {
    pub name: String,
    pub kind: String,
    pub title: String,
    pub description: Option<String>,
    pub required: bool,
    pub options: Vec<String>,
}

/// The fields of a flat object schema; `None` if some property needs the raw JSON editor.
pub fn fields(schema: &Value) -> Option<Vec<FieldSpec>> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let props = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut out = Vec::new();
    for (name, spec) in props {
        let options: Vec<String> = spec
            .get("enum")
            .and_then(Value::as_array)
            .map(|e| e.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default();
        let kind = spec
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(if options.is_empty() { "" } else { "string" })
            .to_owned();
        if !matches!(kind.as_str(), "string" | "number" | "integer" | "boolean") {
            return None;
        }
        out.push(FieldSpec {
            required: required.contains(&name.as_str()),
            title: spec.get("title").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| name.clone()),
            description: spec.get("description").and_then(Value::as_str).map(str::to_owned),
            name,
            kind,
            options,
        });
    }
    Some(out)
}

/// Reads the form's raw values into typed JSON, or says what is wrong.
pub fn collect(specs: &[FieldSpec], raw: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for f in specs {
        let value = raw.get(&f.name).cloned().unwrap_or(Value::Null);
        let text = value.as_str().unwrap_or("").trim().to_owned();
        let v = match f.kind.as_str() {
            "boolean" => Some(Value::Bool(value.as_bool().unwrap_or(false))),
            _ if text.is_empty() => None,
            "number" => Some(Value::from(text.parse::<f64>().map_err(|_| format!("{} must be a number", f.title))?)),
            "integer" => {
                Some(Value::from(text.parse::<i64>().map_err(|_| format!("{} must be a whole number", f.title))?))
            }
            _ => Some(Value::String(text)),
        };
        match v {
            Some(v) => {
                out.insert(f.name.clone(), v);
            }
            None if f.required => return Err(format!("{} is required", f.title)),
            None => {}
        }
    }
    Ok(out)
}

/// The form. `values` holds the raw input per field (strings; booleans for checkboxes), or,
/// for a schema the form cannot show, the whole object as JSON text under "".
#[component]
pub fn SchemaForm(schema: Value, values: RwSignal<Map<String, Value>>, id_prefix: String) -> impl IntoView {
    let Some(specs) = fields(&schema) else {
        let id = format!("{id_prefix}-json");
        return view! {
            <div class="field">
                <label for=id.clone()>"Arguments (JSON)"</label>
                <textarea id=id rows="5" spellcheck="false" placeholder="{}"
                    on:input=move |ev| values.update(|v| { v.insert(String::new(), Value::String(event_target_value(&ev))); })>
                </textarea>
            </div>
        }
        .into_any();
    };
    if specs.is_empty() {
        return view! { <p class="hint">"No arguments."</p> }.into_any();
    }
    specs
        .into_iter()
        .map(|f| {
            let id = format!("{id_prefix}-{}", f.name);
            let name = f.name.clone();
            let label = format!("{}{}", f.title, if f.required { " *" } else { "" });
            let described = f.description.clone().map(|d| view! { <span class="hint">{d}</span> });
            let set = move |v: Value| {
                let name = name.clone();
                values.update(move |m| {
                    m.insert(name, v);
                })
            };
            let input = match (f.kind.as_str(), f.options.is_empty()) {
                ("boolean", _) => view! {
                    <input id=id.clone() type="checkbox" on:change=move |ev| set(Value::Bool(event_target_checked(&ev)))/>
                }
                .into_any(),
                (_, false) => view! {
                    <select id=id.clone() on:change=move |ev| set(Value::String(event_target_value(&ev)))>
                        <option value="">"—"</option>
                        {f.options.iter().map(|o| view! { <option value=o.clone()>{o.clone()}</option> }).collect_view()}
                    </select>
                }
                .into_any(),
                (kind, true) => {
                    let input_type = if kind == "string" { "text" } else { "number" };
                    view! {
                        <input id=id.clone() type=input_type step="any" prop:required=f.required
                            on:input=move |ev| set(Value::String(event_target_value(&ev)))/>
                    }
                    .into_any()
                }
            };
            view! {
                <div class="field">
                    <label for=id>{label}</label>
                    {input}
                    {described}
                </div>
            }
        })
        .collect_view()
        .into_any()
}

/// The arguments the form holds, typed, ready to send.
pub fn arguments(schema: &Value, values: &Map<String, Value>) -> Result<Value, String> {
    match fields(schema) {
        Some(specs) => collect(&specs, values).map(Value::Object),
        None => {
            let text = values.get("").and_then(Value::as_str).unwrap_or("{}");
            let text = if text.trim().is_empty() { "{}" } else { text };
            match serde_json::from_str::<Value>(text) {
                Ok(v @ Value::Object(_)) => Ok(v),
                Ok(_) => Err("The arguments must be a JSON object".into()),
                Err(e) => Err(format!("Not valid JSON: {e}")),
            }
        }
    }
}
