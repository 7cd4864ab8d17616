//! A form generated from a JSON Schema object: a field per property — text (with its format:
//! email, uri, date), number, checkbox, single select (`enum`, `enumNames`, `oneOf` of
//! const/title) and multiple select (array of `enum` or `anyOf` const/title) — prefilled with
//! defaults; anything else falls back to one raw JSON box. Used to call a tool by hand and to
//! answer a server's elicitation (C-37).

use leptos::prelude::*;
use serde_json::{Map, Value};

#[derive(Clone, Debug, PartialEq)]
pub struct FieldSpec {
    pub name: String,
    /// "string", "number", "integer", "boolean", or "array" (a multiple select).
    pub kind: String,
    pub title: String,
    pub description: Option<String>,
    pub required: bool,
    pub format: Option<String>,
    /// (value, label) of each choice; empty when the field is free input.
    pub options: Vec<(String, String)>,
    pub default: Option<Value>,
    pub min_items: Option<u64>,
    pub max_items: Option<u64>,
}

/// Choices from `enum` (+ legacy `enumNames`) or `oneOf`/`anyOf` of `{const, title}`.
fn choices(spec: &Value) -> Vec<(String, String)> {
    if let Some(values) = spec.get("enum").and_then(Value::as_array) {
        let names = spec.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                let v = v.as_str()?.to_owned();
                let label =
                    names.and_then(|n| n.get(i)).and_then(Value::as_str).map_or_else(|| v.clone(), str::to_owned);
                Some((v, label))
            })
            .collect();
    }
    let list = spec.get("oneOf").or_else(|| spec.get("anyOf")).and_then(Value::as_array);
    list.map(|l| {
        l.iter()
            .filter_map(|c| {
                let v = c.get("const")?.as_str()?.to_owned();
                let label = c.get("title").and_then(Value::as_str).map_or_else(|| v.clone(), str::to_owned);
                Some((v, label))
            })
            .collect()
    })
    .unwrap_or_default()
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
        let kind = spec.get("type").and_then(Value::as_str).unwrap_or("string").to_owned();
        let options = match kind.as_str() {
            "string" => choices(&spec),
            "array" => choices(spec.get("items").unwrap_or(&Value::Null)),
            "number" | "integer" | "boolean" => Vec::new(),
            _ => return None,
        };
        if kind == "array" && options.is_empty() {
            return None;
        }
        let n = |k: &str| spec.get(k).and_then(Value::as_u64);
        out.push(FieldSpec {
            required: required.contains(&name.as_str()),
            title: spec.get("title").and_then(Value::as_str).map(str::to_owned).unwrap_or_else(|| name.clone()),
            description: spec.get("description").and_then(Value::as_str).map(str::to_owned),
            format: spec.get("format").and_then(Value::as_str).map(str::to_owned),
            default: spec.get("default").cloned(),
            min_items: n("minItems"),
            max_items: n("maxItems"),
            name,
            kind,
            options,
        });
    }
    Some(out)
}

fn check_format(f: &FieldSpec, text: &str) -> Result<(), String> {
    let ok = match f.format.as_deref() {
        Some("email") => text.contains('@') && !text.starts_with('@') && !text.ends_with('@'),
        Some("uri") => text.split_once(':').is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty()),
        Some("date") => text.len() == 10 && text.as_bytes()[4] == b'-' && text.as_bytes()[7] == b'-',
        _ => true,
    };
    if ok { Ok(()) } else { Err(format!("{} must be a valid {}", f.title, f.format.as_deref().unwrap_or("value"))) }
}

