//! The layers a tool call crosses, each of which can fail on its own. The article's "armored
//! truck": the truck (network, HTTP), the safe inside (JSON-RPC), what was in the safe (the
//! tool's own `isError`), and what Claude finally received.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// No HTTP answer at all: connection refused, DNS, offline, or a CORS block in a browser.
    Network,
    /// An HTTP answer with a failing status.
    Http,
    /// HTTP 200, but a JSON-RPC error object inside.
    JsonRpc,
    /// A body that could not be read as what it claimed to be.
    Decode,
    /// The peer broke a protocol rule (wrong content type, id mismatch, unsupported version).
    Protocol,
    /// No answer in time.
    Timeout,
    /// The user stopped it.
    Cancelled,
    /// The call succeeded and the tool reported a failure (`isError: true`).
    Tool,
    /// The client refused before sending anything (invalid input, unknown tool, broken history).
    Client,
    /// Getting a token failed: discovery, registration, the user's sign-in, or the token request.
    Auth,
    /// The bridge on the user's machine (`loopscope bridge`): a stdio server that would not start,
    /// exited or wrote what is not JSON-RPC, or a request the bridge refused.
    Bridge,
}

impl Layer {
    pub fn label(self) -> &'static str {
        match self {
            Layer::Network => "network",
            Layer::Http => "HTTP",
            Layer::JsonRpc => "JSON-RPC",
            Layer::Decode => "decoding",
            Layer::Protocol => "protocol",
            Layer::Timeout => "timeout",
            Layer::Cancelled => "cancelled",
            Layer::Tool => "tool isError",
            Layer::Client => "client",
            Layer::Auth => "authorization",
            Layer::Bridge => "bridge",
        }
    }

    /// The badge's style name: the four layers of the article's armored truck each have their
    /// own colour; timeouts and cancellations share one; everything else is a plain failure.
    pub fn class(self) -> &'static str {
        match self {
            Layer::Network => "network",
            Layer::Http => "http",
            Layer::JsonRpc => "jsonrpc",
            Layer::Tool => "tool",
            Layer::Timeout | Layer::Cancelled => "timeout",
            Layer::Decode | Layer::Protocol | Layer::Client | Layer::Auth | Layer::Bridge => "failure",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A failure as the trace and the UI show it: which layer, what happened, and what to do.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub layer: Layer,
    pub message: String,
    pub hint: Option<String>,
}
