//! A lesson on the page: the banner over the chat and timeline with the current step (what to
//! read, do and look at, its message to send, back and next), and the Workshop panel's list of
//! built-in lessons with their links.

use leptos::prelude::*;

use crate::state::{BUILT_IN_LESSONS, use_services};
use crate::widgets::Stranger;
use engine::lesson::{ScriptedCall, Step, describe_call};
use engine::server_address;

/// A lesson's text, as text, one paragraph per blank-line-separated part.
fn paragraphs(text: &str) -> impl IntoView + use<> {
    text.split("\n\n").map(|p| view! { <p>{p.to_owned()}</p> }).collect_view()
}

fn step_view(step: Step, running: Signal<bool>) -> impl IntoView {
    let svc = use_services();
    let breakpoints = (!step.breakpoints.is_empty()).then(|| {
        let names: Vec<&str> = step.breakpoints.iter().map(|b| b.describe()).collect();
        format!("Stops {}.", names.join("; "))
    });
    let faults = (!step.faults.is_empty()).then(|| {
        let names: Vec<String> = step
            .faults
            .iter()
            .map(|f| match (&f.server, &f.tool) {
                (Some(s), Some(t)) => format!("{} on {s}'s {t}", f.fault.describe()),
                (Some(s), None) => format!("{} on {s}", f.fault.describe()),
                (None, _) => f.fault.describe(),
            })
            .collect();
        format!("Injects: {}.", names.join("; "))
    });
    let calls: Vec<String> =
        step.replies.iter().flat_map(|r| r.calls.iter()).map(|(tool, input)| describe_call(tool, input, 60)).collect();
    let scripted =
        (!calls.is_empty()).then(|| format!("The demo model's scripted answer calls: {}.", calls.join("; ")));
    view! {
        {(!step.title.is_empty()).then(|| view! { <h3>{step.title.clone()}</h3> })}
        {paragraphs(&step.text)}
        {step.action.clone().map(|a| view! { <p class="lesson-do"><strong>"Do: "</strong>{a}</p> })}
        {step.look.clone().map(|l| view! { <p class="lesson-look"><strong>"Look at: "</strong>{l}</p> })}
        {(breakpoints.is_some() || faults.is_some()).then(|| view! {
            <p class="hint">{breakpoints.unwrap_or_default()}" "{faults.unwrap_or_default()}</p>
        })}
        {scripted.map(|s| view! { <p class="hint lesson-scripted">{s}</p> })}
        {step.ask.clone().map(|ask| view! {
            <button type="button" class="primary lesson-ask" prop:disabled=running
                on:click=move |_| svc.ask_step()>
                {if step.both_ways { format!("Ask both ways: {ask}") } else { format!("Ask: {ask}") }}</button>
        })}
    }
}

/// The screen that lists the servers a lesson names and the calls it scripts: nothing reaches
/// them until the user agrees (and the lesson's calls to any other server ask first).
#[component]
fn ServersConsent(calls: Vec<ScriptedCall>) -> impl IntoView {
    let svc = use_services();
    let l = svc.lessons;
    let listed = move || {
        l.pending
            .get()
            .into_iter()
            .map(|(url, label)| {
                let known = svc.servers.list.with_untracked(|list| list.iter().any(|s| s.url == url));
                let warning = server_address::prepare(&url).ok().and_then(|a| a.warning);
                view! {
                    <li>
                        <code>{url}</code>" as "<Stranger text=label/>
                        {if known { " (already in your list)" } else { " (new: it will be added)" }}
                        {warning.map(|w| view! { <p class="warn">{format!("Careful: {w}.")}</p> })}
                    </li>
                }
            })
            .collect_view()
    };
    let scripted = (!calls.is_empty()).then(|| {
        view! {
            <p><strong>"Its scripted answers call:"</strong></p>
            <ul class="lesson-calls">{calls.iter().map(|c| view! {
                <li>{format!("step {}: ", c.step + 1)}<code>{c.describe(80)}</code></li>
            }).collect_view()}</ul>
        }
    });
    view! {
        <div class="lesson-servers" role="group" aria-label="Servers this lesson uses">
            <p><strong>"This lesson wants to use these servers:"</strong></p>
            <ul>{listed}</ul>
            {scripted}
            <p class="hint">"Tool calls in this lesson (scripted ones and the model's) will go there. Agree only if you \
                trust these servers; until then, and for any other server, every call asks you first."</p>
            <button type="button" class="primary" on:click=move |_| svc.connect_lesson_servers()>"Use these servers"</button>
        </div>
    }
}

