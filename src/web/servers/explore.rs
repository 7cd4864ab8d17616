//! Exploring one server by hand: call a tool from a form generated from its schema, read a
//! resource (or fill a template), fill a prompt and put it in the chat, read the log.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{Map, Value};

use crate::engine::mcp::{McpError, RequestOptions};
use crate::protocol::mcp::{CallToolResult, ContentBlock, Prompt};
use crate::web::schema_form::{SchemaForm, arguments};
use crate::web::state::use_services;
use crate::web::widgets::{Code, FailureBox, pretty};

fn content_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .map(|b| {
            if let Some(t) = b.as_text() {
                return t.to_owned();
            }
            if let Some((data, mime)) = b.media() {
                return format!("[{} {mime}, {} bytes of base64]", b.kind(), data.len());
            }
            if let Some(l) = b.resource_link() {
                return format!("[resource link {} <{}>]", l.name, l.uri);
            }
            if let Some(r) = b.resource() {
                return r.text.unwrap_or_else(|| format!("[resource {} ({})]", r.uri, r.mime_type.unwrap_or_default()));
            }
            format!("[{}]", b.kind())
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[component]
fn CallResult(result: Result<CallToolResult, McpError>) -> impl IntoView {
    match result {
        Ok(r) => {
            let text = if r.content.is_empty() {
                r.structured_content.as_ref().map(pretty).unwrap_or_default()
            } else {
                content_text(&r.content)
            };
            view! {
                <div class="call-result" role="status">
                    {r.is_error.then(|| view! { <span class="badge tool">"isError: true"</span> })}
                    <Code text=text label="Tool result"/>
                </div>
            }
            .into_any()
        }
        Err(e) => view! { <FailureBox failure=e.to_failure()/> }.into_any(),
    }
}

#[component]
pub fn ToolsTab(id: String) -> impl IntoView {
    let svc = use_services();
    let list_id = id.clone();
    let tools =
        Memo::new(move |_| svc.servers.list.with(|l| l.iter().find(|s| s.id == list_id).and_then(|s| s.tools.clone())));
    move || match tools.get() {
        None => view! { <p class="empty">"No tools listed (the server did not declare tools)."</p> }.into_any(),
        Some(list) => {
            let excluded = list.excluded.clone();
            let id = id.clone();
            let cost = RwSignal::new(None::<String>);
            let cost_list = list.clone();
            let cost_id = id.clone();
            let measure = move |_| {
                if let Err(why) = svc.settings.ready() {
                    return cost.set(Some(why));
                }
                let (settings, agent, demo) = (
                    svc.settings.claude(),
                    svc.runtime(|r| r.agent.clone()),
                    svc.settings.data.with_untracked(|d| d.demo),
                );
                let label = svc.servers.get(&cost_id).map(|s| s.label).unwrap_or_default();
                let (list, server_id) = (cost_list.clone(), cost_id.clone());
                cost.set(Some("Counting…".into()));
                spawn_local(async move {
                    let view = crate::engine::agent::catalog::ServerTools {
                        server_id: &server_id,
                        label: &label,
                        list: &list,
                    };
                    cost.set(Some(match agent.tool_cost(&settings, view).await {
                        Ok(n) if demo => {
                            format!("≈ {n} input tokens per request (demo estimate, not Claude's tokenizer)")
                        }
                        Ok(n) => format!("{n} input tokens on every request (count_tokens)"),
                        Err(e) => format!("Could not count ({} layer): {e}", e.layer()),
                    }));
                });
            };
            view! {
                <p class="cost">
                    <button type="button" on:click=measure>"Measure token cost"</button>
                    " "{move || cost.get()}
                </p>
                <ul class="items">
                    {list.tools.into_iter().map(|tool| {
                        let server = id.clone();
                        let name = tool.name.clone();
                        let schema = tool.input_schema.clone();
                        let values = RwSignal::new(Map::new());
                        let result = RwSignal::new(None::<Result<CallToolResult, McpError>>);
                        let busy = RwSignal::new(false);
                        let form_error = RwSignal::new(None::<String>);
                        let call_schema = schema.clone();
                        let call = move |ev: leptos::ev::SubmitEvent| {
                            ev.prevent_default();
                            let args = match arguments(&call_schema, &values.get_untracked()) {
                                Ok(a) => a,
                                Err(e) => return form_error.set(Some(e)),
                            };
                            form_error.set(None);
                            let Some(client) = svc.servers.client(&server) else { return };
                            let name = name.clone();
                            busy.set(true);
                            spawn_local(async move {
                                let r = client.call_tool(&name, args, &RequestOptions::default()).await;
                                result.set(Some(r));
                                busy.set(false);
                            });
                        };
                        let prefix = format!("{}-{}", id, tool.name.replace(|c: char| !c.is_ascii_alphanumeric(), "-"));
                        view! {
                            <li>
                                <details>
                                    <summary><code>{tool.name.clone()}</code>
                                        {tool.title.clone().map(|t| view! { <span class="muted">{format!(" — {t}")}</span> })}</summary>
                                    {tool.description.clone().map(|d| view! { <p class="prose">{d}</p> })}
                                    <details class="schema"><summary>"Input schema"</summary><Code text=pretty(&schema) label="Input schema"/></details>
                                    <form class="call-form" on:submit=call aria-label=format!("Call {}", tool.name)>
                                        <SchemaForm schema=schema.clone() values=values id_prefix=prefix/>
                                        <button type="submit" prop:disabled=move || busy.get()>
                                            {move || if busy.get() { "Calling…" } else { "Call tool" }}
                                        </button>
                                        {move || form_error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
                                    </form>
                                    {move || result.get().map(|r| view! { <CallResult result=r/> })}
                                </details>
                            </li>
                        }
                    }).collect_view()}
                </ul>
                {(!excluded.is_empty()).then(|| view! {
                    <div class="excluded">
                        <h4>"Left out"</h4>
                        <ul>{excluded.into_iter().map(|(n, why)| view! { <li><code>{n}</code>": "{why}</li> }).collect_view()}</ul>
                    </div>
                })}
            }
            .into_any()
        }
    }
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

#[component]
pub fn ResourcesTab(id: String) -> impl IntoView {
    let svc = use_services();
    let list_id = id.clone();
    let server = Memo::new(move |_| {
        svc.servers
            .list
            .with(|l| l.iter().find(|s| s.id == list_id).map(|s| (s.resources.clone(), s.templates.clone())))
    });
    let shown = RwSignal::new(None::<Result<String, McpError>>);
    let read = move |server: String, uri: String| {
        let Some(client) = svc.servers.client(&server) else { return };
        spawn_local(async move {
            let r = client.read_resource(&uri, &RequestOptions::default()).await.map(|r| {
                r.contents
                    .iter()
                    .map(|c| match (&c.text, &c.blob) {
                        (Some(t), _) => format!("{}\n{t}", c.uri),
                        (None, Some(b)) => format!(
                            "{} ({}): {} bytes of base64",
                            c.uri,
                            c.mime_type.clone().unwrap_or_default(),
                            b.len()
                        ),
                        _ => c.uri.clone(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n\n")
            });
            shown.set(Some(r));
        });
    };
    move || {
        let Some((resources, templates)) = server.get() else { return view! { <p/> }.into_any() };
        if resources.is_empty() && templates.is_empty() {
            return view! { <p class="empty">"No resources."</p> }.into_any();
        }
        let id = id.clone();
        view! {
            <ul class="items">
                {resources.into_iter().take(50).map(|r| {
                    let (server, uri) = (id.clone(), r.uri.clone());
                    view! {
                        <li class="resource">
                            <span class="name">{r.name.clone()}</span>
                            <code class="uri">{r.uri.clone()}</code>
                            <button type="button" on:click=move |_| read(server.clone(), uri.clone())
                                aria-label=format!("Read {}", r.uri)>"Read"</button>
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
                    <form class="template" on:submit=move |ev: leptos::ev::SubmitEvent| {
                        ev.prevent_default();
                        read(server.clone(), expand(&template, &values.get_untracked()));
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
            {move || shown.get().map(|r| match r {
                Ok(text) => view! { <Code text=text label="Resource contents"/> }.into_any(),
                Err(e) => view! { <FailureBox failure=e.to_failure()/> }.into_any(),
            })}
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

/// The page's own functions, callable by hand like any tool.
#[component]
pub fn LocalTools() -> impl IntoView {
    let svc = use_services();
    let tools: Vec<(String, String, Value)> = svc.runtime(|r| {
        r.agent
            .local_tools()
            .iter()
            .map(|t| (t.name.to_owned(), t.description.to_owned(), (t.input_schema)()))
            .collect()
    });
    view! {
        <ul class="items">
            {tools.into_iter().map(|(name, description, schema)| {
                let values = RwSignal::new(Map::new());
                let output = RwSignal::new(None::<Result<String, String>>);
                let run_schema = schema.clone();
                let run_name = name.clone();
                let run = move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    let r = arguments(&run_schema, &values.get_untracked()).and_then(|args| {
                        svc.runtime(|rt| {
                            let tool = rt.agent.local_tools().iter().find(|t| t.name == run_name).expect("listed");
                            (tool.run)(&args, svc.now_ms())
                        })
                    });
                    output.set(Some(r));
                };
                view! {
                    <li>
                        <details>
                            <summary><code>{name.clone()}</code></summary>
                            <p class="prose">{description}</p>
                            <form class="call-form" on:submit=run aria-label=format!("Call {name}")>
                                <SchemaForm schema=schema values=values id_prefix=format!("local-{name}")/>
                                <button type="submit">"Call function"</button>
                            </form>
                            {move || output.get().map(|r| match r {
                                Ok(text) => view! { <Code text=text label="Function result"/> }.into_any(),
                                Err(e) => view! { <p class="form-error" role="alert">{e}</p> }.into_any(),
                            })}
                        </details>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}
