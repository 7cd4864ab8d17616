//! What a lesson asks of the page, decided here: the model it picks, and, on entering a step,
//! exactly the breakpoints, scripted answers and faults (on which server) it sets, and which of
//! its servers the page does not have. The page carries the plan out; it decides nothing.

use super::{Lesson, LessonModel, LessonServer};
use crate::agent::pause::Breakpoint;
use crate::demo::{DEMO_SERVER_URL, Reply};
use crate::faults::{Fault, Target, Times};

/// Everything entering a step sets (the previous step's are taken away first).
#[derive(Clone, Debug, PartialEq)]
pub struct StepPlan {
    pub breakpoints: Vec<Breakpoint>,
    /// The demo model's next answers.
    pub replies: Vec<Reply>,
    pub faults: Vec<PlannedFault>,
    /// Labels of the lesson's servers a fault names that the page's list does not have.
    pub missing: Vec<String>,
}

/// A fault of the step, with its target resolved to the page's server id.
#[derive(Clone, Debug, PartialEq)]
pub struct PlannedFault {
    pub target: Target,
    pub tool: Option<String>,
    pub fault: Fault,
    pub times: Times,
}

impl Lesson {
    /// The model to switch to, when the lesson wants another than the user has (`demo_now`).
    pub fn switch_model(&self, demo_now: bool) -> Option<bool> {
        let wanted = match self.model {
            LessonModel::Demo => true,
            LessonModel::Claude => false,
            LessonModel::Any => return None,
        };
        (wanted != demo_now).then_some(wanted)
    }

    /// The `tool_choice` step `i` sends with a turn's first request, if it sets one.
    pub fn opening_choice(&self, i: usize) -> Option<protocol::claude::ToolChoice> {
        self.steps.get(i)?.tool_choice.clone()
    }

    /// Whether the lesson uses the page's own demo server (nothing leaves the page for it).
    pub fn uses_demo_server(&self) -> bool {
        self.servers.contains(&LessonServer::Demo)
    }

    /// The address of the server the lesson labels `label`.
    pub fn server_url(&self, label: &str) -> Option<&str> {
        self.servers.iter().find(|s| s.label() == label).map(|s| match s {
            LessonServer::Demo => DEMO_SERVER_URL,
            LessonServer::Url { url, .. } => url.as_str(),
        })
    }

    /// Entering step `i`; `id_at(url)` is the page's id of the server at that address, if its
    /// list has one. None when there is no such step.
    pub fn enter(&self, i: usize, id_at: impl Fn(&str) -> Option<String>) -> Option<StepPlan> {
        let step = self.steps.get(i)?;
        let mut missing = Vec::new();
        let faults = step
            .faults
            .iter()
            .filter_map(|f| {
                let target = match &f.server {
                    None => Target::Claude,
                    Some(label) => match self.server_url(label).and_then(&id_at) {
                        Some(id) => Target::Server(id),
                        None => {
                            missing.push(label.clone());
                            return None;
                        }
                    },
                };
                Some(PlannedFault { target, tool: f.tool.clone(), fault: f.fault.clone(), times: f.times })
            })
            .collect();
        Some(StepPlan { breakpoints: step.breakpoints.clone(), replies: step.replies.clone(), faults, missing })
    }
}

impl StepPlan {
    /// What the banner says when a fault of the step cannot be set. `waiting`: servers the
    /// user has not agreed to connect yet are not missing (the banner asks for them).
    pub fn problem(&self, waiting: bool) -> Option<String> {
        (!self.missing.is_empty() && !waiting).then(|| {
            format!(
                "This step breaks the server \"{}\", which is no longer in the list: open the lesson again to add it.",
                self.missing.join("\", \"")
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::parse;

    const LESSON: &str = r#"{
        "lesson": 1, "title": "Faults", "model": "demo",
        "servers": [{"demo": true}, {"url": "https://mcp.example/mcp", "label": "files"}],
        "steps": [
            {"title": "One", "text": "t", "faults": [
                {"fault": "http-500", "server": "demo", "tool": "get_weather"},
                {"fault": "http-404", "server": "files"},
                {"fault": "unknown-tool"}
            ], "breakpoints": ["route"]},
            {"title": "Two", "text": "t"}
        ]
    }"#;

    #[test]
    fn a_step_sets_its_faults_on_the_servers_the_page_has_and_names_the_others() {
        let lesson = parse(LESSON).expect("a lesson");
        let has_demo_only = |url: &str| (url == DEMO_SERVER_URL).then(|| "s7".to_owned());
        let plan = lesson.enter(0, has_demo_only).expect("step 0");
        assert_eq!(plan.breakpoints.len(), 1);
        let targets: Vec<_> = plan.faults.iter().map(|f| (f.target.clone(), f.tool.clone())).collect();
        assert_eq!(targets, [(Target::Server("s7".into()), Some("get_weather".into())), (Target::Claude, None)]);
        assert_eq!(plan.missing, ["files"]);
        assert!(plan.problem(false).is_some_and(|p| p.contains("\"files\"")));
        assert_eq!(plan.problem(true), None, "a server waiting for the user's yes is not missing");
        let next = lesson.enter(1, has_demo_only).expect("step 1");
        assert!(next.faults.is_empty() && next.breakpoints.is_empty(), "a step sets exactly its own");
        assert_eq!(lesson.enter(2, has_demo_only), None);
    }

    #[test]
    fn the_lesson_switches_the_model_only_when_it_wants_another() {
        let lesson = parse(LESSON).expect("a lesson");
        assert_eq!(lesson.switch_model(false), Some(true));
        assert_eq!(lesson.switch_model(true), None);
        assert!(lesson.uses_demo_server());
        let any = Lesson { model: LessonModel::Any, ..lesson };
        assert_eq!(any.switch_model(false), None);
    }
}
