//! The timeline as a sequence diagram: trace events projected, one at a time, onto rows of
//! arrows between lanes (user, the page, Claude, local functions, each MCP server), grouped in
//! the four phases. Pure logic, so the projection is tested natively; the page only draws it.

mod overhead;
mod rows;
mod story;

pub use overhead::{StepOverhead, step_overhead};
pub use rows::{Badge, BadgeKind, Lane, Row, RowKind, Timeline};
pub use story::{Step, ToolStory, tool_story};

/// The article's names for the four phases.
pub fn phase_title(phase: u8) -> &'static str {
    match phase {
        1 => "Aggregate tools",
        2 => "Claude emits tool_use",
        3 => "Client routes",
        4 => "tool_result returns",
        _ => "",
    }
}
