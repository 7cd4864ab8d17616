//! Settings: the key (hidden by default, in memory unless the user opts in), the model and
//! request options, or the demo model for a workshop without keys.

use leptos::prelude::*;

use super::loop_settings::{ModelHint, ServerToolsSettings, TeachingSwitch, ThinkingSettings, ToolFieldsSettings};
use super::state::{SettingsData, use_services};
use crate::chunks::DetailsOnDemand;
use engine::claude::ToolChoiceMode;
use engine::claude::models;
use engine::limits::{Limits, Setting};
use engine::settings::{MAX_ROUNDS_RANGE, MAX_TOKENS_RANGE, bounded};

/// This page's address with `?demo`: it opens with the demo model and the demo server.
fn workshop_link() -> String {
    let l = location();
    format!("{}{}?demo", l.origin().unwrap_or_default(), l.pathname().unwrap_or_default())
}

#[component]
pub fn SettingsPanel() -> impl IntoView {
    let svc = use_services();
    let settings = svc.settings;
    let data = settings.data;
    let show_key = RwSignal::new(false);
    let demo = move || data.with(|d| d.demo);

    view! {
        <section id="settings" class="panel" aria-labelledby="settings-title">
            <h2 id="settings-title">"Settings"</h2>
            <div class="mode-switch" role="radiogroup" aria-label="Model">
                <label class="mode">
                    <input type="radio" name="mode" prop:checked=move || !demo()
                        on:change=move |_| settings.update(|d| d.demo = false)/>
                    "Claude API"
                </label>
                <label class="mode">
                    <input type="radio" name="mode" prop:checked=demo
                        on:change=move |_| settings.update(|d| d.demo = true)/>
                    "Demo model (no key)"
                </label>
            </div>
            <Show when=demo>
                <p class="hint">"The demo model is scripted in this page and is not Claude: it picks tools by keyword. \
                    Everything else is real: the tools array, MCP calls, routing and tool_results."</p>
                <p class="hint">"Share with a workshop (opens with the demo model and the demo server): "
                    <a href=workshop_link()>{workshop_link()}</a></p>
            </Show>
            <div class="field" class:disabled=demo>
                <label for="api-key">"API key"</label>
                <div class="row">
                    <input id="api-key" autocomplete="off" spellcheck="false" placeholder="sk-ant-…"
                        prop:type=move || if show_key.get() { "text" } else { "password" }
                        prop:value=move || settings.api_key.get()
                        prop:disabled=demo
                        on:input=move |ev| settings.api_key.set(event_target_value(&ev))/>
                    <button type="button" on:click=move |_| show_key.update(|s| *s = !*s)
                        aria-pressed=move || show_key.get().to_string()
                        aria-label=move || if show_key.get() { "Hide API key" } else { "Show API key" }>
                        {move || if show_key.get() { "Hide" } else { "Show" }}
                    </button>
                </div>
                <label class="check">
                    <input type="checkbox" prop:checked=move || data.with(|d| d.remember_key)
                        on:change=move |ev| settings.update(|d| d.remember_key = event_target_checked(&ev))/>
                    "Remember on this device"
                </label>
                <Show when=move || data.with(|d| d.remember_key)>
                    <p class="warn">"Stored unencrypted in this browser's localStorage: anyone with this profile can read it."</p>
                    {shared_origin().map(|w| view! { <p class="warn" role="alert">{w}</p> })}
                </Show>
                <button type="button" class="link" on:click=move |_| settings.forget_key()
                    prop:disabled=move || settings.api_key.with(String::is_empty) && !data.with(|d| d.remember_key)>
                    "Forget key"
                </button>
                <p class="hint">"The key is sent only to the base URL below, and never shown in the timeline or its details (masked as ••••••)."</p>
            </div>
            <DetailsOnDemand class="more" summary=ViewFn::from(|| "Model and request") what="model settings"
                load=crate::chunks::model_settings/>
            <DetailsOnDemand class="more" summary=ViewFn::from(|| "Limits") what="limits" load=crate::chunks::limits_settings/>
        </section>
    }
}

