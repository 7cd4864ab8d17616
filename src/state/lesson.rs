//! A lesson in the page: loaded from the page's address (`?lesson=<url>`, `#lesson=…`) or from
//! the Workshop panel; opening it connects its servers and picks its model; each step sets
//! exactly its breakpoints, faults and scripted demo-model answers (taking away the previous
//! step's) and offers its message. The lesson's text is only ever shown as text.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::Services;
use engine::demo::DEMO_SERVER_URL;
use engine::lesson::{self, Lesson, LessonSource};

/// The lessons that ship with the page, in `lessons/` beside `index.html`.
pub const BUILT_IN: [(&str, &str); 7] = [
    ("lessons/four-phases.json", "The four phases of a tool call"),
    ("lessons/error-layers.json", "Where a tool call can fail, and what Claude receives"),
    ("lessons/parallel-calls.json", "Parallel tool calls, and one user message for all their results"),
    ("lessons/tool-choice.json", "tool_choice: who decides whether a tool is called"),
    ("lessons/thinking.json", "Thinking in the loop: shown, sent back, and checked"),
    ("lessons/connector.json", "Who calls the MCP server: this page, or the API's MCP connector"),
    ("lessons/apps.json", "An MCP App in the loop"),
];

#[derive(Clone, Copy)]
pub struct Lessons {
    pub current: RwSignal<Option<Lesson>>,
    pub step: RwSignal<usize>,
    /// The address being loaded, while it is.
    pub loading: RwSignal<Option<String>>,
    /// Why the last lesson did not open, or why a step's fault could not be set.
    pub problem: RwSignal<Option<String>>,
    /// Servers the lesson names (by address): used only when the user says so, on a screen that
    /// lists them and the calls the lesson scripts (a lesson from a link must not send the
    /// conversation's tool calls anywhere unasked), whether or not they are in the list already.
    pub pending: RwSignal<Vec<(String, String)>>,
    /// The servers (page ids) the user agreed to let this lesson use: its calls to any other
    /// server wait for the user's approval (`engine::agent::consent`).
    pub agreed: RwSignal<Vec<String>>,
    /// The lesson the page's address names, until the code that opens it arrives: the lesson's
    /// banner is a chunk, and loading it opens this lesson (`chunks::lesson`).
    pub from_address: RwSignal<Option<LessonSource>>,
    /// A link that carries the lesson opened from a file, to hand out (or why there is none).
    pub link: RwSignal<Option<Result<String, String>>>,
    /// The fault rules the current step added, to take away on leaving it.
    added: StoredValue<Vec<u32>>,
    /// The user's own model choice (demo or not) when a lesson changed it, to give back.
    model_before: StoredValue<Option<bool>>,
}

impl Lessons {
    pub fn new() -> Self {
        Lessons {
            current: RwSignal::new(None),
            step: RwSignal::new(0),
            loading: RwSignal::new(None),
            problem: RwSignal::new(None),
            pending: RwSignal::new(Vec::new()),
            agreed: RwSignal::new(Vec::new()),
            from_address: RwSignal::new(None),
            link: RwSignal::new(None),
            added: StoredValue::new(Vec::new()),
            model_before: StoredValue::new(None),
        }
    }
}

impl Default for Lessons {
    fn default() -> Self {
        Self::new()
    }
}

/// `url` made absolute against the page's own address.
fn absolute(url: &str) -> String {
    let base = location().href().unwrap_or_default();
    web_sys::Url::new_with_base(url, &base).map(|u| u.href()).unwrap_or_else(|_| url.to_owned())
}

impl Services {
    /// Notes the lesson the page's address names, if it names one: its banner shows, and the
    /// banner's chunk opens it ([`Self::open_lesson_from_address`]). The first screen only reads
    /// the address; reading and running a lesson is the workshop chunk's code.
    pub(super) fn note_lesson_from_address(&self) {
        let search = location().search().unwrap_or_default();
        let hash = location().hash().unwrap_or_default();
        match lesson::source(&search, &hash) {
            None => {}
            Some(Err(e)) => self.lessons.problem.set(Some(format!("The link's lesson cannot be opened: {e}."))),
            Some(Ok(source)) => self.lessons.from_address.set(Some(source)),
        }
    }

    /// Opens the lesson the page's address named, once (called as its banner's code arrives).
    pub fn open_lesson_from_address(&self) {
        // Taken last, so the banner (shown while any of these holds) stays up throughout.
        match self.lessons.from_address.get_untracked() {
            None => return,
            Some(LessonSource::Inline(text)) => match lesson::parse(&text) {
                Ok(l) => self.start_lesson(l),
                Err(e) => self.lessons.problem.set(Some(format!("The link's lesson cannot be opened: {e}."))),
            },
            Some(LessonSource::Url(url)) => self.load_lesson(&url),
        }
        self.lessons.from_address.set(None);
    }

    /// Fetches the lesson at `url` (relative to the page, or absolute) and opens it.
    pub fn load_lesson(&self, url: &str) {
        let url = absolute(url);
        let svc = *self;
        self.lessons.problem.set(None);
        self.lessons.loading.set(Some(url.clone()));
        let platform = self.runtime(|r| r.platform.clone());
        let page = location().href().unwrap_or_default();
        spawn_local(async move {
            let result = lesson::fetch(&platform, &url, &page).await;
            svc.lessons.loading.set(None);
            match result {
                Ok(l) => svc.start_lesson(l),
                Err(e) => svc.lessons.problem.set(Some(format!("The lesson cannot be opened: {e}."))),
            }
        });
    }

