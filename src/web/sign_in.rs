//! The browser's part of OAuth: the authorization server's sign-in page in a popup, and the way
//! back. The page it redirects to, `auth-callback.html` (shipped next to `index.html`), hands
//! the URL it was opened with back to this page, by `postMessage` to its opener (same origin
//! only) and on a `BroadcastChannel` (which still works when the sign-in page's
//! Cross-Origin-Opener-Policy cut the popup off from its opener). Nothing here reads the URL:
//! the engine checks `state` and `iss` and takes the code.

use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use crate::engine::auth::UserAgent;
use crate::engine::auth::url::query_of;
use crate::engine::encoding::form_decode;
use crate::web::state::ServerEntry;

/// What the callback page sends, and where.
const MESSAGE_TYPE: &str = "loopscope-auth";
const CHANNEL: &str = "loopscope-auth";

/// The sign-in window as the card shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Popup {
    #[default]
    None,
    Open,
    /// The browser refused to open it: the user opens it with a click.
    Blocked,
    /// It is gone (closed, or cut off from this page by the sign-in page's COOP): the way back
    /// may still come, on the broadcast channel.
    Closed,
}

struct Waiting {
    reply: oneshot::Sender<String>,
    window: Option<web_sys::Window>,
}

thread_local! {
    /// Sign-ins waiting for their way back, by `state`.
    static WAITING: RefCell<HashMap<String, Waiting>> = RefCell::default();
    static LISTENING: Cell<bool> = const { Cell::new(false) };
}

/// Where the sign-in page sends the browser back to: `auth-callback.html` next to this page.
pub fn redirect_uri() -> String {
    let href = location().href().unwrap_or_default();
    let base = href.split(['?', '#']).next().unwrap_or_default();
    let folder = base.rfind('/').map_or(base, |i| &base[..=i]);
    format!("{folder}auth-callback.html")
}

fn state_of(url: &str) -> String {
    form_decode(query_of(url)).into_iter().find(|(k, _)| k == "state").map(|(_, v)| v).unwrap_or_default()
}

/// A URL came back: the sign-in waiting for its `state` gets it (and its window is closed, in
/// case the callback page could not close itself). Unknown states are dropped.
fn deliver(url: String) {
    let waiting = WAITING.with(|w| w.borrow_mut().remove(&state_of(&url)));
    if let Some(w) = waiting {
        if let Some(window) = &w.window {
            let _ = window.close();
        }
        let _ = w.reply.send(url);
    }
}

fn url_in(data: &wasm_bindgen::JsValue) -> Option<String> {
    let get = |k: &str| js_sys::Reflect::get(data, &k.into()).ok().and_then(|v| v.as_string());
    (get("type").as_deref() == Some(MESSAGE_TYPE)).then(|| get("url")).flatten()
}

/// Listens, once per page, for the callback page on both ways back.
fn listen() {
    if LISTENING.with(|l| l.replace(true)) {
        return;
    }
    let own_origin = location().origin().unwrap_or_default();
    let on_message = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        // Only a page of this origin may answer (the callback page is one).
        if e.origin() == own_origin
            && let Some(url) = url_in(&e.data())
        {
            deliver(url);
        }
    });
    let _ = window().add_event_listener_with_callback("message", on_message.as_ref().unchecked_ref());
    on_message.forget();
    if let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL) {
        let on_broadcast = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            if let Some(url) = url_in(&e.data()) {
                deliver(url);
            }
        });
        channel.set_onmessage(Some(on_broadcast.as_ref().unchecked_ref()));
        on_broadcast.forget();
        std::mem::forget(channel);
    }
}

/// Opens the sign-in page in a popup named after its sign-in: opening it again shows the same
/// window, and a new sign-in never lands in an old one.
fn open_window(url: &str) -> Option<web_sys::Window> {
    let name = format!("loopscope-sign-in-{}", state_of(url));
    window().open_with_url_and_target_and_features(url, &name, "popup,width=560,height=720").ok().flatten()
}

/// Opens the sign-in window again, from a click (which browsers let open a popup).
pub fn reopen(url: &str, entry: &ServerEntry) {
    let opened = open_window(url);
    entry.update(|d| d.popup = if opened.is_some() { Popup::Open } else { Popup::Blocked });
    WAITING.with(|w| {
        if let Some(waiting) = w.borrow_mut().get_mut(&state_of(url)) {
            waiting.window = opened;
        }
    });
}

/// Gives up waiting for the sign-in of `url` (the user pressed Cancel).
pub fn cancel(url: &str) {
    WAITING.with(|w| w.borrow_mut().remove(&state_of(url)));
}

/// The page's user agent for one server: a popup, watched until the way back comes.
pub struct PopupAgent {
    pub entry: ServerEntry,
}

impl UserAgent for PopupAgent {
    fn sign_in(&self, url: &str) -> LocalBoxFuture<'static, Result<String, String>> {
        listen();
        let (reply, back) = oneshot::channel();
        let state = state_of(url);
        let window = open_window(url);
        let entry = self.entry.clone();
        entry.update(|d| d.popup = if window.is_some() { Popup::Open } else { Popup::Blocked });
        WAITING.with(|w| w.borrow_mut().insert(state.clone(), Waiting { reply, window }));
        let platform = crate::web::platform::Browser;
        async move {
            let watch = async {
                // Bounded by the sign-in itself: the loop ends when the way back comes or the user
                // cancels (then `back` resolves and this future is dropped).
                loop {
                    crate::engine::platform::Platform::sleep(&platform, 500).await;
                    let closed = WAITING.with(|w| {
                        w.borrow().get(&state).and_then(|x| x.window.as_ref().map(|win| win.closed().unwrap_or(true)))
                    });
                    if closed == Some(true) && entry.data.with_untracked(|d| d.popup == Popup::Open) {
                        entry.update(|d| d.popup = Popup::Closed);
                    }
                }
            };
            let result = match futures::future::select(back, Box::pin(watch)).await {
                futures::future::Either::Left((r, _)) => r.map_err(|_| "You cancelled the sign-in.".to_owned()),
                futures::future::Either::Right(((), _)) => Err("The sign-in stopped.".to_owned()),
            };
            entry.update(|d| d.popup = Popup::None);
            if let Some(w) = WAITING.with(|w| w.borrow_mut().remove(&state)).and_then(|w| w.window) {
                let _ = w.close();
            }
            result
        }
        .boxed_local()
    }
}
