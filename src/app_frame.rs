//! An MCP App under its tool call in the chat (in the explore chunk): the sandbox proxy's frame on
//! its own origin (`engine::apps::Sandbox`), and the messages carried between it and the app's
//! host (`engine::apps::AppHost`), which decides everything about them. A message is taken only
//! from this frame's window and from the sandbox's origin; what the host says to do (resize, a
//! problem, removal) is drawn here.

use std::cell::Cell;
use std::rc::Rc;

use leptos::html::Iframe;
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsValue;

use futures::FutureExt;
use futures::channel::oneshot;

use crate::state::{Services, use_services};
use engine::apps::{AppAsk, AppHost, Effect, HostContext, Questions, Sandbox, TEARDOWN_MS};
use engine::chat::Block;

/// How long an app may take to say it is initialised before it is removed.
const START_MS: u64 = 15_000;
/// The tallest an app is drawn inline, and its height until it says its own.
const MAX_HEIGHT: u32 = 800;
const FIRST_HEIGHT: u32 = 320;

thread_local! {
    /// Numbers each app shown, for its lane's name.
    static SHOWN: Cell<u32> = const { Cell::new(0) };
}

/// The address of `sandbox.html` the site was built with (`LOOPSCOPE_SANDBOX`, docs/apps.md):
/// a `<meta name="loopscope-sandbox">` the build writes into the page.
fn built_with() -> Option<String> {
    let doc = window().document()?;
    doc.query_selector("meta[name=loopscope-sandbox]").ok().flatten()?.get_attribute("content")
}

fn context() -> HostContext {
    let root = window().document().and_then(|d| d.document_element());
    let dark = root.and_then(|r| r.get_attribute("data-theme")).is_some_and(|t| t == "dark");
    let nav = window().navigator();
    let zone = js_sys::Intl::DateTimeFormat::new(&js_sys::Array::new(), &js_sys::Object::new()).resolved_options();
    let zone = js_sys::Reflect::get(&zone, &"timeZone".into()).ok().and_then(|z| z.as_string());
    let width = window().inner_width().ok().and_then(|w| w.as_f64()).unwrap_or(720.0);
    HostContext {
        theme: if dark { "dark" } else { "light" },
        locale: nav.language().unwrap_or_else(|| "en".into()),
        time_zone: zone,
        width: (width as u32).clamp(280, 720),
        max_height: MAX_HEIGHT,
    }
}

