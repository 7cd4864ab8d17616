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

fn object<'a>(v: &'a Value, at: &str) -> Result<&'a Obj, String> {
    v.as_object().ok_or_else(|| format!("{at} must be an object"))
}

fn text(o: &Obj, key: &str, at: &str) -> Result<Option<String>, String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{at}.{key} must be a string")),
    }
}

fn list<'a>(o: &'a Obj, key: &str, at: &str) -> Result<&'a [Value], String> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(format!("{at}.{key} must be a list")),
    }
}

/// Each key must be one the format knows: a typo ("breakpoint") is named, not ignored.
fn known(o: &Obj, keys: &[&str], at: &str) -> Result<(), String> {
    match o.keys().find(|k| !keys.contains(&k.as_str())) {
        Some(k) => Err(format!("{at} has \"{k}\", which a lesson does not have (it may have: {})", keys.join(", "))),
        None => Ok(()),
    }
}

/// A breakpoint by its name in the format, or by its phase number.
fn breakpoint(v: &Value, at: &str) -> Result<Breakpoint, String> {
    let found = match v {
        Value::Number(n) => n.as_u64().and_then(|n| u8::try_from(n).ok()).and_then(Breakpoint::of_phase),
        Value::String(s) => Breakpoint::ALL.into_iter().find(|b| b.name() == s),
        _ => None,
    };
    found.ok_or_else(|| {
        let names: Vec<&str> = Breakpoint::ALL.iter().map(|b| b.name()).collect();
        format!("{at} must be a phase 1 to 4 or one of: {}", names.join(", "))
    })
}

fn fault(v: &Value, at: &str) -> Result<LessonFault, String> {
    let o = object(v, at)?;
    known(o, &["fault", "server", "tool", "every"], at)?;
    let key = text(o, "fault", at)?.ok_or_else(|| format!("{at} needs \"fault\""))?;
    let fault = Fault::by_key(&key).ok_or_else(|| {
        let keys: Vec<&str> = Fault::catalog().iter().map(|(k, _)| *k).collect();
        format!("{at}.fault: \"{key}\" is not one of: {}", keys.join(", "))
    })?;
    let server = text(o, "server", at)?;
    match (fault.on_claude_side(), &server) {
        (false, None) => return Err(format!("{at}: \"{key}\" happens on a server: say which, with \"server\"")),
        (true, Some(_)) => {
            return Err(format!("{at}: \"{key}\" happens on Claude's side: it takes no \"server\""));
        }
        _ => {}
    }
    let every = match o.get("every") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(format!("{at}.every must be true or false")),
    };
    Ok(LessonFault { fault, server, tool: text(o, "tool", at)?, times: if every { Times::Every } else { Times::Next } })
}

/// A scripted demo-model answer: `{"text", "tool_use": [{"name", "input"}]}`.
fn reply(v: &Value, at: &str) -> Result<Reply, String> {
    let o = object(v, at)?;
    known(o, &["text", "tool_use"], at)?;
    let calls = list(o, "tool_use", at)?
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let at = format!("{at}.tool_use[{i}]");
            let c = object(c, &at)?;
            known(c, &["name", "input"], &at)?;
            let name = text(c, "name", &at)?.ok_or_else(|| format!("{at} needs \"name\""))?;
            let input = c.get("input").cloned().unwrap_or_else(|| Value::Object(Map::new()));
            if !input.is_object() {
                return Err(format!("{at}.input must be an object"));
            }
            Ok((name, input))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let words = text(o, "text", at)?.unwrap_or_default();
    if words.is_empty() && calls.is_empty() {
        return Err(format!("{at} needs \"text\" or \"tool_use\""));
    }
    Ok(Reply::scripted(&words, calls))
}

fn server(v: &Value, at: &str) -> Result<LessonServer, String> {
    let o = object(v, at)?;
    known(o, &["demo", "url", "label"], at)?;
    if o.get("demo") == Some(&Value::Bool(true)) {
        return Ok(LessonServer::Demo);
    }
    let url = text(o, "url", at)?.ok_or_else(|| format!("{at} needs \"url\" (or \"demo\": true)"))?;
    // The user will see it on the consent screen before anything connects: their rules apply
    // (plain http on a LAN allowed, with a warning there), and secrets never ride in a lesson.
    let address = crate::server_address::prepare(&url).map_err(|e| format!("{at}.url: {e}"))?;
    if !address.moved.is_empty() {
        return Err(format!("{at}.url carries credentials (a user name, or a key in the query): a lesson may not"));
    }
    let url = address.url;
    let label = text(o, "label", at)?.ok_or_else(|| format!("{at} needs \"label\": faults name the server by it"))?;
    Ok(LessonServer::Url { url, label })
}

