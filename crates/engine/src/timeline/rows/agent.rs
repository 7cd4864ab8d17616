//! Rows of the loop: the phases, the tools array, each tool_use, its route, a local
//! function's call, the tool_results, and the end of the turn.

use super::*;

impl Timeline {
    pub(super) fn on_phase(&mut self, e: &TraceEvent, phase: u8, iteration: u32) -> usize {
        self.phase = Some((phase, iteration));
        let title = crate::timeline::phase_title(phase);
        self.add(e, RowKind::Band { phase, iteration }, format!("{phase} {title}"), format!("round {iteration}"))
    }

    pub(super) fn on_turn_end(&mut self, e: &TraceEvent, stop_reason: Option<&str>, summary: &str) -> usize {
        let label = format!("turn ends: {}", stop_reason.unwrap_or("stopped"));
        let row = self.add(e, arrow(Lane::Client, Lane::User), label, summary);
        self.phase = None;
        if stop_reason.is_none() {
            self.badge(row, BadgeKind::Failure, "not finished", false);
        }
        row
    }

    pub(super) fn on_tools(&mut self, e: &TraceEvent, tools: &[AggregatedTool], excluded: usize) -> usize {
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).take(6).collect();
        let detail = names.join(", ") + if tools.len() > 6 { ", …" } else { "" };
        let row = self.add(e, arrow(Lane::Client, Lane::Client), format!("tools array: {} tools", tools.len()), detail);
        if excluded > 0 {
            self.badge(row, BadgeKind::Info, format!("{excluded} left out"), false);
        }
        row
    }

    /// A tool_use: from Claude, or (programmatic tool calling) from code on the API's side.
    pub(super) fn on_tool_use(
        &mut self,
        e: &TraceEvent,
        tool_use_id: &str,
        name: &str,
        input: &Value,
        caller: Option<&str>,
    ) -> usize {
        self.tool_names.insert(tool_use_id.to_owned(), name.to_owned());
        let row = match caller {
            None => self.add(e, arrow(Lane::Claude, Lane::Client), format!("tool_use {name}"), short_json(input, 60)),
            Some(_) => {
                self.show_lane(Lane::ApiTools);
                let label = format!("tool_use {name} (from code)");
                self.add(e, arrow(Lane::ApiTools, Lane::Client), label, short_json(input, 60))
            }
        };
        self.for_tool(row, Some(tool_use_id.to_owned()));
        row
    }

    /// A thinking block, on Claude's lane: what it says, or why it says nothing.
    pub(super) fn on_thinking(&mut self, e: &TraceEvent, text: &str, redacted: bool) -> usize {
        let (label, detail) = match (redacted, text.is_empty()) {
            (true, _) => ("redacted thinking", "encrypted by the API; goes back unchanged".to_owned()),
            (false, true) => ("thinking", "text omitted; goes back signed".to_owned()),
            (false, false) => ("thinking", short(text, 80)),
        };
        self.add(e, RowKind::Note { lane: Lane::Claude }, label, detail)
    }

    /// A block the page does not route: a call the API runs itself and its result, on the API's
    /// tools lane; a block type this page does not know, as a note with its JSON.
    pub(super) fn on_api_block(&mut self, e: &TraceEvent, kind: &str, block: &Value) -> usize {
        if kind == "server_tool_use" || kind == "mcp_tool_use" {
            self.show_lane(Lane::ApiTools);
            let name = block.get("name").and_then(Value::as_str).unwrap_or("?");
            let label = format!("{kind} {name}");
            let row = self.add(e, arrow(Lane::Claude, Lane::ApiTools), label, short_json(&block["input"], 60));
            self.for_tool(row, block.get("id").and_then(Value::as_str).map(str::to_owned));
            return row;
        }
        if kind.ends_with("_tool_result") {
            self.show_lane(Lane::ApiTools);
            let content = &block["content"];
            let error = content.get("error_code").and_then(Value::as_str);
            let found = content.get("tool_references").and_then(Value::as_array).map(|refs| {
                let names: Vec<&str> = refs.iter().filter_map(|r| r.get("tool_name").and_then(Value::as_str)).collect();
                if names.is_empty() { "found nothing".to_owned() } else { format!("found {}", names.join(", ")) }
            });
            let detail = match (error, found, content) {
                (Some(code), _, _) => format!("error: {code}"),
                (None, Some(found), _) => found,
                (None, None, Value::Array(items)) => {
                    format!("{} item{}", items.len(), if items.len() == 1 { "" } else { "s" })
                }
                (None, None, other) => short_json(other, 60),
            };
            let row = self.add(e, arrow(Lane::ApiTools, Lane::Claude), kind.to_owned(), detail);
            self.for_tool(row, block.get("tool_use_id").and_then(Value::as_str).map(str::to_owned));
            if let Some(code) = error {
                self.badge(row, BadgeKind::ToolError, code, true);
            } else if block.get("is_error") == Some(&Value::Bool(true)) {
                self.badge(row, BadgeKind::ToolError, "is_error", true);
            }
            return row;
        }
        let row =
            self.add(e, RowKind::Note { lane: Lane::Claude }, format!("unknown block {kind}"), short_json(block, 80));
        self.badge(row, BadgeKind::Info, "kept as it came", false);
        row
    }

    pub(super) fn on_route(&mut self, e: &TraceEvent, tool_use_id: &str, name: &str, target: &RouteTarget) -> usize {
        let row = self.add(e, arrow(Lane::Client, Lane::Client), format!("route {name}"), target.arrow());
        self.for_tool(row, Some(tool_use_id.to_owned()));
        if matches!(target, RouteTarget::Refused { .. }) {
            self.badge(row, BadgeKind::Failure, "not run", true);
        }
        row
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn on_local_call(
        &mut self,
        e: &TraceEvent,
        tool_use_id: &str,
        function: &str,
        input: &Value,
        output: &str,
        is_error: bool,
        elapsed_ms: f64,
    ) -> usize {
        let call = self.add(e, arrow(Lane::Client, Lane::Local), format!("{function}()"), short_json(input, 60));
        self.for_tool(call, Some(tool_use_id.to_owned()));
        self.rows[call].duration_ms = Some(elapsed_ms);
        let ret = self.add(e, arrow(Lane::Local, Lane::Client), format!("return from {function}"), short(output, 60));
        self.for_tool(ret, Some(tool_use_id.to_owned()));
        if is_error {
            self.badge(ret, BadgeKind::ToolError, "error", true);
        }
        call
    }

    pub(super) fn on_tool_result(
        &mut self,
        e: &TraceEvent,
        tool_use_id: &str,
        is_error: bool,
        content: &Value,
        failure: Option<&Failure>,
    ) -> usize {
        let name = self.tool_names.get(tool_use_id).cloned().unwrap_or_default();
        let row =
            self.add(e, arrow(Lane::Client, Lane::Claude), format!("tool_result {name}"), short_json(content, 60));
        self.for_tool(row, Some(tool_use_id.to_owned()));
        if is_error {
            self.badge(row, BadgeKind::ToolError, "is_error", true);
        }
        if let Some(f) = failure {
            self.badge(row, badge_of(f.layer), f.layer.label(), true);
        }
        row
    }
}
