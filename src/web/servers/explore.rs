//! Exploring one server by hand: read a resource (or fill a template), fill a prompt and put it
//! in the chat, read the log. Tools are in `tools.rs`.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{Map, Value};

use crate::engine::mcp::RequestOptions;
use crate::protocol::mcp::{ContentBlock, Prompt};
use crate::web::state::use_services;
use crate::web::widgets::{Code, FailureBox};

pub(super) fn content_text(blocks: &[ContentBlock]) -> String {
    crate::engine::text::blocks_text(blocks.iter().map(|b| &b.0))
}

/// RFC 6570 level-1 expansion: `{name}` → the percent-encoded value.
fn expand(template: &str, values: &Map<String, Value>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('}') else { break };
        let name = rest[start + 1..start + len].trim_start_matches(['+', '#']);
        let value = values.get(name).and_then(Value::as_str).unwrap_or("");
        out.push_str(&js_sys::encode_uri_component(value).as_string().unwrap_or_default());
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

fn template_vars(template: &str) -> Vec<String> {
    template
        .split('{')
        .skip(1)
        .filter_map(|p| p.split('}').next())
        .map(|v| v.trim_start_matches(['+', '#']).to_owned())
        .collect()
}

/// How many resources the tab lists (server-everything has a hundred).
const SHOWN_RESOURCES: usize = 50;

#[component]
pub fn ResourcesTab(id: String) -> impl IntoView {
    let svc = use_services();
    let list_id = id.clone();
    let server = Memo::new(move |_| {
        svc.servers.list.with(|l| {
            l.iter().find(|s| s.id == list_id).map(|s| {
                let can_subscribe = s
                    .info
                    .as_ref()
                    .and_then(|i| i.capabilities.resources.as_ref())
                    .is_some_and(|r| r.subscribe == Some(true));
                (s.resources.clone(), s.templates.clone(), can_subscribe)
            })
        })
    });
    let reading_id = id.clone();
    let reading = Memo::new(move |_| {
        svc.servers.list.with(|l| l.iter().find(|s| s.id == reading_id).and_then(|s| s.reading.clone()))
    });
    let subscribed_id = id.clone();
    let subscribed = move |uri: &str| {
        svc.servers.list.with(|l| l.iter().any(|s| s.id == subscribed_id && s.subscribed.iter().any(|u| u == uri)))
    };
    let shown = move || {
        reading.get().map(|r| {
            let updates = (r.updates > 0).then(|| {
                view! { <p class="muted" role="status">{format!("Re-read after {} update notification(s) from the server.", r.updates)}</p> }
            });
            let body = match r.result {
                Ok(text) => view! { <Code text=text label="Resource contents"/> }.into_any(),
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
        let subscribed = subscribed.clone();
        view! {
            {(more > 0).then(|| view! {
                <p class="muted">{format!("The first {SHOWN_RESOURCES} of {} resources (all were listed; the timeline has every page).", resources.len())}</p>
            })}
            <ul class="items">
                {resources.into_iter().take(SHOWN_RESOURCES).map(|r| {
                    let (server, uri) = (id.clone(), r.uri.clone());
                    let (sub_server, sub_uri) = (id.clone(), r.uri.clone());
                    let is_subscribed = {
                        let (subscribed, uri) = (subscribed.clone(), r.uri.clone());
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
                let vars = template_vars(&t.uri_template);
                let server = id.clone();
                let template = t.uri_template.clone();
                view! {
                    <form class="template" aria-label=format!("Fill template {}", t.uri_template) on:submit=move |ev: leptos::ev::SubmitEvent| {
                        ev.prevent_default();
                        svc.read_resource(server.clone(), expand(&template, &values.get_untracked()), false);
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
pub fn PromptsTab(id: String) -> impl IntoView {
    let svc = use_services();
    let list_id = id.clone();
    let prompts = Memo::new(move |_| {
        svc.servers.list.with(|l| l.iter().find(|s| s.id == list_id).map(|s| s.prompts.clone()).unwrap_or_default())
    });
    move || {
        let list = prompts.get();
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
                        spawn_local(async move {
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
pub fn LogTab(id: String) -> impl IntoView {
    let svc = use_services();
    let lines = Memo::new(move |_| {
        svc.servers.list.with(|l| l.iter().find(|s| s.id == id).map(|s| s.log.clone()).unwrap_or_default())
    });
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
