//! Phase 4: an MCP tool result as a Claude `tool_result` (A-13, C-28…C-30). Claude takes text,
//! images (jpeg, png, gif, webp) and documents (PDF); everything else becomes a text
//! placeholder that says what was left out, never a crash.

use serde_json::Value;

use protocol::claude::{Block, ToolResult};
use protocol::mcp::{CallToolResult, ContentBlock, ResourceContents};

const IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

fn resource(r: &ResourceContents) -> Block {
    let mime = r.mime_type.as_deref().unwrap_or("");
    match (&r.text, &r.blob) {
        (Some(text), _) => Block::text(format!("Resource {}:\n{text}", r.uri)),
        (None, Some(blob)) if mime == "application/pdf" => Block::media("document", mime, blob),
        (None, Some(blob)) if IMAGE_TYPES.contains(&mime) => Block::media("image", mime, blob),
        (None, Some(_)) => Block::text(format!("[binary resource {} ({mime}) omitted: Claude cannot read it]", r.uri)),
        (None, None) => Block::text(format!("[resource {} has no contents]", r.uri)),
    }
}

/// One MCP content block as Claude content (C-29).
pub fn block(c: &ContentBlock) -> Block {
    if let Some(text) = c.as_text() {
        return Block::text(text);
    }
    match (c.kind(), c.media()) {
        ("image", Some((data, mime))) if IMAGE_TYPES.contains(&mime) => return Block::media("image", mime, data),
        ("image", Some((_, mime))) => {
            return Block::text(format!("[image ({mime}) omitted: Claude accepts jpeg, png, gif and webp]"));
        }
        ("audio", Some((_, mime))) => {
            return Block::text(format!("[audio ({mime}) omitted: Claude cannot take audio in a tool result]"));
        }
        _ => {}
    }
    if let Some(l) = c.resource_link() {
        return Block::text(format!(
            "Resource link: {} <{}>{}{} (the client can read it with resources/read)",
            l.name,
            l.uri,
            l.mime_type.as_ref().map(|m| format!(" {m}")).unwrap_or_default(),
            l.description.as_ref().map(|d| format!(": {d}")).unwrap_or_default(),
        ));
    }
    if let Some(r) = c.resource() {
        return resource(&r);
    }
    Block::text(format!("[content of type \"{}\" omitted: this client does not know it]", c.kind()))
}

/// The tool_result for a completed `tools/call`: `isError` carries over (C-28); with no
/// content, the structured content is given as JSON text (C-30).
pub fn from_call(tool_use_id: &str, r: &CallToolResult) -> ToolResult {
    let mut blocks: Vec<Value> = r.content.iter().map(|c| block(c).0).collect();
    if blocks.is_empty()
        && let Some(s) = &r.structured_content
    {
        blocks.push(Block::text(s.to_string()).0);
    }
    ToolResult { tool_use_id: tool_use_id.into(), content: Value::Array(blocks), is_error: r.is_error }
}

pub fn text(tool_use_id: &str, text: String) -> ToolResult {
    ToolResult::text(tool_use_id, text, false)
}

/// A failure Claude can act on: `is_error: true` and what happened.
pub fn error(tool_use_id: &str, message: String) -> ToolResult {
    ToolResult::text(tool_use_id, message, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Value {
        let r: CallToolResult = serde_json::from_value(v).unwrap();
        from_call("t1", &r).to_block().0
    }

    #[test]
    fn content_maps_as_claude_accepts_it_c29() {
        let out = map(json!({"content": [
            {"type": "text", "text": "hello"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "image", "data": "AAAA", "mimeType": "image/bmp"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
            {"type": "resource_link", "uri": "file:///a.txt", "name": "a.txt", "mimeType": "text/plain"},
            {"type": "resource", "resource": {"uri": "notes://1", "text": "one"}},
            {"type": "resource", "resource": {"uri": "file:///r.pdf", "mimeType": "application/pdf", "blob": "JVBE"}},
            {"type": "resource", "resource": {"uri": "file:///z.bin", "mimeType": "application/zip", "blob": "UEsD"}},
            {"type": "hologram", "frames": 3}
        ]}));
        let c = &out["content"];
        assert_eq!(c[0], json!({"type": "text", "text": "hello"}));
        assert_eq!(c[1]["source"], json!({"type": "base64", "media_type": "image/png", "data": "AAAA"}));
        assert!(c[2]["text"].as_str().unwrap().contains("image/bmp"));
        assert!(c[3]["text"].as_str().unwrap().contains("audio"));
        assert!(c[4]["text"].as_str().unwrap().contains("file:///a.txt"));
        assert_eq!(c[5]["text"], "Resource notes://1:\none");
        assert_eq!(c[6]["type"], "document");
        assert!(c[7]["text"].as_str().unwrap().contains("omitted"));
        assert!(c[8]["text"].as_str().unwrap().contains("hologram"));
        assert!(out.get("is_error").is_none());
    }

    #[test]
    fn is_error_and_structured_content_carry_over_c28_c30() {
        let out = map(json!({"content": [{"type": "text", "text": "boom"}], "isError": true}));
        assert_eq!(out["is_error"], true);
        let out = map(json!({"content": [], "structuredContent": {"temp": 22}}));
        assert_eq!(out["content"][0]["text"], "{\"temp\":22}");
    }
}
