//! Thinking as the user sets it, what it adds to a request, and the rules the API would enforce
//! with a 400, checked before anything is sent so the user reads the rule, not a refusal.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::models::{Model, ThinkingKind};

/// The `anthropic-beta` value that lets manual thinking happen between tool calls on the models
/// that need it (`Model::interleaved_needs_beta`).
pub const INTERLEAVED_BETA: &str = "interleaved-thinking-2025-05-14";
/// The smallest `budget_tokens` the API takes.
pub const MIN_BUDGET: u32 = 1024;

/// What the request says about thinking.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThinkingMode {
    /// Say nothing: the model's default (on for the newest models, off for older ones).
    #[default]
    #[serde(rename = "default")]
    ModelDefault,
    /// `disabled`.
    Off,
    /// `adaptive`, steered by effort.
    Adaptive,
    /// `enabled` with a token budget (manual, "extended" thinking).
    Budget,
}

/// `output_config.effort`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effort {
    Low,
    Medium,
    High,
    Xhigh,
    Max,
}

/// `thinking.display`: whether the blocks carry summarized text or come back empty (signed
/// either way).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Display {
    #[default]
    #[serde(rename = "default")]
    ModelDefault,
    Summarized,
    Omitted,
}

macro_rules! words {
    ($t:ty { $($v:ident => $wire:literal),* $(,)? }) => {
        impl $t {
            pub const ALL: &'static [$t] = &[$(<$t>::$v),*];
            /// The word on the wire and in forms.
            pub fn as_str(self) -> &'static str {
                match self { $(<$t>::$v => $wire),* }
            }
            /// The value for `word`, if it is one of them.
            pub fn parse(word: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == word)
            }
        }
    };
}
words!(ThinkingMode { ModelDefault => "default", Off => "off", Adaptive => "adaptive", Budget => "budget" });

impl ThinkingMode {
    /// What the settings form calls it.
    pub fn label(self) -> &'static str {
        match self {
            ThinkingMode::ModelDefault => "model's default (not sent)",
            ThinkingMode::Off => "off (disabled)",
            ThinkingMode::Adaptive => "adaptive (effort)",
            ThinkingMode::Budget => "budget (extended)",
        }
    }
}
words!(Effort { Low => "low", Medium => "medium", High => "high", Xhigh => "xhigh", Max => "max" });
words!(Display { ModelDefault => "default", Summarized => "summarized", Omitted => "omitted" });

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thinking {
    pub mode: ThinkingMode,
    /// For `Budget`: at least [`MIN_BUDGET`], below `max_tokens`.
    pub budget_tokens: u32,
    /// `None`: the model's default effort (not sent).
    pub effort: Option<Effort>,
    pub display: Display,
}

impl Default for Thinking {
    fn default() -> Self {
        Self { mode: ThinkingMode::ModelDefault, budget_tokens: 2048, effort: None, display: Display::ModelDefault }
    }
}

/// A request the API would refuse for its thinking settings, named as the rule it breaks.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ThinkingRule {
    #[error("a thinking budget must be at least {MIN_BUDGET} tokens (it is {budget})")]
    BudgetTooSmall { budget: u32 },
    #[error(
        "max_tokens ({max_tokens}) must be greater than the thinking budget ({budget}): raise max tokens or lower the budget"
    )]
    BudgetNotBelowMaxTokens { budget: u32, max_tokens: u32 },
    #[error("{model} does not accept thinking type \"{kind}\"{}", instead.map(|i| format!(": use {i}")).unwrap_or_default())]
    KindNotAccepted { model: &'static str, kind: &'static str, instead: Option<&'static str> },
    #[error(
        "tool_choice \"{choice}\" forces a tool call, which manual (budget) thinking does not allow: use auto, or adaptive thinking"
    )]
    ForcedWithBudget { choice: &'static str },
    #[error(
        "{model} refuses tool_choice \"{choice}\" (it always thinks): use auto, and strict tools if the call must match a schema"
    )]
    ForcedRefused { model: &'static str, choice: &'static str },
    #[error("{model} does not take effort \"{effort}\"{}", if *.without_thinking { " with thinking off: use high or below, or turn thinking on" } else { "" })]
    EffortNotAccepted { model: &'static str, effort: &'static str, without_thinking: bool },
    #[error("{model} has no effort setting: leave effort at the model's default")]
    NoEffort { model: &'static str },
    /// Preserved thinking: the conversation's thinking is bound to the tools and system prompt
    /// it was made with, and they changed.
    #[error(
        "this conversation holds Claude's thinking, which {model} binds to the tools and system prompt it was made \
         with, and they changed since (a server or tool added or removed, or the system prompt edited): start a new \
         conversation to use them, or undo the change (with tool search on from the start, a server added later is \
         sent deferred, which keeps the thinking valid)"
    )]
    Rebound { model: &'static str },
}