/// Reads the form's raw values into typed JSON, or says what is wrong.
pub fn collect(specs: &[FieldSpec], raw: &Map<String, Value>) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for f in specs {
        let value = raw.get(&f.name).cloned().unwrap_or(Value::Null);
        let text = value.as_str().unwrap_or("").trim().to_owned();
        let v = match f.kind.as_str() {
            "boolean" => Some(Value::Bool(value.as_bool().unwrap_or(false))),
            "array" => {
                let picked = value.as_array().cloned().unwrap_or_default();
                let n = picked.len() as u64;
                if f.min_items.is_some_and(|m| n < m) || f.max_items.is_some_and(|m| n > m) {
                    return Err(format!(
                        "{}: choose between {} and {}",
                        f.title,
                        f.min_items.unwrap_or(0),
                        f.max_items.map_or("any number".into(), |m| m.to_string())
                    ));
                }
                (!picked.is_empty()).then_some(Value::Array(picked))
            }
            _ if text.is_empty() => None,
            "number" => Some(Value::from(text.parse::<f64>().map_err(|_| format!("{} must be a number", f.title))?)),
            "integer" => {
                Some(Value::from(text.parse::<i64>().map_err(|_| format!("{} must be a whole number", f.title))?))
            }
            _ => {
                check_format(f, &text)?;
                Some(Value::String(text))
            }
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

/// The raw value a field starts with: its default, as the inputs hold it.
fn initial(f: &FieldSpec) -> Option<Value> {
    let d = f.default.as_ref()?;
    Some(match (f.kind.as_str(), d) {
        ("boolean" | "array", d) => d.clone(),
        (_, Value::String(s)) => Value::String(s.clone()),
        (_, other) => Value::String(other.to_string()),
    })
}

fn input_type(f: &FieldSpec) -> &'static str {
    match (f.kind.as_str(), f.format.as_deref()) {
        ("number" | "integer", _) => "number",
        (_, Some("email")) => "email",
        (_, Some("uri")) => "url",
        (_, Some("date")) => "date",
        _ => "text",
    }
}

/// The form. `values` holds the raw input per field (strings; booleans for checkboxes; arrays
/// for multiple selects), or, for a schema the form cannot show, the whole object as JSON text
/// under "".
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
    values.update(|v| {
        for f in &specs {
            if let Some(init) = initial(f) {
                v.entry(f.name.clone()).or_insert(init);
            }
        }
    });
    specs
        .into_iter()
        .map(|f| {
            let id = format!("{id_prefix}-{}", f.name);
            let name = StoredValue::new(f.name.clone());
            let label = format!("{}{}", f.title, if f.required { " *" } else { "" });
            let described = f.description.clone().map(|d| view! { <span class="hint">{d}</span> });
            let set = move |v: Value| values.update(move |m| { m.insert(name.get_value(), v); });
            let current = move || values.with(|m| m.get(&name.get_value()).cloned().unwrap_or(Value::Null));
            let input = match f.kind.as_str() {
                "boolean" => view! {
                    <input id=id.clone() type="checkbox" prop:checked=move || current().as_bool().unwrap_or(false)
                        on:change=move |ev| set(Value::Bool(event_target_checked(&ev)))/>
                }
                .into_any(),
                "array" => view! {
                    <fieldset id=id.clone() class="choices">
                        <legend class="visually-hidden">{f.title.clone()}</legend>
                        {f.options.iter().map(|(value, text)| {
                            let value = StoredValue::new(value.clone());
                            let picked = move || current().as_array().is_some_and(|a| a.iter().any(|x| x.as_str() == Some(&value.get_value())));
                            view! {
                                <label class="check">
                                    <input type="checkbox" prop:checked=picked on:change=move |ev| {
                                        let on = event_target_checked(&ev);
                                        let mut list = current().as_array().cloned().unwrap_or_default();
                                        list.retain(|x| x.as_str() != Some(&value.get_value()));
                                        if on { list.push(Value::String(value.get_value())); }
                                        set(Value::Array(list));
                                    }/>
                                    {text.clone()}
                                </label>
                            }
                        }).collect_view()}
                    </fieldset>
                }
                .into_any(),
                _ if !f.options.is_empty() => view! {
                    <select id=id.clone() prop:value=move || current().as_str().unwrap_or("").to_owned()
                        on:change=move |ev| set(Value::String(event_target_value(&ev)))>
                        <option value="">"—"</option>
                        {f.options.iter().map(|(v, t)| view! { <option value=v.clone()>{t.clone()}</option> }).collect_view()}
                    </select>
                }
                .into_any(),
                _ => view! {
                    <input id=id.clone() type=input_type(&f) step="any" prop:required=f.required
                        prop:value=move || current().as_str().unwrap_or("").to_owned()
                        on:input=move |ev| set(Value::String(event_target_value(&ev)))/>
                }
                .into_any(),
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