/// Where a lesson shows, over the chat and the timeline; its banner is a chunk, loaded when a
/// lesson first opens (or is named by the page's address, or is loading, or failed to).
#[component]
pub fn LessonBanner() -> impl IntoView {
    let svc = use_services();
    let l = svc.lessons;
    let any = move || {
        l.from_address.with(Option::is_some)
            || l.loading.with(Option::is_some)
            || l.problem.with(Option::is_some)
            || l.current.with(Option::is_some)
    };
    view! { <crate::chunks::OnDemandWhen when=Signal::derive(any) what="lesson" load=move || crate::chunks::lesson(svc)/> }
}

/// The lesson in progress: its loading line, its problem, or its steps.
#[component]
pub fn LessonBody() -> impl IntoView {
    let svc = use_services();
    let l = svc.lessons;
    let running = Signal::derive(move || svc.conversation.running.get() || svc.sessions.viewing.with(Option::is_some));
    view! {
        <Show when=move || l.loading.with(Option::is_some)>
            <section class="lesson" role="status">
                <p>{move || format!("Loading the lesson from {}…", l.loading.get().unwrap_or_default())}</p>
            </section>
        </Show>
        {move || l.problem.get().map(|p| view! { <p class="lesson-problem" role="alert">{p}</p> })}
        {move || l.current.get().map(|lesson| {
            let count = lesson.steps.len();
            let title = lesson.title.clone();
            let intro = lesson.intro.clone();
            let steps = lesson.steps.clone();
            let calls = lesson.scripted_calls();
            view! {
                <section class="lesson" role="region" aria-labelledby="lesson-title">
                    <header class="lesson-head">
                        <h2 id="lesson-title"><Stranger text=title max=120/></h2>
                        <span class="lesson-count" aria-live="polite">
                            {move || format!("Step {} of {count}", l.step.get() + 1)}
                        </span>
                        <button type="button" class="link" on:click=move |_| svc.close_lesson()>"Leave the lesson"</button>
                    </header>
                    {move || (!l.pending.with(Vec::is_empty)).then(|| view! { <ServersConsent calls=calls.clone()/> })}
                    {move || (l.step.get() == 0 && !intro.is_empty()).then(|| view! {
                        <div class="lesson-intro">{paragraphs(&intro)}</div>
                    })}
                    <div class="lesson-step">
                        {move || steps.get(l.step.get()).cloned().map(|s| step_view(s, running))}
                    </div>
                    <nav class="card-actions" aria-label="Lesson steps">
                        <button type="button" prop:disabled=move || l.step.get() == 0
                            on:click=move |_| svc.go_to_step(l.step.get_untracked().saturating_sub(1))>"← Back"</button>
                        <button type="button" prop:disabled=move || { l.step.get() + 1 >= count }
                            on:click=move |_| svc.go_to_step(l.step.get_untracked() + 1)>"Next step →"</button>
                    </nav>
                </section>
            }
        })}
    }
}

/// The Workshop panel's lessons: the built-in ones, each with the link that opens it.
#[component]
pub fn LessonChoices() -> impl IntoView {
    let svc = use_services();
    view! {
        <ul class="lessons">
            {BUILT_IN_LESSONS.into_iter().map(|(path, title)| {
                let link = format!("?lesson={path}");
                view! {
                    <li>
                        <button type="button" on:click=move |_| svc.load_lesson(path)>{title}</button>
                        " "<a href=link.clone() title="A link that opens this lesson">"link"</a>
                    </li>
                }
            }).collect_view()}
        </ul>
        <label class="file-choice">"Open a lesson file… "
            <input type="file" accept=".json,application/json" on:change=move |ev| {
                super::with_file_text(ev, engine::lesson::MAX_BYTES, move |text| match text {
                    Ok(text) => svc.open_lesson_text(&text),
                    Err(why) => svc.lessons.problem.set(Some(format!("That lesson cannot be opened: {why}."))),
                })
            }/>
        </label>
        {move || svc.lessons.link.get().map(|link| match link {
            Ok(link) => view! {
                <p class="lesson-link">"Hand it out: "<a href=link.clone()>"a link that carries this lesson"</a>
                    {format!(" ({} characters)", link.len())}</p>
            }.into_any(),
            Err(why) => view! { <p class="hint">{why}</p> }.into_any(),
        })}
        <p class="muted">"A lesson is a small JSON file (docs/lessons.md): its link is this page's address with \
            ?lesson= and the file's address, on this site or any that allows CORS, or the file itself in the link."</p>
    }
}
