//! The demo model: a scripted stand-in for Claude, so a workshop without API keys still sees the
//! whole loop. It reads the same request Claude would, picks tools by matching words of the
//! question against tool names and descriptions, fills arguments from the question, and, once
//! results come back, answers by quoting them. It is not Claude and says so in every answer.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::{Map, Value, json};

/// What the demo model answers: text and tool calls, and why it stopped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// Reasoning shown as a thinking block before the text (signed, so a changed one is refused
    /// as the API refuses it: `refuse.rs`).
    pub thinking: Option<String>,
    /// A web search run "on the API's side" (by the demo, with canned results) before the text:
    /// the query.
    pub web_search: Option<String>,
    /// Calls the demo's MCP connector made on the API's side before the text (`connector.rs`).
    pub connector: Vec<super::connector::ConnectorCall>,
    pub text: String,
    pub calls: Vec<(String, Value)>,
    pub stop_reason: &'static str,
}

impl Reply {
    /// An answer a lesson wrote for the demo model: it says so, and stops for its tool calls.
    pub fn scripted(text: &str, calls: Vec<(String, Value)>) -> Reply {
        Reply {
            thinking: None,
            web_search: None,
            connector: Vec::new(),
            text: format!("(Demo model, scripted by the lesson.) {text}"),
            stop_reason: if calls.is_empty() { "end_turn" } else { "tool_use" },
            calls,
        }
    }
}

const STOP_WORDS: [&str; 24] = [
    "the", "a", "an", "and", "or", "of", "in", "on", "for", "to", "is", "what", "whats", "what's", "me", "my",
    "please", "get", "tell", "with", "it", "at", "how", "do",
];

/// A letter or digit. Any non-ASCII character counts as a letter: core's Unicode tables cost
/// the page kilobytes, and the demo model only needs words, names and paths.
fn letter(c: char) -> bool {
    c.is_ascii_alphanumeric() || !c.is_ascii()
}

/// Could start a name ("Tokyo", "Évian"): an ASCII capital, or any non-ASCII letter.
fn capital(c: char) -> bool {
    c.is_ascii_uppercase() || !c.is_ascii()
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !letter(c))
        .filter(|w| w.len() > 2)
        .map(|w| w.to_ascii_lowercase())
        .filter(|w| !STOP_WORDS.contains(&w.as_str()))
        .collect()
}

fn last_user_text(messages: &[Value]) -> String {
    let last = messages.last().cloned().unwrap_or(Value::Null);
    match last.get("content").unwrap_or(&Value::Null) {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks.iter().filter_map(|b| b["text"].as_str()).collect::<Vec<_>>().join(" "),
        _ => String::new(),
    }
}

/// The arithmetic in a question: the longest run of digits, operators and parentheses.
fn expression(q: &str) -> Option<String> {
    let q = q.replace('×', "*").replace('÷', "/");
    let mut best = String::new();
    let mut cur = String::new();
    for c in q.chars().chain(std::iter::once('\n')) {
        if c.is_ascii_digit() || "+-*/%^(). ".contains(c) {
            cur.push(c);
        } else {
            let t = cur.trim();
            if t.chars().any(|c| "+-*/%^".contains(c)) && t.chars().any(|c| c.is_ascii_digit()) && t.len() > best.len()
            {
                best = t.trim_end_matches(['.', ' ']).to_owned();
            }
            cur.clear();
        }
    }
    (!best.is_empty()).then_some(best)
}

/// A place name: the capitalised word(s) after "in", or any capitalised word that does not
/// start the sentence.
fn place(q: &str) -> Option<String> {
    let tokens: Vec<&str> = q.split_whitespace().collect();
    for (i, t) in tokens.iter().enumerate() {
        if t.eq_ignore_ascii_case("in") {
            let name: Vec<&str> = tokens
                .get(i + 1..)
                .unwrap_or_default()
                .iter()
                .map(|w| w.trim_matches(|c: char| !letter(c)))
                .take_while(|w| w.chars().next().is_some_and(capital))
                .collect();
            if !name.is_empty() {
                return Some(name.join(" "));
            }
        }
    }
    tokens
        .iter()
        .skip(1)
        .map(|w| w.trim_matches(|c: char| !letter(c)))
        .find(|w| w.len() > 2 && w.chars().next().is_some_and(capital) && *w != "MCP")
        .map(str::to_owned)
}

fn quoted(q: &str) -> Option<String> {
    let (_, rest) = q.split_once(['"', '“', '\''])?;
    let (inside, _) = rest.split_once(['"', '”', '\''])?;
    Some(inside.to_owned())
}

