//! What a server's tool definitions cost in input tokens on every request: the same
//! minimal request counted with and without them. With a tool search on, also what deferring
//! them keeps out of Claude's context: the request counted with only the tools left loaded.

use super::catalog::{Catalog, ServerTools};
use super::run::Agent;
use crate::claude::server_tools::ServerTool;
use crate::claude::{ClaudeError, ClaudeSettings};
use crate::platform::Platform;
use protocol::claude::{CountTokens, Message, ToolDef};

/// A server's tools, priced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolCost {
    /// What every definition adds to each request.
    pub tokens: u64,
    /// With a tool search on: how many of them are deferred, and the tokens they add, which stay
    /// out of Claude's context until a search finds one.
    pub deferred: Option<(usize, u64)>,
}

impl ToolCost {
    /// The cost in words; `estimate` when the demo model counted (not Claude's tokenizer).
    pub fn describe(&self, estimate: bool) -> String {
        let mut text = if estimate {
            format!("≈ {} input tokens per request (demo estimate, not Claude's tokenizer)", self.tokens)
        } else {
            format!("{} input tokens on every request (count_tokens)", self.tokens)
        };
        if let Some((count, tokens)) = self.deferred {
            text.push_str(&format!(
                ". With tool search on, {count} deferred: {tokens} of these tokens stay out of Claude's context \
                 until a search finds a tool (the search tool's own definition is not counted: count_tokens \
                 refuses server tools)"
            ));
        }
        text
    }
}

impl<P: Platform> Agent<P> {
    /// Input tokens the tools of `server` add to a request, as Claude's tokenizer counts them,
    /// and those that deferral keeps out of context when `settings` has a tool search.
    pub async fn tool_cost(&self, settings: &ClaudeSettings, server: ServerTools<'_>) -> Result<ToolCost, ClaudeError> {
        let catalog = Catalog::build(&[], &[server]);
        let tools = catalog.tool_defs();
        let with = self.count_with(settings, &tools).await?;
        let without = self.count_with(settings, &[]).await?;
        let mut cost = ToolCost { tokens: with.saturating_sub(without), deferred: None };
        if settings.server_tools.contains(&ServerTool::ToolSearch) {
            let pick = &settings.tool_flags.defer_loading;
            let loaded: Vec<ToolDef> = tools.iter().filter(|t| !pick.picks(&t.name, true)).cloned().collect();
            let deferred = tools.len() - loaded.len();
            if deferred > 0 {
                let base = if loaded.is_empty() { without } else { self.count_with(settings, &loaded).await? };
                cost.deferred = Some((deferred, with.saturating_sub(base)));
            }
        }
        Ok(cost)
    }

    /// The same minimal request ("Hello"), counted with `tools`.
    async fn count_with(&self, settings: &ClaudeSettings, tools: &[ToolDef]) -> Result<u64, ClaudeError> {
        let messages = [Message::user_text("Hello")];
        let body = CountTokens { model: &settings.model, messages: &messages, system: None, tools, tool_choice: None };
        self.claude().count_tokens(settings, &body).await
    }
}
