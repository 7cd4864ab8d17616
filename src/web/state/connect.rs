//! Connecting servers: `initialize`, then listing the three primitives, then the GET stream;
//! notifications and server requests (sampling, elicitation) routed to where they belong.

use futures::FutureExt;
use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::cell::Cell;
use std::rc::Rc;

use super::Services;
use super::dialogs::{Answer, DialogKind};
use super::servers::{Conn, ServerView, Status};
use crate::engine::agent::catalog::{slug, unique_label};
use crate::engine::cancel::CancelToken;
use crate::engine::demo::DEMO_SERVER_URL;
use crate::engine::layer::Layer;
use crate::engine::mcp::{
    ElicitationHandler, Handlers, ListKind, ListenEnd, McpClient, McpError, RequestOptions, SamplingHandler,
    ServerConfig, ServerNotification, local_network_hint,
};
use crate::protocol::jsonrpc::{ErrorCode, ErrorObject};
use crate::protocol::mcp::{CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult};

struct Ask(Services);

impl SamplingHandler for Ask {
    fn create_message(
        &self,
        server: &str,
        params: CreateMessageParams,
    ) -> LocalBoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
        let svc = self.0;
        let server = svc.servers.get(server).map(|s| s.label).unwrap_or_else(|| server.to_owned());
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
        let server = svc.servers.get(server).map(|s| s.label).unwrap_or_else(|| server.to_owned());
        async move {
            match svc.dialogs.ask(DialogKind::Elicitation { server, params }).await {
                Some(Answer::Elicit(r)) => Ok(r),
                _ => Ok(ElicitResult { action: ElicitAction::Cancel, content: None }),
            }
        }
        .boxed_local()
    }
}

