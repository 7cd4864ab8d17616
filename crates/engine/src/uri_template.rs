//! RFC 6570 URI Templates, all four levels, for resource templates (C-32): the variables a
//! template names (for the form), and the expansion of a template with the user's values.
//! Strings, lists and associative arrays expand as the RFC says, with its own examples as tests.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use crate::encoding::percent_encode;
use serde_json::{Map, Value};

/// One operator's expansion rules (RFC 6570, Appendix A).
struct Op {
    first: &'static str,
    sep: &'static str,
    named: bool,
    if_empty: &'static str,
    /// Reserved characters and pct-encoded triplets pass unencoded (`+` and `#`).
    reserved: bool,
}

fn op(c: Option<char>) -> Op {
    let o = |first, sep, named, if_empty, reserved| Op { first, sep, named, if_empty, reserved };
    match c {
        Some('+') => o("", ",", false, "", true),
        Some('#') => o("#", ",", false, "", true),
        Some('.') => o(".", ".", false, "", false),
        Some('/') => o("/", "/", false, "", false),
        Some(';') => o(";", ";", true, "", false),
        Some('?') => o("?", "&", true, "=", false),
        Some('&') => o("&", "&", true, "=", false),
        _ => o("", ",", false, "", false),
    }
}

/// A variable in an expression: its name, and `:N` (prefix) or `*` (explode).
struct VarSpec<'a> {
    name: &'a str,
    prefix: Option<usize>,
    explode: bool,
}

fn varspec(spec: &str) -> VarSpec<'_> {
    if let Some(name) = spec.strip_suffix('*') {
        return VarSpec { name, prefix: None, explode: true };
    }
    match spec.split_once(':') {
        Some((name, n)) => VarSpec { name, prefix: n.parse().ok(), explode: false },
        None => VarSpec { name: spec, prefix: None, explode: false },
    }
}

/// The operator and the variable list of an expression's body (between the braces).
fn expression(body: &str) -> (Option<char>, Vec<VarSpec<'_>>) {
    let mut chars = body.chars();
    let (op, rest) = match chars.next() {
        Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), chars.as_str()),
        _ => (None, body),
    };
    (op, rest.split(',').filter(|s| !s.is_empty()).map(varspec).collect())
}

/// A JSON scalar as text (`"a"` → `a`, `1.0` → `1.0`, `true` → `true`); `None` for the rest.
pub(crate) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// Expands one variable; `None` when it is undefined (and so left out).
fn expand_var(o: &Op, v: &VarSpec<'_>, value: &Value) -> Option<String> {
    let named = |text: String, empty: bool| {
        if !o.named {
            text
        } else if empty {
            format!("{}{}", v.name, o.if_empty)
        } else {
            format!("{}={text}", v.name)
        }
    };
    if let Some(s) = scalar(value) {
        let s = match v.prefix {
            Some(n) => s.chars().take(n).collect(),
            None => s,
        };
        return Some(named(percent_encode(&s, o.reserved), s.is_empty()));
    }
    // A list, or an associative array as (key, value) pairs.
    let (items, pairs): (Vec<String>, bool) = match value {
        Value::Array(list) => (list.iter().filter_map(scalar).collect(), false),
        Value::Object(map) => {
            (map.iter().filter_map(|(k, v)| scalar(v).map(|v| [k.clone(), v])).flatten().collect(), true)
        }
        _ => return None,
    };
    if items.is_empty() {
        return None;
    }
    let enc = |s: &String| percent_encode(s, o.reserved);
    if !v.explode {
        let joined = items.iter().map(enc).collect::<Vec<_>>().join(",");
        return Some(named(joined, false));
    }
    let parts: Vec<String> = if pairs {
        items
            .chunks_exact(2)
            .filter_map(|kv| match kv {
                [k, v] => Some(format!("{}={}", enc(k), enc(v))),
                _ => None,
            })
            .collect()
    } else if o.named {
        items
            .iter()
            .map(|i| if i.is_empty() { format!("{}{}", v.name, o.if_empty) } else { format!("{}={}", v.name, enc(i)) })
            .collect()
    } else {
        items.iter().map(enc).collect()
    };
    Some(parts.join(o.sep))
}

/// Expands `template` with `values` (strings, numbers, lists or objects; missing and null
/// values are undefined and left out, as the RFC says).
pub fn expand(template: &str, values: &Map<String, Value>) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some((literal, after)) = rest.split_once('{') {
        out.push_str(literal);
        let Some((body, next)) = after.split_once('}') else {
            out.push('{');
            out.push_str(after);
            return out;
        };
        let (c, vars) = expression(body);
        let o = op(c);
        let parts: Vec<String> =
            vars.iter().filter_map(|v| values.get(v.name).and_then(|value| expand_var(&o, v, value))).collect();
        if !parts.is_empty() {
            out.push_str(o.first);
            out.push_str(&parts.join(o.sep));
        }
        rest = next;
    }
    out.push_str(rest);
    out
}

