//! The tasks the page follows, kept over a reload (engine::mcp's task book and `KeptTasks`,
//! `resume.rs`): in sessionStorage, so they last as long as the tab and no longer. Once a server
//! is connected again, each of its kept tasks is followed on, on the timeline and in the
//! running-tasks strip with its Cancel, and how it ended is said in the chat.

use leptos::task::spawn_local;
use std::rc::Rc;

use super::Services;
use engine::mcp::{KeptTasks, McpClient, resumed_outcome};
use engine::session::NoticeLevel;

const KEY: &str = "loopscope.tasks";

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.session_storage().ok()?
}

fn read() -> KeptTasks {
    KeptTasks::read(&storage().and_then(|s| s.get_item(KEY).ok().flatten()).unwrap_or_default())
}

fn update(change: impl FnOnce(&mut KeptTasks)) {
    let mut kept = read();
    change(&mut kept);
    if let Some(s) = storage() {
        let text = kept.text();
        let _ = if text.is_empty() { s.remove_item(KEY) } else { s.set_item(KEY, &text) };
    }
}

/// Keeps the tasks `client` follows from now on, and follows on the ones kept for `server`
/// before the reload.
pub fn keep(svc: Services, server: &str, client: &Rc<McpClient<crate::PagePlatform>>) {
    let id = server.to_owned();
    client.keep_task_book(Rc::new(move |change| update(|k| k.change(&id, change))));
    let live = client.live_tasks();
    for k in read().of(server).into_iter().filter(|k| !live.contains(&k.task)) {
        let client = client.clone();
        spawn_local(async move {
            let outcome = client.resume_task(&k.task, k.tool_use.clone()).await;
            update(|kept| kept.forget(&k.server, &k.task));
            let (ok, text) = resumed_outcome(&k.task, &svc.servers.name(&k.server), &outcome);
            svc.chat.notice(if ok { NoticeLevel::Info } else { NoticeLevel::Warning }, text, None);
        });
    }
}
