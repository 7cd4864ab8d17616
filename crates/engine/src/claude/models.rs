//! What Loopscope knows about each Claude model that changes the loop: which kinds of thinking it
//! accepts, whether thinking is on when a request says nothing, what `display` defaults to, and
//! whether it refuses a forced `tool_choice`. From the model and thinking documentation of
//! 2026-10 (docs/claude-loop.md names the pages). A model that is not listed is sent as the user
//! typed it, with no check: the API is the judge of ids Loopscope has not heard of.

/// A kind of `thinking` a request can ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThinkingKind {
    /// `{"type":"enabled","budget_tokens":N}`: manual, "extended" thinking.
    Enabled,
    /// `{"type":"adaptive"}`: the model decides, steered by `output_config.effort`.
    Adaptive,
    /// `{"type":"disabled"}`.
    Disabled,
}

impl ThinkingKind {
    /// The value of `thinking.type` on the wire.
    pub fn wire(self) -> &'static str {
        match self {
            ThinkingKind::Enabled => "enabled",
            ThinkingKind::Adaptive => "adaptive",
            ThinkingKind::Disabled => "disabled",
        }
    }
}

/// Where a model stands in Anthropic's lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Availability {
    Current,
    /// Still served, no longer the newest of its line.
    Legacy,
    /// Only for organisations given access.
    Gated,
}

/// One model's facts, as far as the loop is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Model {
    pub id: &'static str,
    pub availability: Availability,
    /// The `thinking.type` values it accepts; any other is a 400.
    pub accepts: &'static [ThinkingKind],
    /// Thinking happens when the request does not mention it (blocks come back first).
    pub thinks_by_default: bool,
    /// `display` when not sent: `true` summarized text, `false` omitted (empty text, signed).
    pub shows_thinking_by_default: bool,
    /// `tool_choice` `any`/`tool` is accepted (with adaptive or default thinking).
    pub allows_forced_tool_choice: bool,
    /// `output_config.effort` is accepted, and whether `xhigh` is among its levels.
    pub effort: bool,
    pub xhigh: bool,
    /// Manual thinking between tool calls needs the `interleaved-thinking-2025-05-14` beta.
    pub interleaved_needs_beta: bool,
    /// Preserved thinking: a thinking block is valid only while `system`, the `tools` and the
    /// earlier messages stay as they were when it was made (a 400 otherwise, on accounts made
    /// since 2026-08-31).
    pub binds_thinking: bool,
}

use Availability::{Current, Gated, Legacy};
use ThinkingKind::{Adaptive, Disabled, Enabled};

const fn model(id: &'static str, availability: Availability, accepts: &'static [ThinkingKind]) -> Model {
    Model {
        id,
        availability,
        accepts,
        thinks_by_default: true,
        shows_thinking_by_default: false,
        allows_forced_tool_choice: true,
        effort: true,
        xhigh: true,
        interleaved_needs_beta: false,
        binds_thinking: false,
    }
}

/// The models of the documentation of 2026-10, newest first. Retired ones are left out (a
/// request names them at its peril; the API answers 404).
pub const MODELS: &[Model] = &[
    Model { allows_forced_tool_choice: false, binds_thinking: true, ..model("claude-fable-5-1", Current, &[Adaptive]) },
    Model { allows_forced_tool_choice: false, binds_thinking: true, ..model("claude-opus-5-5", Current, &[Adaptive]) },
    Model {
        allows_forced_tool_choice: false,
        binds_thinking: true,
        ..model("claude-sonnet-5-5", Current, &[Adaptive])
    },
    Model { xhigh: false, binds_thinking: true, ..model("claude-haiku-5-5", Current, &[Adaptive, Disabled]) },
    model("claude-fable-5", Legacy, &[Adaptive]),
    Model { xhigh: false, ..model("claude-opus-5", Legacy, &[Adaptive, Disabled]) },
    model("claude-sonnet-5", Legacy, &[Adaptive, Disabled]),
    Model { thinks_by_default: false, ..model("claude-opus-4-8", Legacy, &[Adaptive, Disabled]) },
    Model { thinks_by_default: false, ..model("claude-opus-4-7", Legacy, &[Adaptive, Disabled]) },
    Model {
        thinks_by_default: false,
        shows_thinking_by_default: true,
        xhigh: false,
        ..model("claude-opus-4-6", Legacy, &[Adaptive, Enabled, Disabled])
    },
    Model {
        thinks_by_default: false,
        shows_thinking_by_default: true,
        xhigh: false,
        ..model("claude-sonnet-4-6", Legacy, &[Adaptive, Enabled, Disabled])
    },
    Model {
        thinks_by_default: false,
        shows_thinking_by_default: true,
        xhigh: false,
        interleaved_needs_beta: true,
        ..model("claude-opus-4-5-20251101", Legacy, &[Enabled, Disabled])
    },
    Model {
        thinks_by_default: false,
        shows_thinking_by_default: true,
        effort: false,
        xhigh: false,
        ..model("claude-haiku-4-5-20251001", Legacy, &[Enabled, Disabled])
    },
    Model { allows_forced_tool_choice: false, ..model("claude-mythos-5-1", Gated, &[Adaptive]) },
    model("claude-mythos-5", Gated, &[Adaptive]),
    Model { allows_forced_tool_choice: false, ..model("claude-mythos-preview", Gated, &[Adaptive, Enabled]) },
];

