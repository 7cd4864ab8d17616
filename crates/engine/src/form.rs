//! The model of a form generated from a JSON Schema object (a tool's input schema, an
//! elicitation's requested schema): a field per property, of a kind the form knows how to
//! draw, with its default; the raw input read back into typed JSON with a reason when it is
//! wrong. A schema the form cannot draw falls back to one raw JSON box.
//!
//! Defaults apply in the engine too: an elicitation answer that leaves out a field with a
//! default gets the default (SEP-1034), whichever way the answer was made.

use serde_json::{Map, Value};

/// A text field's `format`, where the form checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextFormat {
    Email,
    Uri,
    Date,
}

#[derive(Clone, Debug, PartialEq)]
pub enum FieldKind {
    Text {
        format: Option<TextFormat>,
    },
    Number,
    Integer,
    Boolean,
    /// One of `options` (value, label): `enum` (+ `enumNames`) or `oneOf` of const/title.
    Choice {
        options: Vec<(String, String)>,
    },
    /// Several of `options`: an array of `enum`, or `anyOf` const/title.
    MultiChoice {
        options: Vec<(String, String)>,
        min_items: Option<u64>,
        max_items: Option<u64>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct FieldSpec {
    pub name: String,
    pub kind: FieldKind,
    pub title: String,
    pub description: Option<String>,
    pub required: bool,
    pub default: Option<Value>,
}

/// A form for a schema: its fields, or a raw JSON box for what fields cannot show.
#[derive(Clone, Debug, PartialEq)]
pub enum Form {
    Fields(Vec<FieldSpec>),
    Json,
}

/// Where the raw JSON box keeps its text among the raw values.
pub const JSON_KEY: &str = "";

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

fn kind(spec: &Value) -> Option<FieldKind> {
    let n = |k: &str| spec.get(k).and_then(Value::as_u64);
    Some(match spec.get("type").and_then(Value::as_str).unwrap_or("string") {
        "string" => match choices(spec) {
            options if !options.is_empty() => FieldKind::Choice { options },
            _ => FieldKind::Text {
                format: match spec.get("format").and_then(Value::as_str) {
                    Some("email") => Some(TextFormat::Email),
                    Some("uri") => Some(TextFormat::Uri),
                    Some("date") => Some(TextFormat::Date),
                    _ => None,
                },
            },
        },
        "number" => FieldKind::Number,
        "integer" => FieldKind::Integer,
        "boolean" => FieldKind::Boolean,
        "array" => match choices(spec.get("items").unwrap_or(&Value::Null)) {
            options if !options.is_empty() => {
                FieldKind::MultiChoice { options, min_items: n("minItems"), max_items: n("maxItems") }
            }
            _ => return None,
        },
        _ => return None,
    })
}

/// The names a JSON Schema object lists as `required`.
pub fn required(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

impl Form {
    /// The form for a flat object schema; `Json` if some property needs the raw editor.
    pub fn of(schema: &Value) -> Form {
        let required = required(schema);
        let props = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        let mut fields = Vec::new();
        for (name, spec) in props {
            let Some(kind) = kind(&spec) else { return Form::Json };
            let text = |k: &str| spec.get(k).and_then(Value::as_str).map(str::to_owned);
            fields.push(FieldSpec {
                required: required.contains(&name.as_str()),
                title: text("title").unwrap_or_else(|| name.clone()),
                description: text("description"),
                default: spec.get("default").cloned(),
                name,
                kind,
            });
        }
        Form::Fields(fields)
    }

    /// The raw values the form starts with: each field's default, as its input holds it
    /// (text for text and number inputs, a boolean for a checkbox, a list for a multi-select).
    pub fn initial(&self) -> Map<String, Value> {
        let Form::Fields(fields) = self else { return Map::new() };
        fields
            .iter()
            .filter_map(|f| {
                let d = f.default.as_ref()?;
                let raw = match (&f.kind, d) {
                    (FieldKind::Boolean | FieldKind::MultiChoice { .. }, d) => d.clone(),
                    (_, Value::String(s)) => Value::String(s.clone()),
                    (_, other) => Value::String(other.to_string()),
                };
                Some((f.name.clone(), raw))
            })
            .collect()
    }

    /// Reads the raw values into the arguments object, or says what is wrong.
    pub fn read(&self, raw: &Map<String, Value>) -> Result<Value, FormError> {
        match self {
            Form::Fields(fields) => collect(fields, raw).map(Value::Object),
            Form::Json => {
                let text = raw.get(JSON_KEY).and_then(Value::as_str).unwrap_or("");
                let text = if text.trim().is_empty() { "{}" } else { text };
                match serde_json::from_str::<Value>(text) {
                    Ok(v @ Value::Object(_)) => Ok(v),
                    Ok(_) => Err(FormError::NotAnObject),
                    Err(e) => Err(FormError::NotJson(e.to_string())),
                }
            }
        }
    }
}

/// What is wrong with what the user filled in, named by the field's title.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormError {
    #[error("The arguments must be a JSON object")]
    NotAnObject,
    #[error("Not valid JSON: {0}")]
    NotJson(String),
    #[error("{field} is required")]
    Required { field: String },
    /// `what`: "a number", "a whole number", "a valid email"…
    #[error("{field} must be {what}")]
    Invalid { field: String, what: &'static str },
    #[error("{field}: choose between {min} and {}", max.map_or("any number".to_owned(), |m| m.to_string()))]
    Choices { field: String, min: u64, max: Option<u64> },
}

fn invalid(f: &FieldSpec, what: &'static str) -> FormError {
    FormError::Invalid { field: f.title.clone(), what }
}

fn check_format(f: &FieldSpec, format: Option<TextFormat>, text: &str) -> Result<(), FormError> {
    let (ok, what) = match format {
        Some(TextFormat::Email) => {
            (text.contains('@') && !text.starts_with('@') && !text.ends_with('@'), "a valid email")
        }
        Some(TextFormat::Uri) => {
            (text.split_once(':').is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty()), "a valid uri")
        }
        Some(TextFormat::Date) => {
            let b = text.as_bytes();
            (b.len() == 10 && b[4] == b'-' && b[7] == b'-', "a valid date")
        }
        None => (true, ""),
    };
    if ok { Ok(()) } else { Err(invalid(f, what)) }
}

fn collect(fields: &[FieldSpec], raw: &Map<String, Value>) -> Result<Map<String, Value>, FormError> {
    let mut out = Map::new();
    for f in fields {
        let value = raw.get(&f.name).cloned().unwrap_or(Value::Null);
        let text = value.as_str().unwrap_or("").trim().to_owned();
        let v = match &f.kind {
            FieldKind::Boolean => Some(Value::Bool(value.as_bool().unwrap_or(false))),
            FieldKind::MultiChoice { min_items, max_items, .. } => {
                let picked = value.as_array().cloned().unwrap_or_default();
                let n = picked.len() as u64;
                if min_items.is_some_and(|m| n < m) || max_items.is_some_and(|m| n > m) {
                    return Err(FormError::Choices {
                        field: f.title.clone(),
                        min: min_items.unwrap_or(0),
                        max: *max_items,
                    });
                }
                (!picked.is_empty()).then_some(Value::Array(picked))
            }
            _ if text.is_empty() => None,
            FieldKind::Number => Some(Value::from(text.parse::<f64>().map_err(|_| invalid(f, "a number"))?)),
            FieldKind::Integer => Some(Value::from(text.parse::<i64>().map_err(|_| invalid(f, "a whole number"))?)),
            FieldKind::Text { format } => {
                check_format(f, *format, &text)?;
                Some(Value::String(text))
            }
            FieldKind::Choice { .. } => Some(Value::String(text)),
        };
        match v {
            Some(v) => {
                out.insert(f.name.clone(), v);
            }
            None if f.required => return Err(FormError::Required { field: f.title.clone() }),
            None => {}
        }
    }
    Ok(out)
}

/// Fills every property of `schema` that `content` leaves out with the schema's `default`
/// (SEP-1034: a client applies defaults to an accepted elicitation).
pub fn apply_defaults(schema: &Value, content: &mut Map<String, Value>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
    for (name, spec) in props {
        if let Some(default) = spec.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Name", "default": "Ada"},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "default": 36},
                "score": {"type": "number", "default": 0.5},
                "subscribed": {"type": "boolean", "default": true},
                "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"], "default": "g"},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b"}]}, "maxItems": 1}
            },
            "required": ["name", "age"]
        })
    }

    #[test]
    fn fields_have_kinds_titles_and_defaults() {
        let Form::Fields(fields) = Form::of(&schema()) else { panic!("a flat schema has fields") };
        let color = fields.iter().find(|f| f.name == "color").unwrap();
        assert_eq!(
            color.kind,
            FieldKind::Choice { options: vec![("r".into(), "Red".into()), ("g".into(), "Green".into())] }
        );
        let email = fields.iter().find(|f| f.name == "email").unwrap();
        assert_eq!(email.kind, FieldKind::Text { format: Some(TextFormat::Email) });
        assert!(fields.iter().find(|f| f.name == "age").unwrap().required);
        assert!(matches!(
            fields.iter().find(|f| f.name == "tags").unwrap().kind,
            FieldKind::MultiChoice { max_items: Some(1), .. }
        ));
        assert_eq!(Form::of(&json!({"properties": {"deep": {"type": "object"}}})), Form::Json);
    }

    #[test]
    fn the_form_starts_from_the_defaults_and_reads_them_back_typed() {
        let form = Form::of(&schema());
        let raw = form.initial();
        assert_eq!(raw["age"], json!("36"), "number inputs hold text");
        assert_eq!(raw["subscribed"], json!(true));
        let args = form.read(&raw).unwrap();
        assert_eq!(args, json!({"name": "Ada", "age": 36, "score": 0.5, "subscribed": true, "color": "g"}));
    }

    #[test]
    fn wrong_input_says_which_field_and_why() {
        let form = Form::of(&schema());
        let mut raw = form.initial();
        raw.insert("age".into(), json!("thirty"));
        assert_eq!(form.read(&raw).unwrap_err().to_string(), "age must be a whole number");
        raw.insert("age".into(), json!(""));
        assert_eq!(form.read(&raw).unwrap_err().to_string(), "age is required");
        raw.insert("age".into(), json!("3"));
        raw.insert("email".into(), json!("nobody"));
        assert_eq!(form.read(&raw).unwrap_err().to_string(), "email must be a valid email");
        raw.insert("email".into(), json!("a@b"));
        raw.insert("tags".into(), json!(["a", "b"]));
        assert!(form.read(&raw).unwrap_err().to_string().starts_with("tags: choose between 0 and 1"));
        assert_eq!(Form::Json.read(&Map::new()).unwrap(), json!({}));
        let bad: Map<String, Value> = [(JSON_KEY.to_owned(), json!("[1]"))].into_iter().collect();
        assert_eq!(Form::Json.read(&bad).unwrap_err(), FormError::NotAnObject);
    }

    #[test]
    fn defaults_fill_what_an_answer_leaves_out_sep1034() {
        let mut content: Map<String, Value> = [("name".to_owned(), json!("Grace"))].into_iter().collect();
        apply_defaults(&schema(), &mut content);
        assert_eq!(
            Value::Object(content),
            json!({"name": "Grace", "age": 36, "score": 0.5, "subscribed": true, "color": "g"}),
            "what the user gave stays; fields without a default stay out"
        );
    }
}
