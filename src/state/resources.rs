//! Reading a server's resources by hand, and subscribing to them (C-33): the last resource read
//! is kept per server, so an `updated` notification about it re-reads it where the user sees it.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::Services;
use engine::layer::Failure;
use engine::mcp::RequestOptions;
use protocol::mcp::ReadResourceResult;

/// The resource a server's tab shows: what was read, and how many updates re-read it.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub uri: String,
    pub result: Result<String, Failure>,
    pub updates: u32,
}

fn contents_text(r: &ReadResourceResult) -> String {
    engine::text::content_text(&serde_json::to_value(&r.contents).unwrap_or_default())
}

impl Services {
    /// Reads `uri` and shows it in the server's Resources tab; `update` counts a re-read after
    /// `notifications/resources/updated`.
    pub fn read_resource(&self, server: String, uri: String, update: bool) {
        let (Some(client), Some(entry)) = (self.servers.client(&server), self.servers.entry(&server)) else { return };
        spawn_local(async move {
            let result = client.read_resource(&uri, &RequestOptions::default()).await;
            let result = result.as_ref().map(contents_text).map_err(|e| e.to_failure());
            entry.update(|d| {
                let updates = match &d.reading {
                    Some(r) if update && r.uri == uri => r.updates + 1,
                    _ => 0,
                };
                d.reading = Some(Reading { uri, result, updates });
            });
        });
    }

    /// Subscribes to `uri`, or unsubscribes if subscribed; a refusal goes to the server's log.
    pub fn toggle_subscription(&self, server: String, uri: String) {
        let (Some(client), Some(entry)) = (self.servers.client(&server), self.servers.entry(&server)) else { return };
        let svc = *self;
        let subscribed = entry.data.with_untracked(|d| d.subscribed.contains(&uri));
        spawn_local(async move {
            let result = if subscribed { client.unsubscribe(&uri).await } else { client.subscribe(&uri).await };
            match result {
                Ok(()) => entry.update(|d| d.subscribed = client.subscriptions()),
                Err(e) => entry.push_log("error", format!("resources/subscribe {uri}: {e}"), svc.now_ms()),
            }
        });
    }

    /// A resource changed on the server: say so, and re-read it if it is the one on screen.
    pub(super) fn resource_updated(&self, server: &str, uri: String) {
        let now = self.now_ms();
        let on_screen = self
            .servers
            .entry(server)
            .is_some_and(|s| s.data.with_untracked(|d| d.reading.as_ref().is_some_and(|r| r.uri == uri)));
        let what = if on_screen { "re-reading it" } else { "not on screen" };
        self.servers.log(server, "info", format!("resource updated: {uri} ({what})"), now);
        if on_screen {
            self.read_resource(server.to_owned(), uri, true);
        }
    }
}
