//! A lesson on the page: the banner over the chat and timeline with the current step (what to
//! read, do and look at, its message to send, back and next), and the Workshop panel's list of
//! built-in lessons with their links.

use leptos::prelude::*;

use crate::engine::lesson::Step;
use crate::web::state::{BUILT_IN_LESSONS, use_services};

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
    view! {
        {(!step.title.is_empty()).then(|| view! { <h3>{step.title.clone()}</h3> })}
        {paragraphs(&step.text)}
        {step.action.clone().map(|a| view! { <p class="lesson-do"><strong>"Do: "</strong>{a}</p> })}
        {step.look.clone().map(|l| view! { <p class="lesson-look"><strong>"Look at: "</strong>{l}</p> })}
        {(breakpoints.is_some() || faults.is_some()).then(|| view! {
            <p class="hint">{breakpoints.unwrap_or_default()}" "{faults.unwrap_or_default()}</p>
        })}
        {step.ask.clone().map(|ask| view! {
            <button type="button" class="primary lesson-ask" prop:disabled=running
                on:click=move |_| svc.ask_step()>{format!("Ask: {ask}")}</button>
        })}
    }
}

/// The lesson in progress, over the chat and the timeline.
#[component]
pub fn LessonBanner() -> impl IntoView {
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
            view! {
                <section class="lesson" role="region" aria-labelledby="lesson-title">
                    <header class="lesson-head">
                        <h2 id="lesson-title">{title}</h2>
                        <span class="lesson-count" aria-live="polite">
                            {move || format!("Step {} of {count}", l.step.get() + 1)}
                        </span>
                        <button type="button" class="link" on:click=move |_| svc.close_lesson()>"Leave the lesson"</button>
                    </header>
                    {move || (!l.pending.with(Vec::is_empty)).then(|| view! {
                        <div class="lesson-servers" role="group" aria-label="Servers this lesson uses">
                            <p><strong>"This lesson connects to:"</strong></p>
                            <ul>{l.pending.get().into_iter().map(|(url, label)| view! {
                                <li><code>{url}</code>" as "{label}</li>
                            }).collect_view()}</ul>
                            <p class="hint">"Your messages' tool calls will go there. Connect only to servers you trust."</p>
                            <button type="button" class="primary" on:click=move |_| svc.connect_lesson_servers()>"Connect them"</button>
                        </div>
                    })}
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
                super::with_file_text(ev, move |text| match text {
                    Some(text) => svc.open_lesson_text(&text),
                    None => svc.lessons.problem.set(Some("That file could not be read.".into())),
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
