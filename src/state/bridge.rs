//! A bridge on the user's machine (`loopscope bridge`, docs/bridge.md): the offer its link makes,
//! taken from the page's address at once (the token must not stay in the address bar or the
//! history), and the connection the user agrees to, with the bridge's log read into the card's.
//! Reading the offer and connecting are the explore chunk's code (`servers/bridge.rs` calls
//! them); the first screen only notes the fragment.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::Services;
use engine::bridge::{BridgeLink, LogEntry, LogKind, ask, is_fault};
use engine::platform::Platform;

/// How often a bridged server's log is read, and how many failed reads in a row end it.
const LOG_EVERY_MS: u64 = 2_000;
const LOG_GIVE_UP: u32 = 3;

impl Services {
    /// Notes a bridge the page's address offers, now and whenever the fragment changes (a link
    /// pasted into this tab's address bar does not reload the page).
    pub(super) fn note_bridge_from_address(&self) {
        self.note_bridge();
        let svc = *self;
        // For the page's whole life: never removed.
        let _ = window_event_listener(leptos::ev::hashchange, move |_| svc.note_bridge());
    }

    /// Takes a bridge's link out of the address, noting its offer.
    fn note_bridge(&self) {
        let hash = location().hash().unwrap_or_default();
        if !hash.contains("bridge=") {
            return;
        }
        self.servers.offer.set(Some(hash));
        let path = format!("{}{}", location().pathname().unwrap_or_default(), location().search().unwrap_or_default());
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path));
        }
    }

    /// Connects the server the bridge serves, its token as the server's Authorization header
    /// (in memory only, masked, never exported), and reads the bridge's log into the card's.
    pub fn connect_bridge(&self, link: BridgeLink, label: String) {
        self.servers.offer.set(None);
        let before: Vec<String> = self.servers.list.with_untracked(|l| l.iter().map(|s| s.id.clone()).collect());
        let (name, value) = link.authorization();
        self.add_server(link.url.clone(), label, vec![(name, value)], false);
        let Some(id) =
            self.servers.list.with_untracked(|l| l.iter().map(|s| s.id.clone()).find(|id| !before.contains(id)))
        else {
            return;
        };
        let svc = *self;
        let platform = self.runtime(|r| r.platform.clone());
        spawn_local(async move {
            let mut after = 0;
            let mut failed = 0;
            loop {
                let Some(entry) = svc.servers.entry(&id) else { return };
                match ask::log(&*platform, &link, after).await {
                    Ok(entries) => {
                        failed = 0;
                        for e in entries {
                            after = after.max(e.n);
                            entry.push_log(level(&e), line(&e), svc.now_ms());
                        }
                    }
                    Err(e) => {
                        failed += 1;
                        if failed == LOG_GIVE_UP {
                            entry.push_log(
                                "warning",
                                format!("The bridge's log is no longer read: {e}."),
                                svc.now_ms(),
                            );
                            return;
                        }
                    }
                }
                platform.sleep(LOG_EVERY_MS).await;
            }
        });
    }
}

fn level(e: &LogEntry) -> &'static str {
    if is_fault(e.kind) { "error" } else { "bridge" }
}

/// A log entry as the card's Log tab shows it: what it is, then the text (a stranger's: its
/// invisible characters shown).
fn line(e: &LogEntry) -> String {
    let what = match e.kind {
        LogKind::Start => "bridge: started",
        LogKind::Stderr => "stderr",
        LogKind::Junk => "bridge: not JSON-RPC on stdout (dropped)",
        LogKind::TooLong => "bridge: line too long on stdout",
        LogKind::Exit => "bridge: the process ended",
        LogKind::Refused => "bridge: refused",
        LogKind::Other => "bridge",
    };
    format!("{what}: {}", engine::text::visible(&e.text))
}
