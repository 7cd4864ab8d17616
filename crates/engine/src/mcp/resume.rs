//! Tasks over a page reload. A task outlives the turn that waited for it: the page keeps the ids
//! of the tasks it follows (the task book, told of each start and end) and, once the server is
//! connected again, follows them on from where `tasks/get` says they stand. The turn that asked
//! is gone, so the result goes to the user, not to Claude. A server may refuse: a 2025-11-25
//! task may be bound to the session that created it, which a reload ends.

use std::rc::Rc;

use serde_json::json;

use super::tasks::{MAX_ID_CHARS, decode_task};
use super::{McpClient, McpError, RequestOptions};
use crate::platform::Platform;
use protocol::mcp::{CallToolResult, method};

/// A task starting or stopping being followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskChange {
    Followed { task_id: String, tool_use_id: Option<String> },
    Ended { task_id: String },
}

/// Who is told of each [`TaskChange`] on one connection.
pub type TaskBook = Rc<dyn Fn(TaskChange)>;

/// The most characters of a resumed task's result said in the chat.
const SHOWN_CHARS: usize = 600;
/// The most tasks a page keeps over a reload.
pub const MAX_KEPT: usize = 32;

/// One task a page keeps over a reload: its server (the page's id for it), its id, and the
/// tool_use it was for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptTask {
    pub server: String,
    pub task: String,
    pub tool_use: Option<String>,
}

/// The tasks a page keeps over a reload, as the text it stores: a line per task, its fields
/// apart by tabs. What storage gives back is read as data: a line of another shape, an empty or
/// over-long id, or a control character in a field is left out, and at most [`MAX_KEPT`] are
/// read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeptTasks(Vec<KeptTask>);

fn storable(field: &str) -> bool {
    !field.is_empty() && field.chars().count() <= MAX_ID_CHARS && !field.chars().any(char::is_control)
}

impl KeptTasks {
    pub fn read(text: &str) -> Self {
        let kept = text.lines().filter_map(|line| {
            let mut fields = line.split('\t');
            let (server, task, tool_use) = (fields.next()?, fields.next()?, fields.next());
            let tool_use = tool_use.filter(|t| !t.is_empty());
            let all_fine =
                fields.next().is_none() && storable(server) && storable(task) && tool_use.is_none_or(storable);
            all_fine.then(|| KeptTask { server: server.into(), task: task.into(), tool_use: tool_use.map(Into::into) })
        });
        Self(kept.take(MAX_KEPT).collect())
    }

    /// The text to store; empty when nothing is kept.
    pub fn text(&self) -> String {
        self.0.iter().map(|k| format!("{}\t{}\t{}\n", k.server, k.task, k.tool_use.as_deref().unwrap_or(""))).collect()
    }

    /// Records what `server`'s connection said: a task followed is kept (the oldest dropped
    /// past [`MAX_KEPT`]; one that cannot be stored is not kept), an ended one forgotten.
    pub fn change(&mut self, server: &str, change: TaskChange) {
        match change {
            TaskChange::Followed { task_id, tool_use_id } => {
                self.forget(server, &task_id);
                let tool_use = tool_use_id.filter(|t| storable(t));
                if storable(server) && storable(&task_id) {
                    self.0.push(KeptTask { server: server.into(), task: task_id, tool_use });
                }
                let over = self.0.len().saturating_sub(MAX_KEPT);
                self.0.drain(..over);
            }
            TaskChange::Ended { task_id } => self.forget(server, &task_id),
        }
    }

    pub fn forget(&mut self, server: &str, task: &str) {
        self.0.retain(|k| !(k.server == server && k.task == task));
    }

    /// The tasks kept for `server`.
    pub fn of(&self, server: &str) -> Vec<KeptTask> {
        self.0.iter().filter(|k| k.server == server).cloned().collect()
    }
}

impl<P: Platform> McpClient<P> {
    /// Tells `book` of every task this connection starts or stops following.
    pub fn keep_task_book(&self, book: TaskBook) {
        *self.task_book.borrow_mut() = Some(book);
    }

    pub(super) fn task_changed(&self, change: TaskChange) {
        let book = self.task_book.borrow().clone();
        if let Some(book) = book {
            book(change);
        }
    }

