//! The MCP servers the user added. Each server has reactive state of its own (a signal per
//! thing the page shows: its connection, what it said, its lists, its log), so a log line on
//! one server redraws that server's log and nothing else. The connection state is the engine
//! client's, mirrored here only by the client's own callback. Header values stay in memory
//! unless the user asks to remember them; URLs, labels and header names are saved.

use leptos::prelude::*;
use std::cell::Cell;
use std::rc::Rc;

use super::storage;
use crate::PagePlatform as Platform;
use crate::sign_in::Popup;
use engine::agent::ServerHandle;
use engine::agent::catalog::slug;
use engine::auth::{Auth, AuthStatus, Preregistered};
use engine::cancel::CancelToken;
use engine::mcp::{Connection, McpClient, RevisionChoice, ToolList, display_name};
use engine::saved::{SavedServer, merge, pin_of};
use protocol::mcp::{InitializeResult, Prompt, Resource, ResourceTemplate};

pub(super) const SERVERS_KEY: &str = "loopscope.servers";
/// Log lines kept per server.
const LOG_LINES: usize = 200;

#[derive(Clone, Debug, PartialEq)]
pub struct LogLine {
    pub at_ms: f64,
    pub level: String,
    pub text: String,
}

/// What the page shows of a server besides its connection and its log. One signal for all of
/// it: these change rarely (on connect, when a list changes, on a read), and one signal type
/// costs the page less than a dozen (docs/size.md).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ServerData {
    pub label: String,
    /// Names only: values are secrets and never shown again.
    pub header_names: Vec<String>,
    /// Headers the server was saved with that this page load does not have (they were not
    /// remembered): the card asks for them before connecting.
    pub headers_missing: bool,
    /// Whether the user chose to keep this server's header values on this device.
    pub remember_headers: bool,
    /// What the URL policy says of the address (plain http off this machine), for the card.
    pub address_warning: Option<String>,
    pub info: Option<InitializeResult>,
    pub tools: Option<ToolList>,
    /// The lists that could not be read (tools/list, resources/list…), and why.
    pub list_failures: Vec<(&'static str, engine::layer::Failure)>,
    pub resources: Vec<Resource>,
    pub templates: Vec<ResourceTemplate>,
    pub prompts: Vec<Prompt>,
    /// Whether the server keeps a GET stream open for its own messages.
    pub stream: Option<String>,
    /// Resource URIs subscribed to in this session (C-33).
    pub subscribed: Vec<String>,
    /// The resource last read by hand, shown in the Resources tab.
    pub reading: Option<super::Reading>,
    /// The protocol revision: found out (Auto) or pinned by the user to compare revisions.
    pub revision: RevisionChoice,
    /// Why the connection speaks the revision it does, as the client said.
    pub why: String,
    /// Where the server's OAuth stands (the engine's `Auth` says).
    pub auth: AuthStatus,
    /// The sign-in window, while a sign-in waits for the user.
    pub popup: Popup,
    /// A client the user registered with the server's authorization server themselves.
    pub client: Option<Preregistered>,
    /// Whether the user chose to keep this server's tokens (and client secret) on this device.
    pub remember_auth: bool,
    /// Whether the user lets the tools this server marks destructive run without asking (in
    /// memory only: a reload asks again).
    pub destructive_allowed: bool,
    /// The last connect got no answer the browser let the page read (CORS, most likely): the
    /// card shows the ways out (the bridge's `--to`, the SDKs' lines).
    pub cors_blocked: bool,
}

/// One server on the page: its own reactive state, apart from every other server's, so a log
/// line on one server redraws that server's log and nothing else. Cloning it clones handles.
#[derive(Clone)]
pub struct ServerEntry {
    pub id: String,
    pub url: String,
    /// The engine client's state, set only by the client's callback.
    pub state: RwSignal<Connection>,
    pub log: RwSignal<Vec<LogLine>>,
    pub data: RwSignal<ServerData>,
    /// Owns the signals above; they go when the last clone does.
    _owner: Owner,
}

impl ServerEntry {
    fn new(owner: Owner, id: String, url: String, data: ServerData) -> Self {
        owner.clone().with(|| ServerEntry {
            id,
            url,
            state: RwSignal::new(Connection::Disconnected),
            log: RwSignal::new(Vec::new()),
            data: RwSignal::new(data),
            _owner: owner,
        })
    }

