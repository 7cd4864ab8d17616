//! What the loop tells the page while it runs, and how a turn ends.

use serde_json::Value;

use super::catalog::Catalog;
use crate::claude::{ClaudeError, StreamUpdate, ToolCallStub};
use crate::layer::Failure;
use crate::trace::RouteTarget;
use protocol::claude::{Message, ToolResult, Usage};

#[derive(Clone, Debug)]
pub enum AgentEvent {
    Phase {
        phase: u8,
        iteration: u32,
    },
    /// Phase 1 built the tools array.
    Catalog(Catalog),
    /// A Messages request is about to be sent (a retry sends another one).
    AttemptStarted {
        iteration: u32,
    },
    /// What the stream added to the answer: a block began, text or thinking arrived.
    Stream(StreamUpdate),
    /// The attempt failed and will be retried: forget what it streamed.
    Retrying {
        error: ClaudeError,
        delay_ms: u64,
        attempt: u32,
    },
    /// The complete assistant message, as appended to the history.
    Assistant {
        message: Message,
        stop_reason: Option<String>,
        usage: Usage,
    },
    ToolStarted {
        tool_use_id: String,
        name: String,
        target: RouteTarget,
        input: Value,
    },
    ToolProgress {
        tool_use_id: String,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    ToolFinished {
        tool_use_id: String,
        result: ToolResult,
        failure: Option<Failure>,
    },
    /// A call to a tool that comes with an app ran (or failed): its app is shown (MCP Apps).
    AppCalled(Box<crate::apps::AppCall>),
    /// The user message of tool_results, as appended to the history.
    ToolResults {
        message: Message,
    },
    /// The turn is over: every call Claude began and that did not run never will.
    Ended(TurnEnd),
}

#[derive(Clone, Debug, PartialEq)]
pub enum TurnEnd {
    /// `end_turn`: Claude is done.
    EndTurn,
    StopSequence {
        sequence: Option<String>,
    },
    /// Out of tokens. `cut_off` is a tool call that was cut off mid-input and not run.
    MaxTokens {
        cut_off: Option<ToolCallStub>,
    },
    Refusal {
        details: Option<Value>,
    },
    ContextWindowExceeded,
    /// A stop reason this client does not know.
    Other {
        stop_reason: String,
    },
    IterationLimit {
        limit: u32,
    },
    Aborted,
    Failed(ClaudeError),
}

impl TurnEnd {
    /// The model ended the turn itself (nothing to retry).
    pub fn is_finished(&self) -> bool {
        matches!(self, TurnEnd::EndTurn | TurnEnd::StopSequence { .. })
    }

    /// The question can be asked as it is in a new conversation, and only there: the
    /// conversation's thinking is bound to tools or a system prompt that changed since.
    pub fn wants_new_conversation(&self) -> bool {
        matches!(
            self,
            TurnEnd::Failed(crate::claude::ClaudeError::Thinking(
                crate::claude::thinking::ThinkingRule::Rebound { .. }
            ))
        )
    }

    pub fn stop_reason(&self) -> Option<&str> {
        Some(match self {
            TurnEnd::EndTurn => "end_turn",
            TurnEnd::StopSequence { .. } => "stop_sequence",
            TurnEnd::MaxTokens { .. } => "max_tokens",
            TurnEnd::Refusal { .. } => "refusal",
            TurnEnd::ContextWindowExceeded => "model_context_window_exceeded",
            TurnEnd::Other { stop_reason } => stop_reason,
            _ => return None,
        })
    }

    /// A sentence for the chat (A-11: a clear message for each stop reason).
    /// How the turn ended, in words, naming the model that answered.
    pub fn explain(&self) -> String {
        self.explain_as(Speaker::Claude)
    }

    /// How the turn ended, in words, with `who` as the model that answered (the demo model is
    /// not Claude, and the page never says it is).
    pub fn explain_as(&self, who: Speaker) -> String {
        let (subject, object) = (who.subject(), who.object());
        match self {
            TurnEnd::EndTurn => format!("{subject} finished its answer (end_turn)."),
            TurnEnd::StopSequence { sequence } => format!(
                "{subject} stopped at the stop sequence {}.",
                sequence.as_deref().map_or("(unknown)".into(), |s| format!("{s:?}"))
            ),
            TurnEnd::MaxTokens { cut_off: Some(call) } => format!(
                "{subject} ran out of tokens (max_tokens) while writing a call to {}. The call was not executed. Raise Max tokens in Settings and press Retry.",
                call.name
            ),
            TurnEnd::MaxTokens { cut_off: None } => {
                "The answer was cut off at max_tokens. Raise Max tokens in Settings and press Retry for a full answer."
                    .into()
            }
            TurnEnd::Refusal { details } => format!(
                "{subject} declined to continue (refusal){}.",
                details.as_ref().map(|d| format!(": {d}")).unwrap_or_default()
            ),
            TurnEnd::ContextWindowExceeded => format!(
                "The conversation no longer fits {object}'s context window: the answer is truncated. Start a new conversation."
            ),
            TurnEnd::Other { stop_reason } => format!("{subject} stopped ({stop_reason})."),
            TurnEnd::IterationLimit { limit } => format!(
                "Stopped after {limit} rounds of tool calls (the loop's safety cap). Send a message to let {object} continue."
            ),
            TurnEnd::Aborted => "Stopped by you. The conversation is kept; in-flight tool calls were cancelled.".into(),
            TurnEnd::Failed(e) => {
                let mut s = format!("The request failed ({} layer): {e}", e.layer());
                if let Some(id) = e.request_id() {
                    s.push_str(&format!(" — request id {id}"));
                }
                s
            }
        }
    }
}

/// The model that answers a turn: Claude, or the page's scripted stand-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Speaker {
    Claude,
    DemoModel,
}

impl Speaker {
    /// At the start of a sentence.
    pub fn subject(self) -> &'static str {
        match self {
            Speaker::Claude => "Claude",
            Speaker::DemoModel => "The demo model",
        }
    }

    /// Inside a sentence.
    pub fn object(self) -> &'static str {
        match self {
            Speaker::Claude => "Claude",
            Speaker::DemoModel => "the demo model",
        }
    }
}

impl TurnEnd {
    /// Why a call Claude began in this turn and that never ran was not executed, in words.
    pub fn not_executed(&self) -> &'static str {
        match self {
            TurnEnd::MaxTokens { .. } => "Not executed: Claude was cut off at max_tokens before the call was complete.",
            TurnEnd::Failed(_) => "Not executed: the request failed before the call was complete.",
            TurnEnd::Aborted => "Not executed: stopped by you.",
            TurnEnd::IterationLimit { .. } => "Not executed: the loop reached its round limit.",
            _ => "Not executed: the turn ended first.",
        }
    }

    /// Whether the turn ended as Claude meant it to (nothing to retry).
    pub fn is_normal(&self) -> bool {
        matches!(self, TurnEnd::EndTurn | TurnEnd::StopSequence { .. })
    }
}

/// The history after the turn (always valid to send again), and how the turn ended.
#[derive(Clone, Debug)]
pub struct TurnOutcome {
    pub history: Vec<Message>,
    pub end: TurnEnd,
    pub iterations: u32,
    /// What the history's thinking is bound to (preserved thinking): pass it to the next turn.
    pub binding: Option<u64>,
}
