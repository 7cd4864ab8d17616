//! Injecting faults from the page: a form (which tool, which fault, the next call or every call)
//! and the faults in force, for one server (its card's Faults tab) or for Claude's side.

use leptos::prelude::*;

use crate::state::{ServerEntry, use_services};
use engine::faults::{Fault, FaultRule, Target, Times};

fn rule_text(r: &FaultRule) -> String {
    let tool = r.tool.as_deref().map_or("any tool".to_owned(), |t| format!("\u{201c}{t}\u{201d}"));
    let when = match r.times {
        Times::Next => "next call",
        Times::Every => "every call",
    };
    format!("{} · {tool} · {when}", r.fault.describe())
}

/// The form and the list for `target`; `tools`: the names a fault may be limited to.
#[component]
pub fn FaultsForm(target: Target, #[prop(into)] tools: Signal<Vec<String>>, field: String) -> impl IntoView {
    let svc = use_services();
    let claude = target == Target::Claude;
    let choices: Vec<(&'static str, Fault)> =
        Fault::catalog().into_iter().filter(|(_, f)| f.on_claude_side() == claude).collect();
    let first = choices.first().map_or("", |(k, _)| *k).to_owned();
    let fault = RwSignal::new(first);
    let tool = RwSignal::new(String::new());
    let every = RwSignal::new(false);
    let target = StoredValue::new(target);
    let inject = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if let Some(f) = Fault::by_key(&fault.get_untracked()) {
            let tool = Some(tool.get_untracked()).filter(|t| !t.is_empty());
            let times = if every.get_untracked() { Times::Every } else { Times::Next };
            svc.add_fault(target.get_value(), tool, f, times);
        }
    };
    let rules = move || {
        svc.workshop.faults.with(|r| r.iter().filter(|r| r.target == target.get_value()).cloned().collect::<Vec<_>>())
    };
    let id = |what: &str| format!("{field}-{what}");
    view! {
        <form class="faults-form" on:submit=inject>
            <div class="field inline">
                <label for=id("fault")>"Fault"</label>
                <select id=id("fault") prop:value=move || fault.get() on:change=move |ev| fault.set(event_target_value(&ev))>
                    {choices.iter().map(|(k, f)| view! {
                        <option value=*k>{format!("{} — {} layer", f.describe(), f.layer())}</option>
                    }).collect_view()}
                </select>
            </div>
            <div class="field inline" hidden=move || tools.with(Vec::is_empty)>
                <label for=id("tool")>"Tool"</label>
                <select id=id("tool") prop:value=move || tool.get() on:change=move |ev| tool.set(event_target_value(&ev))>
                    <option value="">"any tool"</option>
                    {move || tools.get().into_iter().map(|t| view! { <option value=t.clone()>{t.clone()}</option> }).collect_view()}
                </select>
            </div>
            <div class="field inline">
                <label for=id("when")>"When"</label>
                <select id=id("when") prop:value=move || if every.get() { "every" } else { "next" }
                    on:change=move |ev| every.set(event_target_value(&ev) == "every")>
                    <option value="next">"the next call"</option>
                    <option value="every">"every call"</option>
                </select>
            </div>
            <button type="submit">"Inject"</button>
        </form>
        <ul class="faults" aria-label="Faults in force">
            {move || rules().into_iter().map(|r| {
                let (id, text) = (r.id, rule_text(&r));
                view! {
                    <li>
                        <span class="badge injected">"injected"</span>" "{text.clone()}
                        <button type="button" class="link" aria-label=format!("Stop injecting: {text}")
                            on:click=move |_| svc.remove_fault(id)>"Remove"</button>
                    </li>
                }
            }).collect_view()}
        </ul>
    }
}

/// A server card's Faults tab: break this server on purpose.
#[component]
pub fn ServerFaults(entry: ServerEntry) -> impl IntoView {
    let data = entry.data;
    let tools = Signal::derive(move || {
        data.with(|d| d.tools.as_ref().map(|t| t.tools.iter().map(|t| t.name.clone()).collect()).unwrap_or_default())
    });
    view! {
        <p class="muted">"Break this server on purpose, with no change to it: its next call (or every call) fails at the \
            layer you pick, as a real failure would, and the timeline marks it injected."</p>
        <FaultsForm target=Target::Server(entry.id.clone()) tools field=format!("server-{}-fault", entry.id)/>
    }
}
