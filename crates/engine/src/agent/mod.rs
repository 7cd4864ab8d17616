//! The agent loop: the four phases of the article, with local tools and MCP tools side by side.

pub mod calc;
mod call;
pub mod catalog;
pub mod consent;
pub mod content;
mod cost;
pub mod edit;
mod events;
pub mod local;
pub mod pause;
pub mod route;
mod run;
pub mod sampling;
pub mod skills;
mod steps;
pub mod teach;

pub use catalog::{Catalog, Origin};
pub use consent::{AskWhy, Consent, Driver, Mode, destructive_note, marked_destructive};
pub use edit::{Draft, Edit, EditError, app_edit, check_edit, judge, read_edit, route_hint};
pub use events::{AgentEvent, Speaker, TurnEnd, TurnOutcome};
pub use pause::{Breakpoint, Pauser, Resume, Stop};
pub use run::{Agent, Approver, Emit, ServerHandle, Turn, approval};
pub use skills::{InPlace as SkillsInPlace, Offer as SkillOffer, Offering, ServerSkills, SkillRunner};
pub use teach::Teach;
