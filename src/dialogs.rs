//! Dialogs for what needs the user: approving a tool call, reviewing a server's sampling request
//! before it goes to Claude with the user's key (and the answer before it goes back), and
//! answering a server's elicitation form. Each says which server asks.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde_json::{Map, Value};

use super::chunks::OnDemand;
use super::schema_form::SchemaForm;
use super::state::{Answer, Dialog, DialogKind, use_services};
use super::widgets::Code;
use engine::agent::AskWhy;
use engine::agent::sampling;
use engine::cancel::CancelToken;
use engine::claude::ClaudeError;
use engine::form::Form;
use engine::text::{pretty, visible, visible_lines};
use protocol::mcp::{CreateMessageParams, ElicitAction, ElicitResult};

#[component]
fn Approval(id: u64, tool: String, target: String, input: Value, why: AskWhy) -> impl IntoView {
    let svc = use_services();
    let who = if svc.settings.data.with_untracked(|d| d.demo) { "The demo model" } else { "Claude" };
    // A stranger's call: Enter must not run it; the safer answer has the focus.
    let deny_first = why.stranger;
    view! {
        <h3 id=format!("dialog-{id}-title")>"Run this tool call?"</h3>
        <p class="warn">{why.reason}</p>
        <p>{who}" asks for "<code class="stranger">{visible(&tool)}</code>", which goes to "{target}"."</p>
        <Code text=visible_lines(&pretty(&input)) label="Arguments"/>
        <p class="hint">"Tool descriptions and annotations come from the server and are not guarantees."</p>
        <div class="dialog-actions">
            <button type="button" class="primary" autofocus=!deny_first on:click=move |_| svc.dialogs.answer(id, Answer::Approve(true))>"Allow"</button>
            <button type="button" class="danger" autofocus=deny_first on:click=move |_| svc.dialogs.answer(id, Answer::Approve(false))>"Deny"</button>
        </div>
    }
}

#[component]
fn Sampling(id: u64, server: String, params: CreateMessageParams) -> impl IntoView {
    let svc = use_services();
    let prompt = RwSignal::new(sampling::prompt(&params));
    let answer = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let error = RwSignal::new(None::<String>);
    let model = RwSignal::new(String::new());
    let max_tokens = sampling::max_tokens(&params, &svc.settings.claude());
    let params = StoredValue::new(params);
    // The request to Claude, while it runs: Cancel stops it, and so does the dialog going away
    // (declined, or answered from elsewhere), so nothing writes into a dialog that is gone.
    let running = StoredValue::new_local(None::<CancelToken>);
    let stop = move || {
        if let Some(c) = running.try_update_value(Option::take).flatten() {
            c.cancel();
        }
    };
    on_cleanup(stop);
    let send = move |_| {
        if let Err(why) = svc.settings.ready() {
            error.set(Some(why.to_string()));
            return;
        }
        let settings = svc.settings.claude();
        let request = params.with_value(|p| sampling::request(p, &prompt.get_untracked(), &settings));
        let agent = svc.runtime(|r| r.agent.clone());
        busy.set(true);
        error.set(None);
        let cancel = CancelToken::new();
        running.set_value(Some(cancel.clone()));
        spawn_local(async move {
            let result = agent.claude().stream(&settings, &request, &cancel, &mut |_| {}).await;
            // The dialog may be gone by now (declined, or answered): its signals with it, so
            // every write is a try_ that does nothing then.
            running.try_set_value(None);
            match result {
                Ok(a) => {
                    model.try_set(a.model.clone());
                    answer.try_set(Some(a.message.text()));
                }
                Err(ClaudeError::Cancelled) => {
                    error.try_set(Some("Cancelled: nothing was sent back to the server yet.".into()));
                }
                Err(e) => {
                    error.try_set(Some(format!("{e} ({} layer)", e.layer())));
                }
            }
            busy.try_set(false);
        });
    };
    let give_back = move |_| {
        let m = model.get_untracked();
        let m = if m.is_empty() { svc.settings.claude().model } else { m };
        let result = sampling::result(answer.get_untracked().unwrap_or_default(), m);
        svc.dialogs.answer(id, Answer::Sampling(Ok(result)));
    };
    let decline = move |_| {
        stop();
        svc.dialogs.answer(id, Answer::declined_sampling());
    };
    let system = params.with_value(|p| p.system_prompt.clone());
    let asked = params.with_value(|p| p.max_tokens);
    view! {
        <h3 id=format!("dialog-{id}-title")>{format!("The MCP server \"{server}\" asks Claude for a message")}</h3>
        <p class="hint">"Sampling: the server wants an LLM answer. Nothing is sent until you press Send, with your key; \
            you can edit the request and the answer. (Deprecated in MCP 2026-07-28, SEP-2577: it still works, \
            but servers are asked to call an LLM API of their own.)"</p>
        {system.map(|s| view! { <p><strong>"System prompt: "</strong>{s}</p> })}
        <div class="field">
            <label for=format!("dialog-{id}-prompt")>{if asked > max_tokens {
                format!("Request (the server asked for {asked} tokens; your Max tokens allows {max_tokens})")
            } else {
                format!("Request (max {max_tokens} tokens)")
            }}</label>
            <textarea id=format!("dialog-{id}-prompt") rows="5" prop:value=move || prompt.get() on:input=move |ev| prompt.set(event_target_value(&ev))></textarea>
        </div>
        <Show when=move || answer.get().is_some()>
            <div class="field">
                <label for=format!("dialog-{id}-answer")>"Answer to return to the server"</label>
                <textarea id=format!("dialog-{id}-answer") rows="5" prop:value=move || answer.get().unwrap_or_default()
                    on:input=move |ev| answer.set(Some(event_target_value(&ev)))></textarea>
            </div>
        </Show>
        {move || error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
        <div class="dialog-actions">
            <Show when=move || answer.get().is_none() fallback=move || view! {
                <button type="button" class="primary" on:click=give_back>"Return to server"</button>
            }>
                <button type="button" class="primary" autofocus on:click=send prop:disabled=move || busy.get()>
                    {move || if busy.get() { "Asking Claude…" } else { "Send to Claude" }}
                </button>
                <Show when=move || busy.get()>
                    <button type="button" on:click=move |_| stop()>"Cancel"</button>
                </Show>
            </Show>
            <button type="button" class="danger" on:click=decline>"Decline"</button>
        </div>
    }
}

#[component]
fn Elicitation(id: u64, server: String, message: String, schema: Value) -> impl IntoView {
    let svc = use_services();
    let form = Form::of(&schema);
    let values = RwSignal::new(form.initial());
    let error = RwSignal::new(None::<String>);
    let read = form.clone();
    let accept = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        match read.read(&values.get_untracked()) {
            // The engine fills in the schema's defaults for what the answer leaves out.
            Ok(Value::Object(content)) => svc
                .dialogs
                .answer(id, Answer::Elicit(ElicitResult { action: ElicitAction::Accept, content: Some(content) })),
            Ok(_) => error.set(Some("The answer must be an object".into())),
            Err(e) => error.set(Some(e.to_string())),
        }
    };
    view! {
        <h3 id=format!("dialog-{id}-title")>{format!("The MCP server \"{server}\" asks you")}</h3>
        <p class="prose">{message}</p>
        <form on:submit=accept aria-label="Answer the server">
            <SchemaForm form=form values=values id_prefix=format!("elicit-{id}")/>
            {move || error.get().map(|e| view! { <p class="form-error" role="alert">{e}</p> })}
            <div class="dialog-actions">
                <button type="submit" class="primary">"Accept"</button>
                <button type="button" on:click=move |_| svc.dialogs.answer(id, Answer::Elicit(ElicitResult { action: ElicitAction::Decline, content: None }))>"Decline"</button>
                <button type="button" on:click=move |_| svc.dialogs.answer(id, Answer::Elicit(ElicitResult { action: ElicitAction::Cancel, content: None }))>"Cancel"</button>
            </div>
        </form>
    }
}

