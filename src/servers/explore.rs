//! Exploring one server by hand: read a resource (or fill a template), fill a prompt and put it
//! in the chat, read the log. Tools are in `tools.rs`.

use leptos::prelude::*;
use serde_json::{Map, Value};

use crate::state::{ServerEntry, use_services};
use crate::task::spawn_owned;
use crate::widgets::{Code, FailureBox};
use engine::mcp::RequestOptions;
use engine::uri_template;
use protocol::mcp::ServerCapability;
use protocol::mcp::{ContentBlock, Prompt};

pub(super) fn content_text(blocks: &[ContentBlock]) -> String {
    engine::text::blocks_text(blocks.iter().map(|b| &b.0))
}

/// How many resources the tab lists (server-everything has a hundred).
const SHOWN_RESOURCES: usize = 50;

#[component]
pub fn ResourcesTab(entry: ServerEntry) -> impl IntoView {
    let svc = use_services();
    let id = entry.id.clone();
    let data = entry.data;
    let server = Memo::new(move |_| {
        data.with(|d| {
            let can_subscribe =
                d.info.as_ref().is_some_and(|i| i.capabilities.has(ServerCapability::ResourceSubscribe));
            Some((d.resources.clone(), d.templates.clone(), can_subscribe))
        })
    });
    let subscribed = move |uri: &str| data.with(|d| d.subscribed.iter().any(|u| u == uri));
    let shown = move || {
        data.with(|d| d.reading.clone()).map(|r| {
            let updates = (r.updates > 0).then(|| {
                view! { <p class="muted" role="status">{format!("Re-read after {} update notification(s) from the server.", r.updates)}</p> }
            });
            let uri = r.uri.clone();
            let body = match r.result {
                Ok(text) => view! {
                    <p class="reading-uri">"Contents of "<code>{uri}</code></p>
                    <Code text=text label="Resource contents"/>
                }
                .into_any(),
                Err(f) => view! { <FailureBox failure=f/> }.into_any(),
            };
            view! { {updates}{body} }
        })
    };
    move || {
        let Some((resources, templates, can_subscribe)) = server.get() else { return view! { <p/> }.into_any() };
        if resources.is_empty() && templates.is_empty() {
            return view! { <p class="empty">"No resources."</p> }.into_any();
        }
        let id = id.clone();
        let more = resources.len().saturating_sub(SHOWN_RESOURCES);
        view! {
            {(more > 0).then(|| view! {
                <p class="muted">{format!("The first {SHOWN_RESOURCES} of {} resources (all were listed; the timeline has every page).", resources.len())}</p>
            })}
            <ul class="items">
                {resources.into_iter().take(SHOWN_RESOURCES).map(|r| {
                    let (server, uri) = (id.clone(), r.uri.clone());
                    let (sub_server, sub_uri) = (id.clone(), r.uri.clone());
                    let is_subscribed = {
                        let uri = r.uri.clone();
                        move || subscribed(&uri)
                    };
                    let label = r.uri.clone();
                    view! {
                        <li class="resource">
                            <span class="name">{r.name.clone()}</span>
                            <code class="uri">{r.uri.clone()}</code>
                            <button type="button" on:click=move |_| svc.read_resource(server.clone(), uri.clone(), false)
                                aria-label=format!("Read {}", r.uri)>"Read"</button>
                            {can_subscribe.then(|| {
                                let pressed = is_subscribed.clone();
                                view! {
                                    <button type="button" aria-pressed=move || pressed().to_string()
                                        aria-label=format!("Subscribe to {label}")
                                        title="Ask the server for notifications/resources/updated about this resource"
                                        on:click=move |_| svc.toggle_subscription(sub_server.clone(), sub_uri.clone())>
                                        {move || if is_subscribed() { "Subscribed" } else { "Subscribe" }}
                                    </button>
                                }
                            })}
                        </li>
                    }
                }).collect_view()}
            </ul>
            {templates.into_iter().map(|t| {
                let values = RwSignal::new(Map::new());
                let vars = uri_template::variables(&t.uri_template);
                let server = id.clone();
                let template = t.uri_template.clone();
                view! {
                    <form class="template" aria-label=format!("Fill template {}", t.uri_template) on:submit=move |ev: leptos::ev::SubmitEvent| {
                        ev.prevent_default();
                        svc.read_resource(server.clone(), uri_template::expand(&template, &values.get_untracked()), false);
                    }>
                        <code>{t.uri_template.clone()}</code>
                        {vars.into_iter().map(|v| {
                            let key = v.clone();
                            view! {
                                <label class="inline-field">{v.clone()}
                                    <input on:input=move |ev| values.update(|m| { m.insert(key.clone(), Value::String(event_target_value(&ev))); })/>
                                </label>
                            }
                        }).collect_view()}
                        <button type="submit">"Read"</button>
                    </form>
                }
            }).collect_view()}
            {shown}
        }
        .into_any()
    }
}

