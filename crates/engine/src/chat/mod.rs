//! The chat's view-model: the conversation as the page shows it, reduced from the loop's events
//! in plain Rust (natively tested), and told to the page change by change so that a streamed
//! delta redraws one block, not the list.
//!
//! The page keeps a mirror of [`Chat::items`] in its own reactive values and updates it through
//! [`ChatView`]; it never decides what an event means.

mod item;
mod transcript;

pub use item::{Block, ChatItem, ToolCall, ToolState, ToolStatus};

use crate::agent::{AgentEvent, Speaker, TurnEnd};
use crate::claude::caching::describe_usage;
use crate::claude::{BlockKind, StreamUpdate};
use crate::mcp::describe_progress;
use crate::num::fixed;
use crate::session::{NoticeLevel, ToolOutcome};

/// What one step changed. Positions are into [`Chat::items`] as they stand once this change
/// (and every change before it) is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// An item was added at the end, at position `item`.
    Pushed { item: usize },
    /// The last item was removed.
    Popped,
    /// A block was added at the end of item `item`'s blocks, at position `block`.
    BlockPushed { item: usize, block: usize },
    /// Block `block` of item `item` changed (its text grew, its call moved on).
    BlockChanged { item: usize, block: usize },
    /// Item `item`'s usage line arrived.
    UsageSet { item: usize },
    /// Every item was replaced (a new conversation, a recording opened).
    Reset,
}

/// Where the page keeps what it draws. [`Chat::show`] calls these with the chat's own values.
pub trait ChatView {
    fn push(&mut self, item: &ChatItem);
    fn pop(&mut self);
    fn push_block(&mut self, item: usize, block: &Block);
    fn set_block(&mut self, item: usize, block: usize, value: &Block);
    fn set_usage(&mut self, item: usize, usage: Option<&str>);
    fn reset(&mut self, items: &[ChatItem]);
}

#[derive(Clone, Debug)]
pub struct Chat {
    items: Vec<ChatItem>,
    next_id: u64,
    /// Whether answers of the running turn come from the demo model.
    demo: bool,
}

impl Default for Chat {
    fn default() -> Self {
        Chat { items: Vec::new(), next_id: 1, demo: false }
    }
}

impl Chat {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn items(&self) -> &[ChatItem] {
        &self.items
    }

    fn id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Whether answers of the running turn come from the demo model.
    pub fn set_demo(&mut self, demo: bool) {
        self.demo = demo;
    }

    /// Tells `view` what `changes` changed, with the chat's values as they are now. An item
    /// added by these changes is shown whole as it is now, so the later changes to it in the
    /// same step are already in it. (Within one step nothing added is removed again.)
    pub fn show(&self, changes: &[Change], view: &mut impl ChatView) {
        let mut added: Vec<usize> = Vec::new();
        for change in changes {
            match *change {
                Change::Pushed { item } => {
                    if let Some(value) = self.items.get(item) {
                        view.push(value);
                        added.push(item);
                    }
                }
                Change::Popped => view.pop(),
                Change::BlockPushed { item, .. } | Change::BlockChanged { item, .. } | Change::UsageSet { item }
                    if added.contains(&item) => {}
                Change::BlockPushed { item, block } => {
                    if let Some(value) = self.block(item, block) {
                        view.push_block(item, value);
                    }
                }
                Change::BlockChanged { item, block } => {
                    if let Some(value) = self.block(item, block) {
                        view.set_block(item, block, value);
                    }
                }
                Change::UsageSet { item } => {
                    if let Some(ChatItem::Assistant { usage, .. }) = self.items.get(item) {
                        view.set_usage(item, usage.as_deref());
                    }
                }
                Change::Reset => view.reset(&self.items),
            }
        }
    }

    fn block(&self, item: usize, block: usize) -> Option<&Block> {
        match self.items.get(item) {
            Some(ChatItem::Assistant { blocks, .. }) => blocks.get(block),
            _ => None,
        }
    }

    fn push(&mut self, item: ChatItem, changes: &mut Vec<Change>) -> usize {
        self.items.push(item);
        let at = self.items.len() - 1;
        changes.push(Change::Pushed { item: at });
        at
    }

    pub fn user(&mut self, text: String) -> Vec<Change> {
        let mut changes = Vec::new();
        let id = self.id();
        self.push(ChatItem::User { id, text }, &mut changes);
        changes
    }

    pub fn notice(&mut self, level: NoticeLevel, text: impl Into<String>, hint: Option<String>) -> Vec<Change> {
        let mut changes = Vec::new();
        self.notice_into(level, text.into(), hint, &mut changes);
        changes
    }

