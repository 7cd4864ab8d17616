//! The conversation as the page shows it: user messages, assistant answers streaming in (text,
//! thinking, tool calls with their routing, progress and result), and notices (stop reasons,
//! errors with their layer and what to do). Each streaming piece is its own signal, so a delta
//! re-renders one text node, not the list.

use leptos::prelude::*;
use serde_json::Value;

use engine::agent::AgentEvent;
use engine::claude::caching::describe_usage;
use engine::claude::{BlockKind, StreamUpdate};
use engine::mcp::describe_progress;
use engine::num::fixed;
pub use engine::session::NoticeLevel;
use engine::session::ToolOutcome;
use engine::trace::RouteTarget;

#[derive(Clone, Debug, PartialEq)]
pub enum ToolState {
    /// Claude is still writing the call.
    Writing,
    Running,
    /// Done, or never run (cut off, the request failed, stopped): what a recording keeps.
    Ended(ToolOutcome),
}

#[derive(Clone, Debug)]
pub struct ToolCall {
    pub tool_use_id: RwSignal<Option<String>>,
    pub name: String,
    pub input: RwSignal<Option<Value>>,
    pub target: RwSignal<Option<RouteTarget>>,
    pub progress: RwSignal<Option<String>>,
    pub state: RwSignal<ToolState>,
}

#[derive(Clone, Debug)]
pub enum Block {
    Text { index: usize, text: RwSignal<String> },
    Thinking { index: usize, text: RwSignal<String> },
    Tool { index: usize, call: ToolCall },
}

