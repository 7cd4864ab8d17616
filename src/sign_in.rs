//! The browser's part of OAuth: the authorization server's sign-in page in a window of its own,
//! and the way back.
//!
//! Nothing opens by itself: when a sign-in is needed the card names the host it leads to (and
//! warns when that is not the authorization server the MCP server named), and the window opens
//! only from the user's click. It opens with `noopener`, so the sign-in page (a stranger's) can
//! never reach this page through `window.opener`. The page it redirects to,
//! `auth-callback.html` (shipped next to `index.html`), hands the URL it was opened with back on
//! a `BroadcastChannel`, which only pages of this origin share; this page takes it only from
//! its own origin, only for the callback address, and only for a `state` it is waiting for.
//! Nothing here reads the URL further: the engine checks `state` and `iss` and takes the code.

use futures::FutureExt;
use futures::channel::oneshot;
use futures::future::LocalBoxFuture;
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

use crate::state::ServerEntry;
use engine::auth::url::query_of;
use engine::auth::{SignInPage, UserAgent};
use engine::encoding::form_decode;

/// What the callback page sends, and where.
const MESSAGE_TYPE: &str = "loopscope-auth";
const CHANNEL: &str = "loopscope-auth";

/// The sign-in window as the card shows it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Popup {
    #[default]
    None,
    /// The sign-in page is ready: the card shows where it leads, and waits for the click.
    Ready,
    /// The user opened it: the card waits for the way back (or Cancel).
    Opened,
}

thread_local! {
    /// Sign-ins waiting for their way back, by `state`.
    static WAITING: RefCell<HashMap<String, oneshot::Sender<String>>> = RefCell::default();
    static LISTENING: Cell<bool> = const { Cell::new(false) };
}

/// Where the sign-in page sends the browser back to: `auth-callback.html` next to this page.
pub fn redirect_uri() -> String {
    let href = location().href().unwrap_or_default();
    let base = href.split(['?', '#']).next().unwrap_or_default();
    let folder = base.rfind('/').and_then(|i| base.get(..=i)).unwrap_or(base);
    format!("{folder}auth-callback.html")
}

fn state_of(url: &str) -> String {
    form_decode(query_of(url)).into_iter().find(|(k, _)| k == "state").map(|(_, v)| v).unwrap_or_default()
}

/// A URL came back: the sign-in waiting for its `state` gets it. Anything else is dropped: an
/// address other than this page's callback, or a state nobody waits for.
fn deliver(url: String) {
    let callback = redirect_uri();
    let ours = url.strip_prefix(&callback).is_some_and(|rest| rest.starts_with('?') || rest.starts_with('#'));
    if !ours {
        return;
    }
    if let Some(reply) = WAITING.with(|w| w.borrow_mut().remove(&state_of(&url))) {
        let _ = reply.send(url);
    }
}

fn url_in(data: &wasm_bindgen::JsValue) -> Option<String> {
    let get = |k: &str| js_sys::Reflect::get(data, &k.into()).ok().and_then(|v| v.as_string());
    (get("type").as_deref() == Some(MESSAGE_TYPE)).then(|| get("url")).flatten()
}

/// Listens, once per page, on the channel the callback page answers on.
fn listen() {
    if LISTENING.with(|l| l.replace(true)) {
        return;
    }
    let own_origin = location().origin().unwrap_or_default();
    if let Ok(channel) = web_sys::BroadcastChannel::new(CHANNEL) {
        let on_broadcast = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
            // A channel is shared by this origin's pages only; the origin is checked anyway.
            if e.origin() == own_origin
                && let Some(url) = url_in(&e.data())
            {
                deliver(url);
            }
        });
        channel.set_onmessage(Some(on_broadcast.as_ref().unchecked_ref()));
        on_broadcast.forget();
        std::mem::forget(channel);
    }
}

/// Opens the sign-in page, from the user's click: `noopener` (no way back into this page), as
/// a popup named after its sign-in, so opening it again shows the same window.
pub fn open(page: &SignInPage, entry: &ServerEntry) {
    let name = format!("loopscope-sign-in-{}", state_of(&page.url.href()));
    let _ = window().open_with_url_and_target_and_features(
        &page.url.href(),
        &name,
        "popup,noopener,noreferrer,width=560,height=720",
    );
    entry.update(|d| d.popup = Popup::Opened);
}

/// Gives up waiting for the sign-in to `page` (the user pressed Cancel).
pub fn cancel(page: &SignInPage) {
    WAITING.with(|w| w.borrow_mut().remove(&state_of(&page.url.href())));
}

/// Stops waiting for a `state` when dropped.
struct Forget(String);

impl Drop for Forget {
    fn drop(&mut self) {
        WAITING.with(|w| w.borrow_mut().remove(&self.0));
    }
}

/// The page's user agent for one server: the sign-in page when the user opens it, watched until
/// the way back comes.
pub struct PopupAgent {
    pub entry: ServerEntry,
}

impl UserAgent for PopupAgent {
    fn sign_in(&self, page: &SignInPage) -> LocalBoxFuture<'static, Result<String, String>> {
        listen();
        let (reply, back) = oneshot::channel();
        let state = state_of(&page.url.href());
        WAITING.with(|w| w.borrow_mut().insert(state.clone(), reply));
        let entry = self.entry.clone();
        entry.update(|d| d.popup = Popup::Ready);
        async move {
            // However the wait ends (answered, cancelled, or the flow dropped), the state is
            // no longer waited for: a late way back with it is dropped.
            let _forget = Forget(state);
            let result = back.await.map_err(|_| "You cancelled the sign-in.".to_owned());
            entry.update(|d| d.popup = Popup::None);
            result
        }
        .boxed_local()
    }
}