/// A file path in a question: a word with a slash, or a name with an extension ("main.ts").
fn path(q: &str) -> Option<String> {
    q.split_whitespace()
        .map(|w| w.trim_matches(|c: char| !(letter(c) || "/._-".contains(c))).trim_end_matches('.'))
        .find(|w| {
            w.contains('/')
                || w.split_once('.').is_some_and(|(a, b)| !a.is_empty() && b.chars().all(letter) && !b.is_empty())
        })
        .map(str::to_owned)
}

fn numbers(q: &str) -> Vec<f64> {
    q.split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-')).filter_map(|t| t.parse().ok()).collect()
}

/// Arguments for `schema` from the question; `None` if a required one cannot be filled.
fn arguments(schema: &Value, q: &str) -> Option<Value> {
    let props = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
    let required = crate::form::required(schema);
    let mut args = Map::new();
    let nums = numbers(q);
    let mut next_num = nums.iter();
    for (name, spec) in &props {
        let kind = spec.get("type").and_then(Value::as_str).unwrap_or("string");
        let lname = name.to_ascii_lowercase();
        let choices: Vec<&str> = spec
            .get("enum")
            .and_then(Value::as_array)
            .map(|e| e.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let value = match kind {
            // One of the listed values: the one the question names, else the only one.
            _ if !choices.is_empty() => {
                let named = choices.iter().find(|c| q.to_ascii_lowercase().contains(&c.to_ascii_lowercase()));
                named.or(choices.first().filter(|_| choices.len() == 1)).map(|c| Value::from(*c))
            }
            "number" | "integer" => {
                next_num.next().map(|n| if kind == "integer" { json!(*n as i64) } else { json!(n) })
            }
            "boolean" => None,
            _ if lname.contains("expr") => expression(q).map(Value::from),
            _ if lname.contains("path") || lname.contains("file") => path(q).map(Value::from),
            _ if ["city", "location", "place"].iter().any(|k| lname.contains(k)) => place(q).map(Value::from),
            _ if lname.contains("offset") || lname.contains("zone") => None,
            _ => Some(Value::from(quoted(q).unwrap_or_else(|| q.trim().to_owned()))),
        };
        match value {
            Some(v) => {
                args.insert(name.clone(), v);
            }
            None if required.contains(&name.as_str()) => return None,
            None => {}
        }
    }
    Some(Value::Object(args))
}

/// How well a tool fits the question: words of its name count double, then its description.
fn score(tool: &Value, q_words: &[String]) -> usize {
    let name = tool["name"].as_str().unwrap_or("");
    let name_words = words(&name.replace(['_', '-', '.'], " "));
    let desc_words = words(tool["description"].as_str().unwrap_or(""));
    q_words
        .iter()
        .map(|w| {
            // A shared stem counts: the first four characters (not bytes: "cafés" is no slice).
            let stem = w.char_indices().nth(4).and_then(|(at, _)| w.get(..at));
            2 * name_words.iter().filter(|n| *n == w || stem.is_some_and(|s| n.starts_with(s))).count()
                + usize::from(desc_words.contains(w))
        })
        .sum()
}

/// The demo model's answer to a Messages request body.
pub fn respond(request: &Value) -> Reply {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.last().cloned().unwrap_or(Value::Null);
    let results: Vec<&Value> = last
        .get("content")
        .unwrap_or(&Value::Null)
        .as_array()
        .map(|b| b.iter().filter(|b| b["type"] == "tool_result").collect())
        .unwrap_or_default();
    let question = last_user_text(&messages);
    let tools = request["tools"].as_array().cloned().unwrap_or_default();
    let choice = &request["tool_choice"];
    if !results.is_empty() {
        let answer = answer_from_results(&messages, &results);
        // A forced choice forces a call after results too, as the API does.
        return forced(choice, &tools, &question, answer.calls.clone()).unwrap_or(answer);
    }
    if let Some(reply) = web_search(&tools, &question, choice) {
        return reply;
    }
    let q_words = words(&question);
    // The page's skill functions only when the question is about a skill (a "read the file"
    // question means the server's read_file).
    let about_skills = q_words.iter().any(|w| w.starts_with("skill"));
    let mut scored: Vec<(usize, &Value)> = tools
        .iter()
        .filter(|t| about_skills || !t["name"].as_str().unwrap_or_default().contains("skill"))
        .map(|t| (score(t, &q_words), t))
        .filter(|(s, _)| *s >= 2)
        .collect();
    if expression(&question).is_some()
        && let Some(calc) = tools.iter().find(|t| t["name"] == "calculate")
    {
        scored.push((3, calc));
    }
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    let mut calls: Vec<(String, Value)> = Vec::new();
    for (_, tool) in scored {
        let name = tool["name"].as_str().unwrap_or("").to_owned();
        if calls.len() == 3 || calls.iter().any(|(n, _)| *n == name) {
            continue;
        }
        if let Some(args) = arguments(&tool["input_schema"], &question) {
            calls.push((name, args));
        }
    }
    if choice["disable_parallel_tool_use"] == true {
        calls.truncate(1);
    }
    if choice["type"] == "none" {
        let would: Vec<&str> = calls.iter().map(|(n, _)| n.as_str()).collect();
        let would =
            if would.is_empty() { String::new() } else { format!(" I would have called {}.", would.join(" and ")) };
        let text = format!(
            "(Demo model, not Claude.) tool_choice is none: the tools are described to me, but I may not call \
             one, so I answer without them.{would}"
        );
        return Reply {
            thinking: None,
            web_search: None,
            connector: Vec::new(),
            text,
            calls: Vec::new(),
            stop_reason: "end_turn",
        };
    }
    if let Some(reply) = forced(choice, &tools, &question, calls.clone()) {
        return reply;
    }
    if calls.is_empty() {
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).take(8).collect();
        return Reply {
            thinking: None,
            web_search: None,
            connector: Vec::new(),
            text: format!(
                "(Demo model, not Claude.) I found no tool that fits. Try \"What's the weather in Tokyo, and what is 17 * 23?\", or name one of these tools: {}.",
                names.join(", ")
            ),
            calls,
            stop_reason: "end_turn",
        };
    }
    let names: Vec<&str> = calls.iter().map(|(n, _)| n.as_str()).collect();
    let reasoning = calls.iter().map(|(n, args)| format!("{n} with {args}")).collect::<Vec<_>>().join(", then ");
    Reply {
        web_search: None,
        connector: Vec::new(),
        thinking: Some(format!(
            "(The demo model's reasoning, made by rules, not Claude's.) Words of the question match the name or \
             description of {}. Each tool's input_schema says what to fill in, so I'll call {reasoning}.",
            names.join(" and ")
        )),
        text: format!("(Demo model, not Claude.) I'll use {}.", names.join(" and ")),
        calls,
        stop_reason: "tool_use",
    }
}

