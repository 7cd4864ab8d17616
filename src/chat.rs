//! The chat: streaming answers, each tool call inline with where it went and what came back,
//! and a clear line for every way a turn can end.

use leptos::prelude::*;

use super::chunks::OnDemand;
use super::state::{NoticeLevel, Shown, ShownBlock, use_services};
use super::widgets::{Code, FailureBox};
use engine::chat::{Block, ToolCall, ToolState, ToolStatus};
use engine::session::ToolOutcome;
use engine::text::pretty;
use engine::trace::RouteTarget;

/// Chat items drawn by default.
const RECENT: usize = 60;

const EXAMPLES: [&str; 4] = [
    "What's the weather in Tokyo, and what is 17 * 23?",
    "What time is it in Tokyo (UTC offset +09:00)?",
    "Search the notes for \"jsonrpc\" and explain what you find.",
    "Read the file src/main.ts, and call the flaky service.",
];

/// A part of the call a block holds (every block given to `ToolCallView` is one).
fn tool<T: Default>(block: RwSignal<Block>, f: impl FnOnce(&ToolCall) -> T) -> T {
    block.with(|b| match b {
        Block::Tool { call, .. } => f(call),
        _ => T::default(),
    })
}

/// One tool call. Its words follow the call as it moves on; the "Input" and result panels are
/// redrawn only when their own value changes (one the user opened stays open while progress
/// arrives).
#[component]
fn ToolCallView(block: RwSignal<Block>) -> impl IntoView {
    let name = block.with_untracked(|b| match b {
        Block::Tool { call, .. } => call.name.clone(),
        _ => String::new(),
    });
    let route = move || tool(block, |c| c.target.as_ref().map(RouteTarget::arrow));
    let progress = move || tool(block, |c| c.progress.clone());
    let status = move || tool(block, |c| Some(c.state.status())).unwrap_or(ToolStatus::Writing);
    let input = Memo::new(move |_| tool(block, |c| c.input.clone()));
    let partial = move || tool(block, |c| (c.input.is_none() && !c.partial.is_empty()).then(|| c.partial.clone()));
    // Its app is drawn once, from Claude's first piece of the call on; it follows the call itself.
    let has_app = Memo::new(move |_| tool(block, |c| c.app.is_some()));
    let ended = Memo::new(move |_| {
        tool(block, |c| match &c.state {
            ToolState::Ended(outcome) => Some(outcome.clone()),
            ToolState::Writing | ToolState::Running => None,
        })
    });
    view! {
        <div class=move || format!("tool-call {}", status().class())>
            <div class="tool-head">
                <span class="tool-icon" aria-hidden="true">"⚙"</span>
                <code class="tool-name">{name}</code>
                <span class="route">{route}</span>
                <span class=move || format!("tool-status {}", status().class())>{move || status().label()}</span>
            </div>
            {move || progress().map(|p| view! { <p class="progress" role="status">{p}</p> })}
            {move || partial().map(|p| view! { <p class="partial-input" aria-label="Arguments so far"><code>{p}</code></p> })}
            {move || input.get().map(|i| view! {
                <details><summary>"Input"</summary><Code text=pretty(&i) label="Tool input"/></details>
            })}
            {move || match ended.get()? {
                ToolOutcome::Done { text, failure, is_error } => Some(view! {
                    <details open=is_error>
                        <summary>{if is_error { "What Claude received (is_error)" } else { "What Claude received" }}</summary>
                        <Code text=text label="Tool result"/>
                    </details>
                    {failure.map(|f| view! { <FailureBox failure=f/> })}
                }
                .into_any()),
                outcome => outcome
                    .why_not_run()
                    .map(|why| view! { <p class="not-run-why">{why.to_owned()}</p> }.into_any()),
            }}
            {move || has_app.get().then(|| view! {
                <OnDemand what="app's host" load=move || crate::chunks::app_frame(block)/>
            })}
        </div>
    }
}

