//! The loop, paused at a breakpoint: where, the payload exactly as it will be sent (editable as
//! JSON where an edit makes sense, checked as you type against JSON and the Messages API's
//! rules), and Continue (F8), Step (F10), Skip, Restore, Stop. Big enough for a projector.

use leptos::ev::KeyboardEvent;
use leptos::prelude::*;

use crate::state::use_services;
use crate::widgets::Code;
use engine::agent::{Breakpoint, Draft, Resume, judge, route_hint};
use engine::text::pretty;

/// Where a stop at a breakpoint shows; its contents are a chunk, loaded when the loop first stops.
#[component]
pub fn PausedBanner() -> impl IntoView {
    let stop = use_services().pausing.stop;
    let when = Signal::derive(move || stop.with(Option::is_some));
    view! { <crate::chunks::OnDemandWhen when what="paused step" load=crate::chunks::paused/> }
}

/// The stop's banner: what the loop is about to send, editable, and the ways on.
#[component]
pub fn PausedBody() -> impl IntoView {
    let svc = use_services();
    let pausing = svc.pausing;
    let stop = pausing.stop;
    let draft = pausing.draft;
    let verdict = Memo::new(move |_| stop.with(|s| s.as_ref().map(|s| draft.with(|d| judge(s, d)))));
    let resume = move |step: bool| {
        // Step goes on to the loop's next phase; an app's stop has none.
        let step = step && stop.with_untracked(|s| s.as_ref().is_some_and(|s| s.at.in_loop()));
        let how = match verdict.get_untracked().as_ref().map(Draft::to_send) {
            Some(Err(_)) => return,
            Some(Ok(Some(v))) => Resume::Edited(v),
            Some(Ok(None)) | None => Resume::Continue,
        };
        if step { pausing.step_on(how) } else { pausing.resume(how) }
    };
    // F8 continues, F10 steps, wherever the focus is (a projector's presenter has no mouse).
    let keys = window_event_listener(leptos::ev::keydown, move |ev: KeyboardEvent| {
        if stop.with_untracked(Option::is_none) {
            return;
        }
        match ev.key().as_str() {
            "F8" => {
                ev.prevent_default();
                resume(false);
            }
            "F10" => {
                ev.prevent_default();
                resume(true);
            }
            _ => {}
        }
    });
    on_cleanup(move || keys.remove());
    let blocked = move || matches!(verdict.get(), Some(Draft::Invalid(_)));
    view! {
        {move || stop.get().map(|s| {
            let phase = s.at.phase().map_or("error".to_owned(), |p| format!("phase-{p}"));
            let editable = s.at.editable();
            let skippable = s.at.skippable();
            let (skip_words, stop_words, steps) = (s.at.skip_words(), s.at.stop_words(), s.at.in_loop());
            let original = pretty(&s.payload);
            let restore = original.clone();
            view! {
                <section class=format!("paused {phase}") role="region" aria-labelledby="paused-title">
                    <div class="paused-side">
                        <h2 id="paused-title">{s.heading()}</h2>
                        <p class="paused-what">{format!("{} — stopped {}.", s.title, s.at.describe())}</p>
                        {s.problem.clone().map(|p| view! { <p class="form-error" role="alert">{format!("That edit cannot be used: {p}")}</p> })}
                        {(!s.targets.is_empty()).then(|| {
                            let places: Vec<String> = s.targets.iter().map(route_hint).collect();
                            view! { <p class="hint">{format!(
                                "Change \"route\" to send it elsewhere: {}; and \"input\" for other arguments.",
                                places.join(", ")
                            )}</p> }
                        })}
                        {editable.then(|| view! {
                            <p class="draft-verdict" role="status">{move || match verdict.get() {
                                Some(Draft::Unchanged) | None => "Unchanged.".to_owned(),
                                Some(Draft::Valid(_)) => "Edited: valid. Continue sends this instead (marked edited on the timeline).".to_owned(),
                                Some(Draft::BreaksRule(_, rule)) => format!("Edited: the API will refuse it: {rule}. Continue sends it anyway, to show the API's answer."),
                                Some(Draft::Invalid(why)) => format!("Cannot be sent: {why}"),
                            }}</p>
                        })}
                        <div class="card-actions paused-actions">
                            <button type="button" class="primary" prop:disabled=blocked on:click=move |_| resume(false)>"Continue (F8)"</button>
                            {steps.then(|| view! {
                                <button type="button" prop:disabled=blocked on:click=move |_| resume(true)>"Step to the next phase (F10)"</button>
                            })}
                            {skippable.then(|| view! {
                                <button type="button" on:click=move |_| pausing.skip()>{skip_words}</button>
                            })}
                            {editable.then(|| view! {
                                <button type="button" class="link" on:click=move |_| draft.set(restore.clone())>"Restore the original"</button>
                            })}
                            <button type="button" class="danger" on:click=move |_| svc.stop_here()>{stop_words}</button>
                        </div>
                    </div>
                    <div class="paused-payload">
                        {if editable {
                            view! {
                                <label for="paused-payload">{s.at.payload_words()}</label>
                                <textarea id="paused-payload" class="json-editor" rows="10" spellcheck="false"
                                    prop:value=move || draft.get() on:input=move |ev| draft.set(event_target_value(&ev))></textarea>
                            }.into_any()
                        } else {
                            view! { <Code text=original label="As it will be used"/> }.into_any()
                        }}
                    </div>
                </section>
            }
        })}
    }
}

/// The breakpoints, as checkboxes (the Workshop panel).
#[component]
pub fn BreakpointChoices() -> impl IntoView {
    let pausing = use_services().pausing;
    view! {
        <fieldset class="breakpoints">
            <legend>"Stop the loop, or an app"</legend>
            {Breakpoint::ALL.map(|b| view! {
                <label class="check">
                    <input type="checkbox" prop:checked=move || pausing.is_set(b) on:change=move |_| pausing.toggle(b)/>
                    {b.phase().map_or(String::new(), |p| format!("{p} · "))}{b.describe()}
                </label>
            }).collect_view()}
        </fieldset>
    }
}
