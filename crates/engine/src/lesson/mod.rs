//! Lessons (workshop mode): a small JSON document an instructor hands out as a link. It names
//! the servers to connect, the model (the demo model or Claude) and, step by step, what to read,
//! what to do, what to look at, a message to ask, and the breakpoints and faults to set. The
//! page opens one from `?lesson=<url>` or from the fragment `#lesson=<base64url>`; three ship
//! with the page (`lessons/`). The format is documented in docs/lessons.md.

mod plan;
mod read;

use std::fmt;

use crate::agent::pause::Breakpoint;
use crate::demo::Reply;
use crate::encoding::{base64_decode, base64url, form_decode};
use crate::faults::{Fault, Times};
use crate::limits::{BodyError, read_text};
use crate::platform::{HttpRequest, Platform};
use crate::url_policy::{self, UrlRefusal, WebUrl};

pub use plan::{PlannedFault, StepPlan};
pub use read::{Mistake, MistakeKind, read};

/// The format's version: a lesson names it in `"lesson"`.
pub const LESSON_VERSION: u64 = 1;
/// A lesson is small; a bigger document is not one (and would only slow the page).
pub const MAX_BYTES: usize = 256 * 1024;
pub const MAX_STEPS: usize = 60;
pub const MAX_REPLIES: usize = 10;
/// How deeply a lesson's JSON may nest (a scripted tool call's arguments are the deepest part).
pub const MAX_DEPTH: usize = 32;

#[derive(Clone, Debug, PartialEq)]
pub struct Lesson {
    pub title: String,
    pub intro: String,
    pub model: LessonModel,
    pub servers: Vec<LessonServer>,
    pub steps: Vec<Step>,
}

/// A tool call a lesson scripts for the demo model: what the consent screen and the banner
/// list before anything runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptedCall {
    /// The step (from 0) whose answer makes it.
    pub step: usize,
    pub tool: String,
    pub input: serde_json::Value,
}

impl ScriptedCall {
    pub fn describe(&self, max: usize) -> String {
        describe_call(&self.tool, &self.input, max)
    }
}

/// A tool call in a line: `delete_file {"path":"/"}`, with at most `max` characters of arguments.
/// Both are a stranger's: every character that could disguise them is shown as it is.
pub fn describe_call(tool: &str, input: &serde_json::Value, max: usize) -> String {
    let args = crate::text::visible_cut(&input.to_string(), max).0;
    format!("{} {args}", crate::text::visible_cut(tool, 80).0)
}

impl Lesson {
    /// Every tool call the lesson scripts, step by step.
    pub fn scripted_calls(&self) -> Vec<ScriptedCall> {
        self.steps
            .iter()
            .enumerate()
            .flat_map(|(step, s)| {
                s.replies.iter().flat_map(move |r| {
                    r.calls.iter().map(move |(tool, input)| ScriptedCall {
                        step,
                        tool: tool.clone(),
                        input: input.clone(),
                    })
                })
            })
            .collect()
    }

    /// The servers it names by address (the demo server aside): the user must agree to each.
    pub fn named_servers(&self) -> Vec<(String, String)> {
        self.servers
            .iter()
            .filter_map(|s| match s {
                LessonServer::Url { url, label } => Some((url.clone(), label.clone())),
                LessonServer::Demo => None,
            })
            .collect()
    }
}

/// Which model the lesson is written for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LessonModel {
    /// The demo model: no key needed. Opening the lesson turns it on.
    Demo,
    /// Claude itself: the attendee needs an API key.
    Claude,
    /// Either: the page keeps what the user chose.
    Any,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LessonServer {
    /// The demo MCP server that runs in the page.
    Demo,
    Url {
        url: String,
        label: String,
    },
}

impl LessonServer {
    /// The label faults name it by.
    pub fn label(&self) -> &str {
        match self {
            LessonServer::Demo => "demo",
            LessonServer::Url { label, .. } => label,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    pub title: String,
    /// What to read.
    pub text: String,
    /// What to do.
    pub action: Option<String>,
    /// What to look at, once it is done.
    pub look: Option<String>,
    /// A message the step offers to send.
    pub ask: Option<String>,
    /// The step's Ask asks it both ways: in the page's loop, then through the API's MCP
    /// connector (the demo model plays the connector with the demo server).
    pub both_ways: bool,
    /// The breakpoints set while the step is current (exactly these).
    pub breakpoints: Vec<Breakpoint>,
    /// The faults set on entering the step (the previous step's are taken away).
    pub faults: Vec<LessonFault>,
    /// The demo model's answers for this step, in order, before it answers on its own again
    /// (ignored with Claude).
    pub replies: Vec<Reply>,
    /// The `tool_choice` of the first request of each turn sent during the step (the settings'
    /// for the rest of the turn), written as the API spells it.
    pub tool_choice: Option<protocol::claude::ToolChoice>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LessonFault {
    pub fault: Fault,
    /// The server (by its label in the lesson) for a server-side fault; none on Claude's side.
    pub server: Option<String>,
    pub tool: Option<String>,
    pub times: Times,
}

/// Why a lesson did not open, by where it failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LessonError {
    /// No HTTP answer the page could read: nothing there, or no CORS.
    Network {
        url: String,
        detail: String,
    },
    Http {
        url: String,
        status: u16,
    },
    /// Larger than [`MAX_BYTES`] (refused at the byte that crossed it).
    TooBig,
    /// The link names an address the URL policy refuses (or a redirect led to one).
    Refused {
        url: String,
        why: UrlRefusal,
    },
    NotJson(String),
    /// JSON nested deeper than a lesson may be.
    TooDeep,
    /// A link's `#lesson=` part that does not decode to text.
    BadLink,
    /// JSON, but not a lesson this page reads; the mistake says where.
    Invalid(read::Mistake),
}

impl fmt::Display for LessonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LessonError::Network { url, detail } => write!(
                f,
                "no answer the page could read from {url} ({detail}). Check the address; a lesson on another \
                 site must be served with Access-Control-Allow-Origin"
            ),
            LessonError::Http { url, status } => write!(f, "{url} answered HTTP {status}"),
            LessonError::TooBig => write!(
                f,
                "the document is larger than {}, the most a lesson may be",
                crate::limits::bytes(MAX_BYTES as u64)
            ),
            LessonError::Refused { url, why } => write!(f, "the address {url} was not fetched: {why}"),
            LessonError::NotJson(e) => write!(f, "the document is not JSON ({e})"),
            LessonError::BadLink => write!(f, "the link's #lesson= part is not base64url text"),
            LessonError::TooDeep => {
                write!(f, "not a lesson this page can read: it nests deeper than {MAX_DEPTH} levels")
            }
            LessonError::Invalid(e) => write!(f, "not a lesson this page can read: {e}"),
        }
    }
}