/// A text or thinking block's words as they stream.
fn block_text(block: RwSignal<Block>) -> impl Fn() -> String + Copy {
    move || {
        block.with(|b| match b {
            Block::Text { text, .. } | Block::Thinking { text, .. } => text.clone(),
            Block::Tool { .. } | Block::ApiCall { .. } => String::new(),
        })
    }
}

/// Claude's answer: its text, thinking and tool calls, each following the block as it moves on
/// (in the agent chunk, `chunks::answer`).
pub fn answer(blocks: RwSignal<Vec<ShownBlock>>, demo: bool, usage: RwSignal<Option<String>>) -> AnyView {
    view! {
            <div class="msg assistant">
                <span class="who">{if demo { "Demo model" } else { "Claude" }}</span>
                <For each=move || blocks.get() key=|b| b.key let:block>
                    {block.value.with_untracked(|b| match b {
                        Block::Tool { .. } => view! { <ToolCallView block=block.value/> }.into_any(),
                        Block::Thinking { .. } => view! {
                            <details class="thinking">
                                <summary>{move || block.value.with(|b| b.thinking_caption())}</summary>
                                <p class="prose">{block_text(block.value)}</p>
                            </details>
                        }
                        .into_any(),
                        Block::Text { .. } => view! { <p class="prose">{block_text(block.value)}</p> }.into_any(),
                        Block::ApiCall { name, .. } => view! {
                            <p class="api-call"><code>{name.clone()}</code>" run by the Claude API"</p>
                        }
                        .into_any(),
                    })}
                </For>
                {move || usage.get().map(|u| view! {
                    <p class="usage" title="This answer's usage, as the API reported it: cache read is what the prompt cache served, cache write what this request added to it">
                        {if demo { format!("{u} (demo estimate)") } else { u }}
                    </p>
                })}
            </div>
    }
    .into_any()
}

#[component]
fn Item(item: Shown) -> impl IntoView {
    match item {
        Shown::User { text, .. } => view! {
            <div class="msg user"><span class="who">"You"</span><p class="prose">{text}</p></div>
        }
        .into_any(),
        // Claude's answer is drawn by the agent chunk's code (only a turn, or a recording
        // opened, makes one): the first screen carries none of its views.
        Shown::Assistant { blocks, demo, usage, .. } => view! {
            <OnDemand what="answer's view" load=move || crate::chunks::answer(blocks, demo, usage)/>
        }
        .into_any(),
        Shown::Notice { level, text, hint, .. } => {
            let role = if level.interrupts() { "alert" } else { "status" };
            view! {
                <div class=format!("notice {}", level.class()) role=role>
                    <p>{text}</p>
                    {hint.map(|h| view! { <p class="hint">{h}</p> })}
                </div>
            }
            .into_any()
        }
    }
}

/// "Ask both ways" (its code is in the agent chunk, `state/both_ways.rs`).
/// Asks `text` both ways (`state/both_ways.rs`), once the comparison's code is here.
pub fn ask_both_ways(svc: crate::state::Services, text: String) {
    leptos::task::spawn_local(async move {
        if crate::chunks::ask_both_ways(svc, text).await.is_err() {
            svc.chat.notice(NoticeLevel::Error, crate::chunks::did_not_arrive("comparison's code"), None);
        }
    });
}

