//! The API's MCP connector: the API, not the page, is the MCP client. A request names servers in
//! `mcp_servers` and gives each one `mcp_toolset` entry in `tools`; Anthropic's side lists their
//! tools and calls them, and the answer carries `mcp_tool_use` and `mcp_tool_result` blocks
//! (phase 3 happens there, as for server tools). The page sends nothing to such a server.
//!
//! The connector reaches only what Anthropic's servers can: a public `https://` address, with
//! at most a bearer token. Which of the user's servers qualify, and why the others do not, is
//! decided here.

use protocol::claude::{McpServerUrl, ToolDef};

use crate::mcp::distance::{Distance, distance};

/// The `anthropic-beta` value that turns the connector on.
pub const BETA: &str = "mcp-client-2025-11-20";

/// A server the API calls for this turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectorServer {
    /// The server's id in the page (its lane on the timeline).
    pub id: String,
    /// Its `name` in `mcp_servers` (the server's label as a tool-name prefix, unique per page).
    pub name: String,
    pub url: String,
    /// The card's label, for the words.
    pub label: String,
}

/// Why the connector cannot use a server the page can.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NotReachable {
    #[error("it lives inside this page (demo://): Anthropic's servers cannot reach it (the demo model can)")]
    InThePage,
    #[error(
        "the demo model's connector reaches only the demo server in this page: for this one, turn the demo model \
         off and use the Claude API"
    )]
    NotTheDemoServer,
    #[error("the connector calls only https:// addresses, and this one is not")]
    NotHttps,
    #[error(
        "{host} is this machine: the connector calls from Anthropic's servers, which cannot reach it \
         (only this page can)"
    )]
    ThisMachine { host: String },
    #[error("{host} is on a private network: the connector calls from the internet and cannot reach it")]
    PrivateNetwork { host: String },
    #[error(
        "it needs OAuth sign-in: the connector would need this page's access token for it \
         (authorization_token), and Loopscope does not hand a server's token to another host"
    )]
    NeedsSignIn,
    #[error(
        "it is given credentials ({}) that the connector cannot send (it sends a bearer token at most), and \
         Loopscope does not hand them to another host",
        names.join(", ")
    )]
    NeedsHeaders { names: Vec<String> },
}

/// What the page knows of a server that decides whether the connector can call it.
#[derive(Clone, Copy, Debug)]
pub struct Reachability<'a> {
    pub url: &'a str,
    /// The server asked for authorization (or the page holds a token for it).
    pub signs_in: bool,
    /// Names of the headers and query credentials the user gave for it (`server_address`
    /// moves secret-looking query parameters out of the address into these).
    pub credentials: &'a [String],
    /// The demo model answers (its connector runs in the page and reaches the demo server only).
    pub demo: bool,
}

/// Whether the API's connector can call the server the page reaches at `r.url`.
pub fn reach(r: Reachability<'_>) -> Result<(), NotReachable> {
    match (r.url.starts_with("demo:"), r.demo) {
        (true, true) => return Ok(()),
        (true, false) => return Err(NotReachable::InThePage),
        (false, true) => return Err(NotReachable::NotTheDemoServer),
        (false, false) => {}
    }
    let Ok(url) = crate::url_policy::WebUrl::parse(r.url) else { return Err(NotReachable::NotHttps) };
    let host = url.host.to_string();
    match distance(r.url) {
        Distance::Loopback => return Err(NotReachable::ThisMachine { host }),
        Distance::Local => return Err(NotReachable::PrivateNetwork { host }),
        Distance::Public => {}
    }
    if url.scheme != crate::url_policy::Scheme::Https {
        return Err(NotReachable::NotHttps);
    }
    if r.signs_in {
        return Err(NotReachable::NeedsSignIn);
    }
    if !r.credentials.is_empty() {
        return Err(NotReachable::NeedsHeaders { names: r.credentials.to_vec() });
    }
    Ok(())
}

impl ConnectorServer {
    /// The server `id`, labelled `label`, at `url` (the label made a name the API takes).
    pub fn new(id: &str, label: &str, url: &str) -> Self {
        Self {
            id: id.to_owned(),
            name: crate::agent::catalog::slug(label),
            url: url.to_owned(),
            label: label.to_owned(),
        }
    }

    /// Its entry in `mcp_servers`.
    pub fn entry(&self) -> McpServerUrl {
        McpServerUrl { kind: "url".into(), url: self.url.clone(), name: self.name.clone() }
    }

    /// Its entry in `tools`: every tool of the server, as the server lists them to the API.
    pub fn toolset(&self) -> ToolDef {
        ToolDef { kind: Some("mcp_toolset".into()), mcp_server_name: Some(self.name.clone()), ..ToolDef::default() }
    }
}

/// What phase 1 says when servers go to the connector, if any do.
pub fn phase_one_note(servers: &[ConnectorServer]) -> Option<String> {
    if servers.is_empty() {
        return None;
    }
    let names: Vec<String> = servers.iter().map(|s| format!("\"{}\" ({})", s.label, s.url)).collect();
    Some(format!(
        "Through the API's MCP connector: {}. The request names each in mcp_servers with one mcp_toolset entry in \
         tools (beta {BETA}); Anthropic's side lists their tools and calls them, and the answer carries \
         mcp_tool_use and mcp_tool_result blocks. This page sends no tools/list and no tools/call to them.",
        names.join(", ")
    ))
}