#[derive(Clone, Debug)]
pub enum ChatItem {
    User {
        id: u64,
        text: String,
    },
    /// `demo`: the answer came from the scripted demo model, not from Claude.
    Assistant {
        id: u64,
        blocks: RwSignal<Vec<Block>>,
        demo: bool,
        /// The answer's `usage` in words, once it is complete.
        usage: RwSignal<Option<String>>,
    },
    Notice {
        id: u64,
        kind: NoticeLevel,
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

#[derive(Clone, Copy)]
pub struct Chat {
    pub items: RwSignal<Vec<ChatItem>>,
    next: StoredValue<u64>,
    demo: StoredValue<bool>,
    /// Owns the signals of the current conversation's items. Turns run in tasks that have no
    /// owner of their own; a new conversation drops this one, and its signals with it.
    owner: StoredValue<Owner, LocalStorage>,
}

impl Chat {
    pub fn new() -> Self {
        let owner = Owner::current().unwrap_or_default().child();
        Chat {
            items: RwSignal::new(Vec::new()),
            next: StoredValue::new(1),
            demo: StoredValue::new(false),
            owner: StoredValue::new_local(owner),
        }
    }

    /// A signal owned by the conversation (see `owner`).
    pub(super) fn signal<T: Send + Sync + 'static>(&self, value: T) -> RwSignal<T> {
        self.owner.with_value(|o| o.with(|| RwSignal::new(value)))
    }

    pub(super) fn id(&self) -> u64 {
        let n = self.next.get_value();
        self.next.set_value(n + 1);
        n
    }

    pub fn user(&self, text: String) {
        let id = self.id();
        self.items.update(|i| i.push(ChatItem::User { id, text }));
    }

    pub fn notice(&self, kind: NoticeLevel, text: impl Into<String>, hint: Option<String>) {
        let id = self.id();
        self.items.update(|i| {
            // An attempt that streamed nothing (refused with a 400, cut off) leaves no empty bubble.
            if matches!(i.last(), Some(ChatItem::Assistant { blocks, .. }) if blocks.with_untracked(Vec::is_empty)) {
                i.pop();
            }
            i.push(ChatItem::Notice { id, kind, text: text.into(), hint })
        });
    }

    pub fn clear(&self) {
        self.items.set(Vec::new());
        // The old items' views unmount on the next render; their signals go a frame later.
        let fresh = self.owner.with_value(|o| o.parent().unwrap_or_default().child());
        let old = self.owner.try_update_value(|o| std::mem::replace(o, fresh));
        request_animation_frame(move || drop(old));
    }

    /// The assistant bubble being streamed into (the last item, if it is one).
    fn current(&self) -> Option<RwSignal<Vec<Block>>> {
        self.items.with_untracked(|i| match i.last() {
            Some(ChatItem::Assistant { blocks, .. }) => Some(*blocks),
            _ => None,
        })
    }

    fn current_usage(&self) -> Option<RwSignal<Option<String>>> {
        self.items.with_untracked(|i| match i.last() {
            Some(ChatItem::Assistant { usage, .. }) => Some(*usage),
            _ => None,
        })
    }

    fn new_answer(&self) -> RwSignal<Vec<Block>> {
        let blocks = self.signal(Vec::new());
        let id = self.id();
        let demo = self.demo.get_value();
        let usage = self.signal(None);
        self.items.update(|i| i.push(ChatItem::Assistant { id, blocks, demo, usage }));
        blocks
    }

    /// Whether answers of the running turn come from the demo model.
    pub fn set_demo(&self, demo: bool) {
        self.demo.set_value(demo);
    }

    fn tool(&self, tool_use_id: &str) -> Option<ToolCall> {
        self.items.with_untracked(|items| {
            items.iter().rev().find_map(|i| match i {
                ChatItem::Assistant { blocks, .. } => blocks.with_untracked(|bs| {
                    bs.iter().find_map(|b| match b {
                        Block::Tool { call, .. }
                            if call.tool_use_id.get_untracked().as_deref() == Some(tool_use_id) =>
                        {
                            Some(call.clone())
                        }
                        _ => None,
                    })
                }),
                _ => None,
            })
        })
    }

    /// Applies one event of the running turn.
    pub fn apply(&self, event: &AgentEvent) {
        match event {
            AgentEvent::AttemptStarted { .. } => {
                self.new_answer();
            }
            AgentEvent::Retrying { error, delay_ms, attempt } => {
                // What the failed attempt streamed is void: drop it, say why.
                self.items.update(|i| {
                    if matches!(i.last(), Some(ChatItem::Assistant { .. })) {
                        i.pop();
                    }
                });
                self.notice(
                    NoticeLevel::Warning,
                    format!("{error} — retry {attempt} in {} s", fixed(*delay_ms as f64 / 1000.0, 1)),
                    error.request_id().map(|id| format!("request id {id}")),
                );
            }
            AgentEvent::Stream(StreamUpdate::BlockStarted { index, kind, tool }) => {
                let blocks = self.current().unwrap_or_else(|| self.new_answer());
                let index = *index;
                let block = match kind {
                    BlockKind::Text => Block::Text { index, text: self.signal(String::new()) },
                    BlockKind::Thinking => Block::Thinking { index, text: self.signal(String::new()) },
                    BlockKind::ToolUse => Block::Tool {
                        index,
                        call: ToolCall {
                            tool_use_id: self.signal(tool.as_ref().map(|t| t.id.clone())),
                            name: tool.as_ref().map(|t| t.name.clone()).unwrap_or_default(),
                            input: self.signal(None),
                            target: self.signal(None),
                            progress: self.signal(None),
                            state: self.signal(ToolState::Writing),
                        },
                    },
                    BlockKind::Other => return,
                };
                blocks.update(|b| b.push(block));
            }
            AgentEvent::Stream(StreamUpdate::Text { index, text } | StreamUpdate::Thinking { index, text }) => {
                if let Some(blocks) = self.current() {
                    blocks.with_untracked(|bs| {
                        for b in bs {
                            match b {
                                Block::Text { index: i, text: t } | Block::Thinking { index: i, text: t }
                                    if i == index =>
                                {
                                    t.update(|s| s.push_str(text));
                                }
                                _ => {}
                            }
                        }
                    });
                }
            }
            AgentEvent::Assistant { message, usage, .. } => {
                if let Some(slot) = self.current_usage() {
                    slot.set(Some(describe_usage(usage)));
                }
                // Give each streamed tool block its id and complete input.
                if let Some(blocks) = self.current() {
                    let uses: Vec<_> = message.tool_uses().collect();
                    blocks.with_untracked(|bs| {
                        let mut calls = bs.iter().filter_map(|b| match b {
                            Block::Tool { call, .. } => Some(call),
                            _ => None,
                        });
                        for u in uses {
                            if let Some(call) = calls.next() {
                                call.tool_use_id.set(Some(u.id.clone()));
                                call.input.set(Some(u.input.clone()));
                                call.state.set(ToolState::Running);
                            }
                        }
                    });
                }
            }
            AgentEvent::ToolStarted { tool_use_id, target, .. } => {
                if let Some(call) = self.tool(tool_use_id) {
                    call.target.set(Some(target.clone()));
                }
            }
            AgentEvent::ToolProgress { tool_use_id, progress, total, message } => {
                if let Some(call) = self.tool(tool_use_id) {
                    call.progress.set(Some(describe_progress(*progress, *total, message.as_deref())));
                }
            }
            AgentEvent::ToolFinished { tool_use_id, result, failure } => {
                if let Some(call) = self.tool(tool_use_id) {
                    call.state.set(ToolState::Ended(ToolOutcome::Done {
                        is_error: result.is_error,
                        text: engine::text::content_text(&result.content),
                        failure: failure.clone(),
                    }));
                }
            }
            AgentEvent::Ended(end) => {
                // Every call of this turn that never ran says why (cut off, failed, stopped).
                let why = end.not_executed();
                self.items.with_untracked(|items| {
                    let turn = items.iter().rposition(|i| matches!(i, ChatItem::User { .. })).unwrap_or(0);
                    for item in &items[turn..] {
                        if let ChatItem::Assistant { blocks, .. } = item {
                            blocks.with_untracked(|bs| {
                                for b in bs {
                                    if let Block::Tool { call, .. } = b
                                        && matches!(call.state.get_untracked(), ToolState::Writing | ToolState::Running)
                                    {
                                        call.state.set(ToolState::Ended(ToolOutcome::NotRun { why: why.to_owned() }));
                                    }
                                }
                            });
                        }
                    }
                });
            }
            AgentEvent::Catalog(catalog) => {
                // A server left out is said in the chat, not only with a badge on the timeline.
                for u in &catalog.unavailable {
                    let hint = u.failure.hint.clone();
                    self.notice(NoticeLevel::Warning, u.explain(), hint);
                }
            }
            AgentEvent::Phase { .. } | AgentEvent::ToolResults { .. } => {}
        }
    }
}