    fn notice_into(&mut self, level: NoticeLevel, text: String, hint: Option<String>, changes: &mut Vec<Change>) {
        // An attempt that streamed nothing (refused with a 400, cut off) leaves no empty bubble.
        if matches!(self.items.last(), Some(ChatItem::Assistant { blocks, .. }) if blocks.is_empty()) {
            self.items.pop();
            changes.push(Change::Popped);
        }
        let id = self.id();
        self.push(ChatItem::Notice { id, level, text, hint }, changes);
    }

    /// The line that says how the turn ended: which model, why, and what to do when it is not
    /// a normal end.
    pub fn ended(&mut self, end: &TurnEnd) -> Vec<Change> {
        let (level, hint) = match end {
            TurnEnd::EndTurn | TurnEnd::StopSequence { .. } => (NoticeLevel::Info, None),
            TurnEnd::Failed(e) => (NoticeLevel::Error, e.hint()),
            _ => (NoticeLevel::Warning, None),
        };
        let who = if self.demo { Speaker::DemoModel } else { Speaker::Claude };
        self.notice(level, end.explain_as(who), hint)
    }

    /// A new conversation.
    pub fn clear(&mut self) -> Vec<Change> {
        self.items.clear();
        vec![Change::Reset]
    }

    /// The position of the answer being streamed into (the last item, if it is one).
    fn current(&self) -> Option<usize> {
        match self.items.last() {
            Some(ChatItem::Assistant { .. }) => Some(self.items.len() - 1),
            _ => None,
        }
    }

    fn new_answer(&mut self, changes: &mut Vec<Change>) -> usize {
        let id = self.id();
        self.push(ChatItem::Assistant { id, blocks: Vec::new(), demo: self.demo, usage: None }, changes)
    }

    fn blocks_mut(&mut self, item: usize) -> Option<&mut Vec<Block>> {
        match self.items.get_mut(item) {
            Some(ChatItem::Assistant { blocks, .. }) => Some(blocks),
            _ => None,
        }
    }

    /// The newest call with this id: (item, block).
    fn find_tool(&self, tool_use_id: &str) -> Option<(usize, usize)> {
        self.items.iter().enumerate().rev().find_map(|(i, item)| match item {
            ChatItem::Assistant { blocks, .. } => blocks
                .iter()
                .position(|b| matches!(b, Block::Tool { call, .. } if call.tool_use_id.as_deref() == Some(tool_use_id)))
                .map(|b| (i, b)),
            _ => None,
        })
    }

    /// Changes the call `tool_use_id`, if the chat shows it.
    fn update_tool(&mut self, tool_use_id: &str, changes: &mut Vec<Change>, f: impl FnOnce(&mut ToolCall)) {
        let Some((item, block)) = self.find_tool(tool_use_id) else { return };
        if let Some(Block::Tool { call, .. }) = self.blocks_mut(item).and_then(|b| b.get_mut(block)) {
            f(call);
            changes.push(Change::BlockChanged { item, block });
        }
    }

