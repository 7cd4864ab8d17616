//! The chat as data and back (a recorded session's transcript): what was shown, without the
//! signals that streamed it.

use leptos::prelude::*;

use super::chat::{Block, Chat, ChatItem, ToolCall, ToolState};
use engine::session::{ToolOutcome, TranscriptBlock, TranscriptItem};

fn block(b: &Block) -> TranscriptBlock {
    match b {
        Block::Text { text, .. } => TranscriptBlock::Text { text: text.get_untracked() },
        Block::Thinking { text, .. } => TranscriptBlock::Thinking { text: text.get_untracked() },
        Block::Tool { call, .. } => TranscriptBlock::Tool {
            tool_use_id: call.tool_use_id.get_untracked(),
            name: call.name.clone(),
            input: call.input.get_untracked(),
            target: call.target.get_untracked(),
            outcome: match call.state.get_untracked() {
                ToolState::Ended(outcome) => outcome,
                ToolState::Writing | ToolState::Running => ToolOutcome::Unfinished,
            },
        },
    }
}

impl Chat {
    /// What the chat shows, as data.
    pub fn transcript(&self) -> Vec<TranscriptItem> {
        self.items.with_untracked(|items| {
            items
                .iter()
                .map(|i| match i {
                    ChatItem::User { text, .. } => TranscriptItem::User { text: text.clone() },
                    ChatItem::Assistant { blocks, demo, usage, .. } => TranscriptItem::Assistant {
                        blocks: blocks.with_untracked(|bs| bs.iter().map(block).collect()),
                        demo: *demo,
                        usage: usage.get_untracked(),
                    },
                    ChatItem::Notice { kind: k, text, hint, .. } => {
                        TranscriptItem::Notice { level: *k, text: text.clone(), hint: hint.clone() }
                    }
                })
                .collect()
        })
    }

    /// Shows a recorded transcript in place of the chat.
    pub fn load(&self, transcript: &[TranscriptItem]) {
        self.clear();
        let items: Vec<ChatItem> = transcript
            .iter()
            .map(|t| match t {
                TranscriptItem::User { text } => ChatItem::User { id: self.id(), text: text.clone() },
                TranscriptItem::Notice { level, text, hint } => {
                    ChatItem::Notice { id: self.id(), kind: *level, text: text.clone(), hint: hint.clone() }
                }
                TranscriptItem::Assistant { blocks, demo, usage } => {
                    let blocks = blocks
                        .iter()
                        .enumerate()
                        .map(|(index, b)| match b {
                            TranscriptBlock::Text { text } => Block::Text { index, text: self.signal(text.clone()) },
                            TranscriptBlock::Thinking { text } => {
                                Block::Thinking { index, text: self.signal(text.clone()) }
                            }
                            TranscriptBlock::Tool { tool_use_id, name, input, target, outcome } => Block::Tool {
                                index,
                                call: ToolCall {
                                    tool_use_id: self.signal(tool_use_id.clone()),
                                    name: name.clone(),
                                    input: self.signal(input.clone()),
                                    target: self.signal(target.clone()),
                                    progress: self.signal(None),
                                    state: self.signal(ToolState::Ended(outcome.clone())),
                                },
                            },
                        })
                        .collect();
                    ChatItem::Assistant {
                        id: self.id(),
                        blocks: self.signal(blocks),
                        demo: *demo,
                        usage: self.signal(usage.clone()),
                    }
                }
            })
            .collect();
        self.items.set(items);
    }
}