/// The dialog's own part, built in the dialogs chunk (src/chunks/).
pub fn body(id: u64, kind: DialogKind) -> AnyView {
    match kind {
        DialogKind::Approval { tool, target, input, why } => view! { <Approval id tool target input why/> }.into_any(),
        DialogKind::Sampling { server, params } => view! { <Sampling id server params/> }.into_any(),
        DialogKind::Elicitation { server, params } => {
            let schema = params.requested_schema.clone().unwrap_or(Value::Object(Map::new()));
            view! { <Elicitation id server message=params.message.clone() schema/> }.into_any()
        }
    }
}

#[component]
pub fn Dialogs() -> impl IntoView {
    let svc = use_services();
    // Only a change of the front dialog redraws it: a request queued behind it must not rebuild
    // it and lose what the user typed.
    let front = Memo::new(move |_| svc.dialogs.queue.with(|q| q.first().map(|d| d.id)));
    move || {
        let id = front.get()?;
        let Dialog { kind, .. } = svc.dialogs.queue.with_untracked(|q| q.first().cloned())?;
        // Escape dismisses: the call denied, the sampling request declined, the form cancelled.
        let dismissed = kind.clone();
        let on_key = move |ev: leptos::ev::KeyboardEvent| {
            if ev.key() == "Escape" {
                ev.prevent_default();
                svc.dialogs.answer(id, dismissed.refusal());
            }
        };
        let body = view! { <OnDemand what="dialog" load=move || crate::chunks::dialog(id, kind.clone())/> };
        let waiting = move || svc.dialogs.queue.with(|q| q.len().saturating_sub(1));
        Some(view! {
            <div class="backdrop">
                <div class="dialog" role="dialog" aria-modal="true" aria-labelledby=format!("dialog-{id}-title") on:keydown=on_key>
                    {body}
                    <Show when=move || { waiting() > 0 }>
                        <p class="muted" role="status">{move || format!("{} more waiting after this one", waiting())}</p>
                    </Show>
                </div>
            </div>
        })
    }
}
