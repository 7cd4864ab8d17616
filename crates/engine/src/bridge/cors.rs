//! When the browser may not read a server (no CORS headers), the two ways out the card shows:
//! the bridge's `--to`, for a server on this machine, and the few lines that make the server
//! send the headers itself, per SDK, with this page's origin filled in.

use super::command::relay_command;

/// A way to fix it in one SDK.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorsFix {
    pub sdk: &'static str,
    pub code: String,
}

/// The ways out for the server at `url`, seen from the page at `page`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReachAdvice {
    /// `loopscope bridge --to …`, when the server is on this machine (plain http on loopback).
    pub relay: Option<String>,
    pub fixes: Vec<CorsFix>,
}

/// Whether `url` is plain http on this machine (the bridge relays only there).
fn on_this_machine(url: &str) -> bool {
    let Some(rest) = url.strip_prefix("http://") else { return false };
    let host_port = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = host_port
        .rsplit_once(':')
        .map_or(host_port, |(h, p)| if p.bytes().all(|b| b.is_ascii_digit()) { h } else { host_port });
    host == "localhost" || host == "[::1]" || host.starts_with("127.")
}

/// What to tell the user whose page at `page` (origin `origin`) cannot read the server at `url`.
pub fn reach_advice(url: &str, page: &str, origin: &str) -> ReachAdvice {
    let relay = on_this_machine(url).then(|| relay_command(url, page));
    ReachAdvice { relay, fixes: fixes(origin) }
}

fn fixes(origin: &str) -> Vec<CorsFix> {
    vec![
        CorsFix {
            sdk: "Python, the mcp SDK's FastMCP",
            code: format!(
                "from starlette.middleware.cors import CORSMiddleware\n\
                 import uvicorn\n\n\
                 app = mcp.streamable_http_app()  # instead of mcp.run(transport=\"streamable-http\")\n\
                 app.add_middleware(CORSMiddleware, allow_origins=[\"{origin}\"],\n    \
                 allow_methods=[\"GET\", \"POST\", \"DELETE\"], allow_headers=[\"*\"],\n    \
                 expose_headers=[\"Mcp-Session-Id\", \"MCP-Protocol-Version\", \"WWW-Authenticate\"])\n\
                 uvicorn.run(app, host=\"127.0.0.1\", port=8000)"
            ),
        },
        CorsFix {
            sdk: "TypeScript SDK with express",
            code: format!(
                "import cors from \"cors\";\n\n\
                 app.use(cors({{\n  origin: \"{origin}\",\n  \
                 exposedHeaders: [\"Mcp-Session-Id\", \"MCP-Protocol-Version\", \"WWW-Authenticate\"],\n}}));"
            ),
        },
        CorsFix {
            sdk: "Rust, rmcp with tower-http",
            code: format!(
                "use tower_http::cors::{{AllowHeaders, CorsLayer}};\n\n\
                 let cors = CorsLayer::new()\n    \
                 .allow_origin(\"{origin}\".parse::<HeaderValue>()?)\n    \
                 .allow_methods([Method::GET, Method::POST, Method::DELETE])\n    \
                 .allow_headers(AllowHeaders::mirror_request())\n    \
                 .expose_headers([HeaderName::from_static(\"mcp-session-id\")]);\n\
                 let app = axum::Router::new().nest_service(\"/mcp\", service).layer(cors);"
            ),
        },
    ]
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn a_server_on_this_machine_gets_the_relay_and_every_fix_names_the_page() {
        let advice =
            reach_advice("http://127.0.0.1:8000/mcp", "https://you.github.io/loopscope/", "https://you.github.io");
        assert_eq!(
            advice.relay.as_deref(),
            Some("loopscope bridge --page https://you.github.io/loopscope/ --to http://127.0.0.1:8000/mcp")
        );
        assert_eq!(advice.fixes.len(), 3);
        assert!(
            advice
                .fixes
                .iter()
                .all(|f| f.code.contains("\"https://you.github.io\"") && f.code.contains("Mcp-Session-Id")
                    || f.code.contains("mcp-session-id"))
        );
        assert_eq!(
            reach_advice("https://mcp.example.com/mcp", "http://127.0.0.1:8080/", "http://127.0.0.1:8080").relay,
            None
        );
        assert_eq!(reach_advice("http://192.168.1.5:8000/mcp", "http://127.0.0.1:8080/", "x").relay, None);
        assert!(reach_advice("http://localhost:3000/mcp", "http://127.0.0.1:8080/", "x").relay.is_some());
    }
}
