//! The timeline as a sequence diagram: trace events projected, one at a time, onto rows of
//! arrows between lanes (user, the page, Claude, local functions, each MCP server), grouped in
//! the four phases. Pure logic, so the projection is tested natively; the page only draws it.

mod figures;
mod overhead;
mod rows;
mod story;
mod visible;

mod detail;
pub use detail::{RawStep, TwoSides, raw, request_sides, story_sides};
pub use figures::{CompareRow, Figures, side_by_side};
pub use overhead::{StepOverhead, step_overhead};
pub use rows::{Badge, BadgeKind, Lane, Row, RowKind, TaskSpan, Timeline};
pub use story::{Step, StoryLayer, ToolStory, tool_story};
pub use visible::{BandKey, band_key, duration_words, lane_position, visible};

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

/// What happens in each phase, in the article's terms, for the page to explain.
pub fn phase_story(phase: u8) -> &'static str {
    match phase {
        1 => {
            "The client asks each MCP server for its tools (tools/list) and merges them with its own \
              functions into one tools array. Claude cannot tell which tool came from where."
        }
        2 => {
            "Claude answers with tool_use blocks, a tool name and JSON input, and stops \
              (stop_reason tool_use). It knows nothing of MCP."
        }
        3 => {
            "The client looks at each name: a local function runs in the page; an MCP tool goes to \
              the server that listed it, as a JSON-RPC tools/call."
        }
        4 => {
            "Every result goes back as a tool_result in one new user message: the client speaks for \
              the user, bringing facts from outside. A failure goes back too, with is_error: true; \
              leaving it out gets a 400."
        }
        _ => "",
    }
}