/// The model Loopscope starts with.
pub const DEFAULT_MODEL: &str = "claude-sonnet-5-5";

impl Model {
    /// The facts for `id`: its exact id, or a dated snapshot's alias (`claude-opus-4-5` for
    /// `claude-opus-4-5-20251101`), or a dated form of a listed alias.
    pub fn find(id: &str) -> Option<&'static Model> {
        let id = id.trim();
        MODELS.iter().find(|m| m.id == id).or_else(|| {
            MODELS
                .iter()
                .find(|m| m.id.strip_prefix(id).is_some_and(is_date) || id.strip_prefix(m.id).is_some_and(is_date))
        })
    }

    pub fn accepts(&self, kind: ThinkingKind) -> bool {
        self.accepts.contains(&kind)
    }

    /// A line for the model picker: what this model does with thinking unless told otherwise.
    pub fn summary(&self) -> String {
        let thinking = match (self.thinks_by_default, self.accepts(Disabled)) {
            (true, false) => "always thinks",
            (true, true) => "thinks unless turned off",
            (false, _) => "thinks when asked",
        };
        let shown = if self.shows_thinking_by_default { "summarized" } else { "omitted" };
        let gated = if self.availability == Gated { " · access by invitation" } else { "" };
        format!("{thinking} · thinking text {shown} by default{gated}")
    }
}

/// `-20251101`: a snapshot date after an alias.
fn is_date(rest: &str) -> bool {
    rest.strip_prefix('-').is_some_and(|d| d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// The ids the model field suggests: everything not gated.
pub fn suggestions() -> impl Iterator<Item = &'static Model> {
    MODELS.iter().filter(|m| m.availability != Gated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_snapshots_find_the_same_model_and_strangers_find_none() {
        assert_eq!(Model::find("claude-opus-4-5").map(|m| m.id), Some("claude-opus-4-5-20251101"));
        assert_eq!(Model::find(" claude-sonnet-5-5 ").map(|m| m.id), Some("claude-sonnet-5-5"));
        assert_eq!(Model::find("claude-sonnet-5-5-20261001").map(|m| m.id), Some("claude-sonnet-5-5"));
        // A prefix that is not a date is another model, not this one.
        assert!(Model::find("claude-opus-4").is_none());
        assert!(Model::find("claude-opus-5-5-turbo").is_none());
        assert!(Model::find("demo-model").is_none());
    }

    #[test]
    fn the_default_is_current_and_the_list_names_no_retired_model() {
        let default = Model::find(DEFAULT_MODEL).unwrap();
        assert_eq!(default.availability, Current);
        // Sonnet 4.5 retired on 2026-11-30; Opus 4.1 and Sonnet 4 before it.
        for gone in ["claude-sonnet-4-5", "claude-opus-4-1", "claude-sonnet-4"] {
            assert!(Model::find(gone).is_none(), "{gone}");
        }
        assert!(suggestions().all(|m| m.availability != Gated));
        assert!(Model::find("claude-opus-5-5").unwrap().summary().starts_with("always thinks"));
        assert!(Model::find("claude-opus-4-6").unwrap().summary().contains("summarized"));
    }
}
