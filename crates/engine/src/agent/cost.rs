//! What a server's tool definitions cost in input tokens on every request: the same
//! minimal request counted with and without them.

use super::catalog::{Catalog, ServerTools};
use super::run::Agent;
use crate::claude::{ClaudeError, ClaudeSettings};
use crate::platform::Platform;
use protocol::claude::{CountTokens, Message};

impl<P: Platform> Agent<P> {
    /// Input tokens the tools of `server` add to a request, as Claude's tokenizer counts them.
    pub async fn tool_cost(&self, settings: &ClaudeSettings, server: ServerTools<'_>) -> Result<u64, ClaudeError> {
        let tools = Catalog::build(&[], &[server]).tool_defs();
        let messages = [Message::user_text("Hello")];
        let count =
            |tools| CountTokens { model: &settings.model, messages: &messages, system: None, tools, tool_choice: None };
        let with = self.claude().count_tokens(settings, &count(&tools)).await?;
        let without = self.claude().count_tokens(settings, &count(&[])).await?;
        Ok(with.saturating_sub(without))
    }
}