    /// Follows a task this page followed before it was reloaded: where `tasks/get` says it
    /// stands, then on to its end, as any task (with its Cancel, limits and input requests).
    /// `tool_use_id` links it to the call it was for on the timeline.
    pub async fn resume_task(&self, task_id: &str, tool_use_id: Option<String>) -> Result<CallToolResult, McpError> {
        if self.task_era().is_none() {
            return Err(McpError::Client(
                "the server no longer declares tasks for tools/call, so the page cannot ask about it".into(),
            ));
        }
        let opts = RequestOptions { trace_link: tool_use_id, ..RequestOptions::default() };
        let got = self.send_request(method::TASKS_GET, Some(json!({ "taskId": task_id })), &opts, None).await?;
        let task = decode_task(got, Some(task_id))?;
        self.follow_known(task, true, &opts).await
    }
}

/// What the chat says of a resumed task's end: whether it went well, and the sentence.
pub fn resumed_outcome(task_id: &str, server: &str, outcome: &Result<CallToolResult, McpError>) -> (bool, String) {
    let head = format!("Task {task_id} on {server}, started before this page was reloaded,");
    let after = "The turn that asked for it ended with the reload, so Claude did not receive this.";
    match outcome {
        Ok(r) => {
            let text: String = r.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("\n");
            let shown: String = text.chars().take(SHOWN_CHARS).collect();
            let more = if text.chars().count() > SHOWN_CHARS { "…" } else { "" };
            let said = if shown.is_empty() { "no text".to_owned() } else { format!("\"{shown}{more}\"") };
            let how = if r.is_error { "ended with the tool's error (isError)" } else { "completed" };
            (!r.is_error, format!("{head} {how}: {said}. {after}"))
        }
        Err(e) => (false, format!("{head} could not be followed to its end: {e}. {after}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::mcp::ContentBlock;

    #[test]
    fn kept_tasks_read_back_what_was_stored_and_nothing_of_another_shape() {
        let mut kept = KeptTasks::default();
        kept.change("s1", TaskChange::Followed { task_id: "t-1".into(), tool_use_id: Some("toolu_1".into()) });
        kept.change("s2", TaskChange::Followed { task_id: "t-2".into(), tool_use_id: None });
        let again = KeptTasks::read(&kept.text());
        assert_eq!(again, kept);
        assert_eq!(
            again.of("s1"),
            [KeptTask { server: "s1".into(), task: "t-1".into(), tool_use: Some("toolu_1".into()) }]
        );
        // Written by something else: too long, control characters, too many fields, no id.
        let hostile = format!("s1\t{}\t\ns1\tbad\u{7}id\t\ns1\ta\tb\tc\ns1\n\ns1\tok\t\n", "x".repeat(5000));
        assert_eq!(KeptTasks::read(&hostile).of("s1").iter().map(|k| k.task.as_str()).collect::<Vec<_>>(), ["ok"]);
        // A task id with a tab or a newline is not kept: it could not be read back as itself.
        kept.change("s1", TaskChange::Followed { task_id: "t\t3".into(), tool_use_id: None });
        assert_eq!(kept.of("s1").len(), 1);
        kept.change("s1", TaskChange::Ended { task_id: "t-1".into() });
        assert!(kept.of("s1").is_empty());
        for i in 0..40 {
            kept.change("s", TaskChange::Followed { task_id: format!("t{i}"), tool_use_id: None });
        }
        let all = KeptTasks::read(&kept.text());
        assert_eq!(all.of("s").len() + all.of("s2").len(), MAX_KEPT);
        assert_eq!(all.of("s").last().unwrap().task, "t39", "the oldest go first");
    }

    #[test]
    fn a_long_result_is_cut_by_characters_and_says_claude_did_not_get_it() {
        let r = CallToolResult { content: vec![ContentBlock::text("é".repeat(700))], ..CallToolResult::default() };
        let (ok, text) = resumed_outcome("t1", "tasks", &Ok(r));
        assert!(ok);
        assert!(text.contains(&format!("\"{}…\"", "é".repeat(600))), "{text}");
        assert!(text.ends_with("so Claude did not receive this."));
        let (ok, text) = resumed_outcome("t1", "tasks", &Err(McpError::Client("gone".into())));
        assert!(!ok);
        assert!(text.contains("could not be followed to its end: "), "{text}");
    }
}