/// The app of one call, or the sentence that says why it cannot be shown; told of the call as
/// it moves on (Claude writing it, its input, its result).
#[component]
pub fn AppFrame(block: RwSignal<Block>) -> impl IntoView {
    let svc = use_services();
    let app_of = |b: &Block| match b {
        Block::Tool { call, .. } => call.app.clone(),
        _ => None,
    };
    let Some(call) = block.with_untracked(app_of) else { return ().into_any() };
    let page = window().location().href().unwrap_or_default();
    let sandbox = match Sandbox::choose(&page, built_with().as_deref()) {
        Ok(s) => s,
        Err(why) => {
            return view! { <p class="form-error app-problem">{format!("Its app cannot be shown: {why}.")}</p> }
                .into_any();
        }
    };
    let label = call.server_label.clone();
    let client = svc.servers.conns.with_value(|c| c.iter().find(|c| c.id == call.server_id).map(|c| c.client.clone()));
    let Some(client) = client else {
        return view! {
            <p class="form-error app-problem">{format!("Its app cannot be shown: the MCP server \"{label}\" is no longer connected.")}</p>
        }
        .into_any();
    };
    let tools = svc
        .servers
        .entry(&call.server_id)
        .and_then(|e| e.data.with_untracked(|d| d.tools.as_ref().map(|t| t.tools.clone())))
        .unwrap_or_default();
    let instance = SHOWN.with(|n| {
        n.set(n.get() + 1);
        n.get()
    });
    let lane = call.lane(instance);
    let uri = call.resource_uri.clone();

    let frame = NodeRef::<Iframe>::new();
    let height = RwSignal::new(FIRST_HEIGHT);
    let problem = RwSignal::new(None::<String>);
    // Why the frame is gone: the app stopped for what it did, or closed.
    let stopped = RwSignal::new(None::<Effect>);
    let mode = RwSignal::new("inline");
    // What the app may reach outside its document, once its policy is written.
    let reach = RwSignal::new(None::<String>);
    // What the app asks the user to agree to, one question at a time in the order they came
    // (`engine::apps::Questions`), and where each answer goes; `asking` shows the open one.
    let questions = StoredValue::new_local(Questions::<oneshot::Sender<bool>>::default());
    let asking = RwSignal::new(None::<(AppAsk, usize)>);
    let show_open = move || {
        asking.set(questions.try_with_value(|q| q.open().cloned().map(|open| (open, q.behind()))).flatten());
    };
    let target = sandbox.target_origin().to_owned();
    let post = Rc::new(move |message: serde_json::Value| {
        let Some(win) = frame.get_untracked().and_then(|f| f.content_window()) else { return };
        if let Ok(data) = js_sys::JSON::parse(&message.to_string()) {
            let _ = win.post_message(&data, &target);
        }
    });
    let app = lane.clone();
    let ask = Rc::new(move |what: AppAsk| {
        let (tell, told) = oneshot::channel();
        // Queued behind any question still open, which it never replaces; what is carried out
        // is this copy, the one the user is shown.
        let queued = questions.try_update_value(|q| q.ask(what.clone(), tell).is_ok()).unwrap_or(false);
        show_open();
        let app = app.clone();
        async move {
            if !queued {
                return Err(engine::apps::TOO_MANY.to_owned());
            }
            let agreed = told.await.unwrap_or(false);
            carry_out(svc, &app, what, agreed)
        }
        .boxed_local()
    });
    // The app's calls wait for the user as Claude's would (Settings: ask before every tool call;
    // a lesson's or a replay's servers).
    let ask_each = svc.settings.data.with_untracked(|d| d.ask_before_tools);
    let consent = svc.consent().with_ask_each(ask_each).with_destructive_allowed(svc.servers.destructive_allowed());
    let host = AppHost::new(*call, client, tools, context(), instance, post, ask);
    let host = Rc::new(host.with_consent(consent).with_pause(svc.pausing.pauser()));
    let fed = host.clone();
    leptos::prelude::Effect::new(move |_| {
        let feed = block.with(|b| match b {
            Block::Tool { call, .. } => call.app_feed(),
            _ => None,
        });
        if let Some(feed) = feed {
            fed.feed(feed);
        }
    });
    let apply = move |effects: Vec<Effect>| {
        for effect in effects {
            match effect {
                Effect::Height(h) => height.set(h),
                Effect::Problem(p) => problem.set(Some(p)),
                gone @ (Effect::Stopped(_) | Effect::Closed(_)) => stopped.set(Some(gone)),
                Effect::Context(c) => svc.conversation.keep_app_context(c),
                Effect::Mode(m) => mode.set(m),
                Effect::Reach(r) => reach.set(Some(r)),
            }
        }
    };
    let reply = move |agreed: bool| {
        if let Some((_, tell)) = questions.try_update_value(Questions::answered).flatten() {
            let _ = tell.send(agreed);
        }
        show_open();
    };
    let inline_again = StoredValue::new_local(host.clone());
    let back = move |_| apply(inline_again.with_value(|h| h.back_inline()).into_iter().collect());
    let pending = {
        let lane = lane.clone();
        move || svc.conversation.app_context.with(|all| all.iter().find(|c| c.app == lane).map(|c| c.text.clone()))
    };

    let alive = StoredValue::new_local(());
    let origin = sandbox.origin.clone();
    let from_app = host.clone();
    let listener = window_event_listener(leptos::ev::message, move |ev: web_sys::MessageEvent| {
        let Some(win) = frame.get_untracked().and_then(|f| f.content_window()) else { return };
        let from_frame = ev.source().is_some_and(|s| js_sys::Object::is(&s, &JsValue::from(win)));
        if !from_frame || ev.origin() != origin {
            return;
        }
        // Whatever arrived, as JSON text for the host to read within its limits (a value that
        // is not JSON, such as a cycle, becomes "" and is refused as such). Its size is counted
        // against the app's limits before the text is copied into the page's memory: a stopped
        // or flooding app costs the page nothing more.
        if from_app.stopped() {
            return;
        }
        let json = js_sys::JSON::stringify(&ev.data()).unwrap_or_else(|_| js_sys::JsString::from(""));
        if let Some(effects) = from_app.admit(json.length() as usize) {
            apply(effects);
            return;
        }
        let text = json.as_string().unwrap_or_default();
        let host = from_app.clone();
        // A message in flight when the frame goes (a new conversation) is still answered, and
        // traced, but draws nothing: the frame's own stored value is gone with it.
        spawn_local(async move {
            let effects = host.read_admitted(&text).await;
            if alive.try_with_value(|_| ()).is_some() {
                apply(effects);
            }
        });
    });
    // The page's theme, or the width it gives the app, changed: the app is told.
    let themed = StoredValue::new_local(host.clone());
    let theme = window_event_listener_untyped(crate::theme::CHANGED, move |_| {
        themed.with_value(|h| h.context_changed(Some(context().theme), None));
    });
    let resized = StoredValue::new_local((host.clone(), Cell::new(context().width)));
    let resize = window_event_listener(leptos::ev::resize, move |_| {
        resized.with_value(|(h, last)| {
            let width = context().width;
            if last.replace(width) != width {
                h.context_changed(None, Some(width));
            }
        })
    });
    // Before the chat is cleared, the page ends the app properly (ui/resource-teardown).
    let closer = StoredValue::new_local(host.clone());
    crate::app_end::shown(
        svc.apps,
        instance,
        Rc::new(move |why| {
            let host = closer.try_get_value();
            async move {
                let Some(host) = host else { return };
                let ended = host.teardown(why, TEARDOWN_MS).await;
                if alive.try_with_value(|_| ()).is_some() {
                    apply(ended.into_iter().collect());
                }
            }
            .boxed_local()
        }),
    );
    on_cleanup(move || {
        crate::app_end::gone(instance);
        listener.remove();
        theme.remove();
        resize.remove();
    });
    let watched = host.clone();
    crate::task::spawn_owned(async move { apply(watched.watch_start(START_MS).await.into_iter().collect()) });

    let isolation = sandbox.describe();
    let title = format!("App: {lane}");
    let frame_title = title.clone();
    let src = sandbox.url.clone();
    let flags = sandbox.frame_flags();
    view! {
        <figure class=move || format!("app-frame {}", mode.get()) aria-label=title>
            <figcaption class="muted">
                {format!("App {uri} · {isolation}")}
                {move || reach.get().map(|r| view! { <span class="app-reach">{format!(" · {r}")}</span> })}
                <Show when=move || mode.get() != "inline">
                    <button type="button" class="app-back" on:click=back>"Back to the chat"</button>
                </Show>
            </figcaption>
            {move || asking.get().map(|(what, behind)| view! { <Asking what behind reply/> })}
            {move || match stopped.get() {
                Some(Effect::Stopped(why)) => view! { <p class="form-error app-problem" role="alert">{why}</p> }.into_any(),
                Some(Effect::Closed(why)) => view! { <p class="muted app-problem" role="status">{why}</p> }.into_any(),
                _ => view! {
                    <iframe
                        node_ref=frame
                        src=src.clone()
                        sandbox=flags
                        referrerpolicy="no-referrer"
                        allow=""
                        title=frame_title.clone()
                        style:height=move || {
                            match mode.get() {
                                "fullscreen" => "calc(100vh - 4rem)".to_owned(),
                                "pip" => "240px".to_owned(),
                                _ => format!("{}px", height.get()),
                            }
                        }
                    ></iframe>
                }
                .into_any(),
            }}
            {move || problem.get().map(|p| view! { <p class="app-problem muted" role="status">{p}</p> })}
            {move || pending().map(|text| view! {
                <details class="app-context">
                    <summary>"Claude gets the app's context with your next message (ui/update-model-context)"</summary>
                    <pre>{text}</pre>
                </details>
            })}
        </figure>
    }
    .into_any()
}

