//! Two tabs of the page share one device's storage. A change one tab saves reaches the others
//! through the `storage` event: new settings are taken as they are, servers added there appear
//! here (waiting for Connect), servers removed there go here too; and a tab's own save merges
//! with what is stored (`engine::saved::merge`). No tab silently undoes another's work.

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use super::NoticeLevel;
use super::Services;
use super::servers::{SERVERS_KEY, Servers};
use super::settings::{API_KEY_KEY, SETTINGS_KEY};
use super::storage;
use engine::saved::changes;

/// Listens, once, for what the other tabs save.
pub(super) fn listen(svc: Services) {
    let Some(window) = web_sys::window() else { return };
    let on_storage = Closure::<dyn Fn(web_sys::StorageEvent)>::new(move |e: web_sys::StorageEvent| {
        match e.key().as_deref() {
            Some(SERVERS_KEY) => {
                let before = e.old_value().as_deref().map(Servers::read).unwrap_or_default();
                let after = e.new_value().as_deref().map(Servers::read).unwrap_or_default();
                let change = changes(&before, &after);
                for (url, label) in change.removed {
                    let here = svc.servers.list.with_untracked(|l| {
                        l.iter().find(|s| s.url == url && s.label_untracked() == label).map(|s| s.id.clone())
                    });
                    if let Some(id) = here {
                        svc.remove_server(id);
                    }
                }
                for saved in change.added {
                    let known = svc
                        .servers
                        .list
                        .with_untracked(|l| l.iter().any(|s| s.url == saved.url && s.label_untracked() == saved.label));
                    if !known {
                        svc.restore_server(saved, false);
                    }
                }
            }
            Some(SETTINGS_KEY) => {
                let Some((data, out_of_bounds)) = e.new_value().as_deref().and_then(super::settings::read) else {
                    return;
                };
                if let Some(text) = out_of_bounds {
                    svc.chat.notice(NoticeLevel::Warning, text, None);
                }
                // Remembered there: the key comes with it (this tab would otherwise write its own
                // empty one over it).
                if data.remember_key
                    && let Some(key) = storage::get(API_KEY_KEY)
                {
                    svc.settings.api_key.set(key);
                }
                svc.settings.data.set(data);
            }
            _ => {}
        }
    });
    let _ = window.add_event_listener_with_callback("storage", on_storage.as_ref().unchecked_ref());
    on_storage.forget();
}