/// What a thinking block is bound to: the `tools` and `system` of the request that made it, as
/// the documentation of preserved thinking counts them. Changing `cache_control` keeps the
/// binding, and so does adding a deferred tool (`defer_loading`, with tool search) that nothing
/// referenced yet: neither is counted here. (A deferred tool that a search found and that is
/// later removed breaks the binding for the API; this counts it as kept, and the API judges.)
pub fn binding(tools: &[protocol::claude::ToolDef], system: Option<&Value>) -> u64 {
    let bound: Vec<protocol::claude::ToolDef> = tools
        .iter()
        .filter(|t| !t.defer_loading)
        .map(|t| protocol::claude::ToolDef { cache_control: None, ..t.clone() })
        .collect();
    let tools = serde_json::to_string(&bound).unwrap_or_default();
    let system = system.map(|s| without_cache_control(s).to_string()).unwrap_or_default();
    crate::text::checksum(&format!("{tools}\n{system}"))
}

/// `system` without its blocks' `cache_control` (a string stays as it is).
fn without_cache_control(system: &Value) -> Value {
    match system {
        Value::Array(blocks) => Value::Array(
            blocks
                .iter()
                .map(|b| {
                    let mut b = b.clone();
                    if let Some(o) = b.as_object_mut() {
                        o.remove("cache_control");
                    }
                    b
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether sending `messages` with tools and system bound as `now` breaks the binding of the
/// thinking they hold (`made`: the binding when that thinking was made), for `model`.
pub fn check_binding(
    model: &str,
    made: Option<u64>,
    now: u64,
    messages: &[protocol::claude::Message],
) -> Result<(), ThinkingRule> {
    let Some(m) = Model::find(model).filter(|m| m.binds_thinking) else { return Ok(()) };
    let holds_thinking = messages.iter().any(|msg| msg.content.iter().any(|b| b.kind() == "thinking"));
    match made {
        Some(made) if holds_thinking && made != now => Err(ThinkingRule::Rebound { model: m.id }),
        _ => Ok(()),
    }
}

impl Thinking {
    /// The `thinking` field of a request, if it says anything.
    pub fn field(&self) -> Option<Value> {
        let display = match self.display {
            Display::ModelDefault => None,
            d => Some(d.as_str()),
        };
        let mut v = match self.mode {
            ThinkingMode::ModelDefault => return None,
            ThinkingMode::Off => return Some(json!({ "type": "disabled" })),
            ThinkingMode::Adaptive => json!({ "type": "adaptive" }),
            ThinkingMode::Budget => json!({ "type": "enabled", "budget_tokens": self.budget_tokens }),
        };
        if let Some(d) = display {
            v["display"] = json!(d);
        }
        Some(v)
    }

    /// The `output_config` field: the effort, when one is chosen.
    pub fn output_config(&self) -> Option<Value> {
        self.effort.map(|e| json!({ "effort": e.as_str() }))
    }

    /// The beta this request needs, if any: interleaved thinking for manual thinking on the
    /// models that need the header for it.
    pub fn beta(&self, model: &str) -> Option<&'static str> {
        let needs = Model::find(model).is_some_and(|m| m.interleaved_needs_beta);
        (self.mode == ThinkingMode::Budget && needs).then_some(INTERLEAVED_BETA)
    }

    /// The verdict the settings form shows for `model`: the rule a request would break, if any
    /// (with tools sent, so a forcing `tool_choice` counts).
    pub fn verdict(&self, model: &str, max_tokens: u32, forced: Option<&'static str>) -> Option<String> {
        self.check(model, max_tokens, forced).err().map(|rule| format!("The API would refuse this: {rule}."))
    }

    /// A budget's own rules: its size, below `max_tokens`, and no forced tool call with it.
    fn check_budget(&self, max_tokens: u32, forced: Option<&'static str>) -> Result<(), ThinkingRule> {
        if self.mode == ThinkingMode::Budget {
            if self.budget_tokens < MIN_BUDGET {
                return Err(ThinkingRule::BudgetTooSmall { budget: self.budget_tokens });
            }
            if self.budget_tokens >= max_tokens {
                return Err(ThinkingRule::BudgetNotBelowMaxTokens { budget: self.budget_tokens, max_tokens });
            }
            if let Some(choice) = forced {
                return Err(ThinkingRule::ForcedWithBudget { choice });
            }
        }
        Ok(())
    }

    /// The rules the API enforces with a 400, for a request to `model` with `max_tokens` and a
    /// forced `tool_choice` (`Some("any")`) when tools are sent. A model Loopscope does not
    /// know gets only the model-independent rules.
    pub fn check(&self, model: &str, max_tokens: u32, forced: Option<&'static str>) -> Result<(), ThinkingRule> {
        let Some(m) = Model::find(model) else { return self.check_budget(max_tokens, forced) };
        let kind = match self.mode {
            ThinkingMode::ModelDefault => None,
            ThinkingMode::Off => Some(ThinkingKind::Disabled),
            ThinkingMode::Adaptive => Some(ThinkingKind::Adaptive),
            ThinkingMode::Budget => Some(ThinkingKind::Enabled),
        };
        if let Some(kind) = kind.filter(|k| !m.accepts(*k)) {
            let instead = match kind {
                ThinkingKind::Enabled if m.accepts(ThinkingKind::Adaptive) => Some("adaptive thinking with an effort"),
                ThinkingKind::Adaptive if m.accepts(ThinkingKind::Enabled) => Some("a thinking budget"),
                ThinkingKind::Disabled => Some("the model's default (it always thinks)"),
                _ => None,
            };
            return Err(ThinkingRule::KindNotAccepted { model: m.id, kind: kind.wire(), instead });
        }
        self.check_budget(max_tokens, forced)?;
        if let Some(choice) = forced
            && !m.allows_forced_tool_choice
        {
            return Err(ThinkingRule::ForcedRefused { model: m.id, choice });
        }
        if let Some(effort) = self.effort {
            if !m.effort {
                return Err(ThinkingRule::NoEffort { model: m.id });
            }
            let off =
                self.mode == ThinkingMode::Off || (self.mode == ThinkingMode::ModelDefault && !m.thinks_by_default);
            let too_high = matches!(effort, Effort::Xhigh | Effort::Max);
            if (effort == Effort::Xhigh && !m.xhigh) || (too_high && off && m.thinks_by_default) {
                return Err(ThinkingRule::EffortNotAccepted {
                    model: m.id,
                    effort: effort.as_str(),
                    without_thinking: off,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(mode: ThinkingMode) -> Thinking {
        Thinking { mode, ..Thinking::default() }
    }

    #[test]
    fn the_binding_counts_what_preserved_thinking_counts() {
        use protocol::claude::ToolDef;
        let tool =
            |name: &str| ToolDef { name: name.into(), input_schema: json!({"type": "object"}), ..ToolDef::default() };
        let system = json!([{"type": "text", "text": "Be brief."}]);
        let made = binding(&[tool("a")], Some(&system));
        // cache_control moved (it goes on the last tool and the system) and a deferred tool added: kept.
        let cached = ToolDef { cache_control: Some(json!({"type": "ephemeral"})), ..tool("a") };
        let deferred = ToolDef { defer_loading: true, ..tool("added_later") };
        let marked = json!([{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]);
        assert_eq!(binding(&[cached, deferred], Some(&marked)), made);
        // A tool added that Claude sees at once, or the system prompt edited: broken.
        assert_ne!(binding(&[tool("a"), tool("b")], Some(&system)), made);
        assert_ne!(binding(&[tool("a")], Some(&json!([{"type": "text", "text": "Be long."}]))), made);
    }

    #[test]
    fn each_mode_writes_the_fields_the_api_reads() {
        assert_eq!(with(ThinkingMode::ModelDefault).field(), None);
        assert_eq!(with(ThinkingMode::Off).field(), Some(json!({"type": "disabled"})));
        let budget = Thinking { budget_tokens: 4000, display: Display::Summarized, ..with(ThinkingMode::Budget) };
        assert_eq!(budget.field(), Some(json!({"type": "enabled", "budget_tokens": 4000, "display": "summarized"})));
        let adaptive =
            Thinking { effort: Some(Effort::Low), display: Display::Omitted, ..with(ThinkingMode::Adaptive) };
        assert_eq!(adaptive.field(), Some(json!({"type": "adaptive", "display": "omitted"})));
        assert_eq!(adaptive.output_config(), Some(json!({"effort": "low"})));
        assert_eq!(with(ThinkingMode::Adaptive).output_config(), None);
        assert_eq!(budget.beta("claude-opus-4-5"), Some(INTERLEAVED_BETA));
        assert_eq!(budget.beta("claude-sonnet-4-6"), None);
        assert_eq!(adaptive.beta("claude-opus-4-5"), None);
    }

    #[test]
    fn the_rules_the_api_would_answer_with_a_400_are_named_before_sending() {
        let budget = Thinking { budget_tokens: 2048, ..with(ThinkingMode::Budget) };
        assert_eq!(budget.check("claude-sonnet-4-6", 4096, None), Ok(()));
        let small = Thinking { budget_tokens: 500, ..budget };
        assert_eq!(small.check("claude-sonnet-4-6", 4096, None), Err(ThinkingRule::BudgetTooSmall { budget: 500 }));
        assert!(budget.check("x", 2048, None).unwrap_err().to_string().contains("max_tokens (2048) must be greater"));
        assert_eq!(
            budget.check("claude-sonnet-4-6", 4096, Some("any")),
            Err(ThinkingRule::ForcedWithBudget { choice: "any" })
        );
        let no_budget = budget.check("claude-opus-5-5", 4096, None).unwrap_err().to_string();
        assert_eq!(
            no_budget,
            "claude-opus-5-5 does not accept thinking type \"enabled\": use adaptive thinking with an effort"
        );
        let adaptive_on_old = with(ThinkingMode::Adaptive).check("claude-haiku-4-5", 4096, None).unwrap_err();
        assert!(adaptive_on_old.to_string().ends_with("use a thinking budget"));
        assert!(
            with(ThinkingMode::Off)
                .check("claude-fable-5-1", 4096, None)
                .unwrap_err()
                .to_string()
                .contains("always thinks")
        );
        // Forcing a tool: fine with adaptive on most models, refused outright by the newest.
        assert_eq!(with(ThinkingMode::Adaptive).check("claude-opus-4-7", 4096, Some("any")), Ok(()));
        assert_eq!(
            with(ThinkingMode::ModelDefault).check("claude-sonnet-5-5", 4096, Some("any")),
            Err(ThinkingRule::ForcedRefused { model: "claude-sonnet-5-5", choice: "any" })
        );
        // Effort: none on Haiku 4.5, no xhigh below Opus 4.7, nothing above high with thinking off.
        let max = Thinking { effort: Some(Effort::Max), ..with(ThinkingMode::Off) };
        assert!(max.check("claude-opus-5", 4096, None).unwrap_err().to_string().contains("with thinking off"));
        assert_eq!(
            Thinking { effort: Some(Effort::Max), ..with(ThinkingMode::Adaptive) }.check("claude-opus-5", 4096, None),
            Ok(())
        );
        let xhigh = Thinking { effort: Some(Effort::Xhigh), ..with(ThinkingMode::Adaptive) };
        assert!(xhigh.check("claude-opus-4-6", 4096, None).is_err());
        assert_eq!(xhigh.check("claude-opus-4-7", 4096, None), Ok(()));
        let any_effort = Thinking { effort: Some(Effort::Low), ..with(ThinkingMode::Budget) };
        assert_eq!(
            any_effort.check("claude-haiku-4-5", 4096, None),
            Err(ThinkingRule::NoEffort { model: "claude-haiku-4-5-20251001" })
        );
        // A model Loopscope does not know is the API's to judge.
        assert_eq!(with(ThinkingMode::Adaptive).check("claude-next-9", 100, Some("any")), Ok(()));
    }

    #[test]
    fn saved_words_round_trip_and_strangers_are_refused() {
        for m in ThinkingMode::ALL {
            assert_eq!(ThinkingMode::parse(m.as_str()), Some(*m));
        }
        assert_eq!(Effort::parse("xhigh"), Some(Effort::Xhigh));
        assert_eq!(Display::parse("loud"), None);
        let saved: Thinking = serde_json::from_str(r#"{"mode":"adaptive","effort":"high"}"#).unwrap();
        assert_eq!((saved.mode, saved.effort, saved.budget_tokens), (ThinkingMode::Adaptive, Some(Effort::High), 2048));
    }
}
