//! "Ask both ways": the same question in the page's loop (every call routed by this page), then
//! through the API's MCP connector (the API calls the servers), and the two turns' figures side
//! by side (`engine::timeline::Figures`). Both turns stay on the timeline, one above the other;
//! the conversation goes on from the first.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::Services;
use super::chat::NoticeLevel;
use super::conversation::{Conversation, Way};
use engine::claude::connector::{self, ConnectorServer, Reachability, Refused};
use engine::timeline::{CompareRow, Figures, side_by_side};

/// The two ways compared, for the comparison's panel.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub question: String,
    pub rows: Vec<CompareRow>,
    /// The servers the connector called (their cards' names).
    pub via_api: Vec<String>,
    /// The servers it could not, with why, in words.
    pub refused: Vec<(String, String)>,
}

impl Conversation {
    /// Asks `text` both ways, if the connector can reach any connected server; else says why not.
    pub fn ask_both_ways(&self, svc: Services, text: String) {
        let Some(text) = self.question(svc, &text) else { return };
        let (via, refused) = svc.connector_servers();
        if via.is_empty() {
            svc.chat.notice(NoticeLevel::Error, connector::none_reachable(&refused), None);
            return;
        }
        let before = self.history();
        self.comparison.set(None);
        self.last.set_value(Some((text.clone(), before.len())));
        self.draft.set(String::new());
        let this = *self;
        let epoch = self.epoch.get_value();
        let generation = svc.trace.generation();
        let at = move || svc.trace.with_events_untracked(<[_]>::len);
        spawn_local(async move {
            let start = at();
            let finished = this.turn_with(svc, text.clone(), Way::InPage).await;
            // Each way must end as Claude ends it, in this conversation and trace, to compare.
            let same = move || this.current(epoch) && svc.trace.generation() == generation;
            if !finished || !same() {
                return;
            }
            let middle = at();
            svc.chat.notice(
                NoticeLevel::Info,
                connector::announce(&via, &refused, svc.settings.data.with_untracked(|d| d.demo)),
                None,
            );
            let way = Way::Connector { history: before, servers: via.clone() };
            let finished = this.turn_with(svc, text.clone(), way).await;
            if !same() {
                return;
            }
            if !finished {
                svc.chat.notice(NoticeLevel::Warning, connector::UNFINISHED, None);
                return;
            }
            let end = at();
            let compared: Vec<String> = via.iter().map(|s| s.id.clone()).collect();
            let figures = svc.trace.with_events_untracked(|e| {
                let of = |from: usize, to: usize| Figures::of(e.get(from..to).unwrap_or_default(), &compared);
                (of(start, middle), of(middle, end))
            });
            this.comparison.set(Some(Comparison {
                question: text,
                rows: side_by_side(&figures.0, &figures.1),
                via_api: via.iter().map(|s| s.label.clone()).collect(),
                refused: refused.iter().map(|(label, why)| (label.clone(), why.to_string())).collect(),
            }));
        });
    }
}

impl Services {
    /// The connected servers the API's MCP connector can call, and those it cannot, with why.
    pub fn connector_servers(&self) -> (Vec<ConnectorServer>, Vec<Refused>) {
        let servers = self.servers;
        let demo = self.settings.data.with_untracked(|d| d.demo);
        let conns: Vec<_> = servers.conns.with_value(|conns| {
            conns
                .iter()
                .filter(|c| c.client.state().in_turns())
                .map(|c| {
                    let config = c.client.config();
                    let credentials: Vec<String> =
                        config.headers.iter().chain(&config.query).map(|(name, _)| name.clone()).collect();
                    (c.id.clone(), config.url.clone(), credentials)
                })
                .collect()
        });
        let mut via = Vec::new();
        let mut refused = Vec::new();
        for (id, url, credentials) in conns {
            let label = servers.name(&id);
            // Every connected server has an `Auth` (its tokens outlive reconnections): what counts
            // is whether it ever asked for authorization.
            let signs_in = servers.auth(&id).is_some_and(|a| a.status() != engine::auth::AuthStatus::None);
            match connector::reach(Reachability { url: &url, signs_in, credentials: &credentials, demo }) {
                Ok(()) => via.push(ConnectorServer::new(&id, &label, &url)),
                Err(why) => refused.push((label, why)),
            }
        }
        (via, refused)
    }
}
