//! Claude API errors, by layer, each with the request id the API gave.

use crate::layer::{Failure, Layer};

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClaudeError {
    /// No HTTP answer (in a browser also: a CORS refusal, or a wrong base URL).
    #[error("network error: {message}")]
    Network { message: String },
    /// An HTTP error status with the API's error body.
    #[error("HTTP {status} {kind}: {message}")]
    Api { status: u16, kind: String, message: String, request_id: Option<String>, body: String },
    /// An `error` event after HTTP 200: the turn is void, no partial tool_use runs.
    #[error("stream error after HTTP 200: {kind}: {message}")]
    Stream { kind: String, message: String, request_id: Option<String> },
    #[error("could not decode the response: {reason}")]
    Decode { reason: String, raw: String },
    /// The conversation breaks a rule the API would reject with a 400, caught before
    /// sending.
    #[error("the conversation is not valid to send: {0}")]
    InvalidHistory(super::history::HistoryError),
    /// The request breaks a thinking rule the API would reject with a 400 (the settings, or the
    /// conversation's bound thinking), caught before sending.
    #[error("the API would refuse this request: {0}")]
    Thinking(super::thinking::ThinkingRule),
    /// `tool_choice` names a tool the request does not offer (the API's 400), caught before
    /// sending.
    #[error("tool_choice names \"{name}\", which is not in this request's tools")]
    UnknownToolChoice { name: String },
    /// The server tools chosen break a rule the API would reject with a 400.
    #[error("the API would refuse this request: {0}")]
    ServerTools(super::server_tools::ServerToolRule),
    /// The per-tool fields (`strict`, `eager_input_streaming`, `defer_loading`) break a rule the
    /// API would reject with a 400.
    #[error("the API would refuse this request: {0}")]
    ToolFields(super::strict::ToolFieldRule),
    /// The Models API lists the chosen model without what the request asks for.
    #[error("the API would refuse this request: {0}")]
    Listed(super::listed::ListedRule),
    #[error("cancelled")]
    Cancelled,
    /// The answer passed a limit (`engine::limits`): refused as it arrived.
    #[error("{0}")]
    Limit(crate::limits::LimitExceeded),
}

impl ClaudeError {
    pub fn layer(&self) -> Layer {
        match self {
            ClaudeError::Network { .. } => Layer::Network,
            ClaudeError::Api { .. } | ClaudeError::Stream { .. } => Layer::Http,
            ClaudeError::Decode { .. } => Layer::Decode,
            ClaudeError::InvalidHistory(_)
            | ClaudeError::Thinking(_)
            | ClaudeError::ServerTools(_)
            | ClaudeError::ToolFields(_)
            | ClaudeError::Listed(_)
            | ClaudeError::UnknownToolChoice { .. } => Layer::Client,
            ClaudeError::Cancelled => Layer::Cancelled,
            ClaudeError::Limit(l) => l.limit.layer(),
        }
    }

    /// What failed, in a timeline badge's words: "HTTP 429", "stream error", or the layer.
    pub fn badge(&self) -> String {
        match self {
            ClaudeError::Api { status, .. } => format!("HTTP {status}"),
            ClaudeError::Stream { .. } => "stream error".into(),
            other => other.layer().label().into(),
        }
    }

    pub fn request_id(&self) -> Option<&str> {
        match self {
            ClaudeError::Api { request_id, .. } | ClaudeError::Stream { request_id, .. } => request_id.as_deref(),
            _ => None,
        }
    }

    pub fn hint(&self) -> Option<String> {
        let text = match self {
            ClaudeError::Network { .. } => {
                "No answer from the Claude API: check the base URL in Settings and your connection. Direct browser \
                 calls need the anthropic-dangerous-direct-browser-access header, which Loopscope sends."
            }
            ClaudeError::Api { status: 401, message, .. } if message.contains("not allowed for this Organization") => {
                "Your organization does not allow API calls from a browser (for example with zero data retention). \
                 Nothing in the page can change that: use a key from another organization."
            }
            ClaudeError::Api { status: 401, message, .. }
                if message.contains("anthropic-dangerous-direct-browser-access") =>
            {
                "The browser header was missing or stripped (by a proxy?): the API refuses browser calls without it."
            }
            ClaudeError::Api { status: 401, .. } => "The API key was refused: check it in Settings.",
            ClaudeError::Api { status: 402, .. } => "Billing problem on the account: see the Claude Console.",
            ClaudeError::Api { status: 403, .. } => "This key may not use this model or feature.",
            ClaudeError::Api { status: 404, .. } => "Not found: check the model name and the base URL.",
            ClaudeError::Api { status: 413, .. } => {
                "The request is larger than the API accepts (32 MB): remove large tool results or start a new conversation."
            }
            ClaudeError::Api { status: 429, .. } => "Rate limited: Loopscope retried; wait a moment and press Retry.",
            ClaudeError::Api { status: 529, .. } | ClaudeError::Stream { .. } => {
                "The API is overloaded or failed mid-answer: Loopscope retried; press Retry to try again."
            }
            ClaudeError::Api { status: 400, .. } => "The API rejected the request: the message says which field.",
            ClaudeError::Api { status: 500..=599, .. } => {
                "The API failed: Loopscope retried; press Retry to try again."
            }
            ClaudeError::Limit(l) => return Some(l.hint()),
            ClaudeError::ServerTools(_) => {
                "Settings → Model and request: turn Parallel tool use back on, or the code execution that calls \
                 your tools off."
            }
            ClaudeError::ToolFields(super::strict::ToolFieldRule::OpenObject { .. }) => {
                "Settings → Tool definitions: leave this tool out of strict, or fix its schema on the server (every \
                 object needs \"additionalProperties\": false); Loopscope does not rewrite a server's schema."
            }
            ClaudeError::ToolFields(_) => {
                "Settings → Tool definitions: change which tools are strict, stream eagerly or are deferred, so the \
                 API can accept the request."
            }
            ClaudeError::Listed(_) => {
                "Settings → Model and request: change the thinking, effort or strict tools to what the model \
                 supports (its line under the model field, from the Models API), or pick another model."
            }
            ClaudeError::UnknownToolChoice { .. } => {
                "Settings → Model and request → Tool choice: name a tool Claude is offered (a server's tools are \
                 named <label>_<tool>, as on the timeline's tools array), or choose auto."
            }
            ClaudeError::Thinking(super::thinking::ThinkingRule::Rebound { .. }) => {
                "Press Ask in a new conversation to ask it again with the tools and system prompt as they are now, \
                 or undo the change to go on with this one."
            }
            ClaudeError::Thinking(_) => {
                "Change the thinking settings (Settings → Model and request), or pick another model: the API would \
                 answer this request with a 400."
            }
            ClaudeError::InvalidHistory(_) => {
                "Start a new conversation, or remove the last message: the API would answer this with a 400."
            }
            _ => return None,
        };
        Some(text.to_owned())
    }

    pub fn to_failure(&self) -> Failure {
        let mut message = self.to_string();
        if let Some(id) = self.request_id() {
            message.push_str(&format!(" (request id {id})"));
        }
        Failure { layer: self.layer(), message, hint: self.hint() }
    }
}
