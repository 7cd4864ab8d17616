//! Reads a lesson from JSON by hand: every mistake is named with where it is
//! (`steps[2].faults[0].fault: "http-999" is not …`), and no derived deserializer ships.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::{Map, Value};

use super::{LESSON_VERSION, Lesson, LessonFault, LessonModel, LessonServer, MAX_REPLIES, MAX_STEPS, Step};
use crate::agent::pause::Breakpoint;
use crate::demo::Reply;
use crate::faults::{Fault, Times};

type Obj = Map<String, Value>;

/// What is wrong in a lesson document, and where (`steps[2].faults[0].fault`; empty for the
/// document as a whole).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{kind}", if at.is_empty() { String::new() } else { format!("{at}: ") })]
pub struct Mistake {
    pub at: String,
    pub kind: MistakeKind,
}

/// One kind of mistake a lesson's author can make.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MistakeKind {
    #[error("must be {0}")]
    WrongType(&'static str),
    #[error("has \"{key}\", which a lesson does not have (it may have: {})", allowed.join(", "))]
    UnknownKey { key: String, allowed: &'static [&'static str] },
    #[error("needs {0}")]
    Needs(&'static str),
    #[error("must be a phase 1 to 4 or one of: {}", Breakpoint::ALL.map(|b| b.name()).join(", "))]
    NotABreakpoint,
    #[error("\"{0}\" is not one of: {keys}", keys = Fault::catalog().iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", "))]
    NotAFault(String),
    #[error("\"{0}\" happens on a server: say which, with \"server\"")]
    FaultNeedsServer(String),
    #[error("\"{0}\" happens on Claude's side: it takes no \"server\"")]
    FaultTakesNoServer(String),
    #[error("\"{0}\" is not one of the lesson's servers")]
    UnknownServer(String),
    #[error("{0} answers; a step scripts at most {MAX_REPLIES}")]
    TooManyReplies(usize),
    #[error("{0}")]
    Address(crate::server_address::AddressError),
    #[error("carries credentials (a user name, or a key in the query): a lesson may not")]
    Credentials,
    #[error("the document has no \"lesson\" version field (write \"lesson\": 1)")]
    NoVersion,
    #[error("it is lesson format {0}, made for a newer Loopscope (this page reads {LESSON_VERSION})")]
    Newer(u64),
    #[error("\"model\": \"{0}\" is not \"demo\" or \"claude\"")]
    NotAModel(String),
    #[error("a lesson needs at least one step in \"steps\"")]
    NoSteps,
    #[error("{0} steps; a lesson has at most {MAX_STEPS}")]
    TooManySteps(usize),
    #[error(
        "must be a tool_choice as the API spells it: {{\"type\": \"auto\" | \"any\" | \"none\"}} or {{\"type\": \"tool\", \"name\": …}}"
    )]
    NotAToolChoice,
}

type Read<T> = Result<T, Mistake>;

fn at(at: &str, kind: MistakeKind) -> Mistake {
    Mistake { at: at.to_owned(), kind }
}

fn wrong(place: &str, must: &'static str) -> Mistake {
    at(place, MistakeKind::WrongType(must))
}

fn object<'a>(v: &'a Value, place: &str) -> Read<&'a Obj> {
    v.as_object().ok_or_else(|| wrong(place, "an object"))
}

fn text(o: &Obj, key: &str, place: &str) -> Read<Option<String>> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(wrong(&format!("{place}.{key}"), "a string")),
    }
}

fn list<'a>(o: &'a Obj, key: &str, place: &str) -> Read<&'a [Value]> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(wrong(&format!("{place}.{key}"), "a list")),
    }
}

/// Each key must be one the format knows: a typo ("breakpoint") is named, not ignored.
fn known(o: &Obj, keys: &'static [&'static str], place: &str) -> Read<()> {
    match o.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(at(place, MistakeKind::UnknownKey { key: k.clone(), allowed: keys })),
        None => Ok(()),
    }
}

/// A breakpoint by its name in the format, or by its phase number.
fn breakpoint(v: &Value, place: &str) -> Read<Breakpoint> {
    let found = match v {
        Value::Number(n) => n.as_u64().and_then(|n| u8::try_from(n).ok()).and_then(Breakpoint::of_phase),
        Value::String(s) => Breakpoint::ALL.into_iter().find(|b| b.name() == s),
        _ => None,
    };
    found.ok_or_else(|| at(place, MistakeKind::NotABreakpoint))
}