/// A question that asks for the web, with web search among the server tools: the demo runs it
/// "on the API's side" (canned results, said to be), and answers in the same message, as the
/// API does; the page routes nothing.
fn web_search(tools: &[Value], question: &str, choice: &Value) -> Option<Reply> {
    let offered = tools.iter().any(|t| t["type"].as_str().is_some_and(|k| k.starts_with("web_search_")));
    let asks = words(question).iter().any(|w| ["web", "online", "internet"].contains(&w.as_str()));
    if !offered || !asks || choice["type"] == "none" {
        return None;
    }
    Some(Reply {
        thinking: Some(
            "(The demo model's reasoning, made by rules, not Claude's.) The question asks for the web, and web_search \
             is among the tools the API runs itself: I call it with server_tool_use, and its result comes back in \
             this same answer."
                .to_owned(),
        ),
        web_search: Some(question.chars().take(80).collect()),
        connector: Vec::new(),
        text: "(Demo model, not Claude.) The web search found (demo results, made up in the page): \"Specification - \
               Model Context Protocol\" at modelcontextprotocol.io. Phase 3 happened on the API's side: this page \
               routed nothing."
            .to_owned(),
        calls: Vec::new(),
        stop_reason: "end_turn",
    })
}

/// The answer a forcing `tool_choice` (`any`, or `tool` with a name) makes: the call first,
/// with no text or thinking before it. `any` keeps the calls the question chose (or the first
/// tool it can fill); `tool` calls the one named, filled from the question as far as it can.
fn forced(choice: &Value, tools: &[Value], question: &str, chosen: Vec<(String, Value)>) -> Option<Reply> {
    let calls = match choice["type"].as_str()? {
        "any" if !chosen.is_empty() => chosen,
        "any" => {
            let tool = tools.iter().find(|t| arguments(&t["input_schema"], question).is_some()).or(tools.first())?;
            let args = arguments(&tool["input_schema"], question).unwrap_or_else(|| json!({}));
            vec![(tool["name"].as_str()?.to_owned(), args)]
        }
        "tool" => {
            let name = choice["name"].as_str()?;
            let tool = tools.iter().find(|t| t["name"] == name)?;
            let args = chosen
                .into_iter()
                .find(|(n, _)| n == name)
                .map(|(_, a)| a)
                .or_else(|| arguments(&tool["input_schema"], question))
                .unwrap_or_else(|| json!({}));
            vec![(name.to_owned(), args)]
        }
        _ => return None,
    };
    let calls = if choice["disable_parallel_tool_use"] == true { calls.into_iter().take(1).collect() } else { calls };
    Some(Reply {
        thinking: None,
        web_search: None,
        connector: Vec::new(),
        text: String::new(),
        calls,
        stop_reason: "tool_use",
    })
}

