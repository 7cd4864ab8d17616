//! Which era a server speaks, from how it answered a `server/discover` probe that carried the
//! full 2026-07-28 envelope. Pure: the client sends the probe and acts on the verdict.

use serde_json::Value;

use super::McpError;
use protocol::jsonrpc::ErrorCode;
use protocol::mcp::{DiscoverResult, Revision};

/// What the probe's answer means.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// A discover result listing a revision both sides speak.
    Modern(Box<DiscoverResult>),
    /// -32022 naming a modern revision we speak: ask once more with it.
    Corrective { version: Revision },
    /// Not a modern server: fall back to `initialize`. `why` says what showed it.
    Legacy { why: String },
    /// Neither: the probe failed in a way that says nothing about the era.
    Fail(McpError),
}

fn supported(data: Option<&Value>) -> Option<Vec<String>> {
    let list = data?.get("supported")?.as_array()?;
    let versions: Vec<String> = list.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect();
    (!versions.is_empty() && versions.len() == list.len()).then_some(versions)
}

/// Classifies the probe's outcome.
pub fn classify(outcome: Result<Value, McpError>) -> Verdict {
    let legacy = |why: String| Verdict::Legacy { why };
    let error = match outcome {
        Ok(result) => {
            return match DiscoverResult::read(&result) {
                Some(d) if d.speaks(Revision::V2026_07_28) => Verdict::Modern(Box::new(d)),
                Some(d) => legacy(format!(
                    "server/discover lists {} and no modern revision this client speaks",
                    d.supported_versions.join(", ")
                )),
                None => legacy("server/discover answered with something that is not a discover result".into()),
            };
        }
        Err(e) => e,
    };
    match &error {
        // An authorization matter, or the server failing: neither says which era it is.
        McpError::Http { status: 401 | 403, .. } | McpError::Http { status: 500.., .. } | McpError::Auth(_) => {
            Verdict::Fail(error)
        }
        McpError::Timeout { .. } | McpError::Cancelled | McpError::Decode { .. } | McpError::Bridge(_) => Verdict::Fail(error),
        // In a browser, a 2025 server whose CORS rules do not allow the new headers fails the
        // probe's preflight: a network error here may well be a legacy server.
        McpError::Network { .. } => legacy(
            "server/discover got no HTTP answer (as when a 2025 server's CORS rules do not allow the 2026-07-28 headers)".into(),
        ),
        _ => match error.rpc_error() {
            Some(e) if e.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => match supported(e.data.as_ref()) {
                Some(list) if list.iter().any(|v| v == Revision::V2026_07_28.as_str()) => {
                    Verdict::Corrective { version: Revision::V2026_07_28 }
                }
                Some(list) if list.iter().any(|v| Revision::parse(v).is_some_and(|r| !r.is_modern())) => {
                    legacy(format!("server/discover answered -32022: it speaks {}", list.join(", ")))
                }
                Some(list) => Verdict::Fail(McpError::Client(format!(
                    "The server speaks only {}, which this client does not.",
                    list.join(", ")
                ))),
                None => legacy("server/discover answered -32022 without a list of versions".into()),
            },
            Some(e) => legacy(format!("server/discover answered JSON-RPC error {} ({})", e.code.0, e.code.name())),
            // A 4xx without a JSON-RPC error body: not a modern server.
            None => legacy(format!("server/discover answered {error}")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::jsonrpc::ErrorObject;
    use serde_json::json;

    fn rpc(code: i64, data: Option<Value>) -> McpError {
        McpError::Rpc(ErrorObject { code: ErrorCode(code), message: "x".into(), data })
    }

    fn http(status: u16, rpc: Option<ErrorObject>) -> McpError {
        McpError::Http { status, body: String::new(), rpc: rpc.map(Box::new), www_authenticate: None }
    }

    #[test]
    fn the_probe_outcome_table_r08() {
        let discover = json!({"supportedVersions": ["2026-07-28", "2025-11-25"], "capabilities": {}});
        assert!(matches!(classify(Ok(discover)), Verdict::Modern(_)));
        assert!(matches!(classify(Ok(json!({}))), Verdict::Legacy { .. }), "does not validate: legacy");
        assert!(matches!(classify(Ok(json!({"supportedVersions": ["2027-01-01"]}))), Verdict::Legacy { .. }));
        // -32022 naming our modern revision: once more with it; naming only legacy ones: legacy.
        let corrective = rpc(-32022, Some(json!({"supported": ["2026-07-28"], "requested": "x"})));
        assert_eq!(classify(Err(corrective)), Verdict::Corrective { version: Revision::V2026_07_28 });
        assert!(matches!(
            classify(Err(rpc(-32022, Some(json!({"supported": ["2025-06-18"]}))))),
            Verdict::Legacy { .. }
        ));
        assert!(matches!(classify(Err(rpc(-32022, Some(json!({"supported": ["2099-01-01"]}))))), Verdict::Fail(_)));
        // Any other JSON-RPC error, in a 200 or inside a 4xx body: legacy.
        assert!(matches!(classify(Err(rpc(-32601, None))), Verdict::Legacy { .. }));
        let in_body = ErrorObject::new(ErrorCode(-32600), "Bad Request: no session");
        assert!(matches!(classify(Err(http(400, Some(in_body)))), Verdict::Legacy { .. }));
        assert!(matches!(classify(Err(http(404, None))), Verdict::Legacy { .. }));
        // Authorization and server failures are not version answers.
        for status in [401, 403, 500, 503] {
            assert!(matches!(classify(Err(http(status, None))), Verdict::Fail(_)), "{status}");
        }
        let denied = crate::auth::AuthError::Denied { error: "access_denied".into(), description: None };
        assert!(matches!(classify(Err(McpError::Auth(denied))), Verdict::Fail(_)), "a failed sign-in is not an era");
        assert!(matches!(classify(Err(McpError::Timeout { after_ms: 1 })), Verdict::Fail(_)));
    }
}