fn fault(v: &Value, place: &str) -> Read<LessonFault> {
    let o = object(v, place)?;
    known(o, &["fault", "server", "tool", "every"], place)?;
    let key = text(o, "fault", place)?.ok_or_else(|| at(place, MistakeKind::Needs("\"fault\"")))?;
    let Some(fault) = Fault::by_key(&key) else {
        return Err(at(&format!("{place}.fault"), MistakeKind::NotAFault(key)));
    };
    let server = text(o, "server", place)?;
    match (fault.on_claude_side(), &server) {
        (false, None) => return Err(at(place, MistakeKind::FaultNeedsServer(key))),
        (true, Some(_)) => return Err(at(place, MistakeKind::FaultTakesNoServer(key))),
        _ => {}
    }
    let every = match o.get("every") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(wrong(&format!("{place}.every"), "true or false")),
    };
    let times = if every { Times::Every } else { Times::Next };
    Ok(LessonFault { fault, server, tool: text(o, "tool", place)?, times })
}

/// A scripted demo-model answer: `{"text", "tool_use": [{"name", "input"}]}`.
fn reply(v: &Value, place: &str) -> Read<Reply> {
    let o = object(v, place)?;
    known(o, &["text", "tool_use"], place)?;
    let calls = list(o, "tool_use", place)?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let place = format!("{place}.tool_use[{i}]");
            let c = object(c, &place)?;
            known(c, &["name", "input"], &place)?;
            let name = text(c, "name", &place)?.ok_or_else(|| at(&place, MistakeKind::Needs("\"name\"")))?;
            let input = c.get("input").cloned().unwrap_or_else(|| Value::Object(Map::new()));
            if !input.is_object() {
                return Err(wrong(&format!("{place}.input"), "an object"));
            }
            Ok((name, input))
        })
        .collect::<Read<Vec<_>>>()?;
    let words = text(o, "text", place)?.unwrap_or_default();
    if words.is_empty() && calls.is_empty() {
        return Err(at(place, MistakeKind::Needs("\"text\" or \"tool_use\"")));
    }
    Ok(Reply::scripted(&words, calls))
}

fn server(v: &Value, place: &str) -> Read<LessonServer> {
    let o = object(v, place)?;
    known(o, &["demo", "url", "label"], place)?;
    if o.get("demo") == Some(&Value::Bool(true)) {
        return Ok(LessonServer::Demo);
    }
    let url = text(o, "url", place)?.ok_or_else(|| at(place, MistakeKind::Needs("\"url\" (or \"demo\": true)")))?;
    // The user will see it on the consent screen before anything connects: their rules apply
    // (plain http on a LAN allowed, with a warning there), and secrets never ride in a lesson.
    let url_at = format!("{place}.url");
    let address = crate::server_address::prepare(&url).map_err(|e| at(&url_at, MistakeKind::Address(e)))?;
    if !address.moved.is_empty() {
        return Err(at(&url_at, MistakeKind::Credentials));
    }
    let url = address.url;
    let label = text(o, "label", place)?;
    let label = label.ok_or_else(|| at(place, MistakeKind::Needs("\"label\": faults name the server by it")))?;
    Ok(LessonServer::Url { url, label })
}

