//! The page's services, shared through one context handle (`Services`, a bag of `Copy`
//! handles) with command methods, instead of signals threaded through props.

mod auth;
mod both_ways;
mod bridge;
mod chat;
mod connect;
mod connection;
mod conversation;
mod dialogs;
mod lesson;
mod live_apps;
mod pausing;
mod resources;
mod saved_tasks;
mod servers;
mod session;
mod settings;
mod storage;
mod tabs;
mod trace;
mod workshop;

pub use auth::check_metadata_document;
pub use chat::{NoticeLevel, Shown, ShownBlock};
pub use connection::on_notification;
pub use conversation::TurnInput;
pub use dialogs::{Answer, Dialog, DialogKind};
pub use lesson::{BUILT_IN as BUILT_IN_LESSONS, Lessons};
pub use live_apps::{EndAll, LiveApps};
pub use pausing::Pausing;
pub use resources::Reading;
pub use servers::{LogLine, ServerEntry};
pub use session::{Sessions, Viewing};
pub use settings::SettingsData;
pub use trace::Trace;
pub use workshop::Workshop;

use leptos::prelude::*;
use std::rc::Rc;

use super::PagePlatform;
use super::platform::Browser;
use engine::agent::Agent;
use engine::demo::Demo;
use engine::faults::Faults;
use engine::trace::Tracer;

/// What lives for the whole page and is not reactive: the platform, the one tracer (every
/// client shares its sequence), the agent.
pub struct Runtime {
    pub platform: Rc<PagePlatform>,
    pub tracer: Tracer,
    pub agent: Rc<Agent<PagePlatform>>,
    /// The faults a workshop injected, shared by every MCP client and the agent.
    pub faults: Faults,
}

#[derive(Clone, Copy)]
pub struct Services {
    pub settings: settings::Settings,
    pub servers: servers::Servers,
    pub chat: chat::Chat,
    pub trace: trace::Trace,
    pub dialogs: dialogs::Dialogs,
    pub conversation: conversation::Conversation,
    pub workshop: Workshop,
    pub pausing: Pausing,
    pub sessions: Sessions,
    pub lessons: Lessons,
    /// The MCP Apps shown, to end before the chat is cleared.
    pub apps: LiveApps,
    runtime: StoredValue<Runtime, LocalStorage>,
}

impl Services {
    /// Creates the services and provides them to the component tree.
    pub fn provide() -> Self {
        // Before anything reads a URL (saved servers, a lesson's link): the browser's parser.
        engine::whatwg::install(crate::platform::url_href);
        let (settings, out_of_bounds) = settings::Settings::load();
        let trace = trace::Trace::new();
        let platform = Rc::new(Demo::with_runner(Browser, Rc::new(crate::chunks::DemoFromChunk)));
        let clock = platform.clone();
        let tracer = Tracer::new(
            move || engine::platform::Platform::now_ms(&*clock),
            move |e| trace.push(e, settings.data.with_untracked(|d| d.limits.trace_bytes)),
        );
        // Its skills runner comes with the agent chunk (chunks/agent.rs).
        let agent = Rc::new(Agent::without_skills(platform.clone(), tracer.clone()));
        let faults = Faults::new();
        let services = Services {
            workshop: Workshop::new(&faults),
            pausing: Pausing::new(),
            sessions: Sessions::new(),
            lessons: Lessons::new(),
            apps: LiveApps::new(),
            settings,
            servers: servers::Servers::new(),
            chat: chat::Chat::new(),
            trace,
            dialogs: dialogs::Dialogs::new(),
            conversation: conversation::Conversation::new(),
            runtime: StoredValue::new_local(Runtime { platform, tracer, agent, faults }),
        };
        provide_context(services);
        if let Some(text) = out_of_bounds {
            services.chat.notice(NoticeLevel::Warning, text, None);
        }
        tabs::listen(services);
        if leptos::prelude::location().protocol().is_ok_and(|p| p == "https:") {
            // An https page may be its own OAuth client id: find out before a restored server's
            // sign-in needs it (one same-origin request).
            // The agent chunk's code: the servers restored wait for it anyway.
            leptos::task::spawn_local(async move {
                let platform = services.runtime(|r| r.platform.clone());
                if let Ok(check) = crate::chunks::check_metadata_document(platform).await {
                    check.await;
                }
                services.restore_servers();
            });
        } else {
            services.restore_servers();
        }
        // A workshop link (…/?demo) opens with the demo model and the demo server: no key and no
        // server needed.
        let search = leptos::prelude::location().search().unwrap_or_default();
        if search.trim_start_matches('?').split('&').any(|p| p == "demo" || p.starts_with("demo=")) {
            services.settings.update(|d| d.demo = true);
            services.add_demo_server();
        }
        services.note_lesson_from_address();
        services.note_bridge_from_address();
        services
    }

    pub fn runtime<R>(&self, f: impl FnOnce(&Runtime) -> R) -> R {
        self.runtime.with_value(f)
    }

    pub fn now_ms(&self) -> f64 {
        self.runtime(|r| engine::platform::Platform::now_ms(&*r.platform))
    }
}

pub fn use_services() -> Services {
    expect_context::<Services>()
}
