//! Calling tools by hand: a server's tools (or the page's local functions), each with a form
//! generated from its input schema, progress while it runs, a Cancel, and the result as the
//! server sent it. Also what a server's tool definitions cost in tokens.

use leptos::prelude::*;
use serde_json::Value;

use super::explore::content_text;
use crate::schema_form::SchemaForm;
use crate::state::{ServerEntry, use_services};
use crate::task::spawn_owned;
use crate::widgets::{Code, FailureBox};
use engine::cancel::CancelToken;
use engine::form::Form;
use engine::mcp::{McpError, RequestOptions, describe_progress};
use engine::text::pretty;
use protocol::mcp::{CallToolResult, Tool};

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
pub fn ToolsTab(entry: ServerEntry) -> impl IntoView {
    let svc = use_services();
    let id = entry.id.clone();
    let data = entry.data;
    let tools = Memo::new(move |_| data.with(|d| d.tools.clone()));
    let failed = move || data.with(|d| d.list_failures.iter().any(|(what, _)| *what == "tools/list"));
    move || match tools.get() {
        None if failed() => view! { <p class="empty">"No tools: tools/list failed (above)."</p> }.into_any(),
        None => view! { <p class="empty">"No tools listed (the server did not declare tools)."</p> }.into_any(),
        Some(list) => {
            let excluded = list.excluded.clone();
            let id = id.clone();
            let cost = RwSignal::new(None::<String>);
            let cost_list = list.clone();
            let cost_id = id.clone();
            let measure = move |_| {
                if let Err(why) = svc.settings.ready() {
                    return cost.set(Some(why.to_string()));
                }
                let (settings, agent, demo) = (
                    svc.settings.claude(),
                    svc.runtime(|r| r.agent.clone()),
                    svc.settings.data.with_untracked(|d| d.demo),
                );
                let label = data.with_untracked(|d| d.label.clone());
                let (list, server_id) = (cost_list.clone(), cost_id.clone());
                cost.set(Some("Counting…".into()));
                spawn_owned(async move {
                    let view =
                        engine::agent::catalog::ServerTools { server_id: &server_id, label: &label, list: &list };
                    cost.set(Some(match agent.tool_cost(&settings, view).await {
                        Ok(c) => c.describe(demo),
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
                    {list.tools.into_iter().map(|tool| view! { <ToolItem server=id.clone() tool=tool/> }).collect_view()}
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

/// One of a server's tools: its description and schema, and a form to call it by hand.
#[component]
fn ToolItem(server: String, tool: Tool) -> impl IntoView {
    let svc = use_services();
    let prefix = format!("{server}-{}", tool.name.replace(|c: char| !c.is_ascii_alphanumeric(), "-"));
    let schema = tool.input_schema.clone();
    let form = Form::of(&schema);
    let values = RwSignal::new(form.initial());
    let read = form.clone();
    let result = RwSignal::new(None::<Result<CallToolResult, McpError>>);
    let progress = RwSignal::new(None::<String>);
    let form_error = RwSignal::new(None::<String>);
    // While a call runs: the token that cancels it (C-21: notifications/cancelled is sent).
    let running = RwSignal::new(false);
    let token = StoredValue::new_local(None::<CancelToken>);
    let name = tool.name.clone();
    let call = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let args = match read.read(&values.get_untracked()) {
            Ok(a) => a,
            Err(e) => return form_error.set(Some(e.to_string())),
        };
        form_error.set(None);
        let Some(client) = svc.servers.client(&server) else {
            return form_error.set(Some("The server is not connected: connect it first.".into()));
        };
        let cancel = CancelToken::new();
        let opts = RequestOptions {
            cancel: Some(cancel.clone()),
            on_progress: Some(std::rc::Rc::new(move |p| {
                progress.set(Some(describe_progress(p.progress, p.total, p.message.as_deref())))
            })),
            ..RequestOptions::default()
        };
        token.set_value(Some(cancel));
        running.set(true);
        progress.set(None);
        result.set(None);
        let name = name.clone();
        spawn_owned(async move {
            let r = client.call_tool(&name, args, &opts).await;
            result.set(Some(r));
            running.set(false);
            token.set_value(None);
        });
    };
    let stop = move |_| {
        token.with_value(|t| t.as_ref().map(CancelToken::cancel));
    };
    let busy = move || running.get();
    view! {
        <li>
            <details>
                <summary><code>{tool.name.clone()}</code>
                    {tool.title.clone().map(|t| view! { <span class="muted">{format!(" — {t}")}</span> })}</summary>
                {tool.description.clone().map(|d| view! { <p class="prose">{d}</p> })}
                {engine::mcp::declared::tool_app_note(&tool).map(|n| view! { <p class="hint">{n}</p> })}
                <details class="schema"><summary>"Input schema"</summary><Code text=pretty(&schema) label="Input schema"/></details>
                <form class="call-form" on:submit=call aria-label=format!("Call {}", tool.name)>
                    <SchemaForm form=form values=values id_prefix=prefix/>
                    <button type="submit" prop:disabled=busy>{move || if busy() { "Calling…" } else { "Call tool" }}</button>
                    <Show when=busy>
                        <button type="button" class="danger" on:click=stop>"Cancel"</button>
                    </Show>
                    {move || form_error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
                </form>
                <Show when=move || busy() && progress.with(Option::is_some)>
                    <p class="progress" role="status">{move || progress.get()}</p>
                </Show>
                {move || result.get().map(|r| view! { <CallResult result=r/> })}
            </details>
        </li>
    }
}

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
                let form = Form::of(&schema);
                let values = RwSignal::new(form.initial());
                let output = RwSignal::new(None::<Result<String, String>>);
                let read = form.clone();
                let run_name = name.clone();
                let run = move |ev: leptos::ev::SubmitEvent| {
                    ev.prevent_default();
                    let r = read.read(&values.get_untracked()).map_err(|e| e.to_string()).and_then(|args| {
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
                                <SchemaForm form=form values=values id_prefix=format!("local-{name}")/>
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