    /// Applies one event of the running turn.
    pub fn apply(&mut self, event: &AgentEvent) -> Vec<Change> {
        let mut changes = Vec::new();
        match event {
            AgentEvent::AttemptStarted { .. } => {
                self.new_answer(&mut changes);
            }
            AgentEvent::Retrying { error, delay_ms, attempt } => {
                // What the failed attempt streamed is void: drop it, say why.
                if self.current().is_some() {
                    self.items.pop();
                    changes.push(Change::Popped);
                }
                self.notice_into(
                    NoticeLevel::Warning,
                    format!("{error} — retry {attempt} in {} s", fixed(*delay_ms as f64 / 1000.0, 1)),
                    error.request_id().map(|id| format!("request id {id}")),
                    &mut changes,
                );
            }
            AgentEvent::Stream(StreamUpdate::BlockStarted { index, kind, tool }) => {
                let index = *index;
                let block = match kind {
                    BlockKind::Text => Block::Text { index, text: String::new() },
                    BlockKind::Thinking => Block::Thinking { index, text: String::new(), redacted: false },
                    BlockKind::RedactedThinking => Block::Thinking { index, text: String::new(), redacted: true },
                    BlockKind::ToolUse => Block::Tool {
                        index,
                        call: Box::new(ToolCall {
                            tool_use_id: tool.as_ref().map(|t| t.id.clone()),
                            name: tool.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
                            input: None,
                            partial: String::new(),
                            target: None,
                            progress: None,
                            state: ToolState::Writing,
                            app: None,
                        }),
                    },
                    BlockKind::ApiCall => {
                        Block::ApiCall { index, name: tool.as_ref().map(|t| t.name.clone()).unwrap_or_default() }
                    }
                    BlockKind::Other => return changes,
                };
                let item = match self.current() {
                    Some(item) => item,
                    None => self.new_answer(&mut changes),
                };
                if let Some(blocks) = self.blocks_mut(item) {
                    blocks.push(block);
                    changes.push(Change::BlockPushed { item, block: blocks.len() - 1 });
                }
            }
            AgentEvent::Stream(StreamUpdate::Text { index, text } | StreamUpdate::Thinking { index, text }) => {
                let Some(item) = self.current() else { return changes };
                if let Some(blocks) = self.blocks_mut(item)
                    && let Some(block) = blocks.iter().position(|b| b.index() == *index)
                    && let Some(Block::Text { text: t, .. } | Block::Thinking { text: t, .. }) = blocks.get_mut(block)
                {
                    t.push_str(text);
                    changes.push(Change::BlockChanged { item, block });
                }
            }
            AgentEvent::Stream(StreamUpdate::Input { index, partial }) => {
                let Some(item) = self.current() else { return changes };
                if let Some(blocks) = self.blocks_mut(item)
                    && let Some(block) = blocks.iter().position(|b| b.index() == *index)
                    && let Some(Block::Tool { call, .. }) = blocks.get_mut(block)
                    && call.input.is_none()
                {
                    call.partial.push_str(partial);
                    changes.push(Change::BlockChanged { item, block });
                }
            }
            AgentEvent::Assistant { message, usage, .. } => {
                let Some(item) = self.current() else { return changes };
                if let Some(ChatItem::Assistant { usage: slot, .. }) = self.items.get_mut(item) {
                    *slot = Some(describe_usage(usage));
                    changes.push(Change::UsageSet { item });
                }
                // Each streamed call, in order, gets its id and complete input.
                let mut uses = message.tool_uses();
                if let Some(blocks) = self.blocks_mut(item) {
                    for (block, b) in blocks.iter_mut().enumerate() {
                        let Block::Tool { call, .. } = b else { continue };
                        let Some(u) = uses.next() else { break };
                        call.tool_use_id = Some(u.id);
                        call.input = Some(u.input);
                        call.partial.clear();
                        call.state = ToolState::Running;
                        changes.push(Change::BlockChanged { item, block });
                    }
                }
            }
            AgentEvent::ToolStarted { tool_use_id, target, .. } => {
                self.update_tool(tool_use_id, &mut changes, |call| call.target = Some(target.clone()));
            }
            AgentEvent::ToolProgress { tool_use_id, progress, total, message } => {
                let words = describe_progress(*progress, *total, message.as_deref());
                self.update_tool(tool_use_id, &mut changes, |call| call.progress = Some(words));
            }
            AgentEvent::ToolFinished { tool_use_id, result, failure } => {
                let outcome = ToolOutcome::Done {
                    is_error: result.is_error,
                    text: crate::text::content_text(&result.content),
                    failure: failure.clone(),
                };
                self.update_tool(tool_use_id, &mut changes, |call| call.state = ToolState::Ended(outcome));
            }
            AgentEvent::AppCalled(app) => {
                self.update_tool(&app.tool_use_id, &mut changes, |call| match &call.app {
                    // The call was sent to another tool than the one whose app is shown: that
                    // app stays, and is told its call went elsewhere (`app_feed`).
                    Some(shown) if (&shown.server_id, &shown.tool.name) != (&app.server_id, &app.tool.name) => {}
                    _ => call.app = Some(app.clone()),
                });
            }
            AgentEvent::Ended(end) => {
                // Every call of this turn that never ran says why (cut off, failed, stopped).
                let why = end.not_executed();
                let turn = self.items.iter().rposition(|i| matches!(i, ChatItem::User { .. })).unwrap_or(0);
                for (item, entry) in self.items.iter_mut().enumerate().skip(turn) {
                    let ChatItem::Assistant { blocks, .. } = entry else { continue };
                    for (block, b) in blocks.iter_mut().enumerate() {
                        if let Block::Tool { call, .. } = b
                            && call.state.is_open()
                        {
                            call.state = ToolState::Ended(ToolOutcome::NotRun { why: why.to_owned() });
                            changes.push(Change::BlockChanged { item, block });
                        }
                    }
                }
            }
            AgentEvent::Catalog(catalog) => {
                // A server left out is said in the chat, not only with a badge on the timeline.
                for u in &catalog.unavailable {
                    self.notice_into(NoticeLevel::Warning, u.explain(), u.failure.hint.clone(), &mut changes);
                }
                for why in &catalog.skills_left_out {
                    self.notice_into(NoticeLevel::Warning, why.clone(), None, &mut changes);
                }
            }
            AgentEvent::Phase { .. } | AgentEvent::ToolResults { .. } => {}
        }
        changes
    }
}

#[cfg(test)]
mod tests;
