//! Small pieces shared by the panels. Everything untrusted (model output, tool output, server
//! names, descriptions, instructions) is rendered as text nodes: never as HTML.

use leptos::prelude::*;

use engine::layer::Failure;

/// The ▸/▾ button that shows or hides a card's body; its name says which ("Show details").
#[component]
pub fn Disclosure(open: RwSignal<bool>, what: &'static str) -> impl IntoView {
    view! {
        <button type="button" class="icon" aria-expanded=move || open.get().to_string()
            aria-label=move || format!("{} {what}", if open.get() { "Hide" } else { "Show" })
            on:click=move |_| open.update(|o| *o = !*o)>
            {move || if open.get() { "▾" } else { "▸" }}
        </button>
    }
}

/// A stranger's name or label: every character that could disguise it shown as it is stored
/// (`engine::text::visible`), set apart from the page's own words, and cut at `max` characters
/// with the whole of it one click away.
#[component]
pub fn Stranger(#[prop(into)] text: String, #[prop(optional)] max: Option<usize>) -> impl IntoView {
    let (cut, was_cut) = engine::text::visible_cut(&text, max.unwrap_or(80));
    let whole = engine::text::visible(&text);
    let open = RwSignal::new(false);
    view! {
        <span class="stranger">{move || if open.get() { whole.clone() } else { cut.clone() }}</span>
        {was_cut.then(|| view! {
            <button type="button" class="link stranger-more" aria-expanded=move || open.get().to_string()
                on:click=move |_| open.update(|o| *o = !*o)>{move || if open.get() { "less" } else { "all of it" }}</button>
        })}
    }
}

/// A code block with a label for screen readers.
#[component]
pub fn Code(#[prop(into)] text: Signal<String>, #[prop(into, optional)] label: String) -> impl IntoView {
    view! { <pre class="code" tabindex="0" aria-label=label>{move || text.get()}</pre> }
}

/// A failure: which layer, what happened, what to do (its first sentence; the rest one click away).
#[component]
pub fn FailureBox(failure: Failure) -> impl IntoView {
    let Failure { layer, message, hint } = failure;
    let hint = hint.map(|h| {
        let (first, rest) = engine::text::first_sentence(&h);
        let rest = (!rest.is_empty()).then(|| rest.to_owned());
        view! {
            <p class="failure-hint">{first.to_owned()}</p>
            {rest.map(|r| view! { <details class="failure-more"><summary>"What to check"</summary><p>{r}</p></details> })}
        }
    });
    view! {
        <div class="failure" role="alert">
            <span class=format!("badge {}", layer.class())>{format!("{} layer", layer.label())}</span>
            <p class="failure-message">{message}</p>
            {hint}
        </div>
    }
}
