//! The chat's reactive copy. What an event means is decided by the engine's view-model
//! (`engine::chat::Chat`); this keeps what it decided in signals, one per streaming block, so a
//! delta re-renders one block, not the list.

use leptos::prelude::*;

use engine::agent::{AgentEvent, TurnEnd};
use engine::chat::{Block, Change, ChatItem, ChatView};
pub use engine::session::NoticeLevel;
use engine::session::TranscriptItem;

/// An entry as the page draws it: fixed parts as values, streaming parts as signals.
#[derive(Clone, Debug)]
pub enum Shown {
    User { id: u64, text: String },
    Assistant { id: u64, demo: bool, blocks: RwSignal<Vec<ShownBlock>>, usage: RwSignal<Option<String>> },
    Notice { id: u64, level: NoticeLevel, text: String, hint: Option<String> },
}

impl Shown {
    pub fn id(&self) -> u64 {
        match self {
            Shown::User { id, .. } | Shown::Assistant { id, .. } | Shown::Notice { id, .. } => *id,
        }
    }
}

/// A block and the key of its view (its index in Claude's message).
#[derive(Clone, Copy, Debug)]
pub struct ShownBlock {
    pub key: usize,
    pub value: RwSignal<Block>,
}

#[derive(Clone, Copy)]
pub struct Chat {
    pub items: RwSignal<Vec<Shown>>,
    model: StoredValue<engine::chat::Chat>,
    /// Owns the signals of the current conversation's items. Turns run in tasks that have no
    /// owner of their own; a new conversation drops this one, and its signals with it.
    owner: StoredValue<Owner, LocalStorage>,
}

/// `ChatView` over the page's signals.
struct Signals(Chat);

impl Signals {
    fn signal<T: Send + Sync + 'static>(&self, value: T) -> RwSignal<T> {
        self.0.owner.with_value(|o| o.with(|| RwSignal::new(value)))
    }

    fn block(&self, b: &Block) -> ShownBlock {
        ShownBlock { key: b.index(), value: self.signal(b.clone()) }
    }

    fn shown(&self, item: &ChatItem) -> Shown {
        match item {
            ChatItem::User { id, text } => Shown::User { id: *id, text: text.clone() },
            ChatItem::Assistant { id, blocks, demo, usage } => Shown::Assistant {
                id: *id,
                demo: *demo,
                blocks: self.signal(blocks.iter().map(|b| self.block(b)).collect()),
                usage: self.signal(usage.clone()),
            },
            ChatItem::Notice { id, level, text, hint } => {
                Shown::Notice { id: *id, level: *level, text: text.clone(), hint: hint.clone() }
            }
        }
    }

    fn blocks(&self, item: usize) -> Option<RwSignal<Vec<ShownBlock>>> {
        self.0.items.with_untracked(|i| match i.get(item) {
            Some(Shown::Assistant { blocks, .. }) => Some(*blocks),
            _ => None,
        })
    }
}

impl ChatView for Signals {
    fn push(&mut self, item: &ChatItem) {
        let shown = self.shown(item);
        self.0.items.update(|i| i.push(shown));
    }

    fn pop(&mut self) {
        self.0.items.update(|i| {
            i.pop();
        });
    }

    fn push_block(&mut self, item: usize, block: &Block) {
        if let Some(blocks) = self.blocks(item) {
            let shown = self.block(block);
            blocks.update(|b| b.push(shown));
        }
    }

    fn set_block(&mut self, item: usize, block: usize, value: &Block) {
        if let Some(slot) = self.blocks(item).and_then(|b| b.with_untracked(|b| b.get(block).copied())) {
            slot.value.set(value.clone());
        }
    }

    fn set_usage(&mut self, item: usize, usage: Option<&str>) {
        if let Some(Shown::Assistant { usage: slot, .. }) = self.0.items.with_untracked(|i| i.get(item).cloned()) {
            slot.set(usage.map(str::to_owned));
        }
    }

    fn reset(&mut self, items: &[ChatItem]) {
        // The old items' views unmount on the next render; their signals go a frame later.
        let chat = self.0;
        let fresh = chat.owner.with_value(|o| o.parent().unwrap_or_default().child());
        let old = chat.owner.try_update_value(|o| std::mem::replace(o, fresh));
        request_animation_frame(move || drop(old));
        let shown = items.iter().map(|i| self.shown(i)).collect();
        chat.items.set(shown);
    }
}

impl Chat {
    pub fn new() -> Self {
        let owner = Owner::current().unwrap_or_default().child();
        Chat {
            items: RwSignal::new(Vec::new()),
            model: StoredValue::new(engine::chat::Chat::new()),
            owner: StoredValue::new_local(owner),
        }
    }

    /// Runs one step of the view-model and copies what it changed into the signals.
    fn step(&self, f: impl FnOnce(&mut engine::chat::Chat) -> Vec<Change>) {
        let changes = self.model.try_update_value(f).unwrap_or_default();
        self.model.with_value(|m| m.show(&changes, &mut Signals(*self)));
    }

    pub fn user(&self, text: String) {
        self.step(|m| m.user(text));
    }

    pub fn notice(&self, level: NoticeLevel, text: impl Into<String>, hint: Option<String>) {
        let text = text.into();
        self.step(|m| m.notice(level, text, hint));
    }

    /// The line that says how the turn ended.
    pub fn ended(&self, end: &TurnEnd) {
        self.step(|m| m.ended(end));
    }

    pub fn clear(&self) {
        self.step(engine::chat::Chat::clear);
    }

    /// Whether answers of the running turn come from the demo model.
    pub fn set_demo(&self, demo: bool) {
        self.model.update_value(|m| m.set_demo(demo));
    }

    /// Applies one event of the running turn.
    pub fn apply(&self, event: &AgentEvent) {
        self.step(|m| m.apply(event));
    }

    /// What the chat shows, as a recording keeps it.
    pub fn transcript(&self) -> Vec<TranscriptItem> {
        self.model.with_value(engine::chat::Chat::transcript)
    }

    /// Shows a recorded transcript in place of the chat.
    pub fn load(&self, transcript: &[TranscriptItem]) {
        self.step(|m| m.load(transcript));
    }
}
