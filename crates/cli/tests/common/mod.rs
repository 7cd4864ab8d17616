//! Starts `loopscope bridge` as a user would, reads its `--json` line, and speaks to it.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

pub const PAGE: &str = "http://127.0.0.1:8080";

pub struct Bridge {
    pub process: Child,
    pub url: String,
    pub token: String,
    pub port: u16,
    pub first: Value,
}

impl Drop for Bridge {
    fn drop(&mut self) {
        self.stop();
    }
}

impl Bridge {
    /// `loopscope bridge --json ARGS…`, waiting for its first line.
    pub fn start(args: &[&str]) -> Bridge {
        Bridge::start_in(&std::env::current_dir().expect("cwd"), args)
    }

    /// [`Bridge::start`] from `dir` (its children start there too).
    pub fn start_in(dir: &std::path::Path, args: &[&str]) -> Bridge {
        let mut process = Command::new(env!("CARGO_BIN_EXE_loopscope"))
            .current_dir(dir)
            .arg("bridge")
            .arg("--json")
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start the bridge");
        let mut line = String::new();
        BufReader::new(process.stdout.take().expect("stdout")).read_line(&mut line).expect("read its first line");
        let first: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("its first line is JSON ({e}): {line}"));
        let url = first["url"].as_str().expect("url").to_owned();
        let token = first["token"].as_str().expect("token").to_owned();
        let port = url.trim_start_matches("http://127.0.0.1:").trim_end_matches("/mcp").parse().expect("port");
        Bridge { process, url, token, port, first }
    }

    /// The fixture server of tests/fixtures, through the bridge.
    pub fn fixture() -> Bridge {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/stdio_server.py");
        Bridge::start(&["--", "python3", script])
    }

    /// SIGTERM, as Ctrl-C would, and wait for it.
    pub fn stop(&mut self) {
        #[cfg(unix)]
        if let Ok(pid) = i32::try_from(self.process.id()) {
            // SAFETY: kill(2) on the bridge's own pid.
            unsafe {
                libc::kill(pid, libc::SIGTERM);
            }
        }
        for _ in 0..100 {
            if matches!(self.process.try_wait(), Ok(Some(_))) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.process.kill();
        let _ = self.process.wait();
    }

    pub fn client() -> reqwest::Client {
        reqwest::Client::builder().no_proxy().build().expect("client")
    }

    /// A request as the page makes it: its origin, the token, JSON and SSE accepted.
    pub fn post(&self, session: Option<&str>, body: &Value) -> reqwest::RequestBuilder {
        let mut r = Bridge::client()
            .post(&self.url)
            .header("origin", PAGE)
            .bearer_auth(&self.token)
            .header("accept", "application/json, text/event-stream")
            .header("content-type", "application/json")
            .body(body.to_string());
        if let Some(s) = session {
            r = r.header("mcp-session-id", s);
        }
        r
    }

    /// `initialize`, and the session it opened.
    pub async fn initialize(&self) -> String {
        let r = self.post(None, &initialize()).send().await.expect("initialize");
        assert_eq!(r.status(), 200, "{:?}", r.text().await);
        let session = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
        let _ = r.bytes().await;
        let notified = self
            .post(Some(&session), &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .send()
            .await
            .expect("initialized");
        assert_eq!(notified.status(), 202);
        session
    }

    pub async fn call(&self, session: &str, id: u64, tool: &str) -> reqwest::Response {
        self.post(Some(session), &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {"n": id}}}))
            .send()
            .await
            .expect("tools/call")
    }

    /// The bridge's own record (`GET /bridge/log`).
    pub async fn log(&self) -> Vec<Value> {
        let r = Bridge::client()
            .get(format!("http://127.0.0.1:{}/bridge/log", self.port))
            .bearer_auth(&self.token)
            .send()
            .await
            .expect("log");
        let body: Value = r.json().await.expect("log JSON");
        body["entries"].as_array().cloned().unwrap_or_default()
    }

    pub async fn started(&self) -> usize {
        self.log().await.iter().filter(|e| e["kind"] == "start").count()
    }

    /// The bridge's peak resident memory (Linux), in MiB.
    pub fn peak_memory_mib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.process.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb / 1024)
    }
}

pub fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bridge-test", "version": "0"}}})
}
