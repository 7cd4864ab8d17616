//! `GET /v1/models`: the models a key may use, a page at a time (`after_id` for the next).
//!
//! Read from a `Value` by hand rather than derived: the page reads every answer as a `Value`
//! already, and a derived reader for these two types weighed ~2 KB gzip of the chunk that lists
//! models (docs/size.md).

use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
pub struct ModelInfo {
    pub id: String,
    pub display_name: String,
    pub max_input_tokens: Option<u64>,
    pub max_tokens: Option<u64>,
    /// `{"thinking": {"types": {"adaptive": {"supported": true}, …}}, "effort": {…}, …}`: kept
    /// as JSON, since the API adds capabilities faster than a client learns them.
    pub capabilities: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ModelPage {
    pub data: Vec<ModelInfo>,
    pub has_more: bool,
    pub last_id: Option<String>,
}

impl ModelInfo {
    /// A model entry; `None` without a string `id`. Other fields default when absent.
    pub fn from_value(v: &Value) -> Option<Self> {
        let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        Some(ModelInfo {
            id: text("id")?,
            display_name: text("display_name").unwrap_or_default(),
            max_input_tokens: v.get("max_input_tokens").and_then(Value::as_u64),
            max_tokens: v.get("max_tokens").and_then(Value::as_u64),
            capabilities: v.get("capabilities").cloned().unwrap_or(Value::Null),
        })
    }
}

impl ModelPage {
    /// A page; `None` unless `data` is an array. Entries without an id are skipped.
    pub fn from_value(v: &Value) -> Option<Self> {
        Some(ModelPage {
            data: v.get("data")?.as_array()?.iter().filter_map(ModelInfo::from_value).collect(),
            has_more: v.get("has_more").and_then(Value::as_bool).unwrap_or(false),
            last_id: v.get("last_id").and_then(Value::as_str).map(str::to_owned),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_page_reads_what_it_can_and_skips_entries_without_an_id() {
        let page = ModelPage::from_value(&json!({"data": [{"id": "a", "max_tokens": 5}, {"display_name": "no id"}],
            "has_more": true, "last_id": "a"}))
        .unwrap();
        assert_eq!(page.data.len(), 1);
        assert_eq!(page.data[0].max_tokens, Some(5));
        assert_eq!((page.has_more, page.last_id.as_deref()), (true, Some("a")));
        assert!(ModelPage::from_value(&json!({"data": "nope"})).is_none());
    }
}