    /// The server's name everywhere on the page: its label, else a short form of its URL.
    pub fn name(&self) -> String {
        self.data.with(|d| display_name(&d.label, &self.url))
    }

    pub fn name_untracked(&self) -> String {
        self.data.with_untracked(|d| display_name(&d.label, &self.url))
    }

    pub fn label_untracked(&self) -> String {
        self.data.with_untracked(|d| d.label.clone())
    }

    pub fn update(&self, f: impl FnOnce(&mut ServerData)) {
        self.data.update(f);
    }

    pub fn push_log(&self, level: &str, text: String, at_ms: f64) {
        self.log.update(|log| {
            log.push(LogLine { at_ms, level: level.into(), text });
            let excess = log.len().saturating_sub(LOG_LINES);
            log.drain(..excess);
        });
    }
}

/// A server's OAuth, by the server's id.
pub type ServerAuth = (String, Rc<Auth<Platform>>);

pub struct Conn {
    pub id: String,
    pub client: Rc<McpClient<Platform>>,
    pub stale: Rc<Cell<bool>>,
    pub listen: CancelToken,
    /// The header values this connection uses (in memory), for saving when remembered.
    pub headers: Vec<(String, String)>,
}

#[derive(Clone, Copy)]
pub struct Servers {
    /// Changes when a server is added or removed, not when one changes.
    pub list: RwSignal<Vec<ServerEntry>>,
    pub conns: StoredValue<Vec<Conn>, LocalStorage>,
    /// Each server's OAuth, kept across its reconnections (the tokens live there).
    pub auths: StoredValue<Vec<ServerAuth>, LocalStorage>,
    next: StoredValue<u32>,
    /// The parent of every server's owner.
    owner: StoredValue<Owner, LocalStorage>,
    /// Servers this tab removed (address, label): a save drops them from what is stored, and
    /// keeps the servers another tab added (`engine::saved::merge`).
    removed: StoredValue<Vec<(String, String)>>,
    /// A bridge the page's address offered (`#bridge=…&token=…`, the fragment as it was), until
    /// the user connects or declines (`servers/bridge.rs`).
    pub offer: RwSignal<Option<String>>,
}

impl Servers {
    pub fn new() -> Self {
        Servers {
            list: RwSignal::new(Vec::new()),
            conns: StoredValue::new_local(Vec::new()),
            auths: StoredValue::new_local(Vec::new()),
            next: StoredValue::new(1),
            owner: StoredValue::new_local(Owner::current().unwrap_or_default()),
            removed: StoredValue::new(Vec::new()),
            offer: RwSignal::new(None),
        }
    }

    pub fn next_id(&self) -> String {
        let n = self.next.get_value();
        self.next.set_value(n + 1);
        format!("s{n}")
    }

    /// Adds a server to the list (not connected yet).
    pub fn push(&self, id: String, url: String, label: String, header_names: Vec<String>) -> ServerEntry {
        let owner = self.owner.with_value(Owner::child);
        let address_warning =
            engine::server_address::prepare(&url).ok().and_then(|a| a.warning).map(|w| format!("Careful: {w}."));
        let data = ServerData { label, header_names, address_warning, ..ServerData::default() };
        let entry = ServerEntry::new(owner, id, url, data);
        self.list.update(|l| l.push(entry.clone()));
        entry
    }

    /// The servers whose tools marked destructive the user lets run without asking.
    pub fn destructive_allowed(&self) -> Vec<String> {
        self.list.with_untracked(|l| {
            l.iter().filter(|s| s.data.with_untracked(|d| d.destructive_allowed)).map(|s| s.id.clone()).collect()
        })
    }

    pub fn entry(&self, id: &str) -> Option<ServerEntry> {
        self.list.with_untracked(|l| l.iter().find(|s| s.id == id).cloned())
    }

    /// The server's name, or its id if it is gone.
    pub fn name(&self, id: &str) -> String {
        self.entry(id).map_or_else(|| id.to_owned(), |e| e.name_untracked())
    }

    /// (id, name) of every server, tracked: for the timeline's lanes.
    pub fn names(&self) -> Vec<(String, String)> {
        self.list.with(|l| l.iter().map(|s| (s.id.clone(), s.name())).collect())
    }