fn step(v: &Value, place: &str, servers: &[LessonServer]) -> Read<Step> {
    let o = object(v, place)?;
    known(
        o,
        &["title", "text", "do", "look", "ask", "both_ways", "breakpoints", "faults", "replies", "tool_choice"],
        place,
    )?;
    let ask = text(o, "ask", place)?;
    let both_ways = match o.get("both_ways") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(at(&format!("{place}.both_ways"), MistakeKind::WrongType("true or false"))),
    };
    if both_ways && ask.is_none() {
        return Err(at(place, MistakeKind::Needs("\"ask\": \"both_ways\" asks that question both ways")));
    }
    let replies = list(o, "replies", place)?;
    if replies.len() > MAX_REPLIES {
        return Err(at(&format!("{place}.replies"), MistakeKind::TooManyReplies(replies.len())));
    }
    let faults = list(o, "faults", place)?
        .iter()
        .enumerate()
        .map(|(i, f)| fault(f, &format!("{place}.faults[{i}]")))
        .collect::<Read<Vec<_>>>()?;
    for (i, f) in faults.iter().enumerate() {
        if let Some(label) = f.server.as_deref().filter(|label| !servers.iter().any(|s| s.label() == *label)) {
            return Err(at(&format!("{place}.faults[{i}].server"), MistakeKind::UnknownServer(label.to_owned())));
        }
    }
    Ok(Step {
        title: text(o, "title", place)?.unwrap_or_default(),
        text: text(o, "text", place)?.ok_or_else(|| at(place, MistakeKind::Needs("\"text\"")))?,
        action: text(o, "do", place)?,
        look: text(o, "look", place)?,
        ask,
        both_ways,
        breakpoints: list(o, "breakpoints", place)?
            .iter()
            .enumerate()
            .map(|(i, b)| breakpoint(b, &format!("{place}.breakpoints[{i}]")))
            .collect::<Read<_>>()?,
        faults,
        replies: replies
            .iter()
            .enumerate()
            .map(|(i, r)| reply(r, &format!("{place}.replies[{i}]")))
            .collect::<Read<_>>()?,
        tool_choice: o
            .get("tool_choice")
            .map(|v| {
                protocol::claude::ToolChoice::from_value(v)
                    .ok_or_else(|| at(&format!("{place}.tool_choice"), MistakeKind::NotAToolChoice))
            })
            .transpose()?,
    })
}

