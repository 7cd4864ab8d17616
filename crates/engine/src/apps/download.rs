//! `ui/download-file`: files an app asks the user to save, read as a stranger's input. Only
//! contents the app embeds (an `EmbeddedResource`, text or base64) are saved, at most
//! [`MAX_FILES`] at once; each file's name is the last part of its URI, kept to ASCII letters,
//! digits and `.-_ ` (so no path, no hidden file, no control, direction or look-alike
//! characters), and the page
//! saves it as plain bytes, never as something the browser would open.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::Value;

/// The most files one request may save (as the official Inspector).
pub const MAX_FILES: usize = 20;
/// The longest name a saved file is given, in characters.
const MAX_NAME_CHARS: usize = 100;

/// One file the app asks to save.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DownloadFile {
    /// A safe file name (see the module's doc).
    pub name: String,
    /// The MIME type the app gave, shown to the user only (one line, at most 100 characters).
    pub mime: String,
    pub bytes: Vec<u8>,
}

/// The files of a `ui/download-file` request, or why none is saved.
pub fn read_download(params: &Value) -> Result<Vec<DownloadFile>, String> {
    let items = params.get("contents").and_then(Value::as_array).ok_or("it has no contents array")?;
    if items.is_empty() {
        return Err("its contents are empty".into());
    }
    if items.len() > MAX_FILES {
        return Err(format!("it asks for {} files, more than {MAX_FILES} at once", items.len()));
    }
    items.iter().enumerate().map(|(i, item)| read_item(i + 1, item)).collect()
}

fn read_item(n: usize, item: &Value) -> Result<DownloadFile, String> {
    match item.get("type").and_then(Value::as_str) {
        Some("resource") => {}
        Some("resource_link") => {
            return Err(format!(
                "item {n} is a link for the page to fetch: Loopscope saves only contents the app sends (an embedded resource)"
            ));
        }
        _ => return Err(format!("item {n} is not an embedded resource")),
    }
    let resource = item.get("resource").ok_or_else(|| format!("item {n} has no resource"))?;
    let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
    let mime = resource.get("mimeType").and_then(Value::as_str).unwrap_or("no type given");
    let bytes = match (resource.get("text").and_then(Value::as_str), resource.get("blob").and_then(Value::as_str)) {
        (Some(text), _) => text.as_bytes().to_vec(),
        (None, Some(blob)) => {
            crate::encoding::base64_decode(blob).ok_or_else(|| format!("item {n}'s blob is not base64"))?
        }
        (None, None) => return Err(format!("item {n} has no text and no blob")),
    };
    Ok(DownloadFile { name: file_name(uri, n), mime: crate::text::one_line(mime, 100).0, bytes })
}

/// The name a file from `uri` is saved as: its last part, made safe; `download-n` if nothing
/// is left of it.
fn file_name(uri: &str, n: usize) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit(['/', '\\', ':']).next().unwrap_or("");
    let safe: String = last
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ' ') { c } else { '_' })
        .take(MAX_NAME_CHARS)
        .collect();
    let safe = safe.trim_start_matches(['.', ' ']).trim_end_matches(['.', ' ']);
    if safe.is_empty() { format!("download-{n}") } else { safe.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn embedded(uri: &str, text: &str) -> Value {
        json!({ "type": "resource", "resource": { "uri": uri, "mimeType": "text/plain", "text": text } })
    }

    #[test]
    fn embedded_text_and_blobs_are_read_with_safe_names() {
        let files = read_download(&json!({ "contents": [
            embedded("file:///notes/mcp.txt", "MCP"),
            { "type": "resource", "resource": { "uri": "ui://x/report.csv?v=2#top", "blob": "YSxiCjEsMgo=" } },
        ] }))
        .unwrap();
        let [text, blob] = files.as_slice() else { panic!("{files:?}") };
        assert_eq!(text, &DownloadFile { name: "mcp.txt".into(), mime: "text/plain".into(), bytes: b"MCP".to_vec() });
        assert_eq!((blob.name.as_str(), blob.mime.as_str()), ("report.csv", "no type given"));
        assert_eq!(blob.bytes, b"a,b\n1,2\n");
    }

    #[test]
    fn a_strangers_names_cannot_climb_hide_or_disguise() {
        let name = |uri: &str| file_name(uri, 3);
        assert_eq!(name("file:///etc/passwd"), "passwd");
        assert_eq!(name("x:../../.bashrc"), "bashrc");
        assert_eq!(name(r"C:\Users\me\run.bat"), "run.bat");
        assert_eq!(name("ui://a/.."), "download-3");
        assert_eq!(name(""), "download-3");
        // A right-to-left override (U+202E) would show "evil", then "txt.exe" reversed.
        assert_eq!(name("ui://a/evil\u{202e}txt.exe"), "evil_txt.exe");
        assert_eq!(name("ui://a/line\nbreak<script>.html"), "line_break_script_.html");
        // Look-alike letters are not kept: this "paypal" starts with two Cyrillic letters.
        assert_eq!(name("ui://a/\u{440}\u{430}ypal.pdf"), "__ypal.pdf");
        assert_eq!(name(&format!("ui://a/{}.txt", "a".repeat(300))).chars().count(), MAX_NAME_CHARS);
    }

    #[test]
    fn what_is_not_saved_says_why() {
        let why = |params: Value| read_download(&params).unwrap_err();
        assert_eq!(why(json!({})), "it has no contents array");
        assert_eq!(why(json!({ "contents": [] })), "its contents are empty");
        let many: Vec<Value> = (0..21).map(|i| embedded(&format!("ui://a/{i}.txt"), "x")).collect();
        assert_eq!(why(json!({ "contents": many })), "it asks for 21 files, more than 20 at once");
        let link =
            json!({ "contents": [{ "type": "resource_link", "uri": "https://example.com/a.zip", "name": "a" }] });
        assert!(why(link).starts_with("item 1 is a link for the page to fetch"));
        let bad =
            json!({ "contents": [{ "type": "resource", "resource": { "uri": "ui://a/b", "blob": "not base64!" } }] });
        assert_eq!(why(bad), "item 1's blob is not base64");
    }
}