#[component]
pub fn PromptsTab(entry: ServerEntry) -> impl IntoView {
    let svc = use_services();
    let id = entry.id.clone();
    let data = entry.data;
    move || {
        let list = data.with(|d| d.prompts.clone());
        if list.is_empty() {
            return view! { <p class="empty">"No prompts."</p> }.into_any();
        }
        let id = id.clone();
        view! {
            <ul class="items">
                {list.into_iter().map(|p: Prompt| {
                    let values = RwSignal::new(Map::new());
                    let error = RwSignal::new(None::<String>);
                    let server = id.clone();
                    let prompt = p.clone();
                    let submit = move |ev: leptos::ev::SubmitEvent| {
                        ev.prevent_default();
                        let Some(client) = svc.servers.client(&server) else { return };
                        let prompt = prompt.clone();
                        spawn_owned(async move {
                            match client.get_prompt(&prompt, &values.get_untracked(), &RequestOptions::default()).await {
                                Ok(got) => {
                                    let text = got.messages.iter().map(|m| content_text(std::slice::from_ref(&m.content))).collect::<Vec<_>>().join("\n\n");
                                    svc.conversation.draft.set(text);
                                    error.set(None);
                                    focus_composer();
                                }
                                Err(e) => error.set(Some(format!("{} ({} layer)", e, e.layer()))),
                            }
                        });
                    };
                    view! {
                        <li>
                            <details>
                                <summary><code>{p.name.clone()}</code></summary>
                                {p.description.clone().map(|d| view! { <p class="prose">{d}</p> })}
                                <form on:submit=submit aria-label=format!("Fill prompt {}", p.name)>
                                    {p.arguments.iter().map(|a| {
                                        let key = a.name.clone();
                                        let input_id = format!("{}-prompt-{}-{}", id, p.name, a.name);
                                        view! {
                                            <div class="field">
                                                <label for=input_id.clone()>{format!("{}{}", a.name, if a.required { " *" } else { "" })}</label>
                                                <input id=input_id on:input=move |ev| values.update(|m| { m.insert(key.clone(), Value::String(event_target_value(&ev))); })/>
                                                {a.description.clone().map(|d| view! { <span class="hint">{d}</span> })}
                                            </div>
                                        }
                                    }).collect_view()}
                                    <button type="submit">"Insert into chat"</button>
                                    {move || error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
                                </form>
                            </details>
                        </li>
                    }
                }).collect_view()}
            </ul>
        }
        .into_any()
    }
}

fn focus_composer() {
    if let Some(el) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("composer")) {
        use wasm_bindgen::JsCast;
        if let Ok(el) = el.dyn_into::<web_sys::HtmlElement>() {
            let _ = el.focus();
        }
    }
}

#[component]
pub fn LogTab(entry: ServerEntry) -> impl IntoView {
    let lines = entry.log;
    move || {
        let lines = lines.get();
        if lines.is_empty() {
            return view! { <p class="empty">"No log messages. Servers send them with notifications/message."</p> }
                .into_any();
        }
        view! {
            <ol class="log" aria-label="Server log">
                {lines.into_iter().rev().map(|l| view! {
                    <li class=format!("log-{}", l.level)><span class="level">{l.level.clone()}</span>" "{l.text.clone()}</li>
                }).collect_view()}
            </ol>
        }
        .into_any()
    }
}
