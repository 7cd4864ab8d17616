//! Questions the page must put to the user before going on: may this tool call run (C-31),
//! may a server's sampling request go to Claude (C-38), what does the user answer a server's
//! elicitation (C-37). Each is a queued dialog whose answer resolves a future.

use futures::channel::oneshot;
use leptos::prelude::*;
use serde_json::Value;

use protocol::jsonrpc::ErrorObject;
use protocol::mcp::{CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult};

#[derive(Clone, Debug, PartialEq)]
pub enum DialogKind {
    /// May this call run? `why` says why the user is asked (their setting, or a lesson or
    /// replay reaching a server the user did not agree to).
    Approval {
        tool: String,
        target: String,
        input: Value,
        why: engine::agent::AskWhy,
    },
    Sampling {
        server: String,
        params: CreateMessageParams,
    },
    Elicitation {
        server: String,
        params: ElicitParams,
    },
}

impl Answer {
    /// What the server hears when the user declines its sampling request.
    pub fn declined_sampling() -> Self {
        Answer::Sampling(Err(ErrorObject::new(
            protocol::jsonrpc::ErrorCode(-1),
            "The user declined the sampling request",
        )))
    }
}

impl DialogKind {
    /// The answer when the user dismisses the dialog with Escape: the call is denied, the
    /// sampling request declined, the elicitation cancelled (the MCP spec's "dismissed").
    pub fn refusal(&self) -> Answer {
        match self {
            DialogKind::Approval { .. } => Answer::Approve(false),
            DialogKind::Sampling { .. } => Answer::declined_sampling(),
            DialogKind::Elicitation { .. } => {
                Answer::Elicit(ElicitResult { action: protocol::mcp::ElicitAction::Cancel, content: None })
            }
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Dialog {
    pub id: u64,
    pub kind: DialogKind,
}

#[derive(Debug)]
pub enum Answer {
    Approve(bool),
    Sampling(Result<CreateMessageResult, ErrorObject>),
    Elicit(ElicitResult),
}

#[derive(Clone, Copy)]
pub struct Dialogs {
    pub queue: RwSignal<Vec<Dialog>>,
    waiters: StoredValue<Vec<(u64, oneshot::Sender<Answer>)>, LocalStorage>,
    next: StoredValue<u64>,
}

impl Dialogs {
    pub fn new() -> Self {
        Dialogs {
            queue: RwSignal::new(Vec::new()),
            waiters: StoredValue::new_local(Vec::new()),
            next: StoredValue::new(1),
        }
    }

    /// Queues a dialog and waits for the user. `None` if the dialog was dropped unanswered.
    pub async fn ask(&self, kind: DialogKind) -> Option<Answer> {
        let id = self.next.get_value();
        self.next.set_value(id + 1);
        let (tx, rx) = oneshot::channel();
        self.waiters.update_value(|w| w.push((id, tx)));
        self.queue.update(|q| q.push(Dialog { id, kind }));
        rx.await.ok()
    }

    pub fn answer(&self, id: u64, answer: Answer) {
        self.queue.update(|q| q.retain(|d| d.id != id));
        let tx =
            self.waiters.try_update_value(|w| w.iter().position(|(i, _)| *i == id).map(|p| w.remove(p).1)).flatten();
        if let Some(tx) = tx {
            let _ = tx.send(answer);
        }
    }
}
