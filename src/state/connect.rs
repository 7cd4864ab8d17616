//! Connecting servers: the card, the client made with its handlers (sampling and elicitation
//! routed to the dialogs), the saved list. What runs on the connection once it is open
//! (`initialize`, the lists, the GET stream, notifications) is in `connection.rs`, from the
//! agent chunk.

use futures::FutureExt;
use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::cell::Cell;
use std::rc::Rc;

use super::Services;
use super::dialogs::{Answer, DialogKind};
use super::servers::Conn;
use engine::agent::catalog::{slug, unique_label};
use engine::cancel::CancelToken;
use engine::demo::DEMO_SERVER_URL;
use engine::layer::Failure;
use engine::layer::Layer;
use engine::mcp::{Connection, ElicitationHandler, Handlers, McpClient, RevisionChoice, SamplingHandler, ServerConfig};
use engine::saved::SavedServer;
use engine::server_address::{self, Credential};
use protocol::jsonrpc::{ErrorCode, ErrorObject};
use protocol::mcp::{CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult};

struct Ask(Services);

impl SamplingHandler for Ask {
    fn create_message(
        &self,
        server: &str,
        params: CreateMessageParams,
    ) -> LocalBoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        let svc = self.0;
        let server = svc.servers.name(server);
        async move {
            match svc.dialogs.ask(DialogKind::Sampling { server, params }).await {
                Some(Answer::Sampling(r)) => r,
                _ => Err(ErrorObject::new(ErrorCode(-1), "The user rejected the sampling request")),
            }
        }
        .boxed_local()
    }
}

impl ElicitationHandler for Ask {
    fn elicit(&self, server: &str, params: ElicitParams) -> LocalBoxFuture<'static, Result<ElicitResult, ErrorObject>> {
        let svc = self.0;
        let server = svc.servers.name(server);
        async move {
            match svc.dialogs.ask(DialogKind::Elicitation { server, params }).await {
                Some(Answer::Elicit(r)) => Ok(r),
                _ => Ok(ElicitResult { action: ElicitAction::Cancel, content: None }),
            }
        }
        .boxed_local()
    }
}

impl Services {
    /// Adds a server and connects to it. Header values are kept in memory only, unless
    /// `remember` (the user's explicit choice, with the same warning as the API key).
    pub fn add_server(&self, url: String, label: String, headers: Vec<(String, String)>, remember: bool) {
        let id = self.servers.next_id();
        // A label the user typed stays as typed unless another server has its prefix (the form
        // says so first; the demo server's "demo" may meet a user's own).
        let taken = self.servers.labels_except(&id);
        let label = label.trim();
        let label = if label.is_empty() || !taken.iter().any(|t| slug(t) == slug(label)) {
            label.to_owned()
        } else {
            unique_label(label, taken.iter().map(String::as_str))
        };
        let names = headers.iter().map(|(n, _)| n.clone()).collect();
        let entry = self.servers.push(id.clone(), url.trim().to_owned(), label, names);
        entry.update(|d| d.remember_headers = remember && !headers.is_empty());
        self.connect(id, headers);
    }

    /// Adds the MCP server that runs in the page, unless it is in the list already.
    pub fn add_demo_server(&self) {
        if !self.servers.list.with_untracked(|l| l.iter().any(|s| s.url == DEMO_SERVER_URL)) {
            self.add_server(DEMO_SERVER_URL.into(), "demo".into(), Vec::new(), false);
        }
    }

    /// Restores the saved servers. Those saved with headers that were not remembered wait for
    /// the user to enter them again; the others connect.
    pub(super) fn restore_servers(&self) {
        for saved in super::servers::Servers::saved() {
            self.restore_server(saved, true);
        }
    }

    /// Puts a saved server on the page: connected, unless `connect` is false (a server another
    /// tab added waits for this tab's Connect) or its headers were not kept (the card asks).
    pub(super) fn restore_server(&self, mut saved: SavedServer, connect: bool) {
        let id = self.servers.next_id();
        let mut names = saved.header_names.clone();
        if names.is_empty() && saved.had_headers {
            names.push("Authorization".into());
        }
        // Saved by an earlier version with a secret in the address: it moves out now, and the
        // next save writes the address without it.
        let remembered = !saved.headers.is_empty();
        let mut moved = Vec::new();
        // Storage is this origin's: another page on it (or another tab) may have written the
        // list. An address the URL policy refuses is left out, and said so.
        // The address the page keeps is the one the policy read (as the browser reads it).
        match server_address::prepare(&saved.url) {
            Ok(address) => {
                saved.url = address.url;
                moved = address.moved.iter().map(Credential::to_pair).collect();
                names.extend(address.moved.iter().map(Credential::line_name));
            }
            Err(_) if saved.url == DEMO_SERVER_URL => {}
            Err(why) => {
                let text = format!("A saved server ({}) was left out. {why}", saved.url);
                self.chat.notice(super::NoticeLevel::Error, text, None);
                return;
            }
        }
        let entry = self.servers.push(id.clone(), saved.url.clone(), saved.label.clone(), names.clone());
        entry.update(|d| {
            d.revision = engine::saved::choice_of(saved.revision.as_deref());
            d.client = saved.client.clone();
        });
        if let Some(memory) = saved.auth {
            self.restore_auth(&entry, memory);
        }
        if remembered {
            entry.update(|d| d.remember_headers = true);
        }
        if !connect {
            entry.push_log(
                "info",
                "Added in another tab of this page: press Connect to use it here.".into(),
                self.now_ms(),
            );
        } else if remembered || !moved.is_empty() {
            self.connect(id, saved.headers.into_iter().chain(moved).collect());
        } else if !names.is_empty() {
            entry.update(|d| d.headers_missing = true);
        } else {
            self.connect(id, Vec::new());
        }
    }

