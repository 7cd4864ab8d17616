//! The Claude-side loop settings that today's models change under the user's feet: what the
//! chosen model does with thinking, the thinking request fields, the tools the API runs itself,
//! the per-tool fields, and the teaching switch. Every decision (what a model accepts, which rule
//! a request breaks) is the engine's.

use leptos::prelude::*;

use super::settings_panel::{NumberField, widen};
use super::state::use_services;
use super::task::spawn_owned;
use engine::agent::Teach;
use engine::claude::listed::describe_model;
use engine::claude::server_tools::ServerTool;
use engine::claude::thinking::{Display, Effort, MIN_BUDGET, ThinkingMode};
use engine::claude::tool_flags::{PickScope, ToolField};
use engine::settings::{MAX_TOKENS_RANGE, bounded};

/// What the model in the field does with thinking (from the Models API when it was asked), and
/// the button that asks it.
#[component]
pub fn ModelHint() -> impl IntoView {
    let svc = use_services();
    let settings = svc.settings;
    let hint = move || settings.data.with(|d| settings.listed.with(|l| describe_model(&d.model, l)));
    let status = RwSignal::new(None::<String>);
    let list = move |_| {
        if let Err(why) = settings.ready() {
            return status.set(Some(why.to_string()));
        }
        let (claude, agent) = (settings.claude(), svc.runtime(|r| r.agent.clone()));
        status.set(Some("Asking GET /v1/models…".into()));
        spawn_owned(async move {
            match agent.claude().list_models(&claude).await {
                Ok(models) => {
                    status.set(Some(format!("The Models API listed {} models for this key.", models.len())));
                    settings.listed.set(models);
                }
                Err(e) => status.set(Some(format!(
                    "Could not list the models ({} layer): {e}. Loopscope's own list stays in use.",
                    e.layer()
                ))),
            }
        });
    };
    view! {
        <p class="hint" id="model-hint">{hint}</p>
        <p class="hint">
            <button type="button" on:click=list disabled=move || settings.data.with(|d| d.demo)>"List models from the API"</button>
            " "<span role="status">{move || status.get()}</span>
        </p>
    }
}

#[component]
pub fn ThinkingSettings() -> impl IntoView {
    let settings = use_services().settings;
    let data = settings.data;
    let mode = move || data.with(|d| d.thinking.mode);
    let verdict = move || data.with(|d| d.thinking.verdict(&d.model, d.max_tokens, d.tool_choice.forces()));
    view! {
        <fieldset class="loop-settings">
            <legend>"Thinking"</legend>
            <div class="field inline">
                <label for="thinking-mode">"Thinking"</label>
                <select id="thinking-mode" prop:value=move || mode().as_str()
                    on:change=move |ev| {
                        if let Some(m) = ThinkingMode::parse(&event_target_value(&ev)) {
                            settings.update(|d| d.thinking.mode = m);
                        }
                    }>
                    {ThinkingMode::ALL.iter().map(|m| view! { <option value=m.as_str()>{m.label()}</option> }).collect_view()}
                </select>
            </div>
            <Show when=move || mode() == ThinkingMode::Budget>
                <NumberField id="thinking-budget" label="Budget tokens" range=widen((MIN_BUDGET, MAX_TOKENS_RANGE.1))
                    get=|d| d.thinking.budget_tokens.into()
                    set=|d, text| if let Some(n) = bounded(text, (MIN_BUDGET, MAX_TOKENS_RANGE.1)) { d.thinking.budget_tokens = n }/>
            </Show>
            <div class="field inline">
                <label for="thinking-effort">"Effort"</label>
                <select id="thinking-effort"
                    prop:value=move || data.with(|d| d.thinking.effort.map_or("default", Effort::as_str))
                    on:change=move |ev| {
                        let effort = Effort::parse(&event_target_value(&ev));
                        settings.update(|d| d.thinking.effort = effort);
                    }>
                    <option value="default">"model's default (not sent)"</option>
                    {Effort::ALL.iter().map(|e| view! { <option value=e.as_str()>{e.as_str()}</option> }).collect_view()}
                </select>
            </div>
            <div class="field inline">
                <label for="thinking-display">"Thinking text"</label>
                <select id="thinking-display" prop:value=move || data.with(|d| d.thinking.display.as_str())
                    on:change=move |ev| {
                        if let Some(v) = Display::parse(&event_target_value(&ev)) {
                            settings.update(|d| d.thinking.display = v);
                        }
                    }>
                    {Display::ALL.iter().map(|v| view! { <option value=v.as_str()>{v.as_str()}</option> }).collect_view()}
                </select>
            </div>
            <p class="hint">"Summarized text teaches; omitted saves nothing on billing but hides the reasoning. \
                Either way every thinking block goes back in the next request exactly as it came, with its signature."</p>
            {move || verdict().map(|v| view! { <p class="warn" role="alert" id="thinking-verdict">{v}</p> })}
        </fieldset>
    }
}