#[component]
pub fn ChatPanel() -> impl IntoView {
    let svc = use_services();
    let conv = svc.conversation;
    let log_ref = NodeRef::<leptos::html::Div>::new();
    // Keep the newest message in view (DOM sync only).
    Effect::new(move |_| {
        svc.chat.items.track();
        if let Some(el) = log_ref.get() {
            el.set_scroll_top(el.scroll_height());
        }
    });
    let send = move || conv.send(svc, conv.draft.get_untracked());
    // Long sessions keep the page fast by drawing only the latest messages (the history sent to
    // Claude is untouched); the rest are one click away.
    let show_all = RwSignal::new(false);
    let hidden = move || if show_all.get() { 0 } else { svc.chat.items.with(Vec::len).saturating_sub(RECENT) };
    view! {
        <section id="chat" class="panel chat" aria-labelledby="chat-title">
            <div class="panel-head">
                <h2 id="chat-title">"Chat"</h2>
                <button type="button" class="link" on:click=move |_| conv.start_anew(svc)
                    prop:disabled=move || svc.chat.items.with(Vec::is_empty) || svc.apps.closing.get()>
                    {move || if svc.apps.closing.get() { "Closing its apps…" } else { "New conversation" }}
                </button>
            </div>
            <div class="messages" role="log" aria-label="Conversation" aria-live="polite" node_ref=log_ref>
                <Show when=move || svc.chat.items.with(Vec::is_empty)>
                    <div class="empty-chat">
                        <p>"Ask something that needs a tool. Phase 1 starts when you send."</p>
                        <ul class="examples" aria-label="Example questions">
                            {EXAMPLES.iter().map(|e| view! {
                                <li><button type="button" class="example" on:click=move |_| conv.draft.set((*e).to_owned())>{*e}</button></li>
                            }).collect_view()}
                        </ul>
                    </div>
                </Show>
                <Show when=move || { hidden() > 0 }>
                    <button type="button" class="link earlier" on:click=move |_| show_all.set(true)>
                        {move || format!("Show {} earlier messages", hidden())}
                    </button>
                </Show>
                <For each=move || svc.chat.items.with(|i| i[hidden()..].to_vec()) key=|i| i.id() let:item>
                    <Item item=item/>
                </For>
            </div>
            <Show when=move || conv.running.get() && !crate::chunks::agent_arrived()>
                <p class="muted chunk-loading" role="status">"Loading the loop's code: the turn starts when it arrives…"</p>
            </Show>
            <form class="composer" on:submit=move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); send(); }>
                <label for="composer" class="visually-hidden">"Message"</label>
                <textarea id="composer" rows="2" placeholder="Ask Claude… (Enter to send, Shift+Enter for a new line)"
                    prop:disabled=move || svc.sessions.viewing.with(Option::is_some)
                    prop:value=move || conv.draft.get()
                    on:input=move |ev| conv.draft.set(event_target_value(&ev))
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() {
                            ev.prevent_default();
                            send();
                        }
                    }></textarea>
                <div class="composer-actions">
                    <Show when=move || conv.running.get() fallback=move || view! {
                        <button type="submit" class="primary"
                            prop:disabled=move || conv.draft.with(|d| d.trim().is_empty()) || svc.sessions.viewing.with(Option::is_some)>"Send"</button>
                        <Show when=move || svc.servers.list.with(|l| !l.is_empty())>
                            <button type="button"
                                title="The same question in this page's loop, then through the API's MCP connector (the API calls the server), compared"
                                prop:disabled=move || conv.draft.with(|d| d.trim().is_empty()) || svc.sessions.viewing.with(Option::is_some)
                                on:click=move |_| ask_both_ways(svc, conv.draft.get_untracked())>"Ask both ways"</button>
                        </Show>
                    }>
                        <button type="button" class="danger" on:click=move |_| svc.stop_turn()>"Stop"</button>
                    </Show>
                    <button type="button" class="step-toggle" aria-pressed=move || svc.pausing.step.get().to_string()
                        title="Stop at each phase of the next turn (workshop mode)"
                        on:click=move |_| svc.pausing.step.update(|s| *s = !*s)>"Step"</button>
                    <Show when=move || conv.can_retry.get() && !conv.running.get()>
                        <button type="button" on:click=move |_| conv.retry(svc)>"Retry"</button>
                    </Show>
                    <Show when=move || conv.offer_new.with(Option::is_some) && !conv.running.get()>
                        <button type="button" title="The same question, in a new conversation that uses the tools and system prompt as they are now"
                            on:click=move |_| conv.ask_anew(svc)>"Ask in a new conversation"</button>
                    </Show>
                </div>
            </form>
        </section>
    }
}
