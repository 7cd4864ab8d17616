//! The page's frame: header, the settings and servers sidebar, chat, and the timeline.

use leptos::prelude::*;

use super::theme::ThemeToggle;

#[component]
pub fn App() -> impl IntoView {
    view! {
        <a class="skip-link" href="#timeline">"Skip to timeline"</a>
        <header class="topbar">
            <h1 class="brand">"Loopscope"</h1>
            <p class="tagline">"Watch Claude call tools through MCP, one phase at a time."</p>
            <ThemeToggle/>
        </header>
        <div class="workspace">
            <aside class="sidebar">
                <section id="settings" class="panel" aria-labelledby="settings-title">
                    <h2 id="settings-title">"Settings"</h2>
                    <p class="empty">"Your Claude API key and model settings will live here."</p>
                </section>
                <section id="servers" class="panel" aria-labelledby="servers-title">
                    <h2 id="servers-title">"Servers"</h2>
                    <p class="empty">"No MCP servers connected."</p>
                </section>
            </aside>
            <main class="stage">
                <section id="chat" class="panel chat" aria-labelledby="chat-title">
                    <h2 id="chat-title">"Chat"</h2>
                    <div class="messages" role="log" aria-label="Conversation">
                        <p class="empty">"No messages yet."</p>
                    </div>
                </section>
                <section id="timeline" class="panel timeline" aria-labelledby="timeline-title">
                    <h2 id="timeline-title">"Timeline"</h2>
                    <ol class="phase-legend" aria-label="The four phases">
                        <li class="phase-1">"1 Aggregate tools"</li>
                        <li class="phase-2">"2 Claude emits tool_use"</li>
                        <li class="phase-3">"3 Client routes"</li>
                        <li class="phase-4">"4 tool_result returns"</li>
                    </ol>
                    <p class="empty">"Nothing has happened yet. Every HTTP request, JSON-RPC message and Claude stream will appear here."</p>
                </section>
            </main>
        </div>
    }
}