/// Reads a lesson document.
pub fn read(v: &Value) -> Result<Lesson, Mistake> {
    const DOC: &str = "the document";
    let o = object(v, DOC)?;
    match o.get("lesson").and_then(Value::as_u64) {
        None => return Err(at("", MistakeKind::NoVersion)),
        Some(n) if n > LESSON_VERSION => return Err(at("", MistakeKind::Newer(n))),
        Some(_) => {}
    }
    known(o, &["lesson", "title", "intro", "model", "servers", "steps"], DOC)?;
    let model = match text(o, "model", DOC)?.as_deref() {
        None => LessonModel::Any,
        Some("demo") => LessonModel::Demo,
        Some("claude") => LessonModel::Claude,
        Some(other) => return Err(at("", MistakeKind::NotAModel(other.to_owned()))),
    };
    let servers = list(o, "servers", DOC)?
        .iter()
        .enumerate()
        .map(|(i, s)| server(s, &format!("servers[{i}]")))
        .collect::<Read<Vec<_>>>()?;
    let steps = list(o, "steps", DOC)?;
    if steps.is_empty() {
        return Err(at("", MistakeKind::NoSteps));
    }
    if steps.len() > MAX_STEPS {
        return Err(at("", MistakeKind::TooManySteps(steps.len())));
    }
    Ok(Lesson {
        title: text(o, "title", DOC)?.ok_or_else(|| at(DOC, MistakeKind::Needs("a \"title\"")))?,
        intro: text(o, "intro", DOC)?.unwrap_or_default(),
        model,
        steps: steps.iter().enumerate().map(|(i, s)| step(s, &format!("steps[{i}]"), &servers)).collect::<Read<_>>()?,
        servers,
    })
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_lesson_reads_with_its_servers_steps_breakpoints_and_faults() {
        let lesson = read(&json!({
            "lesson": 1, "title": "Errors", "model": "demo",
            "servers": [{"demo": true}, {"url": "http://127.0.0.1:3001/mcp", "label": "notes"}],
            "steps": [
                {"text": "Read.", "ask": "Search the notes", "breakpoints": [2, "results"]},
                {"title": "Break it", "text": "Go.", "replies": [
                    {"text": "Two at once.", "tool_use": [{"name": "a", "input": {"x": 1}}, {"name": "b"}]},
                    {"text": "Done."}
                ], "faults": [
                    {"fault": "http-500", "server": "notes", "tool": "search_notes", "every": true},
                    {"fault": "unknown-tool"}
                ]}
            ]
        }))
        .unwrap();
        assert_eq!(lesson.model, LessonModel::Demo);
        assert_eq!(
            lesson.servers[1],
            LessonServer::Url { url: "http://127.0.0.1:3001/mcp".into(), label: "notes".into() }
        );
        assert_eq!(lesson.steps[0].breakpoints, [Breakpoint::ToolUse, Breakpoint::Results]);
        assert_eq!(lesson.steps[0].ask.as_deref(), Some("Search the notes"));
        let f = &lesson.steps[1].faults;
        assert_eq!(f[0].fault, Fault::Http { status: 500, retry_after_s: None });
        assert_eq!(
            (f[0].server.as_deref(), f[0].tool.as_deref(), f[0].times),
            (Some("notes"), Some("search_notes"), Times::Every)
        );
        assert_eq!((f[1].fault.clone(), f[1].server.clone(), f[1].times), (Fault::UnknownTool, None, Times::Next));
        let r = &lesson.steps[1].replies;
        assert_eq!(r[0].calls, [("a".to_owned(), json!({"x": 1})), ("b".to_owned(), json!({}))]);
        assert_eq!((r[0].stop_reason, r[1].stop_reason), ("tool_use", "end_turn"));
        assert!(r[1].text.starts_with("(Demo model, scripted by the lesson.)"), "{}", r[1].text);
    }

    #[test]
    fn each_mistake_is_named_where_it_is() {
        let step = |s: Value| {
            read(&json!({"lesson": 1, "title": "t", "servers": [{"demo": true}], "steps": [s]}))
                .unwrap_err()
                .to_string()
        };
        assert!(
            step(json!({"text": "x", "faults": [{"fault": "http-999", "server": "demo"}]}))
                .starts_with("steps[0].faults[0].fault: \"http-999\" is not one of: network, cors")
        );
        assert_eq!(
            step(json!({"text": "x", "faults": [{"fault": "http-500"}]})),
            "steps[0].faults[0]: \"http-500\" happens on a server: say which, with \"server\""
        );
        assert_eq!(
            step(json!({"text": "x", "faults": [{"fault": "timeout", "server": "notes"}]})),
            "steps[0].faults[0].server: \"notes\" is not one of the lesson's servers"
        );
        assert_eq!(
            step(json!({"text": "x", "both_ways": "yes", "ask": "q"})),
            "steps[0].both_ways: must be true or false"
        );
        assert_eq!(
            step(json!({"text": "x", "both_ways": true})),
            "steps[0]: needs \"ask\": \"both_ways\" asks that question both ways"
        );
        assert!(
            step(json!({"text": "x", "breakpoint": [1]}))
                .starts_with("steps[0]: has \"breakpoint\", which a lesson does not have")
        );
        assert!(
            step(json!({"text": "x", "breakpoints": [5]}))
                .starts_with("steps[0].breakpoints[0]: must be a phase 1 to 4")
        );
        assert_eq!(step(json!({"title": "no text"})), "steps[0]: needs \"text\"");
        assert!(
            step(json!({"text": "x", "tool_choice": {"type": "tool"}}))
                .starts_with("steps[0].tool_choice: must be a tool_choice as the API spells it")
        );
        assert_eq!(
            step(json!({"text": "x", "replies": [{"tool_use": [{"name": "a", "input": [1]}]}]})),
            "steps[0].replies[0].tool_use[0].input: must be an object"
        );
        assert!(
            read(&json!({"lesson": 2, "title": "t", "steps": [{"text": "x"}]}))
                .unwrap_err()
                .to_string()
                .contains("newer Loopscope")
        );
        assert_eq!(
            read(&json!({"lesson": 1, "title": "t", "steps": []})).unwrap_err().to_string(),
            "a lesson needs at least one step in \"steps\""
        );
    }

    #[test]
    fn the_built_in_lessons_read() {
        // Every file in lessons/, so a lesson added there is read here too.
        let dir = format!("{}/../../lessons", env!("CARGO_MANIFEST_DIR"));
        let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
        names.sort();
        assert!(names.len() >= 6, "{names:?}");
        for path in names {
            let name = path.display();
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
            let lesson = super::super::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(lesson.steps.len() >= 3, "{name}");
            assert_eq!(lesson.model, LessonModel::Demo, "{name}: built-in lessons need no key");
        }
        let text = std::fs::read_to_string(format!("{dir}/connector.json"));
        let both: Vec<bool> = super::super::parse(&text.unwrap()).unwrap().steps.iter().map(|s| s.both_ways).collect();
        assert_eq!(both, [false, true, true, false]);
        let text = std::fs::read_to_string(format!("{dir}/tool-choice.json"));
        let lesson = super::super::parse(&text.unwrap()).unwrap();
        let choices: Vec<_> = (0..4).map(|i| lesson.opening_choice(i)).collect();
        assert_eq!(choices[0], None);
        assert_eq!(choices[1], Some(protocol::claude::ToolChoice::None));
        assert_eq!(
            choices[2],
            Some(protocol::claude::ToolChoice::Tool { name: "calculate".into(), disable_parallel_tool_use: false })
        );
    }
}
