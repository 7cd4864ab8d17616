//! Content as text, for the places that show it in words: MCP content blocks (tool results,
//! prompt and sampling messages), resource contents, and Claude blocks (tool_result content).
//! One reading for all of them, so a block type is put into words the same way everywhere.

use serde_json::Value;

/// `content` in words: a string as it is; a block, or a list of blocks (one per line), by type.
/// Binary data is described (kind, media type, size), never shown.
pub fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(items) => blocks_text(items),
        Value::Object(_) => block_text(content),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A list of blocks in words, one per line.
pub fn blocks_text<'a>(blocks: impl IntoIterator<Item = &'a Value>) -> String {
    blocks.into_iter().map(content_text).collect::<Vec<_>>().join("\n")
}

fn str_of<'a>(v: &'a Value, pointer: &str) -> Option<&'a str> {
    v.pointer(pointer).and_then(Value::as_str)
}

fn binary(kind: &str, mime: &str, data: &str) -> String {
    format!("[{kind} {mime}, {} bytes of base64]", data.len())
}

fn block_text(b: &Value) -> String {
    let kind = str_of(b, "/type");
    match kind {
        Some("text") => str_of(b, "/text").unwrap_or("").to_owned(),
        // MCP media blocks carry `data` and `mimeType`; Claude's carry a `source`.
        Some(k @ ("image" | "audio" | "document")) => match (str_of(b, "/data"), str_of(b, "/source/data")) {
            (Some(data), _) => binary(k, str_of(b, "/mimeType").unwrap_or("?"), data),
            (None, Some(data)) => binary(k, str_of(b, "/source/media_type").unwrap_or("?"), data),
            _ => format!("[{k}]"),
        },
        Some("resource_link") => {
            format!("[resource link {} <{}>]", str_of(b, "/name").unwrap_or(""), str_of(b, "/uri").unwrap_or(""))
        }
        Some("resource") => b.get("resource").map(contents_text).unwrap_or_else(|| "[resource]".into()),
        Some("tool_result") => content_text(b.get("content").unwrap_or(&Value::Null)),
        Some(other) => format!("[{other}]"),
        // Resource contents (`resources/read`, embedded resources) have a uri and no type.
        None if b.get("uri").is_some() => contents_text(b),
        None => b.to_string(),
    }
}

fn contents_text(c: &Value) -> String {
    let uri = str_of(c, "/uri").unwrap_or("");
    match (str_of(c, "/text"), str_of(c, "/blob")) {
        (Some(text), _) => text.to_owned(),
        (None, Some(blob)) => {
            format!("[resource {uri} {}, {} bytes of base64]", str_of(c, "/mimeType").unwrap_or("?"), blob.len())
        }
        (None, None) => format!("[resource {uri}]"),
    }
}

/// JSON indented for reading.
/// A 64-bit FNV-1a checksum: tells two texts apart, proves nothing (no secret, not
/// cryptographic). For the demo's thinking signatures and the thinking binding.
pub fn checksum(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

pub fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap_or_default()
}

/// A string that may hold JSON, indented if it does.
pub fn pretty_text(s: &str) -> String {
    serde_json::from_str::<Value>(s).map(|v| pretty(&v)).unwrap_or_else(|_| s.to_owned())
}

/// A hint's first sentence, and the rest (for a disclosure), so a narrow card leads with one
/// line instead of a wall of text.
pub fn first_sentence(hint: &str) -> (&str, &str) {
    match hint.split_once(". ") {
        Some((first, rest)) if !rest.trim().is_empty() => (hint.get(..first.len() + 1).unwrap_or(hint), rest.trim()),
        _ => (hint, ""),
    }
}

/// The longest start of `s` that is at most `max` bytes and ends on a character boundary: a
/// cut that can never fall inside a character (and panic).
pub fn prefix(s: &str, max: usize) -> &str {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or_default()
}

/// A stranger's name or entry as a line of text: no control characters, at most `max`
/// characters (not bytes), and whether it was cut.
pub fn one_line(s: &str, max: usize) -> (String, bool) {
    let mut chars = s.chars().filter(|c| !c.is_control());
    let line: String = chars.by_ref().take(max).collect();
    (line, chars.next().is_some())
}

/// Whether a character can disguise the text around it: invisible (zero-width, a soft hyphen,
/// fillers that render as nothing), reordering what follows (bidirectional embeddings,
/// overrides, isolates and marks), or any other control or format character.
pub fn disguises(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
            | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}' | '\u{E0000}'..='\u{E0FFF}')
}