/// Settings → Model and request; built in the settings chunk.
#[component]
pub fn ModelAndRequest() -> impl IntoView {
    let settings = use_services().settings;
    let data = settings.data;
    let field = move |f: fn(&SettingsData) -> String| move || data.with(f);
    let demo = move || data.with(|d| d.demo);
    view! {
        <div class="field">
            <label for="model">"Model"</label>
            <input id="model" list="models" prop:value=field(|d| d.model.clone()) prop:disabled=demo
                on:change=move |ev| settings.update(|d| d.model = event_target_value(&ev))/>
            <datalist id="models">
                {move || settings.listed.with(|listed| if listed.is_empty() {
                    models::suggestions().map(|m| view! { <option value=m.id>{m.summary()}</option> }).collect_view()
                } else {
                    listed.iter().map(|m| view! { <option value=m.id.clone()>{m.summary()}</option> }).collect_view()
                })}
            </datalist>
            <ModelHint/>
        </div>
        <div class="field">
            <label for="base-url">"Base URL"</label>
            <input id="base-url" prop:value=field(|d| d.base_url.clone()) prop:disabled=demo spellcheck="false"
                on:change=move |ev| settings.update(|d| d.base_url = event_target_value(&ev))/>
        </div>
        <NumberField id="max-tokens" label="Max tokens" range=widen(MAX_TOKENS_RANGE)
            get=|d| d.max_tokens.into()
            set=|d, text| if let Some(n) = bounded(text, MAX_TOKENS_RANGE) { d.max_tokens = n }/>
        <NumberField id="max-rounds" label="Max tool rounds" range=widen(MAX_ROUNDS_RANGE)
            get=|d| d.max_iterations.into()
            set=|d, text| if let Some(n) = bounded(text, MAX_ROUNDS_RANGE) { d.max_iterations = n }/>
        <div class="field">
            <label for="system">"System prompt"</label>
            <textarea id="system" rows="3" prop:value=field(|d| d.system.clone())
                on:change=move |ev| settings.update(|d| d.system = event_target_value(&ev))></textarea>
        </div>
        <div class="field inline">
            <label for="tool-choice">"Tool choice"</label>
            <select id="tool-choice"
                on:change=move |ev| settings.update(|d| d.tool_choice = ToolChoiceMode::parse(&event_target_value(&ev)))
                prop:value=move || data.with(|d| d.tool_choice.as_str())>
                {ToolChoiceMode::ALL.map(|m| view! { <option value=m.as_str()>{m.as_str()}</option> }).collect_view()}
            </select>
        </div>
        <Show when=move || data.with(|d| d.tool_choice == ToolChoiceMode::Tool)>
            <div class="field">
                <label for="tool-choice-name">"Tool Claude must call"</label>
                <input id="tool-choice-name" spellcheck="false" placeholder="calculate, or <label>_<tool>"
                    prop:value=field(|d| d.tool_choice_name.clone())
                    on:change=move |ev| settings.update(|d| d.tool_choice_name = event_target_value(&ev))/>
            </div>
        </Show>
        <label class="check">
            <input type="checkbox" prop:checked=move || data.with(|d| d.parallel_tool_use)
                on:change=move |ev| settings.update(|d| d.parallel_tool_use = event_target_checked(&ev))/>
            "Parallel tool use"
        </label>
        <label class="check">
            <input type="checkbox" prop:checked=move || data.with(|d| d.ask_before_tools)
                on:change=move |ev| settings.update(|d| d.ask_before_tools = event_target_checked(&ev))/>
            "Ask before each tool call"
        </label>
        <ThinkingSettings/>
        <ServerToolsSettings/>
        <ToolFieldsSettings/>
        <TeachingSwitch/>
    }
}

/// Whether this page shares its origin with other sites (a project page on github.io): then
/// remembering the key there hands it to all of them.
fn shared_origin() -> Option<String> {
    engine::hosting::shared_origin(&location().href().unwrap_or_default())
}

pub(crate) fn widen((lo, hi): (u32, u32)) -> (u64, u64) {
    (lo.into(), hi.into())
}

/// A whole-number setting: the engine clamps and keeps what was typed (`set`); text that is
/// not a number leaves the setting as it was.
#[component]
pub(crate) fn NumberField(
    id: &'static str,
    label: &'static str,
    range: (u64, u64),
    get: impl Fn(&SettingsData) -> u64 + Copy + Send + Sync + 'static,
    set: impl Fn(&mut SettingsData, &str) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let settings = use_services().settings;
    let data = settings.data;
    view! {
        <div class="field inline">
            <label for=id>{label}</label>
            <input id=id type="number" min=range.0 max=range.1
                prop:value=move || data.with(|d| get(d).to_string())
                on:change=move |ev| {
                    let text = event_target_value(&ev);
                    settings.update(|d| set(d, &text));
                }/>
        </div>
    }
}

/// What a server, a lesson or a file may make the page read or do (`engine::limits`); built in
/// the settings chunk.
#[component]
pub fn LimitsSettings() -> impl IntoView {
    let settings = use_services().settings;
    view! {
            <p class="hint">"How much a server, an authorization server, a lesson or a session file may make this page \
                read or do. Past a limit the page stops reading, says which limit, and goes on."</p>
            {Setting::ALL.map(|s| view! {
                <NumberField id=s.id() label=s.label() range=s.range()
                    get=move |d| s.get(&d.limits)
                    set=move |d, text| { s.set(&mut d.limits, text); }/>
            }).collect_view()}
            <button type="button" class="link" on:click=move |_| settings.update(|d| d.limits = Limits::default())>
                "Back to the defaults"
            </button>
    }
}