    pub fn client(&self, id: &str) -> Option<Rc<McpClient<Platform>>> {
        self.conns.with_value(|c| c.iter().find(|c| c.id == id).map(|c| c.client.clone()))
    }

    pub fn auth(&self, id: &str) -> Option<Rc<Auth<Platform>>> {
        self.auths.with_value(|a| a.iter().find(|(i, _)| i == id).map(|(_, a)| a.clone()))
    }

    pub fn mark_stale(&self, id: &str) {
        self.conns.with_value(|c| c.iter().filter(|c| c.id == id).for_each(|c| c.stale.set(true)));
    }

    /// The servers a turn offers tools from (connected, or failing in a way the turn reports).
    pub fn handles(&self) -> Vec<ServerHandle<Platform>> {
        self.conns.with_value(|conns| {
            conns
                .iter()
                .filter(|c| c.client.state().in_turns())
                .map(|c| ServerHandle { client: c.client.clone(), label: self.name(&c.id), stale: c.stale.clone() })
                .collect()
        })
    }

    /// The labels of the servers other than `id` (empty while a server has none yet).
    pub fn labels_except(&self, id: &str) -> Vec<String> {
        self.list.with_untracked(|l| {
            l.iter().filter(|s| s.id != id).map(ServerEntry::label_untracked).filter(|l| !l.is_empty()).collect()
        })
    }

    /// Why a server with this URL and typed label should not be added, if it should not: the same
    /// URL again (unless given a label of its own), or a label whose prefix another server has.
    pub fn conflict(&self, url: &str, label: &str) -> Option<String> {
        let label = label.trim();
        self.list.with_untracked(|l| {
            if !label.is_empty() {
                let prefix = slug(label);
                if let Some(other) = l.iter().find(|s| s.data.with_untracked(|d| !d.label.is_empty() && slug(&d.label) == prefix)) {
                    return Some(format!(
                        "The label \"{label}\" gives the tool-name prefix \"{prefix}\", which the server \"{}\" already uses. Choose another label.",
                        other.name_untracked()
                    ));
                }
                return None;
            }
            l.iter().find(|s| s.url == url).map(|other| {
                format!(
                    "This server is already in the list as \"{}\": use Connect on its card to connect again, or give this one a label of its own to add it twice.",
                    other.name_untracked()
                )
            })
        })
    }

    pub fn save(&self) {
        let ours: Vec<SavedServer> = self.list.with_untracked(|l| {
            l.iter()
                .map(|s| SavedServer {
                    url: s.url.clone(),
                    label: s.label_untracked(),
                    header_names: s.data.with_untracked(|d| d.header_names.clone()),
                    headers: if s.data.with_untracked(|d| d.remember_headers) {
                        self.conns.with_value(|c| {
                            c.iter().find(|c| c.id == s.id).map(|c| c.headers.clone()).unwrap_or_default()
                        })
                    } else {
                        Vec::new()
                    },
                    had_headers: false,
                    revision: s.data.with_untracked(|d| pin_of(d.revision)),
                    client: s.data.with_untracked(|d| {
                        let keep_secret = d.remember_auth;
                        d.client
                            .clone()
                            .map(|c| Preregistered { client_secret: c.client_secret.filter(|_| keep_secret), ..c })
                    }),
                    auth: s
                        .data
                        .with_untracked(|d| d.remember_auth)
                        .then(|| self.auth(&s.id).map(|a| a.memory()))
                        .flatten(),
                })
                .collect()
        });
        let saved = self.removed.with_value(|removed| merge(ours, &Self::saved(), removed));
        if let Ok(json) = serde_json::to_string(&saved) {
            storage::set(SERVERS_KEY, &json);
        }
    }

    pub fn saved() -> Vec<SavedServer> {
        storage::get(SERVERS_KEY).as_deref().map(Self::read).unwrap_or_default()
    }

    /// A saved list's text, read (nothing when it does not read).
    pub fn read(text: &str) -> Vec<SavedServer> {
        storage::read_json(text).unwrap_or_default()
    }

    /// Remembers that this tab removed a server, so a save does not keep it.
    pub fn forget(&self, url: &str, label: &str) {
        self.removed.update_value(|r| r.push((url.to_owned(), label.to_owned())));
    }

    pub fn log(&self, id: &str, level: &str, text: String, at_ms: f64) {
        if let Some(s) = self.entry(id) {
            s.push_log(level, text, at_ms);
        }
    }
}
