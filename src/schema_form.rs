//! A form drawn from the engine's model of a JSON Schema (`engine::form`): a field per property
//! — text (with its format: email, uri, date), number, checkbox, single select and multiple
//! select — or one raw JSON box. The view only draws and forwards input; the caller creates
//! `values` from `Form::initial()` and reads them back with `Form::read`. Used to call a tool
//! by hand and to answer a server's elicitation (C-37).

use leptos::prelude::*;
use serde_json::{Map, Value};

use engine::form::{FieldKind, FieldSpec, Form, JSON_KEY, TextFormat};

fn input_type(kind: &FieldKind) -> &'static str {
    match kind {
        FieldKind::Number | FieldKind::Integer => "number",
        FieldKind::Text { format: Some(TextFormat::Email) } => "email",
        FieldKind::Text { format: Some(TextFormat::Uri) } => "url",
        FieldKind::Text { format: Some(TextFormat::Date) } => "date",
        _ => "text",
    }
}

fn field(f: FieldSpec, values: RwSignal<Map<String, Value>>, id: String) -> impl IntoView {
    let name = StoredValue::new(f.name.clone());
    let label = format!("{}{}", f.title, if f.required { " *" } else { "" });
    let described = f.description.clone().map(|d| view! { <span class="hint">{d}</span> });
    let set = move |v: Value| {
        values.update(move |m| {
            m.insert(name.get_value(), v);
        })
    };
    let current = move || values.with(|m| m.get(&name.get_value()).cloned().unwrap_or(Value::Null));
    let input = match &f.kind {
        FieldKind::Boolean => view! {
            <input id=id.clone() type="checkbox" prop:checked=move || current().as_bool().unwrap_or(false)
                on:change=move |ev| set(Value::Bool(event_target_checked(&ev)))/>
        }
        .into_any(),
        FieldKind::MultiChoice { options, .. } => view! {
            <fieldset id=id.clone() class="choices">
                <legend class="visually-hidden">{f.title.clone()}</legend>
                {options.iter().map(|(value, text)| {
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
        FieldKind::Choice { options } => view! {
            <select id=id.clone() prop:value=move || current().as_str().unwrap_or("").to_owned()
                on:change=move |ev| set(Value::String(event_target_value(&ev)))>
                <option value="">"—"</option>
                {options.iter().map(|(v, t)| view! { <option value=v.clone()>{t.clone()}</option> }).collect_view()}
            </select>
        }
        .into_any(),
        kind => view! {
            <input id=id.clone() type=input_type(kind) step="any" prop:required=f.required
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
}

/// The form. `values` holds the raw input per field (strings; booleans for checkboxes; arrays
/// for multiple selects), or, for a schema the form cannot show, the whole object as JSON text
/// under [`JSON_KEY`]. `id_prefix` must be unique on the page.
#[component]
pub fn SchemaForm(form: Form, values: RwSignal<Map<String, Value>>, id_prefix: String) -> impl IntoView {
    match form {
        Form::Json => {
            let id = format!("{id_prefix}-json");
            view! {
                <div class="field">
                    <label for=id.clone()>"Arguments (JSON)"</label>
                    <textarea id=id rows="5" spellcheck="false" placeholder="{}"
                        on:input=move |ev| values.update(|v| { v.insert(JSON_KEY.to_owned(), Value::String(event_target_value(&ev))); })>
                    </textarea>
                </div>
            }
            .into_any()
        }
        Form::Fields(fields) if fields.is_empty() => view! { <p class="hint">"No arguments."</p> }.into_any(),
        Form::Fields(fields) => fields
            .into_iter()
            .map(|f| {
                let id = format!("{id_prefix}-{}", f.name);
                field(f, values, id)
            })
            .collect_view()
            .into_any(),
    }
}
