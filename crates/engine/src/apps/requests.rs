//! The app's requests, answered (`host.rs` reads and routes them): `ui/initialize` with the
//! host's context; `tools/call` only to the app's own server's tools for apps, under the same
//! consent as Claude's calls; `resources/read`; what it gives Claude (`ui/update-model-context`)
//! and what needs the user's yes (`ui/message`, `ui/open-link` after the URL policy,
//! `ui/download-file` after `download.rs` read it); the
//! display mode. A refusal is a JSON-RPC error that says why.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::{Value, json};

use super::context::{ModelContext, read_message};
use super::download::read_download;
use super::host::{APPS_VERSION, AppAsk, AppHost, Effect, MODES, Stage};
use crate::mcp::RequestOptions;
use crate::platform::Platform;
use crate::trace::RouteTarget;
use protocol::jsonrpc::{ErrorCode, ErrorObject};

impl<P: Platform> AppHost<P> {
    /// The answer to one of the app's requests, and what the page must do for it.
    pub(super) async fn answer(
        &self,
        method: &str,
        params: Value,
        effects: &mut Vec<Effect>,
    ) -> Result<Value, ErrorObject> {
        let refuse = |code: i64, message: String| ErrorObject::new(ErrorCode(code), message);
        match method {
            "ping" => return Ok(json!({})),
            "ui/initialize" if self.stage() == Stage::Resource => {
                let modes = params.pointer("/appCapabilities/availableDisplayModes").and_then(Value::as_array);
                let modes = modes.into_iter().flatten().filter_map(Value::as_str).take(8).map(str::to_owned).collect();
                let mut s = self.state.borrow_mut();
                s.stage = Stage::Initializing;
                s.app_modes = modes;
                drop(s);
                return Ok(self.initialize_result());
            }
            "ui/initialize" => return Err(refuse(-32600, "ui/initialize was already answered".into())),
            _ if self.stage() != Stage::Ready => {
                return Err(refuse(-32002, format!("{method} before ui/notifications/initialized")));
            }
            _ => {}
        }
        match method {
            "tools/call" => self.tools_call(&params).await,
            "resources/read" => {
                let uri = params.get("uri").and_then(Value::as_str).unwrap_or("");
                let read = self.client.read_resource(uri, &RequestOptions::default()).await;
                let result = read.map_err(|e| refuse(-32000, format!("resources/read failed: {e}")))?;
                Ok(serde_json::to_value(result).unwrap_or(Value::Null))
            }
            "ui/request-display-mode" => {
                let asked = params.get("mode").and_then(Value::as_str).unwrap_or("");
                let mode = self.switch(asked);
                effects.extend(mode.1);
                Ok(json!({ "mode": mode.0 }))
            }
            "ui/update-model-context" => {
                let context = ModelContext::read(&self.lane, &params)
                    .map_err(|why| refuse(-32602, format!("Loopscope did not keep this context: {why}")))?;
                effects.push(Effect::Context(context));
                Ok(json!({}))
            }
            "ui/message" => {
                self.after_yes(read_message(&params).map(AppAsk::Message), "did not send this message").await
            }
            "ui/open-link" => {
                let url = params.get("url").and_then(Value::as_str).unwrap_or("");
                let link = crate::url_policy::stranger(url).map(AppAsk::Link).map_err(|e| e.to_string());
                self.after_yes(link, "does not open this link").await
            }
            "ui/download-file" => {
                self.after_yes(read_download(&params).map(AppAsk::Download), "did not save these files").await
            }
            _ => Err(refuse(-32601, format!("Loopscope does not answer {method} from apps"))),
        }
    }

    /// What needs the user's yes: a request read into what it asks (or why it cannot be, said
    /// as "Loopscope `refused`: why"), then asked; the app hears `{}` only if the user agreed.
    async fn after_yes(&self, asked: Result<AppAsk, String>, refused: &str) -> Result<Value, ErrorObject> {
        let asked = asked.map_err(|why| ErrorObject::new(ErrorCode(-32602), format!("Loopscope {refused}: {why}")))?;
        (self.ask)(asked).await.map_err(|why| ErrorObject::new(ErrorCode(-32000), why))?;
        Ok(json!({}))
    }