/// The variables a template names, in order, each once.
pub fn variables(template: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for body in template.split('{').skip(1).filter_map(|p| p.split_once('}').map(|(b, _)| b)) {
        for v in expression(body).1 {
            if !names.iter().any(|n| n == v.name) {
                names.push(v.name.to_owned());
            }
        }
    }
    names
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The variables of RFC 6570, section 3.2.
    fn rfc() -> Map<String, Value> {
        json!({
            "count": ["one", "two", "three"],
            "dom": ["example", "com"],
            "dub": "me/too",
            "hello": "Hello World!",
            "half": "50%",
            "var": "value",
            "who": "fred",
            "base": "http://example.com/home/",
            "path": "/foo/bar",
            "list": ["red", "green", "blue"],
            "keys": {"semi": ";", "dot": ".", "comma": ","},
            "v": "6",
            "x": "1024",
            "y": "768",
            "empty": "",
            "empty_keys": {},
            "undef": null
        })
        .as_object()
        .cloned()
        .unwrap()
    }

    #[test]
    fn the_rfcs_own_examples_expand_as_it_says() {
        let cases = [
            // 3.2.1 variable expansion
            ("{count}", "one,two,three"),
            ("{count*}", "one,two,three"),
            ("{/count}", "/one,two,three"),
            ("{/count*}", "/one/two/three"),
            ("{;count}", ";count=one,two,three"),
            ("{;count*}", ";count=one;count=two;count=three"),
            ("{?count}", "?count=one,two,three"),
            ("{?count*}", "?count=one&count=two&count=three"),
            ("{&count*}", "&count=one&count=two&count=three"),
            // 3.2.2 simple string expansion
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{half}", "50%25"),
            ("O{empty}X", "OX"),
            ("O{undef}X", "OX"),
            ("{x,y}", "1024,768"),
            ("{x,hello,y}", "1024,Hello%20World%21,768"),
            ("?{x,empty}", "?1024,"),
            ("?{x,undef}", "?1024"),
            ("?{undef,y}", "?768"),
            ("{var:3}", "val"),
            ("{var:30}", "value"),
            ("{list}", "red,green,blue"),
            ("{list*}", "red,green,blue"),
            ("{keys}", "semi,%3B,dot,.,comma,%2C"),
            ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
            // 3.2.3 reserved expansion
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+half}", "50%25"),
            ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
            ("{+base}index", "http://example.com/home/index"),
            ("O{+empty}X", "OX"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("up{+path}{var}/here", "up/foo/barvalue/here"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("{+path,x}/here", "/foo/bar,1024/here"),
            ("{+path:6}/here", "/foo/b/here"),
            ("{+list}", "red,green,blue"),
            ("{+keys*}", "semi=;,dot=.,comma=,"),
            // 3.2.4 fragment expansion
            ("{#var}", "#value"),
            ("{#hello}", "#Hello%20World!"),
            ("{#half}", "#50%25"),
            ("foo{#empty}", "foo#"),
            ("foo{#undef}", "foo"),
            ("{#x,hello,y}", "#1024,Hello%20World!,768"),
            ("{#path,x}/here", "#/foo/bar,1024/here"),
            ("{#path:6}/here", "#/foo/b/here"),
            ("{#list*}", "#red,green,blue"),
            ("{#keys}", "#semi,;,dot,.,comma,,"),
            // 3.2.5 label expansion
            ("{.who}", ".fred"),
            ("{.who,who}", ".fred.fred"),
            ("{.half,who}", ".50%25.fred"),
            ("www{.dom*}", "www.example.com"),
            ("X{.var}", "X.value"),
            ("X{.empty}", "X."),
            ("X{.undef}", "X"),
            ("X{.var:3}", "X.val"),
            ("X{.list}", "X.red,green,blue"),
            ("X{.list*}", "X.red.green.blue"),
            ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
            ("X{.empty_keys}", "X"),
            // 3.2.6 path segment expansion
            ("{/who}", "/fred"),
            ("{/who,who}", "/fred/fred"),
            ("{/half,who}", "/50%25/fred"),
            ("{/who,dub}", "/fred/me%2Ftoo"),
            ("{/var}", "/value"),
            ("{/var,empty}", "/value/"),
            ("{/var,undef}", "/value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{/var:1,var}", "/v/value"),
            ("{/list*}", "/red/green/blue"),
            ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
            ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
            // 3.2.7 path-style parameter expansion
            ("{;who}", ";who=fred"),
            ("{;half}", ";half=50%25"),
            ("{;empty}", ";empty"),
            ("{;v,empty,who}", ";v=6;empty;who=fred"),
            ("{;v,bar,who}", ";v=6;who=fred"),
            ("{;x,y}", ";x=1024;y=768"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{;x,y,undef}", ";x=1024;y=768"),
            ("{;hello:5}", ";hello=Hello"),
            ("{;list}", ";list=red,green,blue"),
            ("{;list*}", ";list=red;list=green;list=blue"),
            ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
            // 3.2.8 form-style query expansion
            ("{?who}", "?who=fred"),
            ("{?half}", "?half=50%25"),
            ("{?x,y}", "?x=1024&y=768"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("{?x,y,undef}", "?x=1024&y=768"),
            ("{?var:3}", "?var=val"),
            ("{?list}", "?list=red,green,blue"),
            ("{?list*}", "?list=red&list=green&list=blue"),
            ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
            // 3.2.9 form-style query continuation
            ("{&who}", "&who=fred"),
            ("{&half}", "&half=50%25"),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{&x,y,empty}", "&x=1024&y=768&empty="),
            ("{&var:3}", "&var=val"),
            ("{&list}", "&list=red,green,blue"),
            ("{&list*}", "&list=red&list=green&list=blue"),
            ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
        ];
        let values = rfc();
        for (template, expected) in cases {
            assert_eq!(expand(template, &values), expected, "{template}");
        }
    }

    #[test]
    fn the_form_asks_for_each_variable_once_and_text_is_utf8_encoded() {
        assert_eq!(variables("notes://{folder}/{+path}{?q,folder}{&page*}"), ["folder", "path", "q", "page"]);
        assert_eq!(variables("no variables"), Vec::<String>::new());
        let values = json!({"name": "café & co"}).as_object().cloned().unwrap();
        assert_eq!(expand("file:///{name}", &values), "file:///caf%C3%A9%20%26%20co");
        assert_eq!(expand("broken {name", &values), "broken {name", "an unclosed brace is kept as written");
    }
}
