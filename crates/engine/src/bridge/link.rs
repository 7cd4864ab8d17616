//! The link the bridge prints (`…/#bridge=<address>&token=<token>`), and what the bridge says it
//! serves (`GET /bridge`). A link is a stranger's until the user agrees: it may only name a
//! bridge on this machine, and what runs is shown as the bridge itself reports it, not as the
//! link claims.

use serde::Deserialize;
use serde_json::Value;

use crate::encoding::form_decode;
use crate::whatwg::{self, Reading};

/// A bridge a link offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BridgeLink {
    /// Its MCP endpoint, `http://127.0.0.1:<port>/mcp` (or `localhost`, `[::1]`).
    pub url: String,
    /// The per-run token (a credential: masked, never exported).
    pub token: String,
}

/// Why a link cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("the link names no token")]
    NoToken,
    #[error("the link's token is not the 64 hexadecimal digits the bridge prints")]
    BadToken,
    #[error("the link's address is not a bridge on this machine (http://127.0.0.1:<port>/mcp)")]
    NotLocal,
}

impl BridgeLink {
    /// The bridge a page's fragment names, if it names one.
    pub fn from_fragment(hash: &str) -> Option<Result<BridgeLink, LinkError>> {
        let pairs = form_decode(hash.trim_start_matches('#'));
        let url = pairs.iter().find(|(k, _)| k == "bridge").map(|(_, v)| v.clone())?;
        Some(BridgeLink::new(&url, pairs.iter().find(|(k, _)| k == "token").map(|(_, v)| v.as_str())))
    }

    fn new(url: &str, token: Option<&str>) -> Result<BridgeLink, LinkError> {
        let token = token.ok_or(LinkError::NoToken)?;
        if token.len() != 64 || !token.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(LinkError::BadToken);
        }
        let href = match whatwg::read(url) {
            Reading::Url(href) => href,
            Reading::NotAUrl => return Err(LinkError::NotLocal),
            Reading::Unavailable => url.to_owned(),
        };
        if !is_local_bridge(&href) {
            return Err(LinkError::NotLocal);
        }
        Ok(BridgeLink { url: href, token: token.to_owned() })
    }

    /// The bridge's own description (`GET /bridge`), beside its MCP endpoint.
    pub fn info_url(&self) -> String {
        format!("{}/bridge", self.origin())
    }

    /// Its log (`GET /bridge/log?after=n`).
    pub fn log_url(&self, after: u64) -> String {
        format!("{}/bridge/log?after={after}", self.origin())
    }

    fn origin(&self) -> &str {
        self.url.strip_suffix("/mcp").unwrap_or(&self.url)
    }

    /// The header line the server's credentials hold.
    pub fn authorization(&self) -> (String, String) {
        ("Authorization".to_owned(), format!("Bearer {}", self.token))
    }
}

/// `http://<loopback>:<port>/mcp` exactly, as the browser serialises it.
pub fn is_local_bridge(href: &str) -> bool {
    let Some(rest) = href.strip_prefix("http://") else { return false };
    let Some(host_port) = rest.strip_suffix("/mcp") else { return false };
    let Some((host, port)) = host_port.rsplit_once(':') else { return false };
    matches!(host, "127.0.0.1" | "localhost" | "[::1]")
        && !port.is_empty()
        && port.bytes().all(|b| b.is_ascii_digit())
        && port.parse::<u16>().is_ok_and(|p| p > 0)
}

/// What the bridge reports of itself (`GET /bridge`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct BridgeInfo {
    /// `stdio` (it runs a command per session) or `relay` (`--to`).
    pub mode: String,
    /// The command it runs, or the address it relays to, as the user gave it.
    pub serves: String,
    #[serde(default)]
    pub bridge: String,
}

impl BridgeInfo {
    pub fn read(body: &str) -> Option<BridgeInfo> {
        serde_json::from_str::<Value>(body).ok().and_then(|v| serde_json::from_value(v).ok())
    }

    /// Whether it starts a process of the user's (rather than relaying to one that runs).
    pub fn runs_a_command(&self) -> bool {
        self.mode == "stdio"
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    #[test]
    fn a_link_names_a_bridge_on_this_machine_and_its_token() {
        let hash = format!("#bridge=http%3A%2F%2F127.0.0.1%3A41234%2Fmcp&token={TOKEN}");
        let link = BridgeLink::from_fragment(&hash).unwrap().unwrap();
        assert_eq!(link.url, "http://127.0.0.1:41234/mcp");
        assert_eq!(link.info_url(), "http://127.0.0.1:41234/bridge");
        assert_eq!(link.log_url(3), "http://127.0.0.1:41234/bridge/log?after=3");
        assert_eq!(link.authorization().1, format!("Bearer {TOKEN}"));
        assert_eq!(BridgeLink::from_fragment("#lesson=abc"), None);
    }

    #[test]
    fn a_link_elsewhere_or_without_its_token_is_refused() {
        for url in [
            "http://evil.example:4000/mcp",
            "http://127.0.0.1:4000/other",
            "https://127.0.0.1:4000/mcp",
            "http://127.0.0.1:4000@evil.example/mcp",
            "http://127.0.0.1:4000\\@evil.example/mcp",
            "http://192.168.1.2:4000/mcp",
            "http://127.0.0.1/mcp",
            "javascript:alert(1)//127.0.0.1:1/mcp",
        ] {
            let hash = format!(
                "#bridge={}&token={TOKEN}",
                crate::encoding::form_encode([("x", url)]).trim_start_matches("x=")
            );
            assert_eq!(BridgeLink::from_fragment(&hash), Some(Err(LinkError::NotLocal)), "{url}");
        }
        assert_eq!(BridgeLink::from_fragment("#bridge=http://127.0.0.1:1/mcp"), Some(Err(LinkError::NoToken)));
        assert_eq!(
            BridgeLink::from_fragment("#bridge=http://127.0.0.1:1/mcp&token=abc"),
            Some(Err(LinkError::BadToken))
        );
    }

    #[test]
    fn what_the_bridge_says_it_serves() {
        let info = BridgeInfo::read(
            r#"{"bridge":"0.1.0","mode":"stdio","serves":"npx -y @modelcontextprotocol/server-memory","sessions":0}"#,
        )
        .unwrap();
        assert!(info.runs_a_command());
        assert_eq!(info.serves, "npx -y @modelcontextprotocol/server-memory");
        assert_eq!(BridgeInfo::read("{}"), None);
    }
}