    fn initialize_result(&self) -> Value {
        let c = &self.context;
        let mut context = json!({
            "theme": c.theme,
            "displayMode": self.state.borrow().mode,
            "availableDisplayModes": MODES,
            "containerDimensions": { "width": c.width, "maxHeight": c.max_height },
            "locale": c.locale,
            "platform": "web",
            "toolInfo": { "id": self.call.tool_use_id, "tool": self.call.tool },
        });
        if let (Some(zone), Some(fields)) = (&c.time_zone, context.as_object_mut()) {
            fields.insert("timeZone".into(), zone.clone().into());
        }
        json!({
            "protocolVersion": APPS_VERSION,
            "hostInfo": { "name": "Loopscope", "version": env!("CARGO_PKG_VERSION") },
            "hostCapabilities": {
                "serverTools": {}, "serverResources": {}, "logging": {}, "openLinks": {}, "downloadFile": {},
                "message": { "text": {} }, "updateModelContext": { "text": {}, "structuredContent": {} },
            },
            "hostContext": context,
        })
    }

    /// Switches to the mode the app asked for, if the page offers it and the app said it
    /// supports it (the answer is the mode it is then in); the app is told its new context.
    fn switch(&self, asked: &str) -> (&'static str, Option<Effect>) {
        let current = self.state.borrow().mode;
        let offered = MODES.iter().copied().find(|m| *m == asked);
        let supported = self.state.borrow().app_modes.iter().any(|m| m == asked);
        match offered {
            Some(mode) if supported && mode != current => {
                self.state.borrow_mut().mode = mode;
                self.notify("ui/notifications/host-context-changed", json!({ "displayMode": mode }));
                (mode, Some(Effect::Mode(mode)))
            }
            _ => (current, None),
        }
    }

    /// The page's theme or the container's width changed: the app is told what changed, once it
    /// is initialised (before, its `ui/initialize` answer will say it).
    pub fn context_changed(&self, theme: Option<&'static str>, width: Option<u32>) {
        if self.stage() != Stage::Ready || (theme.is_none() && width.is_none()) {
            return;
        }
        let mut changed = serde_json::Map::new();
        if let Some(theme) = theme {
            changed.insert("theme".into(), theme.into());
        }
        if let Some(width) = width {
            let max = self.context.max_height;
            changed.insert("containerDimensions".into(), json!({ "width": width, "maxHeight": max }));
        }
        self.notify("ui/notifications/host-context-changed", Value::Object(changed));
    }

    /// The user left fullscreen or picture in picture from the page: the app is told, and shown
    /// inline again.
    pub fn back_inline(&self) -> Option<Effect> {
        if self.stopped() || self.state.borrow().mode == "inline" {
            return None;
        }
        self.state.borrow_mut().mode = "inline";
        self.notify("ui/notifications/host-context-changed", json!({ "displayMode": "inline" }));
        Some(Effect::Mode("inline"))
    }

    /// An app's `tools/call`: only to its own server, only a tool the server listed whose
    /// visibility includes apps.
    async fn tools_call(&self, params: &Value) -> Result<Value, ErrorObject> {
        let refuse = |message: String| ErrorObject::new(ErrorCode(-32000), message);
        let name =
            params.get("name").and_then(Value::as_str).ok_or_else(|| refuse("tools/call without a name".into()))?;
        let label = &self.call.server_label;
        let shown = crate::text::one_line(name, 60).0;
        let tool = self.tools.iter().find(|t| t.name == name).ok_or_else(|| {
            refuse(format!(
                "the MCP server \"{label}\" lists no tool \"{shown}\": an app calls only its own server's tools"
            ))
        })?;
        if !tool.for_app() {
            return Err(refuse(format!(
                "\"{shown}\" is not for apps (its _meta.ui.visibility has no \"app\"): Loopscope did not call it"
            )));
        }
        let arguments = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
        let target =
            RouteTarget::Server { server_id: self.call.server_id.clone(), label: label.clone(), tool: name.to_owned() };
        if let Some(why) = self.consent.ask_why(&target, crate::agent::marked_destructive(tool)) {
            let ask = AppAsk::Call { tool: shown.clone(), arguments: arguments.clone(), why: why.reason };
            (self.ask)(ask).await.map_err(refuse)?;
        }
        let result = self.client.call_tool(name, arguments, &RequestOptions::default()).await;
        let result = result.map_err(|e| refuse(format!("tools/call {shown} on \"{label}\" failed: {e}")))?;
        Ok(serde_json::to_value(result).unwrap_or(Value::Null))
    }
}