/// A tool_result's content in words, on one line.
fn result_text(r: &Value) -> String {
    crate::text::content_text(&r["content"]).replace('\n', " ")
}

/// The article's self-correction: a server said the path must be absolute, so call again with
/// one. Only for calls whose path was relative, so it cannot loop.
/// Returns (tool_use id, tool, corrected input).
fn corrections(uses: &[Value], results: &[&Value]) -> Vec<(Value, String, Value)> {
    results
        .iter()
        .filter(|r| r["is_error"] == true && result_text(r).contains("must be an absolute"))
        .filter_map(|r| uses.iter().find(|u| u["id"] == r["tool_use_id"]))
        .filter_map(|u| {
            let path = u.pointer("/input/path").and_then(Value::as_str).filter(|p| !p.starts_with('/'))?;
            Some((u["id"].clone(), u["name"].as_str()?.to_owned(), json!({ "path": format!("/{path}") })))
        })
        .collect()
}

fn answer_from_results(messages: &[Value], results: &[&Value]) -> Reply {
    let uses: Vec<Value> = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "assistant")
        .and_then(|m| m["content"].as_array().cloned())
        .unwrap_or_default();
    let retry = corrections(&uses, results);
    let mut lines = vec![if retry.is_empty() {
        "(Demo model, not Claude.) Here is what the tools returned:".to_owned()
    } else {
        let paths: Vec<&str> = retry.iter().filter_map(|(_, _, a)| a["path"].as_str()).collect();
        format!(
            "(Demo model, not Claude.) The server answered that the path must be absolute, so I'll try again with {}.",
            paths.join(" and ")
        )
    }];
    for r in results {
        if retry.iter().any(|(id, _, _)| *id == r["tool_use_id"]) {
            continue;
        }
        let name =
            uses.iter().find(|u| u["id"] == r["tool_use_id"]).and_then(|u| u["name"].as_str()).unwrap_or("a tool");
        let verb = if r["is_error"] == true { "failed" } else { "said" };
        lines.push(format!("- {name} {verb}: {}", result_text(r)));
    }
    if !retry.is_empty() {
        let calls = retry.into_iter().map(|(_, name, input)| (name, input)).collect();
        return Reply {
            thinking: None,
            web_search: None,
            connector: Vec::new(),
            text: lines.join("\n"),
            calls,
            stop_reason: "tool_use",
        };
    }
    Reply {
        thinking: None,
        web_search: None,
        connector: Vec::new(),
        text: lines.join("\n"),
        calls: Vec::new(),
        stop_reason: "end_turn",
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    fn tools() -> Value {
        json!([
            {"name": "calculate", "description": "Evaluate an arithmetic expression", "input_schema": {"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]}},
            {"name": "get_weather", "description": "Current weather for a city. DEMO DATA", "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
            {"name": "get_current_time", "description": "The current date and time", "input_schema": {"type": "object", "properties": {"utc_offset": {"type": "string"}}}},
            {"name": "notes_search_notes", "description": "Search the notebook", "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}
        ])
    }

    fn ask(q: &str) -> Reply {
        respond(&json!({"messages": [{"role": "user", "content": [{"type": "text", "text": q}]}], "tools": tools()}))
    }

    #[test]
    fn picks_tools_and_fills_arguments_from_the_question() {
        let r = ask("What's the weather in Tokyo, and what is 17 * 23?");
        assert_eq!(r.stop_reason, "tool_use");
        assert!(r.calls.contains(&("get_weather".into(), json!({"city": "Tokyo"}))), "{r:?}");
        assert!(r.calls.contains(&("calculate".into(), json!({"expression": "17 * 23"}))), "{r:?}");
        let r = ask("Search my notes for \"jsonrpc\"");
        assert_eq!(r.calls, [("notes_search_notes".to_owned(), json!({"query": "jsonrpc"}))]);
        let r = ask("What time is it?");
        assert_eq!(r.calls[0].0, "get_current_time");
    }

    #[test]
    fn a_relative_path_refused_by_the_server_is_retried_once_as_absolute() {
        let tools = json!([{"name": "demo_read_file", "description": "Read a file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]);
        let asked =
            respond(&json!({"messages": [{"role": "user", "content": "Read the file src/main.ts."}], "tools": tools}));
        assert_eq!(asked.calls, [("demo_read_file".to_owned(), json!({"path": "src/main.ts"}))]);
        let refused = |path: &str| {
            json!({"messages": [
            {"role": "user", "content": "Read the file src/main.ts."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "demo_read_file", "input": {"path": path}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "is_error": true,
                "content": "JSON-RPC error -32602: Invalid params: 'path' must be an absolute string."}]}
        ], "tools": tools})
        };
        let retry = respond(&refused("src/main.ts"));
        assert_eq!(retry.calls, [("demo_read_file".to_owned(), json!({"path": "/src/main.ts"}))]);
        assert_eq!(respond(&refused("/src/main.ts")).stop_reason, "end_turn", "no second retry");
    }

    #[test]
    fn says_it_is_not_claude_and_quotes_results() {
        assert!(ask("hello there").text.contains("not Claude"));
        let r = respond(&json!({"messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "get_weather", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "Sunny", "is_error": true}]}
        ]}));
        assert_eq!(r.stop_reason, "end_turn");
        assert!(r.text.contains("get_weather failed: Sunny"), "{}", r.text);
    }

    #[test]
    fn tool_choice_is_followed_as_the_api_documents_it() {
        let q = "What's the weather in Tokyo, and what is 17 * 23?";
        let with = |choice: Value| {
            respond(&json!({"messages": [{"role": "user", "content": q}], "tools": tools(), "tool_choice": choice}))
        };
        // none: tools described, none called; the answer says what it would have called.
        let none = with(json!({"type": "none"}));
        assert!(none.calls.is_empty() && none.stop_reason == "end_turn");
        assert!(none.text.contains("tool_choice is none") && none.text.contains("get_weather"), "{}", none.text);
        // A named tool: that call only, first, with no text or thinking before it.
        let named = with(json!({"type": "tool", "name": "calculate"}));
        assert_eq!(named.calls, [("calculate".to_owned(), json!({"expression": "17 * 23"}))]);
        assert!(named.text.is_empty() && named.thinking.is_none());
        // any: a call is a must, even for a question no tool fits.
        let any = respond(
            &json!({"messages": [{"role": "user", "content": "hello"}], "tools": tools(), "tool_choice": {"type": "any"}}),
        );
        assert_eq!(any.stop_reason, "tool_use");
        assert_eq!(any.calls.len(), 1);
        // One call per answer with parallel tool use off, whatever the choice.
        assert_eq!(with(json!({"type": "auto", "disable_parallel_tool_use": true})).calls.len(), 1);
        assert_eq!(with(json!({"type": "any", "disable_parallel_tool_use": true})).calls.len(), 1);
        // Forced after results too: the API forces a call on every request that says so.
        let after = respond(&json!({"messages": [
            {"role": "user", "content": q},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "calculate", "input": {"expression": "17 * 23"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "391"}]}
        ], "tools": tools(), "tool_choice": {"type": "tool", "name": "calculate"}}));
        assert_eq!(after.stop_reason, "tool_use");
    }

    #[test]
    fn a_web_search_runs_only_when_offered_asked_for_and_allowed() {
        let q = "Search the web for the MCP specification";
        let search = json!({"type": "web_search_20250305", "name": "web_search"});
        let with = |tools: Value, choice: Value| {
            respond(&json!({"messages": [{"role": "user", "content": q}], "tools": tools, "tool_choice": choice}))
        };
        let r = with(json!([search]), Value::Null);
        assert_eq!(r.web_search.as_deref(), Some(q));
        assert!(r.calls.is_empty() && r.stop_reason == "end_turn" && r.text.contains("demo results"));
        assert_eq!(with(json!([]), Value::Null).web_search, None, "not offered");
        assert_eq!(with(json!([search]), json!({"type": "none"})).web_search, None, "tool_choice none");
        let other = respond(&json!({"messages": [{"role": "user", "content": "17 * 23?"}], "tools": [search]}));
        assert_eq!(other.web_search, None, "not asked for");
    }
}