fn step(v: &Value, at: &str, servers: &[LessonServer]) -> Result<Step, String> {
    let o = object(v, at)?;
    known(o, &["title", "text", "do", "look", "ask", "breakpoints", "faults", "replies"], at)?;
    let replies = list(o, "replies", at)?;
    if replies.len() > MAX_REPLIES {
        return Err(format!("{at}.replies: {} answers; a step scripts at most {MAX_REPLIES}", replies.len()));
    }
    let faults = list(o, "faults", at)?
        .iter()
        .enumerate()
        .map(|(i, f)| fault(f, &format!("{at}.faults[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some((i, f)) = faults
        .iter()
        .enumerate()
        .find(|(_, f)| f.server.as_deref().is_some_and(|label| !servers.iter().any(|s| s.label() == label)))
    {
        return Err(format!(
            "{at}.faults[{i}].server: \"{}\" is not one of the lesson's servers",
            f.server.as_deref().unwrap_or_default()
        ));
    }
    Ok(Step {
        title: text(o, "title", at)?.unwrap_or_default(),
        text: text(o, "text", at)?.ok_or_else(|| format!("{at} needs \"text\""))?,
        action: text(o, "do", at)?,
        look: text(o, "look", at)?,
        ask: text(o, "ask", at)?,
        breakpoints: list(o, "breakpoints", at)?
            .iter()
            .enumerate()
            .map(|(i, b)| breakpoint(b, &format!("{at}.breakpoints[{i}]")))
            .collect::<Result<_, _>>()?,
        faults,
        replies: replies
            .iter()
            .enumerate()
            .map(|(i, r)| reply(r, &format!("{at}.replies[{i}]")))
            .collect::<Result<_, _>>()?,
    })
}

/// Reads a lesson document.
pub fn read(v: &Value) -> Result<Lesson, String> {
    let o = object(v, "the document")?;
    match o.get("lesson").and_then(Value::as_u64) {
        None => return Err("the document has no \"lesson\" version field (write \"lesson\": 1)".into()),
        Some(n) if n > LESSON_VERSION => {
            return Err(format!(
                "it is lesson format {n}, made for a newer Loopscope (this page reads {LESSON_VERSION})"
            ));
        }
        Some(_) => {}
    }
    known(o, &["lesson", "title", "intro", "model", "servers", "steps"], "the document")?;
    let model = match text(o, "model", "the document")?.as_deref() {
        None => LessonModel::Any,
        Some("demo") => LessonModel::Demo,
        Some("claude") => LessonModel::Claude,
        Some(other) => return Err(format!("\"model\": \"{other}\" is not \"demo\" or \"claude\"")),
    };
    let servers = list(o, "servers", "the document")?
        .iter()
        .enumerate()
        .map(|(i, s)| server(s, &format!("servers[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let steps = list(o, "steps", "the document")?;
    if steps.is_empty() {
        return Err("a lesson needs at least one step in \"steps\"".into());
    }
    if steps.len() > MAX_STEPS {
        return Err(format!("{} steps; a lesson has at most {MAX_STEPS}", steps.len()));
    }
    Ok(Lesson {
        title: text(o, "title", "the document")?.ok_or("the document needs a \"title\"")?,
        intro: text(o, "intro", "the document")?.unwrap_or_default(),
        model,
        steps: steps
            .iter()
            .enumerate()
            .map(|(i, s)| step(s, &format!("steps[{i}]"), &servers))
            .collect::<Result<_, _>>()?,
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
            read(&json!({"lesson": 1, "title": "t", "servers": [{"demo": true}], "steps": [s]})).unwrap_err()
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
        assert!(
            step(json!({"text": "x", "breakpoint": [1]}))
                .starts_with("steps[0] has \"breakpoint\", which a lesson does not have")
        );
        assert!(
            step(json!({"text": "x", "breakpoints": [5]}))
                .starts_with("steps[0].breakpoints[0] must be a phase 1 to 4")
        );
        assert_eq!(step(json!({"title": "no text"})), "steps[0] needs \"text\"");
        assert_eq!(
            step(json!({"text": "x", "replies": [{"tool_use": [{"name": "a", "input": [1]}]}]})),
            "steps[0].replies[0].tool_use[0].input must be an object"
        );
        assert!(
            read(&json!({"lesson": 2, "title": "t", "steps": [{"text": "x"}]}))
                .unwrap_err()
                .contains("newer Loopscope")
        );
        assert_eq!(
            read(&json!({"lesson": 1, "title": "t", "steps": []})).unwrap_err(),
            "a lesson needs at least one step in \"steps\""
        );
    }

    #[test]
    fn the_built_in_lessons_read() {
        for name in ["four-phases", "error-layers", "parallel-calls"] {
            let path = format!("{}/../../lessons/{name}.json", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
            let lesson = super::super::parse(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(lesson.steps.len() >= 3, "{name}");
            assert_eq!(lesson.model, LessonModel::Demo, "{name}: built-in lessons need no key");
        }
    }
}
