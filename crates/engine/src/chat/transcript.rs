//! The chat as a recording keeps it (the session file's transcript) and back. The file's types
//! are the session format's own (`session::TranscriptItem`); these are the only conversions.

use super::{Block, Change, Chat, ChatItem, ToolCall, ToolState};
use crate::session::{ToolOutcome, TranscriptBlock, TranscriptItem};

fn to_file(b: &Block) -> TranscriptBlock {
    match b {
        Block::Text { text, .. } => TranscriptBlock::Text { text: text.clone() },
        Block::Thinking { text, redacted, .. } => TranscriptBlock::Thinking { text: text.clone(), redacted: *redacted },
        Block::ApiCall { name, .. } => TranscriptBlock::ApiCall { name: name.clone() },
        Block::Tool { call, .. } => TranscriptBlock::Tool {
            tool_use_id: call.tool_use_id.clone(),
            name: call.name.clone(),
            input: call.input.clone(),
            target: call.target.clone(),
            outcome: match &call.state {
                ToolState::Ended(outcome) => outcome.clone(),
                ToolState::Writing | ToolState::Running => ToolOutcome::Unfinished,
            },
        },
    }
}

fn from_file(index: usize, b: &TranscriptBlock) -> Block {
    match b {
        TranscriptBlock::Text { text } => Block::Text { index, text: text.clone() },
        TranscriptBlock::ApiCall { name } => Block::ApiCall { index, name: name.clone() },
        TranscriptBlock::Thinking { text, redacted } => {
            Block::Thinking { index, text: text.clone(), redacted: *redacted }
        }
        TranscriptBlock::Tool { tool_use_id, name, input, target, outcome } => Block::Tool {
            index,
            call: Box::new(ToolCall {
                tool_use_id: tool_use_id.clone(),
                name: name.clone(),
                input: input.clone(),
                partial: String::new(),
                target: target.clone(),
                progress: None,
                state: ToolState::Ended(outcome.clone()),
                app: None,
            }),
        },
    }
}

impl Chat {
    /// What the chat shows, as the session file keeps it (a call still under way is
    /// `unfinished`: the recording ended before it did).
    pub fn transcript(&self) -> Vec<TranscriptItem> {
        self.items
            .iter()
            .map(|i| match i {
                ChatItem::User { text, .. } => TranscriptItem::User { text: text.clone() },
                ChatItem::Assistant { blocks, demo, usage, .. } => TranscriptItem::Assistant {
                    blocks: blocks.iter().map(to_file).collect(),
                    demo: *demo,
                    usage: usage.clone(),
                },
                ChatItem::Notice { level, text, hint, .. } => {
                    TranscriptItem::Notice { level: *level, text: text.clone(), hint: hint.clone() }
                }
            })
            .collect()
    }

    /// Shows a recorded transcript in place of the chat.
    pub fn load(&mut self, transcript: &[TranscriptItem]) -> Vec<Change> {
        self.items = transcript
            .iter()
            .map(|t| match t {
                TranscriptItem::User { text } => ChatItem::User { id: self.id(), text: text.clone() },
                TranscriptItem::Notice { level, text, hint } => {
                    ChatItem::Notice { id: self.id(), level: *level, text: text.clone(), hint: hint.clone() }
                }
                TranscriptItem::Assistant { blocks, demo, usage } => ChatItem::Assistant {
                    id: self.id(),
                    blocks: blocks.iter().enumerate().map(|(i, b)| from_file(i, b)).collect(),
                    demo: *demo,
                    usage: usage.clone(),
                },
            })
            .collect();
        vec![Change::Reset]
    }
}
