//! Each server's OAuth in the page: the engine's `Auth`, made once per server so its tokens
//! outlive reconnections; its status on the card; sign in, sign out, the user's own client;
//! and what is remembered on this device (only when the user opts in, like the API key).

use leptos::prelude::*;
use leptos::task::spawn_local;
use std::cell::RefCell;
use std::rc::Rc;

use super::{ServerEntry, Services};
use crate::PagePlatform;
use crate::sign_in::{self, PopupAgent};
use engine::auth::{Auth, AuthMemory, AuthStatus, ClientSettings, Preregistered};

thread_local! {
    /// This page's Client ID Metadata Document, once checked (an https page whose
    /// `client-metadata.json` names its own URL and this page's callback).
    static METADATA_DOCUMENT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Checks `client-metadata.json` next to the page. Only an https page can be a client id
/// (the authorization server fetches the document), and only if the document names itself.
pub async fn check_metadata_document(platform: &Rc<PagePlatform>) {
    let href = location().href().unwrap_or_default();
    if !href.starts_with("https://") {
        return;
    }
    let url = sign_in::redirect_uri().replace("auth-callback.html", "client-metadata.json");
    let request = engine::platform::HttpRequest::get(url.clone());
    let Ok(response) = engine::platform::Platform::send(platform, request).await else { return };
    let max = engine::limits::Limits::default().body_bytes;
    let Ok(text) = engine::limits::read_text(response.body, max).await else { return };
    let Ok(doc) = serde_json::from_str::<serde_json::Value>(&text) else { return };
    let names_itself = doc.get("client_id").and_then(|v| v.as_str()) == Some(url.as_str());
    let redirect = sign_in::redirect_uri();
    let redirects_here = doc
        .get("redirect_uris")
        .and_then(|v| v.as_array())
        .is_some_and(|l| l.iter().any(|u| u.as_str() == Some(redirect.as_str())));
    if names_itself && redirects_here {
        METADATA_DOCUMENT.with(|m| *m.borrow_mut() = Some(url));
    }
}

impl Services {
    /// The server's `Auth`, made on first use with this page's client identity.
    pub(super) fn auth_for(&self, entry: &ServerEntry) -> Rc<Auth<PagePlatform>> {
        if let Some(auth) = self.servers.auth(&entry.id) {
            return auth;
        }
        let (platform, tracer) = self.runtime(|r| (r.platform.clone(), r.tracer.clone()));
        let settings = ClientSettings {
            client_name: "Loopscope".into(),
            redirect_uri: sign_in::redirect_uri(),
            metadata_document: METADATA_DOCUMENT.with(|m| m.borrow().clone()),
            preregistered: entry.data.with_untracked(|d| d.client.clone()),
            limits: self.settings.data.with_untracked(|d| d.limits),
        };
        let agent = Rc::new(PopupAgent { entry: entry.clone() });
        let svc = *self;
        let status_entry = entry.clone();
        let auth = Auth::new(
            platform,
            tracer,
            entry.id.clone(),
            entry.url.clone(),
            settings,
            agent,
            Rc::new(crate::chunks::SignInFromChunk),
        )
        .on_status(move |status: &AuthStatus| {
            status_entry.update(|d| d.auth = status.clone());
            if status_entry.data.with_untracked(|d| d.remember_auth) {
                svc.servers.save();
            }
        });
        let auth = Rc::new(auth);
        self.servers.auths.update_value(|a| a.push((entry.id.clone(), auth.clone())));
        auth
    }

    /// Restores what was remembered of a server's sign-in (after a reload).
    pub(super) fn restore_auth(&self, entry: &ServerEntry, memory: AuthMemory) {
        entry.update(|d| d.remember_auth = true);
        self.auth_for(entry).restore(memory);
    }

    /// Signs in now (the card's button), then connects with the token.
    pub fn sign_in(&self, id: String) {
        let svc = *self;
        let Some(entry) = self.servers.entry(&id) else { return };
        let auth = self.auth_for(&entry);
        spawn_local(async move {
            if auth.sign_in().await.is_ok() {
                svc.reconnect(id);
            }
        });
    }

    /// Forgets the server's tokens (here and on this device) and disconnects it.
    pub fn sign_out(&self, id: String) {
        if let Some(auth) = self.servers.auth(&id) {
            auth.sign_out();
        }
        self.servers.save();
        self.disconnect(id);
    }

    /// Gives up a sign-in that waits for the user.
    pub fn cancel_sign_in(&self, id: &str) {
        if let Some(entry) = self.servers.entry(id)
            && let AuthStatus::WaitingForUser { page } = entry.data.with_untracked(|d| d.auth.clone())
        {
            sign_in::cancel(&page);
        }
    }

    /// Sets (or clears) the user's own client for the server; its next sign-in uses it.
    pub fn set_client(&self, id: String, client: Option<Preregistered>) {
        let Some(entry) = self.servers.entry(&id) else { return };
        entry.update(|d| d.client = client);
        // The client is part of the `Auth`'s identity: a new one, without the old tokens.
        self.servers.auths.update_value(|a| a.retain(|(i, _)| *i != id));
        entry.update(|d| d.auth = AuthStatus::None);
        self.servers.save();
    }

    /// Keeps (or stops keeping) the server's sign-in on this device.
    pub fn remember_auth(&self, id: &str, on: bool) {
        if let Some(entry) = self.servers.entry(id) {
            entry.update(|d| d.remember_auth = on);
            self.servers.save();
        }
    }
}
