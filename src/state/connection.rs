//! A server's connection once it is open, run from the agent chunk (src/chunks/agent.rs):
//! `initialize`, the three primitives listed, the GET stream, the notifications that arrive on
//! it, and the session's end. `connect.rs` keeps what the first screen does without it (the
//! card, the client made and its handlers, the saved list).

use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

use super::Services;
use engine::agent::catalog::unique_label;
use engine::cancel::CancelToken;
use engine::layer::Layer;
use engine::mcp::{
    Connection, ListKind, ListenEnd, McpClient, McpError, RequestOptions, ServerNotification, local_network_hint,
};
use protocol::mcp::ServerCapability;

type Client = Rc<McpClient<crate::PagePlatform>>;

pub fn on_notification(svc: Services, server: &str, note: ServerNotification) {
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
    /// Opens the connection `connect` made the client for: `initialize`, the lists, then the
    /// GET stream until it ends.
    pub(crate) async fn run_connection(self, id: String, client: Client, listen: CancelToken, url: String) {
        let svc = self;
        let Some(entry) = self.servers.entry(&id) else { return };
        let outcome = client.connect().await;
        entry.update(|d| d.cors_blocked = outcome.as_ref().is_err_and(engine::mcp::McpError::maybe_cors));
        match outcome {
            Err(_) => {
                // From a public site (GitHub Pages), a server on this machine needs the user's
                // Local Network Access permission first; a refusal looks like CORS.
                if let Connection::Failed(failure) = client.state()
                    && failure.layer == Layer::Network
                {
                    let page = location().href().unwrap_or_default();
                    if let Some(first) = local_network_hint(&page, &url) {
                        let mut failure = failure.clone();
                        failure.hint = Some(failure.hint.map_or(first.clone(), |h| format!("{first} {h}")));
                        entry.state.set(Connection::Failed(failure));
                    }
                }
            }
            Ok(info) => {
                let taken = svc.servers.labels_except(&id);
                entry.update(|d| {
                    if d.label.is_empty() {
                        let name = info.server_info.name.rsplit('/').next().unwrap_or(&info.server_info.name);
                        d.label = unique_label(name, taken.iter().map(String::as_str));
                    }
                    d.info = Some(info);
                    d.why = client.why();
                });
                svc.servers.save();
                svc.load_lists(&id, &client).await;
                super::saved_tasks::keep(svc, &id, &client);
                entry.update(|d| d.stream = Some("open".into()));
                let end = client.listen(&listen).await;
                let text = match end {
                    ListenEnd::NotOffered { status } => format!("none (GET answered {status})"),
                    ListenEnd::Cancelled => "closed".into(),
                    ListenEnd::Failed(e) => format!("failed: {e}"),
                };
                entry.update(|d| d.stream = Some(text));
            }
        }
    }

    /// Lists tools, resources, templates and prompts, as far as the server declared them.
    pub(crate) async fn load_lists(&self, id: &str, client: &McpClient<crate::PagePlatform>) {
        let Some(entry) = self.servers.entry(id) else { return };
        let opts = RequestOptions::default();
        let caps = client.server_info().map(|i| i.capabilities).unwrap_or_default();
        let now = self.now_ms();
        entry.update(|d| d.list_failures.clear());
        // A list that failed says so on the card (not only in the log): which request, which
        // layer, why.
        let note = |what: &'static str, e: McpError| {
            entry.push_log("error", format!("{what} failed ({} layer): {e}", e.layer()), now);
            let failure = e.to_failure();
            entry.update(|d| d.list_failures.push((what, failure)));
        };
        if caps.has(ServerCapability::Tools) {
            match client.list_tools(&opts).await {
                Ok(t) => entry.update(|d| d.tools = Some(t)),
                Err(e) => note("tools/list", e),
            }
        }
        if caps.has(ServerCapability::Resources) {
            match client.list_resources(&opts).await {
                Ok(r) => entry.update(|d| d.resources = r),
                Err(e) => note("resources/list", e),
            }
            match client.list_resource_templates(&opts).await {
                Ok(t) => entry.update(|d| d.templates = t),
                Err(e) => note("resources/templates/list", e),
            }
        }
        if caps.has(ServerCapability::Prompts) {
            match client.list_prompts(&opts).await {
                Ok(p) => entry.update(|d| d.prompts = p),
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

    /// Ends the session (C-33: unsubscribing first); a DELETE that fails goes to the log.
    pub(crate) async fn close_connection(self, id: String, client: Client) {
        if let Err(e) = client.disconnect().await {
            let now = self.now_ms();
            self.servers.log(&id, "warning", format!("DELETE of the session failed: {e}"), now);
        }
    }
}