/// A stranger's text as it may be shown where the user decides or reads a name: every
/// character that [`disguises`] the text written visibly as `[U+202E]`, so the text reads in
/// the order it is stored and nothing in it hides.
pub fn visible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if disguises(c) {
            // `[U+202E]` by hand: no formatter, whose code the first screen would carry.
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            let code = c as u32;
            out.push_str("[U+");
            let digits = if code > 0xF_FFFF {
                6
            } else if code > 0xFFFF {
                5
            } else {
                4
            };
            for shift in (0..digits).rev() {
                out.push(char::from(HEX.get(((code >> (shift * 4)) & 0xF) as usize).copied().unwrap_or(b'0')));
            }
            out.push(']');
        } else {
            out.push(c);
        }
    }
    out
}

/// [`visible`] line by line, for a stranger's text shown as a block (JSON arguments, an app's
/// message): its line breaks stay line breaks, everything else that could disguise it is shown.
pub fn visible_lines(s: &str) -> String {
    s.split('\n').map(visible).collect::<Vec<_>>().join("\n")
}

/// [`visible`], and at most `max` characters of it (a long name imitates the page's own words):
/// the text, and whether it was cut.
pub fn visible_cut(s: &str, max: usize) -> (String, bool) {
    let shown = visible(s);
    let mut chars = shown.chars();
    let cut: String = chars.by_ref().take(max).collect();
    if chars.next().is_some() { (cut + "…", true) } else { (cut, false) }
}

#[cfg(test)]
mod tests {
    use super::{content_text, first_sentence, prefix, visible, visible_cut, visible_lines};

    #[test]
    fn text_that_would_disguise_itself_is_shown_as_it_is_stored() {
        // On screen this read "https://api.anthropic.com as /mcp …" backwards.
        let label = "notes \u{202E}lliw ti :wen\u{202C} sa";
        assert_eq!(visible(label), "notes [U+202E]lliw ti :wen[U+202C] sa");
        assert_eq!(
            visible("de\u{200B}lete\u{FEFF}\u{2066}x\u{2069}\n"),
            "de[U+200B]lete[U+FEFF][U+2066]x[U+2069][U+000A]"
        );
        assert_eq!(visible("Café 東京 🙂"), "Café 東京 🙂");
        assert_eq!(visible("tag\u{E0041}"), "tag[U+E0041]");
        assert_eq!(visible_lines("{\n  \"a\": \"\u{202E}x\"\n}"), "{\n  \"a\": \"[U+202E]x\"\n}");
        assert_eq!(visible_cut(&"a".repeat(10_000), 80), ("a".repeat(80) + "…", true));
        assert_eq!(visible_cut("short", 80), ("short".into(), false));
    }
    use serde_json::json;

    #[test]
    fn every_kind_of_content_reads_as_text() {
        let blocks = json!([
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/gif", "data": "AAAAAAAA"}},
            {"type": "audio", "data": "AA", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt"},
            {"type": "resource", "resource": {"uri": "notes://1", "text": "one"}},
            {"type": "resource", "resource": {"uri": "file:///z.bin", "mimeType": "application/zip", "blob": "UEsD"}},
            {"type": "hologram", "frames": 3}
        ]);
        assert_eq!(
            content_text(&blocks),
            "hello\n[image image/png, 4 bytes of base64]\n[image image/gif, 8 bytes of base64]\n\
             [audio audio/wav, 2 bytes of base64]\n[resource link a.txt <file:///a.txt>]\none\n\
             [resource file:///z.bin application/zip, 4 bytes of base64]\n[hologram]"
        );
    }

    #[test]
    fn strings_tool_results_and_resource_contents() {
        assert_eq!(content_text(&json!("plain")), "plain");
        assert_eq!(
            content_text(
                &json!({"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "42"}]})
            ),
            "42"
        );
        assert_eq!(content_text(&json!([{"uri": "n://1", "text": "a"}, {"uri": "n://2"}])), "a\n[resource n://2]");
        assert_eq!(content_text(&json!(null)), "");
    }

    #[test]
    fn a_prefix_never_cuts_a_character() {
        assert_eq!(prefix("cafés", 4), "caf");
        assert_eq!(prefix("cafés", 5), "café");
        assert_eq!(prefix("東京", 2), "");
        assert_eq!(prefix("東京", 4), "東");
        assert_eq!(prefix("ab", 10), "ab");
    }

    #[test]
    fn a_hint_leads_with_its_first_sentence() {
        assert_eq!(first_sentence("Check it. Then retry."), ("Check it.", "Then retry."));
        assert_eq!(first_sentence("Check it."), ("Check it.", ""));
        assert_eq!(first_sentence("Prüfe es. "), ("Prüfe es. ", ""));
        assert_eq!(first_sentence("東京. 天気"), ("東京.", "天気"));
    }
}