fn on_notification(svc: Services, server: &str, note: ServerNotification) {
    let now = svc.now_ms();
    match note {
        ServerNotification::Log(l) => {
            let text = match &l.data {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let text = match &l.logger {
                Some(logger) => format!("[{logger}] {text}"),
                None => text,
            };
            svc.servers.log(server, &l.level, text, now);
        }
        ServerNotification::ListChanged(kind) => {
            svc.servers.log(server, "info", format!("{kind:?} list changed: fetching it again"), now);
            if kind == ListKind::Tools {
                svc.servers.mark_stale(server);
            }
            svc.refresh(server.to_owned());
        }
        ServerNotification::ResourceUpdated { uri } => svc.resource_updated(server, uri),
        ServerNotification::Cancelled(c) => {
            svc.servers.log(server, "info", format!("server cancelled its request {}", c.request_id), now)
        }
        ServerNotification::Progress(_) => {}
        ServerNotification::Other { method, .. } => {
            svc.servers.log(server, "debug", format!("notification {method}"), now)
        }
    }
}

impl Services {
    /// Adds a server and connects to it. Header values are kept in memory only.
    pub fn add_server(&self, url: String, label: String, headers: Vec<(String, String)>) {
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
        self.servers.list.update(|l| {
            l.push(ServerView::new(
                id.clone(),
                url.trim().to_owned(),
                label,
                headers.iter().map(|(n, _)| n.clone()).collect(),
            ))
        });
        self.servers.save();
        self.connect(id, headers);
    }

    /// Adds the MCP server that runs in the page, unless it is in the list already.
    pub fn add_demo_server(&self) {
        if !self.servers.list.with_untracked(|l| l.iter().any(|s| s.url == DEMO_SERVER_URL)) {
            self.add_server(DEMO_SERVER_URL.into(), "demo".into(), Vec::new());
        }
    }

    /// Restores the saved servers and connects those that need no headers.
    pub(super) fn restore_servers(&self) {
        for saved in super::servers::Servers::saved() {
            let id = self.servers.next_id();
            self.servers
                .list
                .update(|l| l.push(ServerView::new(id.clone(), saved.url.clone(), saved.label.clone(), Vec::new())));
            if saved.had_headers {
                let now = self.now_ms();
                self.servers.log(
                    &id,
                    "warning",
                    "Its headers were not saved (they may hold secrets): add the server again with them.".into(),
                    now,
                );
            } else {
                self.connect(id, Vec::new());
            }
        }
    }

    pub fn connect(&self, id: String, headers: Vec<(String, String)>) {
        let svc = *self;
        let Some(view) = self.servers.get(&id) else { return };
        self.servers.conns.update_value(|c| c.retain(|c| c.id != id));
        let handlers = Handlers {
            notify: Some(Rc::new(move |server: &str, note| on_notification(svc, server, note))),
            sampling: Some(Rc::new(Ask(svc))),
            elicitation: Some(Rc::new(Ask(svc))),
        };
        let url = view.url.clone();
        let mut config = ServerConfig::new(id.clone(), view.url.clone());
        config.headers = headers;
        let (platform, tracer) = self.runtime(|r| (r.platform.clone(), r.tracer.clone()));
        let client = Rc::new(McpClient::new(platform, config, tracer, handlers));
        let listen = CancelToken::new();
        self.servers.conns.update_value(|c| {
            c.push(Conn {
                id: id.clone(),
                client: client.clone(),
                stale: Rc::new(Cell::new(false)),
                listen: listen.clone(),
            })
        });
        self.servers.update(&id, |s| s.status = Status::Connecting);
        spawn_local(async move {
            match client.connect().await {
                Err(e) => {
                    let mut failure = e.to_failure();
                    // From a public site (GitHub Pages), a server on this machine needs the user's
                    // Local Network Access permission first; a refusal looks like CORS.
                    if failure.layer == Layer::Network {
                        let page = location().href().unwrap_or_default();
                        if let Some(first) = local_network_hint(&page, &url) {
                            failure.hint = Some(failure.hint.map_or(first.clone(), |h| format!("{first} {h}")));
                        }
                    }
                    svc.servers.update(&id, |s| s.status = Status::Failed(failure))
                }
                Ok(info) => {
                    let taken = svc.servers.labels_except(&id);
                    svc.servers.update(&id, |s| {
                        if s.label.is_empty() {
                            let name = info.server_info.name.rsplit('/').next().unwrap_or(&info.server_info.name);
                            s.label = unique_label(name, taken.iter().map(String::as_str));
                        }
                        s.info = Some(info);
                        s.status = Status::Connected;
                    });
                    svc.servers.save();
                    svc.load_lists(&id, &client).await;
                    svc.servers.update(&id, |s| s.stream = Some("open".into()));
                    let end = client.listen(&listen).await;
                    let text = match end {
                        ListenEnd::NotOffered { status } => format!("none (GET answered {status})"),
                        ListenEnd::Cancelled => "closed".into(),
                        ListenEnd::Failed(e) => format!("failed: {e}"),
                    };
                    svc.servers.update(&id, |s| s.stream = Some(text));
                }
            }
        });
    }

    /// Lists tools, resources, templates and prompts, as far as the server declared them.
    async fn load_lists(&self, id: &str, client: &McpClient<crate::web::PagePlatform>) {
        let opts = RequestOptions::default();
        let caps = client.server_info().map(|i| i.capabilities).unwrap_or_default();
        let now = self.now_ms();
        let note = |what: &str, e: McpError| {
            self.servers.log(id, "error", format!("{what} failed ({} layer): {e}", e.layer()), now)
        };
        if caps.tools.is_some() {
            match client.list_tools(&opts).await {
                Ok(t) => self.servers.update(id, |s| s.tools = Some(t)),
                Err(e) => note("tools/list", e),
            }
        }
        if caps.resources.is_some() {
            match client.list_resources(&opts).await {
                Ok(r) => self.servers.update(id, |s| s.resources = r),
                Err(e) => note("resources/list", e),
            }
            match client.list_resource_templates(&opts).await {
                Ok(t) => self.servers.update(id, |s| s.templates = t),
                Err(e) => note("resources/templates/list", e),
            }
        }
        if caps.prompts.is_some() {
            match client.list_prompts(&opts).await {
                Ok(p) => self.servers.update(id, |s| s.prompts = p),
                Err(e) => note("prompts/list", e),
            }
        }
    }

    pub fn refresh(&self, id: String) {
        let svc = *self;
        if let Some(client) = self.servers.client(&id) {
            spawn_local(async move { svc.load_lists(&id, &client).await });
        }
    }

    pub fn disconnect(&self, id: String) {
        let svc = *self;
        let client = self.servers.client(&id);
        self.servers.conns.with_value(|c| c.iter().filter(|c| c.id == id).for_each(|c| c.listen.cancel()));
        // The client unsubscribes (C-33) before it ends the session.
        self.servers.update(&id, |s| {
            s.status = Status::Disconnected;
            s.stream = None;
            s.subscribed.clear();
        });
        if let Some(client) = client {
            spawn_local(async move {
                if let Err(e) = client.disconnect().await {
                    let now = svc.now_ms();
                    svc.servers.log(&id, "warning", format!("DELETE of the session failed: {e}"), now);
                }
            });
        }
    }

    pub fn remove_server(&self, id: String) {
        self.disconnect(id.clone());
        self.servers.conns.update_value(|c| c.retain(|c| c.id != id));
        self.servers.list.update(|l| l.retain(|s| s.id != id));
        self.servers.save();
    }
}