/// What the app asks the user, in words, with the two answers.
#[component]
fn Asking(what: AppAsk, behind: usize, reply: impl Fn(bool) + Copy + Send + Sync + 'static) -> impl IntoView {
    let (question, shown, yes, no) = match &what {
        AppAsk::Message(text) => {
            ("The app asks to send this to Claude as your next message:", text.clone(), "Send it", "Don't send")
        }
        AppAsk::Link(url) => (
            "The app asks to open this link in a new tab:",
            format!("{url} ({})", url.authority()),
            "Open it",
            "Don't open",
        ),
        AppAsk::Call { tool, arguments, why } => (
            "The app asks to call a tool of its server:",
            format!("{tool} {}\n{why}", engine::text::pretty(arguments)),
            "Run it",
            "Don't run",
        ),
        AppAsk::Download(files) => (
            "The app asks to save these files to your computer (as plain bytes, opened by nothing):",
            files
                .iter()
                .map(|f| format!("{} ({}, {})", f.name, f.mime, engine::limits::bytes(f.bytes.len() as u64)))
                .collect::<Vec<_>>()
                .join("\n"),
            "Save",
            "Don't save",
        ),
    };
    view! {
        <div class="app-ask" role="group" aria-label="The app asks">
            <p>{question}</p>
            // The app's text, with every character that could disguise it shown as it is.
            <pre>{engine::text::visible_lines(&shown)}</pre>
            <button type="button" on:click=move |_| reply(true)>{yes}</button>
            <button type="button" on:click=move |_| reply(false)>{no}</button>
            {(behind > 0).then(|| view! {
                <p class="muted">{format!("{behind} more question(s) from the app wait after this one, in the order they came.")}</p>
            })}
        </div>
    }
}

/// Does what the user agreed to: sends the app's message as the next turn, opens its link in a
/// new tab with no way back to this page, or saves its files.
fn carry_out(svc: Services, app: &str, what: AppAsk, agreed: bool) -> Result<(), String> {
    match (what, agreed) {
        (AppAsk::Message(_), false) => Err("The user did not send the app's message.".into()),
        (AppAsk::Link(_), false) => Err("The user did not open the link.".into()),
        (AppAsk::Call { .. }, false) => Err("The user did not let the app make this call.".into()),
        (AppAsk::Call { .. }, true) => Ok(()),
        (AppAsk::Download(_), false) => Err("The user did not save the files.".into()),
        (AppAsk::Download(files), true) => {
            for file in files {
                crate::save_file::save_file(&file.name, &file.bytes, "application/octet-stream");
            }
            Ok(())
        }
        (AppAsk::Message(text), true) => svc.conversation.send_from_app(svc, app, text),
        (AppAsk::Link(url), true) => {
            let opened = window().open_with_url_and_target_and_features(&url.href(), "_blank", "noopener,noreferrer");
            // With noopener the browser gives no window back, whether or not it opened one.
            opened.map(|_| ()).map_err(|_| "The browser did not open the link.".into())
        }
    }
}