/// A server the connector cannot call, by its card's label, and why.
pub type Refused = (String, NotReachable);

fn refused_words(refused: &[Refused]) -> String {
    refused.iter().map(|(label, why)| format!("\"{label}\": {why}.")).collect::<Vec<_>>().join(" ")
}

/// Why "Ask both ways" compares nothing after the connector's run did not end as Claude ends one.
pub const UNFINISHED: &str = "Nothing to compare: the run through the MCP connector did not finish (its ending is \
    above). Figures of half a turn would mislead.";

/// Why "Ask both ways" compares nothing: no connected server is one the connector can call.
pub fn none_reachable(refused: &[Refused]) -> String {
    if refused.is_empty() {
        return "Nothing to compare: connect a server first (the connector calls a public https:// server).".to_owned();
    }
    format!(
        "Nothing to compare: the API's MCP connector can reach none of the connected servers. {}",
        refused_words(refused)
    )
}

/// What the chat says before the second run of "Ask both ways" (`demo`: the demo model plays
/// the API).
pub fn announce(via: &[ConnectorServer], refused: &[Refused], demo: bool) -> String {
    let names: Vec<String> = via.iter().map(|s| format!("\"{}\"", s.label)).collect();
    let stays = if refused.is_empty() {
        String::new()
    } else {
        format!(" Left in the page's loop: {}", refused_words(refused))
    };
    let who = if demo {
        "the demo model plays the API: it calls the demo server from its own code, as Anthropic's servers would, \
         and this page's MCP client sends it nothing. The API"
    } else {
        "the API"
    };
    format!(
        "The same question again, through the API's MCP connector: {who} calls {} itself, without asking this \
         page (approvals, breakpoints and injected faults do not reach its calls).{stays} A comparison: the \
         conversation goes on from the first answer.",
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reach_of(url: &str) -> Result<(), NotReachable> {
        reach(Reachability { url, signs_in: false, credentials: &[], demo: false })
    }

    #[test]
    fn only_a_public_https_server_without_secrets_is_reachable() {
        assert_eq!(reach_of("https://mcp.example.com/mcp"), Ok(()));
        for (url, why) in [
            ("http://127.0.0.1:3001/mcp", "127.0.0.1 is this machine"),
            ("http://localhost:3001/mcp", "localhost is this machine"),
            ("https://192.168.1.20/mcp", "192.168.1.20 is on a private network"),
            ("https://printer.local/mcp", "printer.local is on a private network"),
            ("http://mcp.example.com/mcp", "only https://"),
            ("demo://notebook/mcp", "inside this page"),
        ] {
            let err = reach_of(url).unwrap_err().to_string();
            assert!(err.contains(why), "{url}: {err}");
        }
        let signs_in =
            reach(Reachability { url: "https://mcp.example.com/mcp", signs_in: true, credentials: &[], demo: false });
        assert!(signs_in.unwrap_err().to_string().contains("does not hand a server's token to another host"));
        let names = ["X-Api-Key".to_owned()];
        let headers = reach(Reachability {
            url: "https://mcp.example.com/mcp",
            signs_in: false,
            credentials: &names,
            demo: false,
        });
        assert!(headers.unwrap_err().to_string().contains("(X-Api-Key)"));
        let demo = |url| reach(Reachability { url, signs_in: false, credentials: &[], demo: true });
        assert_eq!(demo("demo://notebook/mcp"), Ok(()), "the demo model's connector calls the demo server");
        assert_eq!(demo("https://mcp.example.com/mcp"), Err(NotReachable::NotTheDemoServer));
    }

    #[test]
    fn a_server_becomes_one_mcp_servers_entry_and_one_toolset() {
        let s = ConnectorServer::new("s1", "My Tools", "https://mcp.example.com/mcp");
        assert_eq!(
            serde_json::to_value(s.entry()).unwrap(),
            json!({"type": "url", "url": "https://mcp.example.com/mcp", "name": "my_tools"})
        );
        assert_eq!(
            serde_json::to_value(s.toolset()).unwrap(),
            json!({"type": "mcp_toolset", "mcp_server_name": "my_tools"})
        );
        assert!(phase_one_note(&[]).is_none());
        assert!(
            phase_one_note(std::slice::from_ref(&s))
                .unwrap()
                .contains("This page sends no tools/list and no tools/call")
        );
        let refused = vec![("local".to_owned(), NotReachable::ThisMachine { host: "127.0.0.1".into() })];
        let said = announce(std::slice::from_ref(&s), &refused, false);
        assert!(said.contains("the API calls \"My Tools\" itself, without asking"), "{said}");
        assert!(said.contains("Left in the page's loop: \"local\": 127.0.0.1 is this machine"), "{said}");
        assert!(announce(&[s], &[], true).contains("the demo model plays the API"));
        assert!(none_reachable(&refused).starts_with("Nothing to compare: the API's MCP connector can reach none"));
    }
}