    /// (Re)connects a server with these header values; the connection's state comes from the
    /// engine client, through its callback.
    pub fn connect(&self, id: String, headers: Vec<(String, String)>) {
        let svc = *self;
        let Some(entry) = self.servers.entry(&id) else { return };
        self.servers.conns.update_value(|c| c.retain(|c| c.id != id));
        let state_entry = entry.clone();
        let handlers = Handlers {
            // A notification arrives only on a connection the agent chunk opened: the chunk is here.
            notify: Some(Rc::new(move |server: &str, note| {
                let server = server.to_owned();
                spawn_local(async move {
                    let _ = crate::chunks::server_notified(svc, server, note).await;
                })
            })),
            on_state: Some(Rc::new(move |_: &str, state: &Connection| state_entry.state.set(state.clone()))),
            sampling: Some(Rc::new(Ask(svc))),
            elicitation: Some(Rc::new(Ask(svc))),
            // The chat shows MCP Apps (`app_frame.rs`).
            apps: true,
        };
        let url = entry.url.clone();
        if !headers.is_empty() {
            entry.update(|d| {
                d.header_names = headers.iter().map(|(n, _)| n.clone()).collect();
                d.headers_missing = false;
            });
        }
        let mut config = ServerConfig::new(id.clone(), url.clone());
        let credentials: Vec<Credential> = headers.iter().map(|(n, v)| Credential::from_pair(n, v)).collect();
        (config.headers, config.query) = server_address::split(&credentials);
        config.limits = self.settings.data.with_untracked(|d| d.limits);
        config.revision = entry.data.with_untracked(|d| d.revision);
        let (platform, tracer, faults) = self.runtime(|r| (r.platform.clone(), r.tracer.clone(), r.faults.clone()));
        let auth = self.auth_for(&entry);
        let client = Rc::new(McpClient::new(platform, config, tracer, handlers).with_auth(auth).with_faults(faults));
        let listen = CancelToken::new();
        self.servers.conns.update_value(|c| {
            c.push(Conn {
                id: id.clone(),
                client: client.clone(),
                stale: Rc::new(Cell::new(false)),
                listen: listen.clone(),
                headers,
            })
        });
        self.servers.save();
        // Connecting from now on, even while the agent chunk that connects is still arriving.
        entry.state.set(Connection::Connecting);
        spawn_local(async move {
            match crate::chunks::open_connection(svc, id, client, listen, url).await {
                Ok(run) => run.await,
                Err(_) => entry.state.set(Connection::Failed(Failure {
                    layer: Layer::Network,
                    message: "the code that connects servers did not arrive".into(),
                    hint: Some(format!("{} Then press Reconnect.", crate::chunks::missing_why())),
                })),
            }
        });
    }

    pub fn disconnect(&self, id: String) {
        let svc = *self;
        let client = self.servers.client(&id);
        self.servers.conns.with_value(|c| c.iter().filter(|c| c.id == id).for_each(|c| c.listen.cancel()));
        if let Some(entry) = self.servers.entry(&id) {
            entry.update(|d| {
                d.stream = None;
                d.subscribed.clear();
            });
        }
        // The client unsubscribes (C-33) before it ends the session, then says it is disconnected.
        if let Some(client) = client {
            spawn_local(async move {
                if let Ok(close) = crate::chunks::close_connection(svc, id, client).await {
                    close.await;
                }
            });
        }
    }

    /// Pins the server's protocol revision (or lets the client find it out again) and
    /// reconnects with it, so the same server can be compared under two revisions.
    pub fn pin_revision(&self, id: String, choice: RevisionChoice) {
        if let Some(entry) = self.servers.entry(&id) {
            entry.update(|d| d.revision = choice);
            self.servers.save();
            self.disconnect(id.clone());
            self.reconnect(id);
        }
    }

    /// Connects again with the headers this page load has for the server.
    pub fn reconnect(&self, id: String) {
        let headers = self.servers.conns.with_value(|c| c.iter().find(|c| c.id == id).map(|c| c.headers.clone()));
        self.connect(id, headers.unwrap_or_default());
    }

    pub fn remove_server(&self, id: String) {
        if let Some(entry) = self.servers.entry(&id) {
            self.servers.forget(&entry.url, &entry.label_untracked());
        }
        self.disconnect(id.clone());
        self.servers.conns.update_value(|c| c.retain(|c| c.id != id));
        self.servers.auths.update_value(|a| a.retain(|(i, _)| *i != id));
        self.faults().clear(&engine::faults::Target::Server(id.clone()));
        self.servers.list.update(|l| l.retain(|s| s.id != id));
        self.servers.save();
    }
}