/// The teaching switch: one mistake made on purpose in the next turn.
#[component]
pub fn TeachingSwitch() -> impl IntoView {
    let teach = use_services().conversation.teach_next;
    view! {
        <div class="field">
            <label for="teach">"Teaching: break the next turn on purpose"</label>
            <select id="teach" prop:value=move || teach.get().map_or("none", Teach::key)
                on:change=move |ev| teach.set(Teach::by_key(&event_target_value(&ev)))>
                <option value="none">"no (send what the API expects)"</option>
                {Teach::ALL.iter().map(|t| view! { <option value=t.key()>{t.label()}</option> }).collect_view()}
            </select>
        </div>
    }
}

/// Tools the API runs itself: each one a checkbox, added after the client's tools.
#[component]
pub fn ServerToolsSettings() -> impl IntoView {
    let settings = use_services().settings;
    let data = settings.data;
    view! {
        <fieldset class="loop-settings">
            <legend>"Server tools (the API runs them)"</legend>
            {ServerTool::ALL.iter().map(|&tool| view! {
                <label class="check">
                    <input type="checkbox" prop:checked=move || data.with(|d| d.server_tools.contains(&tool))
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            settings.update(|d| {
                                d.server_tools.retain(|t| *t != tool);
                                if on {
                                    d.server_tools.push(tool);
                                }
                            });
                        }/>
                    {tool.label()}" "<code>{tool.wire_type()}</code>
                </label>
            }).collect_view()}
            <p class="hint">"Claude calls these with server_tool_use and Anthropic's side runs them: on the timeline they \
                go to the API's own lane, and this page routes nothing. Each search or fetch is billed by the API. \
                The demo model runs web search only, with made-up results (ask it to search the web)."</p>
        </fieldset>
    }
}

/// The per-tool fields (`strict`, `eager_input_streaming`, `defer_loading`): for each, no tool,
/// every tool it applies to, or the tools named (as Claude sees them; `github_*` for a server's).
#[component]
pub fn ToolFieldsSettings() -> impl IntoView {
    let settings = use_services().settings;
    let data = settings.data;
    view! {
        <fieldset class="loop-settings">
            <legend>"Tool definitions"</legend>
            {ToolField::ALL.iter().map(|&field| {
                let id = format!("field-{}", field.wire_name().replace('_', "-"));
                let names_id = format!("{id}-names");
                let scope = move || data.with(|d| field.of(&d.tool_flags).scope);
                view! {
                    <div class="field">
                        <label for=id.clone()><code>{field.wire_name()}": true"</code>" on"</label>
                        <select id=id prop:value=move || scope().as_str()
                            on:change=move |ev| if let Some(s) = PickScope::parse(&event_target_value(&ev)) {
                                settings.update(|d| field.of_mut(&mut d.tool_flags).scope = s);
                            }>
                            <option value="none">"no tool"</option>
                            <option value="all">{field.all_means()}</option>
                            <option value="named">"the tools named:"</option>
                        </select>
                    </div>
                    <Show when=move || scope() == PickScope::Named>
                        <input id=names_id.clone() class="names" spellcheck="false"
                            aria-label=format!("Tools sent with {}", field.wire_name())
                            placeholder="calculate, demo_search_notes, github_*"
                            prop:value=move || data.with(|d| field.of(&d.tool_flags).names.clone())
                            on:change=move |ev| settings.update(|d| field.of_mut(&mut d.tool_flags).names = event_target_value(&ev))/>
                    </Show>
                    <p class="hint">{field.explain()}</p>
                }
            }).collect_view()}
        </fieldset>
    }
}
