//! What the chat shows, as plain data: the user's messages, the answers (text, thinking, tool
//! calls with their routing, progress and outcome) and notices. The page draws these values; it
//! decides nothing about them.

use serde_json::Value;

use crate::session::{NoticeLevel, ToolOutcome};
use crate::trace::RouteTarget;

/// One entry of the chat. `id` is unique within a conversation and keys the entry's view.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatItem {
    User {
        id: u64,
        text: String,
    },
    /// `demo`: the answer came from the scripted demo model, not from Claude.
    Assistant {
        id: u64,
        blocks: Vec<Block>,
        demo: bool,
        /// The answer's `usage` in words, once it is complete.
        usage: Option<String>,
    },
    Notice {
        id: u64,
        level: NoticeLevel,
        text: String,
        hint: Option<String>,
    },
}

impl ChatItem {
    pub fn id(&self) -> u64 {
        match self {
            ChatItem::User { id, .. } | ChatItem::Assistant { id, .. } | ChatItem::Notice { id, .. } => *id,
        }
    }
}

/// A block of an answer. `index` is its index in Claude's message (unique within the answer).
#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Text {
        index: usize,
        text: String,
    },
    /// Claude's reasoning: summarized text, empty text (the API omitted it), or `redacted`.
    Thinking {
        index: usize,
        text: String,
        redacted: bool,
    },
    Tool {
        index: usize,
        call: Box<ToolCall>,
    },
    /// A call the API ran itself (web search, code execution, a connector's MCP tool).
    ApiCall {
        index: usize,
        name: String,
    },
}

impl Block {
    /// What a thinking block's fold says about it; `None` for other blocks.
    pub fn thinking_caption(&self) -> Option<&'static str> {
        match self {
            Block::Thinking { redacted: true, .. } => {
                Some("Thinking (redacted by the API: encrypted, sent back unchanged)")
            }
            Block::Thinking { text, .. } if text.is_empty() => {
                Some("Thinking (text omitted by the API: display \"omitted\"; the signed block is sent back unchanged)")
            }
            Block::Thinking { .. } => Some("Thinking"),
            _ => None,
        }
    }

    pub fn index(&self) -> usize {
        match self {
            Block::Text { index, .. }
            | Block::Thinking { index, .. }
            | Block::Tool { index, .. }
            | Block::ApiCall { index, .. } => *index,
        }
    }
}

/// A tool call as the chat follows it, from Claude writing it to what Claude received.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// Known when Claude starts the block; a recording may lack it.
    pub tool_use_id: Option<String>,
    pub name: String,
    /// The complete input, once Claude finished writing it.
    pub input: Option<Value>,
    /// The arguments as they stream, until the input is complete (unvalidated JSON text).
    pub partial: String,
    /// Where phase 3 routed it.
    pub target: Option<RouteTarget>,
    /// The server's latest progress notification, in words.
    pub progress: Option<String>,
    pub state: ToolState,
    /// Its tool's app (MCP Apps), from the moment Claude starts writing the call: shown under
    /// the call, and told of it as it moves on (`app_feed`).
    pub app: Option<Box<crate::apps::AppCall>>,
}

impl ToolCall {
    /// What its app is told of it so far: the arguments while Claude writes them, the input it
    /// was called with (or Claude's, before it runs), and the result, or why there will be none.
    ///
    /// Only what the user let through: a call that asks first tells its app nothing of its
    /// arguments until it was routed to the app's own tool (approved); a declined call tells it
    /// only that, as the reason there is no result.
    pub fn app_feed(&self) -> Option<crate::apps::AppFeed> {
        let app = self.app.as_ref()?;
        let routed_here = match &self.target {
            Some(RouteTarget::Server { server_id, tool, .. }) => *server_id == app.server_id && *tool == app.tool.name,
            Some(_) => false,
            None => !app.asks_first,
        };
        let declined = match &self.target {
            Some(RouteTarget::Refused { reason }) => Some(reason.clone()),
            _ => None,
        };
        let input = if routed_here { app.arguments.clone().or_else(|| self.input.clone()) } else { None };
        let partial = (routed_here && input.is_none() && !self.partial.is_empty()).then(|| self.partial.clone());
        let result = app.result.clone().or_else(|| match &self.state {
            ToolState::Ended(ToolOutcome::NotRun { why }) => Some(Err(why.clone())),
            ToolState::Ended(ToolOutcome::Unfinished) => Some(Err("The recording ended before the call did.".into())),
            ToolState::Ended(ToolOutcome::Done { .. }) => Some(Err(declined
                .clone()
                // It ran, but not as a call of this app's tool (edited at a breakpoint to go elsewhere).
                .unwrap_or_else(|| "The call went to another tool.".into()))),
            ToolState::Writing | ToolState::Running => None,
        });
        Some(crate::apps::AppFeed { partial, input, result })
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum ToolState {
    /// Claude is still writing the call.
    Writing,
    Running,
    /// Done, or never run (cut off, the request failed, stopped): what a recording keeps.
    Ended(ToolOutcome),
}

/// A call's state at a glance: the chat's badge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolStatus {
    Writing,
    Running,
    Ok,
    /// Claude received `is_error: true`.
    Error,
    NotRun,
}

impl ToolState {
    pub fn status(&self) -> ToolStatus {
        match self {
            ToolState::Writing => ToolStatus::Writing,
            ToolState::Running => ToolStatus::Running,
            ToolState::Ended(ToolOutcome::Done { is_error: false, .. }) => ToolStatus::Ok,
            ToolState::Ended(ToolOutcome::Done { is_error: true, .. }) => ToolStatus::Error,
            ToolState::Ended(ToolOutcome::NotRun { .. } | ToolOutcome::Unfinished) => ToolStatus::NotRun,
        }
    }

    /// Still writing or running: the turn is not done with it.
    pub fn is_open(&self) -> bool {
        matches!(self, ToolState::Writing | ToolState::Running)
    }
}

impl ToolStatus {
    /// The badge's style name.
    pub fn class(self) -> &'static str {
        match self {
            ToolStatus::Writing => "writing",
            ToolStatus::Running => "running",
            ToolStatus::Ok => "ok",
            ToolStatus::Error => "error",
            ToolStatus::NotRun => "not-run",
        }
    }

    /// The badge's words.
    pub fn label(self) -> &'static str {
        match self {
            ToolStatus::Writing => "Claude is writing the call…",
            ToolStatus::Running => "running…",
            ToolStatus::Ok => "done",
            ToolStatus::Error => "is_error",
            ToolStatus::NotRun => "not executed",
        }
    }
}