    /// Opens a lesson from a file the user chose, and makes the link that carries it.
    pub fn open_lesson_text(&self, text: &str) {
        match lesson::parse_with_json(text) {
            Ok((l, json)) => {
                let page = location().href().unwrap_or_default();
                let page = page.split(['?', '#']).next().unwrap_or_default().to_owned();
                let link = lesson::inline_link(&page, &json.to_string());
                self.lessons.link.set(Some(if link.len() <= lesson::MAX_LINK {
                    Ok(link)
                } else {
                    Err(format!(
                        "This lesson makes a link of {} characters, too long to hand out: put the file on a site and \
                         use ?lesson= with its address.",
                        link.len()
                    ))
                }));
                self.start_lesson(l);
            }
            Err(e) => self.lessons.problem.set(Some(format!("That lesson cannot be opened: {e}."))),
        }
    }

    /// Connects the lesson's servers, picks its model, and enters its first step.
    pub fn start_lesson(&self, l: Lesson) {
        self.leave_step();
        self.lessons.problem.set(None);
        let had = self.settings.data.with_untracked(|d| d.demo);
        if let Some(demo) = l.switch_model(had) {
            // Only the first lesson's change is remembered: that is the user's own choice.
            if self.lessons.model_before.with_value(Option::is_none) {
                self.lessons.model_before.set_value(Some(had));
            }
            self.settings.update(|d| d.demo = demo);
        }
        let mut agreed = Vec::new();
        if l.uses_demo_server() {
            // The page's own demo server: nothing leaves the page.
            self.add_demo_server();
            agreed.extend(self.server_id_at(DEMO_SERVER_URL));
        }
        self.lessons.agreed.set(agreed);
        self.lessons.pending.set(l.named_servers());
        self.lessons.current.set(Some(l));
        self.go_to_step(0);
    }

    /// The servers the lesson names, as the user agreed: those already in the list are used as
    /// they are, the others added; the current step's faults are set on them.
    pub fn connect_lesson_servers(&self) {
        for (url, label) in self.lessons.pending.try_update(std::mem::take).unwrap_or_default() {
            if self.server_id_at(&url).is_none() {
                self.add_server(url.clone(), label, Vec::new(), false);
            }
            if let Some(id) = self.server_id_at(&url) {
                self.lessons.agreed.update(|a| a.push(id));
            }
        }
        self.go_to_step(self.lessons.step.get_untracked());
    }

    /// The id of the server at `url` in the list, if it is there.
    fn server_id_at(&self, url: &str) -> Option<String> {
        self.servers.list.with_untracked(|list| list.iter().find(|s| s.url == url).map(|s| s.id.clone()))
    }

    /// Leaves the current step and enters step `i`: exactly its breakpoints, its faults.
    pub fn go_to_step(&self, i: usize) {
        let id_at = |url: &str| self.server_id_at(url);
        let Some(plan) = self.lessons.current.with_untracked(|l| l.as_ref().and_then(|l| l.enter(i, id_at))) else {
            return;
        };
        self.leave_step();
        self.lessons.step.set(i);
        self.pausing.set.set(plan.breakpoints.clone());
        self.runtime(|r| r.platform.script(plan.replies.clone()));
        let faults = self.faults();
        let added = plan.faults.iter().map(|f| faults.add(f.target.clone(), f.tool.clone(), f.fault.clone(), f.times));
        self.lessons.added.set_value(added.collect());
        let waiting = !self.lessons.pending.with_untracked(Vec::is_empty);
        self.lessons.problem.set(plan.problem(waiting));
    }

    /// Takes away what the current step set: its faults and the breakpoints.
    fn leave_step(&self) {
        for id in self.lessons.added.try_update_value(std::mem::take).unwrap_or_default() {
            self.remove_fault(id);
        }
        if self.lessons.current.with_untracked(Option::is_some) {
            self.pausing.set.set(Vec::new());
            self.runtime(|r| r.platform.script(Vec::new()));
        }
    }

    /// Closes the lesson: its faults and breakpoints go, the user's own model choice comes back;
    /// the servers it connected stay.
    pub fn close_lesson(&self) {
        self.leave_step();
        self.lessons.pending.set(Vec::new());
        self.lessons.agreed.set(Vec::new());
        // The model the user had before the lesson picked one.
        if let Some(demo) = self.lessons.model_before.try_update_value(Option::take).flatten() {
            self.settings.update(|d| d.demo = demo);
        }
        self.lessons.current.set(None);
        self.lessons.problem.set(None);
    }

    /// Sends the current step's message (both ways, if the step says so).
    pub fn ask_step(&self) {
        let ask = self.lessons.current.with_untracked(|l| {
            let step = l.as_ref().and_then(|l| l.steps.get(self.lessons.step.get_untracked()))?;
            step.ask.clone().map(|text| (text, step.both_ways))
        });
        match ask {
            Some((text, true)) => crate::chat::ask_both_ways(*self, text),
            Some((text, false)) => self.conversation.send(*self, text),
            None => {}
        }
    }
}
