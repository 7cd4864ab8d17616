//! Tasks on the timeline: each status a task reaches is a row on its server's lane, and the
//! task's life is a bar on that lane from the row that showed it created to the row that showed
//! it end (open while the page still polls it). The polls themselves are ordinary arrows.

use super::*;
use protocol::mcp::TaskStatus;

/// A task's life on its server's lane.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskSpan {
    pub task_id: String,
    pub lane: Lane,
    /// The row that showed the task created.
    pub first_row: usize,
    /// The row that showed it end, or that the page stopped following it; `None` while polled.
    pub last_row: Option<usize>,
    /// The latest status seen, and what the server said with it.
    pub status: TaskStatus,
    pub message: Option<String>,
    pub tool_use_id: Option<String>,
}

impl TaskSpan {
    /// Whether the page is still following the task (its Cancel can still be asked).
    pub fn live(&self) -> bool {
        self.last_row.is_none()
    }

    /// The bar's first and last position among the `shown` rows (row indices, ascending), if
    /// any of its life is shown; a live task's bar reaches the last shown row.
    pub fn in_view(&self, shown: &[usize]) -> Option<(usize, usize)> {
        let start = shown.partition_point(|i| *i < self.first_row);
        let end = match self.last_row {
            Some(last) => shown.partition_point(|i| *i <= last).checked_sub(1)?,
            None => shown.len().checked_sub(1)?,
        };
        (start <= end).then_some((start, end))
    }

    /// The server's id, from its lane.
    pub fn server_id(&self) -> Option<&str> {
        match &self.lane {
            Lane::Server(id) => Some(id),
            _ => None,
        }
    }
}

/// What one `TraceKind::Task` event says.
pub(super) struct TaskNews<'a> {
    pub task_id: &'a str,
    pub status: TaskStatus,
    pub message: Option<&'a str>,
    pub tool_use_id: Option<&'a String>,
    pub poll_ms: Option<u64>,
    pub resumed: bool,
}

/// The status as its row's badge says it, and whether that is a failure.
fn status_badge(status: TaskStatus) -> (BadgeKind, &'static str, bool) {
    match status {
        TaskStatus::Working => (BadgeKind::Info, "working", false),
        TaskStatus::InputRequired => (BadgeKind::Info, "input required", false),
        TaskStatus::Completed => (BadgeKind::Info, "completed", false),
        TaskStatus::Failed => (BadgeKind::Failure, "failed", true),
        TaskStatus::Cancelled => (BadgeKind::Failure, "cancelled", true),
    }
}

/// A task id in a few characters (ids are often UUIDs).
fn short_id(id: &str) -> String {
    if id.chars().count() > 10 { format!("{}…", id.chars().take(8).collect::<String>()) } else { id.to_owned() }
}

impl Timeline {
    /// The tasks seen so far, in the order they were created.
    pub fn tasks(&self) -> &[TaskSpan] {
        &self.tasks
    }

    pub(super) fn on_task(&mut self, e: &TraceEvent, lane: Lane, news: TaskNews<'_>) -> usize {
        let TaskNews { task_id, status, message, tool_use_id, poll_ms, resumed } = news;
        let known = self.tasks.iter().position(|t| t.lane == lane && t.task_id == task_id);
        // The status is the row's badge; the label says only what is not a status.
        let word = match known {
            None if resumed => " followed on after a reload",
            None => " created",
            Some(_) if poll_ms.is_none() && !status.is_terminal() => " no longer followed",
            Some(_) => "",
        };
        let label = format!("task {}{word}", short_id(task_id));
        let detail = message.map(|m| short(m, 100)).unwrap_or_default();
        let row = self.add(e, RowKind::Note { lane: lane.clone() }, label, detail);
        self.for_tool(row, tool_use_id.cloned());
        let (kind, text, failed) = status_badge(status);
        self.badge(row, kind, text, failed);
        if let Some(ms) = poll_ms {
            self.badge(row, BadgeKind::Info, format!("poll {}", duration_words(ms as f64)), false);
        }
        let span = match known {
            Some(i) => i,
            None => {
                self.tasks.push(TaskSpan {
                    task_id: task_id.to_owned(),
                    lane,
                    first_row: row,
                    last_row: None,
                    status,
                    message: None,
                    tool_use_id: tool_use_id.cloned(),
                });
                self.tasks.len() - 1
            }
        };
        if let Some(t) = self.tasks.get_mut(span) {
            t.status = status;
            t.message = message.map(str::to_owned);
            if poll_ms.is_none() {
                t.last_row = Some(row);
            }
        }
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(first_row: usize, last_row: Option<usize>) -> TaskSpan {
        TaskSpan {
            task_id: "t".into(),
            lane: Lane::Server("s".into()),
            first_row,
            last_row,
            status: TaskStatus::Working,
            message: None,
            tool_use_id: None,
        }
    }

    #[test]
    fn a_bar_covers_the_shown_rows_of_its_life() {
        let shown = [0, 1, 2, 5, 6, 9];
        assert_eq!(span(1, Some(6)).in_view(&shown), Some((1, 4)));
        // Its first rows folded away: it starts at the next shown row.
        assert_eq!(span(3, Some(9)).in_view(&shown), Some((3, 5)));
        // Live: to the last shown row.
        assert_eq!(span(5, None).in_view(&shown), Some((3, 5)));
        // Its whole life folded away: no bar.
        assert_eq!(span(3, Some(4)).in_view(&shown), None);
        assert_eq!(span(0, None).in_view(&[]), None);
    }
}
