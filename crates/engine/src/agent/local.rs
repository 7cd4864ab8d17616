//! Functions that run in the page: the "local function → execute directly" route of phase 3.
//! The weather is demo data, and says so in every answer.

use serde_json::{Value, json};

use super::calc;
use crate::time::format_iso;

pub struct LocalTool {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: fn() -> Value,
    /// Runs the tool on its input, given the current time (Unix ms). `Err` becomes an
    /// is_error tool_result.
    pub run: fn(&Value, f64) -> Result<String, String>,
}

pub fn builtin() -> Vec<LocalTool> {
    vec![
        LocalTool {
            name: "calculate",
            description: "Evaluate an arithmetic expression exactly: + - * / % ^, parentheses, sqrt, abs, round, pi. \
                Use it for any arithmetic instead of computing in your head.",
            input_schema: || json!({"type": "object", "properties": {"expression": {"type": "string", "description": "For example (2 + 3) * 4"}}, "required": ["expression"], "additionalProperties": false}),
            run: |input, _| {
                let expr =
                    input.get("expression").and_then(Value::as_str).ok_or("missing \"expression\" (a string)")?;
                calc::evaluate(expr).map(|v| format!("{expr} = {}", format_number(v)))
            },
        },
        LocalTool {
            name: "get_current_time",
            description: "The current date and time, in UTC or at a given UTC offset.",
            input_schema: || json!({"type": "object", "properties": {"utc_offset": {"type": "string", "description": "Like +09:00 or -05:30; UTC if omitted"}}, "additionalProperties": false}),
            run: |input, now_ms| {
                let offset = match input.get("utc_offset").and_then(Value::as_str) {
                    None | Some("") => 0,
                    Some(o) => parse_offset(o).ok_or_else(|| format!("\"{o}\" is not a UTC offset like +09:00"))?,
                };
                let (iso, weekday) = format_iso(now_ms, offset);
                Ok(format!("{iso} ({weekday})"))
            },
        },
        LocalTool {
            name: "get_weather",
            description: "Current weather for a city. DEMO DATA: made up from the city's name, not a real forecast.",
            input_schema: || json!({"type": "object", "properties": {"city": {"type": "string", "description": "City name, e.g. Tokyo"}}, "required": ["city"], "additionalProperties": false}),
            run: |input, _| {
                let city = input.get("city").and_then(Value::as_str).map(str::trim).unwrap_or("");
                if city.is_empty() {
                    return Err("missing \"city\" (a non-empty string)".into());
                }
                Ok(demo_weather(city))
            },
        },
    ]
}

fn parse_offset(s: &str) -> Option<i64> {
    let (sign, rest) = match s.as_bytes().first()? {
        b'+' => (1, s.get(1..)?),
        b'-' => (-1, s.get(1..)?),
        _ => return None,
    };
    let (h, m) = rest.split_once(':').unwrap_or((rest, "0"));
    let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
    (h <= 14 && m < 60).then_some(sign * (h * 60 + m))
}

fn format_number(v: f64) -> String {
    crate::num::shortest(v)
}

/// Deterministic made-up weather: the same city always gets the same answer.
fn demo_weather(city: &str) -> String {
    let h = city.to_ascii_lowercase().bytes().fold(2166136261u32, |h, b| (h ^ b as u32).wrapping_mul(16777619));
    let sky = ["Sunny", "Partly cloudy", "Cloudy", "Light rain", "Windy", "Clear"][(h % 6) as usize];
    let temp = (h / 7 % 30) as i32 + 2;
    format!("{sky}, {temp} degrees Celsius in {city} (demo data from Loopscope, not a real forecast)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, input: Value) -> Result<String, String> {
        let tools = builtin();
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        (tool.run)(&input, 784_111_777_000.0)
    }

    #[test]
    fn local_tools_answer_and_fail_clearly() {
        assert_eq!(run("calculate", json!({"expression": "(2 + 3) * 4"})).unwrap(), "(2 + 3) * 4 = 20");
        assert_eq!(run("calculate", json!({})).unwrap_err(), "missing \"expression\" (a string)");
        assert_eq!(
            run("get_current_time", json!({"utc_offset": "+09:00"})).unwrap(),
            "1994-11-06T17:49:37+09:00 (Sunday)"
        );
        assert!(run("get_current_time", json!({"utc_offset": "9"})).is_err());
        let tokyo = run("get_weather", json!({"city": "Tokyo"})).unwrap();
        assert!(tokyo.contains("demo data"), "{tokyo}");
        assert_eq!(tokyo, run("get_weather", json!({"city": "tokyo "})).unwrap().replace("tokyo", "Tokyo"));
        for t in builtin() {
            assert_eq!((t.input_schema)()["type"], "object", "{}", t.name);
            // Closed, so each can be sent strict (`claude::strict`).
            assert_eq!((t.input_schema)()["additionalProperties"], false, "{}", t.name);
        }
    }
}
