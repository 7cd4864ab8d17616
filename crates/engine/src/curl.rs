//! A traced HTTP request as a curl command, to replay it from a terminal against the same
//! server (same session id, same protocol version header, same body). Values the trace masked
//! (API keys, tokens) stay masked, and the command says so.

use super::platform::{Headers, Method};
use super::trace::MASK;

/// `text` in single quotes for a POSIX shell.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

pub fn command(method: Method, url: &str, headers: &Headers, body: Option<&str>) -> String {
    let mut out = String::new();
    if headers.iter().any(|(_, v)| v.contains(MASK)) {
        out.push_str(&format!("# Values shown as {MASK} were masked in the trace: put your own in first.\n"));
    }
    out.push_str("curl");
    if headers.get("accept").is_some_and(|a| a.contains("text/event-stream")) {
        out.push_str(" -N"); // print SSE events as they arrive
    }
    if method != Method::Get || body.is_some() {
        out.push_str(&format!(" -X {}", method.as_str()));
    }
    out.push_str(&format!(" {}", quote(url)));
    for (name, value) in headers.iter() {
        out.push_str(&format!(" \\\n  -H {}", quote(&format!("{name}: {value}"))));
    }
    if let Some(body) = body {
        out.push_str(&format!(" \\\n  --data-raw {}", quote(body)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_replays_with_its_headers_and_body() {
        let headers = Headers::new()
            .with("content-type", "application/json")
            .with("accept", "application/json, text/event-stream")
            .with("mcp-session-id", "abc");
        let cmd = command(Method::Post, "http://127.0.0.1:3001/mcp", &headers, Some(r#"{"q":"it's"}"#));
        assert_eq!(
            cmd,
            "curl -N -X POST 'http://127.0.0.1:3001/mcp' \\\n  -H 'content-type: application/json' \\\n  \
             -H 'accept: application/json, text/event-stream' \\\n  -H 'mcp-session-id: abc' \\\n  \
             --data-raw '{\"q\":\"it'\\''s\"}'"
        );
    }

    #[test]
    fn masked_values_are_called_out() {
        let headers = Headers::new().with("authorization", MASK);
        let cmd = command(Method::Delete, "https://x.example/mcp", &headers, None);
        assert!(cmd.starts_with("# Values shown as ••••••"), "{cmd}");
        assert!(cmd.contains("curl -X DELETE 'https://x.example/mcp'"), "{cmd}");
    }
}
