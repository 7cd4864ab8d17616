//! The MCP servers the user added: what the page shows of each (status, server info, tools,
//! resources, prompts, log) and the live connection behind it. Custom headers stay in memory;
//! only URLs and labels are saved.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use std::cell::Cell;
use std::rc::Rc;

use super::storage;
use crate::engine::agent::ServerHandle;
use crate::engine::agent::catalog::slug;
use crate::engine::cancel::CancelToken;
use crate::engine::layer::Failure;
use crate::engine::mcp::{McpClient, ToolList};
use crate::protocol::mcp::{InitializeResult, Prompt, Resource, ResourceTemplate};
use crate::web::PagePlatform as Platform;

const SERVERS_KEY: &str = "loopscope.servers";

#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    Connecting,
    Connected,
    Failed(Failure),
    Disconnected,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    pub at_ms: f64,
    pub level: String,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ServerView {
    pub id: String,
    pub url: String,
    pub label: String,
    /// Names only: values are secrets and never shown again.
    pub header_names: Vec<String>,
    pub status: Status,
    pub info: Option<InitializeResult>,
    pub tools: Option<ToolList>,
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub prompts: Vec<Prompt>,
    pub log: Vec<LogLine>,
    /// Whether the server keeps a GET stream open for its own messages.
    pub stream: Option<String>,
    /// Resource URIs subscribed to in this session (C-33).
    pub subscribed: Vec<String>,
    /// The resource last read by hand, shown in the Resources tab.
    pub reading: Option<super::Reading>,
}

impl ServerView {
    pub fn new(id: String, url: String, label: String, header_names: Vec<String>) -> Self {
        ServerView {
            id,
            url,
            label,
            header_names,
            status: Status::Disconnected,
            info: None,
            tools: None,
            resources: Vec::new(),
            templates: Vec::new(),
            prompts: Vec::new(),
            log: Vec::new(),
            stream: None,
            subscribed: Vec::new(),
            reading: None,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Saved {
    pub url: String,
    pub label: String,
    #[serde(default)]
    pub had_headers: bool,
}

pub struct Conn {
    pub id: String,
    pub client: Rc<McpClient<Platform>>,
    pub stale: Rc<Cell<bool>>,
    pub listen: CancelToken,
}

#[derive(Clone, Copy)]
pub struct Servers {
    pub list: RwSignal<Vec<ServerView>>,
    pub conns: StoredValue<Vec<Conn>, LocalStorage>,
    next: StoredValue<u32>,
}

impl Servers {
    pub fn new() -> Self {
        Servers {
            list: RwSignal::new(Vec::new()),
            conns: StoredValue::new_local(Vec::new()),
            next: StoredValue::new(1),
        }
    }

    pub fn next_id(&self) -> String {
        let n = self.next.get_value();
        self.next.set_value(n + 1);
        format!("s{n}")
    }

    pub fn update(&self, id: &str, f: impl FnOnce(&mut ServerView)) {
        self.list.update(|l| {
            if let Some(s) = l.iter_mut().find(|s| s.id == id) {
                f(s);
            }
        });
    }

    pub fn get(&self, id: &str) -> Option<ServerView> {
        self.list.with_untracked(|l| l.iter().find(|s| s.id == id).cloned())
    }

    pub fn client(&self, id: &str) -> Option<Rc<McpClient<Platform>>> {
        self.conns.with_value(|c| c.iter().find(|c| c.id == id).map(|c| c.client.clone()))
    }

    pub fn mark_stale(&self, id: &str) {
        self.conns.with_value(|c| c.iter().filter(|c| c.id == id).for_each(|c| c.stale.set(true)));
    }

    /// The connected servers, for a turn of the loop.
    pub fn handles(&self) -> Vec<ServerHandle<Platform>> {
        let connected: Vec<(String, String)> = self.list.with_untracked(|l| {
            l.iter().filter(|s| s.status == Status::Connected).map(|s| (s.id.clone(), s.label.clone())).collect()
        });
        self.conns.with_value(|conns| {
            conns
                .iter()
                .filter_map(|c| {
                    let label = connected.iter().find(|(id, _)| *id == c.id)?.1.clone();
                    Some(ServerHandle { client: c.client.clone(), label, stale: c.stale.clone() })
                })
                .collect()
        })
    }

    /// The labels of the servers other than `id` (empty while a server has none yet).
    pub fn labels_except(&self, id: &str) -> Vec<String> {
        self.list.with_untracked(|l| {
            l.iter().filter(|s| s.id != id && !s.label.is_empty()).map(|s| s.label.clone()).collect()
        })
    }

    /// Why a server with this URL and typed label should not be added, if it should not: the same
    /// URL again (unless given a label of its own), or a label whose prefix another server has.
    pub fn conflict(&self, url: &str, label: &str) -> Option<String> {
        let label = label.trim();
        self.list.with_untracked(|l| {
            if !label.is_empty() {
                let prefix = slug(label);
                if let Some(other) = l.iter().find(|s| !s.label.is_empty() && slug(&s.label) == prefix) {
                    return Some(format!(
                        "The label \"{label}\" gives the tool-name prefix \"{prefix}\", which the server \"{}\" already uses. Choose another label.",
                        other.label
                    ));
                }
                return None;
            }
            l.iter().find(|s| s.url == url).map(|other| {
                let name = if other.label.is_empty() { other.url.as_str() } else { other.label.as_str() };
                format!(
                    "This server is already in the list as \"{name}\": use Connect on its card to connect again, or give this one a label of its own to add it twice."
                )
            })
        })
    }

    pub fn save(&self) {
        let saved: Vec<Saved> = self.list.with_untracked(|l| {
            l.iter()
                .map(|s| Saved { url: s.url.clone(), label: s.label.clone(), had_headers: !s.header_names.is_empty() })
                .collect()
        });
        if let Ok(json) = serde_json::to_string(&saved) {
            storage::set(SERVERS_KEY, &json);
        }
    }

    pub fn saved() -> Vec<Saved> {
        storage::get(SERVERS_KEY).and_then(|s| serde_json::from_str(&s).ok()).unwrap_or_default()
    }

    pub fn log(&self, id: &str, level: &str, text: String, at_ms: f64) {
        self.update(id, |s| {
            s.log.push(LogLine { at_ms, level: level.into(), text });
            let excess = s.log.len().saturating_sub(200);
            s.log.drain(..excess);
        });
    }
}
