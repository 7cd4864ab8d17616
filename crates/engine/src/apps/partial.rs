//! The arguments so far, while Claude writes them (`ui/notifications/tool-input-partial`): the
//! streamed JSON text cut back to its last complete value and closed, so that an app sees the
//! arguments grow. Best effort, as the extension says: a key without its value, a number or
//! literal not yet ended, and half an escape are left out until they are complete; a string
//! value being written is shown as far as it goes.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::{Map, Value};

/// Past this many characters the arguments are not closed again on every piece: the app gets
/// them whole, once Claude has written them.
pub const MAX_PARTIAL_CHARS: usize = 64 * 1024;

/// A place the text could be cut and closed: how many characters to keep, and what closes them.
struct Cut {
    chars: usize,
    closers: String,
}

/// The arguments written so far, closed into a JSON object; `None` when nothing usable is
/// written yet (or the text is no object, or is longer than [`MAX_PARTIAL_CHARS`]).
pub fn close(text: &str) -> Option<Map<String, Value>> {
    if text.chars().count() > MAX_PARTIAL_CHARS {
        return None;
    }
    let closed = closed_text(text)?;
    match serde_json::from_str(&closed) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

fn closers(stack: &[char]) -> String {
    stack.iter().rev().map(|open| if *open == '{' { '}' } else { ']' }).collect()
}

/// The text cut at its last complete value and closed, as JSON text.
fn closed_text(text: &str) -> Option<String> {
    let mut stack: Vec<char> = Vec::new();
    let mut cut: Option<Cut> = None;
    // In a string: whether it is an object's key, and where its open escape began (if any).
    let mut string: Option<bool> = None;
    let mut escape_at: Option<usize> = None;
    let mut unicode_left = 0u8;
    // A number or literal being read.
    let mut token = false;
    // In an object: whether the next string is a key.
    let mut expect_key = false;
    let mut count = 0usize;
    for c in text.chars() {
        if let Some(is_key) = string {
            if unicode_left > 0 {
                unicode_left -= 1;
                if unicode_left == 0 {
                    escape_at = None;
                }
            } else if escape_at.is_some() {
                if c == 'u' {
                    unicode_left = 4;
                } else {
                    escape_at = None;
                }
            } else if c == '\\' {
                escape_at = Some(count);
            } else if c == '"' {
                string = None;
                if !is_key {
                    cut = Some(Cut { chars: count + 1, closers: closers(&stack) });
                }
            }
            count += 1;
            continue;
        }
        let ends_token = matches!(c, ',' | '}' | ']' | ':') || c.is_whitespace();
        if token && ends_token {
            token = false;
            cut = Some(Cut { chars: count, closers: closers(&stack) });
        }
        match c {
            '"' => string = Some(expect_key && stack.last() == Some(&'{')),
            '{' | '[' => {
                stack.push(c);
                expect_key = c == '{';
                cut = Some(Cut { chars: count + 1, closers: closers(&stack) });
            }
            '}' | ']' => {
                stack.pop()?;
                expect_key = false;
                cut = Some(Cut { chars: count + 1, closers: closers(&stack) });
            }
            ',' => expect_key = stack.last() == Some(&'{'),
            ':' => expect_key = false,
            c if c.is_whitespace() => {}
            _ => token = true,
        }
        count += 1;
    }
    // A string value being written: as far as it goes, without half an escape.
    if string == Some(false) {
        let keep = escape_at.unwrap_or(count);
        let mut out: String = text.chars().take(keep).collect();
        out.push('"');
        out.push_str(&closers(&stack));
        return Some(out);
    }
    let cut = cut?;
    let mut out: String = text.chars().take(cut.chars).collect();
    out.push_str(&cut.closers);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shown(text: &str) -> Option<Value> {
        close(text).map(Value::Object)
    }

    #[test]
    fn each_prefix_closes_into_what_is_complete_so_far() {
        assert_eq!(shown(""), None);
        assert_eq!(shown("{"), Some(json!({})));
        assert_eq!(shown(r#"{"ci"#), Some(json!({})));
        assert_eq!(shown(r#"{"city""#), Some(json!({})));
        assert_eq!(shown(r#"{"city": "#), Some(json!({})));
        // A string value shows as far as it is written.
        assert_eq!(shown(r#"{"city": "Tok"#), Some(json!({ "city": "Tok" })));
        assert_eq!(shown(r#"{"city": "Tokyo", "days": 1"#), Some(json!({ "city": "Tokyo" })));
        assert_eq!(shown(r#"{"city": "Tokyo", "days": 12,"#), Some(json!({ "city": "Tokyo", "days": 12 })));
        assert_eq!(shown(r#"{"a": [1, tru"#), Some(json!({ "a": [1] })));
        assert_eq!(shown(r#"{"a": [1, true]"#), Some(json!({ "a": [1, true] })));
        assert_eq!(shown(r#"{"a": {"b": ["x", {"c": "d"#), Some(json!({ "a": { "b": ["x", { "c": "d" }] } })));
        assert_eq!(shown(r#"{"a": 1}"#), Some(json!({ "a": 1 })));
    }

    #[test]
    fn half_an_escape_waits_and_other_text_is_kept_whole() {
        assert_eq!(shown(r#"{"q": "a\"#), Some(json!({ "q": "a" })));
        assert_eq!(shown(r#"{"q": "a\u00"#), Some(json!({ "q": "a" })));
        assert_eq!(shown(r#"{"q": "a\u00e9"#), Some(json!({ "q": "aé" })));
        assert_eq!(shown(r#"{"q": "a\"b"#), Some(json!({ "q": "a\"b" })));
        assert_eq!(shown(r#"{"q": "日本語", "k"#), Some(json!({ "q": "日本語" })));
        // A key with braces and quotes in it is no container.
        assert_eq!(shown(r#"{"{[\"": 1, "#), Some(json!({ "{[\"": 1 })));
    }

    #[test]
    fn every_prefix_of_real_arguments_closes_and_the_whole_is_itself() {
        let whole = json!({
            "title": "Ünïcode \"quoted\" \\ and é", "n": -12.5e3, "ok": false, "none": null,
            "list": [1, [2, {"deep": ["x"]}], {}], "empty": [], "after": "end"
        });
        let text = serde_json::to_string_pretty(&whole).unwrap();
        let mut shown_keys = 0;
        for n in 0..=text.chars().count() {
            let prefix: String = text.chars().take(n).collect();
            if let Some(map) = close(&prefix) {
                // What is shown only grows (no key disappears as more is written).
                assert!(map.len() >= shown_keys, "{prefix}");
                shown_keys = map.len();
            }
        }
        assert_eq!(shown(&text), Some(whole));
    }

    #[test]
    fn what_is_no_object_or_too_long_gives_nothing() {
        assert_eq!(shown("[1, 2"), None);
        assert_eq!(shown("}"), None);
        assert_eq!(shown("\"text"), None);
        let long = format!(r#"{{"q": "{}"#, "x".repeat(MAX_PARTIAL_CHARS));
        assert_eq!(shown(&long), None);
    }
}