/// Reads a lesson's text.
pub fn parse(text: &str) -> Result<Lesson, LessonError> {
    parse_with_json(text).map(|(lesson, _)| lesson)
}

/// Reads a lesson's text, and gives back its JSON too (to write it again compactly: a link).
pub fn parse_with_json(text: &str) -> Result<(Lesson, serde_json::Value), LessonError> {
    if text.len() > MAX_BYTES {
        return Err(LessonError::TooBig);
    }
    if !crate::limits::json_depth_within(text, MAX_DEPTH) {
        return Err(LessonError::TooDeep);
    }
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| LessonError::NotJson(e.to_string()))?;
    let lesson = read(&value).map_err(LessonError::Invalid)?;
    Ok((lesson, value))
}

/// Links longer than this do not survive every chat, mail client and slide tool.
pub const MAX_LINK: usize = 8_000;

/// Whether the page may fetch a lesson from `url` (absolute): the URL policy for an address
/// from a link (https, or http on this machine), or anything on the page's own origin (`page`,
/// the page's address: its own lessons, wherever it is served).
pub fn allowed(url: &str, page: &str) -> Result<WebUrl, LessonError> {
    url_policy::check_near(url, page).map_err(|why| LessonError::Refused { url: url.to_owned(), why })
}

/// Fetches and reads the lesson at `url` (absolute), from a page at `page`.
pub async fn fetch<P: Platform>(platform: &P, url: &str, page: &str) -> Result<Lesson, LessonError> {
    let checked = allowed(url, page)?;
    let response = platform
        .send(HttpRequest::get(checked.href()))
        .await
        .map_err(|e| LessonError::Network { url: url.to_owned(), detail: e.message })?;
    if let Some(to) = &response.final_url {
        allowed(to, page)?;
    }
    if !(200..300).contains(&response.status) {
        return Err(LessonError::Http { url: url.to_owned(), status: response.status });
    }
    let text = read_text(response.body, MAX_BYTES).await.map_err(|e| match e {
        BodyError::TooBig(_) => LessonError::TooBig,
        BodyError::Network(e) => LessonError::Network { url: url.to_owned(), detail: e.message },
    })?;
    parse(&text)
}

/// Where a page's address says to find a lesson.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LessonSource {
    /// `?lesson=<url>`, as written (relative to the page, or absolute).
    Url(String),
    /// `#lesson=<base64url>`: the lesson's text itself.
    Inline(String),
}

/// The lesson a page's query and fragment name, if any; the fragment's wins. A fragment that
/// does not decode is an error to show, not a silent nothing.
pub fn source(search: &str, hash: &str) -> Option<Result<LessonSource, LessonError>> {
    let from_hash = form_decode(hash.trim_start_matches('#')).into_iter().find(|(k, _)| k == "lesson");
    if let Some((_, encoded)) = from_hash {
        let text = base64_decode(&encoded).and_then(|bytes| String::from_utf8(bytes).ok()).ok_or(LessonError::BadLink);
        return Some(text.map(LessonSource::Inline));
    }
    form_decode(search).into_iter().find(|(k, v)| k == "lesson" && !v.is_empty()).map(|(_, v)| Ok(LessonSource::Url(v)))
}

/// A link that carries the lesson in its fragment: `page` (without a fragment) + `#lesson=…`.
pub fn inline_link(page: &str, text: &str) -> String {
    format!("{}#lesson={}", page.split('#').next().unwrap_or(page), base64url(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_finds_its_lesson_in_the_query_or_the_fragment() {
        assert_eq!(source("", ""), None);
        assert_eq!(source("?demo", ""), None);
        assert_eq!(
            source("?demo&lesson=lessons%2Ffour-phases.json", ""),
            Some(Ok(LessonSource::Url("lessons/four-phases.json".into())))
        );
        let link = inline_link("http://127.0.0.1:8080/?x#old", r#"{"lesson":1}"#);
        assert!(link.starts_with("http://127.0.0.1:8080/?x#lesson="), "{link}");
        let hash = link.get(link.find('#').unwrap()..).unwrap();
        assert_eq!(source("?lesson=elsewhere.json", hash), Some(Ok(LessonSource::Inline(r#"{"lesson":1}"#.into()))));
        assert!(matches!(source("", "#lesson=%%%"), Some(Err(LessonError::BadLink))));
    }

    #[test]
    fn what_is_not_a_lesson_says_why() {
        assert!(matches!(parse("{"), Err(LessonError::NotJson(_))));
        assert!(matches!(parse(&" ".repeat(MAX_BYTES + 1)), Err(LessonError::TooBig)));
        let e = parse(r#"{"title": "x"}"#).unwrap_err().to_string();
        assert!(e.contains("\"lesson\""), "{e}");
    }
}
