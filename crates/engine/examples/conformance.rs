//! The native driver the official conformance suite (`@modelcontextprotocol/conformance`) runs
//! as its "client": it connects Loopscope's MCP engine to a scenario's server as the page would
//! (the same `McpClient`, the same handlers' behaviour) and does what a person using the page
//! does there: lists the tools and calls them, reads a resource, fills a prompt.
//!
//!     conformance <server-url>
//!
//! The suite sets `MCP_CONFORMANCE_SCENARIO` and, for a dated run, `MCP_CONFORMANCE_PROTOCOL_VERSION`
//! (then the revision is pinned, as a user pins it on a server's card). `scripts/conformance.mjs`
//! runs every client scenario, one at a time. Exit status 0 when everything the driver did
//! worked.

#[cfg(not(target_arch = "wasm32"))]
#[path = "../tests/support/mod.rs"]
mod support;

/// The driver is native only: the page itself is what runs in a browser.
#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    driver::main()
}

#[cfg(not(target_arch = "wasm32"))]
mod driver {
    use super::support;

    use engine::auth::{Auth, ClientSettings, EnterpriseIdp, Preregistered, SignInPage, UserAgent};
    use engine::cancel::CancelToken;
    use engine::mcp::skills::SkillError;
    use engine::mcp::{
        ElicitationHandler, Handlers, McpClient, McpError, RequestOptions, RevisionChoice, SamplingHandler,
        ServerConfig,
    };
    use engine::trace::Tracer;
    use futures::FutureExt;
    use futures::future::LocalBoxFuture;
    use protocol::jsonrpc::{ErrorCode, ErrorObject};
    use protocol::mcp::{
        CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, Revision,
        ServerCapabilities, Tool,
    };
    use serde_json::{Map, Value, json};
    use std::rc::Rc;

    /// Accepts every form as it comes, leaving fields out: the engine fills in the defaults.
    struct AcceptAsIs;
    impl ElicitationHandler for AcceptAsIs {
        fn elicit(&self, _: &str, _: ElicitParams) -> LocalBoxFuture<'static, Result<ElicitResult, ErrorObject>> {
            async { Ok(ElicitResult { action: ElicitAction::Accept, content: Some(Map::new()) }) }.boxed_local()
        }
    }

    /// Sampling declared as the page declares it (it has an approval dialog); here every
    /// request is declined, as a user who says no.
    struct Declines;
    impl SamplingHandler for Declines {
        fn create_message(
            &self,
            _: &str,
            _: CreateMessageParams,
        ) -> LocalBoxFuture<'static, Result<CreateMessageResult, ErrorObject>> {
            async {
                Err(ErrorObject {
                    code: ErrorCode(-1),
                    message: "the user declined the sampling request".into(),
                    data: None,
                })
            }
            .boxed_local()
        }
    }

    /// The "browser" of the authorization step: follows nothing, reads where the sign-in page
    /// sends it back (the suite's authorization servers redirect at once; the redirect URI is
    /// never fetched).
    struct ReadRedirect(reqwest::Client);
    impl UserAgent for ReadRedirect {
        fn sign_in(&self, page: &SignInPage) -> LocalBoxFuture<'static, Result<String, String>> {
            let request = self.0.get(page.url.href());
            async move {
                let response = request.send().await.map_err(|e| format!("the sign-in page: {e}"))?;
                let location = response.headers().get("location").and_then(|l| l.to_str().ok());
                location
                    .map(str::to_owned)
                    .ok_or_else(|| format!("the sign-in page answered {} without a redirect", response.status()))
            }
            .boxed_local()
        }
    }

    /// How the driver presents itself: the suite's client ID metadata document URL, and the
    /// pre-registered client a scenario's context gives.
    fn client_settings() -> ClientSettings {
        let ctx = context();
        let text = |k: &str| ctx.get(k).and_then(Value::as_str).map(str::to_owned);
        let preregistered = text("client_id").map(|client_id| Preregistered {
            client_id,
            client_secret: text("client_secret"),
            issuer: text("issuer"),
            private_key_pem: text("private_key_pem"),
            // Workload identity (SEP-1933): the workload's JWT.
            workload_jwt: text("valid_jwt"),
            // Enterprise-managed authorization (SEP-990): the identity provider and the ID token.
            enterprise: text("idp_token_endpoint").zip(text("idp_id_token")).map(|(token_endpoint, id_token)| {
                EnterpriseIdp { token_endpoint, id_token, client_id: text("idp_client_id") }
            }),
        });
        ClientSettings {
            client_name: "Loopscope conformance driver".into(),
            redirect_uri: "http://localhost:3000/callback".into(),
            metadata_document: Some("https://conformance-test.local/client-metadata.json".into()),
            preregistered,
            limits: Default::default(),
        }
    }

    /// Arguments for a tool, from its schema: the required properties (and those mirrored into
    /// headers) get a plain value of their type.
    fn arguments(tool: &Tool) -> Value {
        let schema = &tool.input_schema;
        let required = engine::form::required(schema);
        let mut args = Map::new();
        let props = schema.get("properties").and_then(Value::as_object).cloned().unwrap_or_default();
        for (i, (name, spec)) in props.iter().enumerate() {
            if !required.contains(&name.as_str()) && spec.get("x-mcp-header").is_none() {
                continue;
            }
            let value = match spec.get("type").and_then(Value::as_str) {
                Some("number" | "integer") => json!(i as i64 + 1),
                Some("boolean") => json!(true),
                Some("object") => json!({}),
                Some("array") => json!([]),
                _ => spec.get("enum").and_then(|e| e.get(0)).cloned().unwrap_or(json!("test")),
            };
            args.insert(name.clone(), value);
        }
        Value::Object(args)
    }

    /// The scenario's context (`MCP_CONFORMANCE_CONTEXT`), if it gave one.
    fn context() -> Value {
        std::env::var("MCP_CONFORMANCE_CONTEXT").ok().and_then(|c| serde_json::from_str(&c).ok()).unwrap_or(Value::Null)
    }

    /// A JSON-RPC error or HTTP status is the server's answer, shown as the page shows it; only
    /// what the client itself could not do is a failure.
    fn answered_or_failed(failures: &mut Vec<String>, what: &str, e: McpError) {
        match e {
            McpError::Rpc(_) | McpError::Http { .. } => eprintln!("{what}: the server answered {e}"),
            other => failures.push(format!("{what}: {other}")),
        }
    }

    async fn drive(url: &str, scenario: &str, revision: RevisionChoice) -> Result<(), String> {
        let platform = support::Native::new();
        let handlers = Handlers {
            elicitation: Some(Rc::new(AcceptAsIs)),
            sampling: Some(Rc::new(Declines)),
            ..Default::default()
        };
        let config = ServerConfig { revision, ..ServerConfig::new("conformance", url) };
        let tracer = Tracer::silent();
        let browser = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .expect("an HTTP client");
        let auth = Auth::new(
            platform.clone(),
            tracer.clone(),
            "conformance",
            url,
            client_settings(),
            Rc::new(ReadRedirect(browser)),
            Rc::new(engine::auth::InPlace),
        );
        let auth = Rc::new(auth.on_status(|s| eprintln!("authorization: {s:?}")));
        let client = McpClient::new(platform, config, tracer, handlers).with_auth(auth);
        let info = client.connect().await.map_err(|e| format!("connect: {e}"))?;
        eprintln!("connected: {} ({}) — {}", info.protocol_version, info.server_info.name, client.why());
        // As the page does: the server's own stream is open while the user works.
        let listening = CancelToken::new();
        let listen = client.listen(&listening);
        let work = async {
            // The page opens it right after connecting, before anyone calls a tool: so does this.
            for _ in 0..300 {
                if client.server_stream_open() {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
            let result = act(&client, scenario, &info.capabilities).await;
            listening.cancel();
            result
        };
        let (result, end) = futures::join!(work, listen);
        eprintln!("server stream: {end:?}");
        let _ = client.disconnect().await;
        result
    }

    async fn act(client: &McpClient<support::Native>, scenario: &str, caps: &ServerCapabilities) -> Result<(), String> {
        let opts = RequestOptions::default();
        let mut failures = Vec::new();
        let unknown = client.capabilities_unknown();
        if caps.tools.is_some() || unknown {
            let list = client.list_tools(&opts).await.map_err(|e| format!("tools/list: {e}"))?;
            for (name, why) in &list.excluded {
                eprintln!("left out: {name}: {why}");
            }
            if scenario == "json-schema-2020-12-preservation" {
                // Hands the focal tool's schema back, verbatim, as the scenario asks.
                let focal = list.tools.iter().find(|t| t.name != "json_schema_echo").ok_or("no focal tool")?;
                let args = json!({ "schema": focal.input_schema });
                client.call_tool("json_schema_echo", args, &opts).await.map_err(|e| format!("tools/call: {e}"))?;
            } else {
                // The calls the scenario asks for (its context), else each tool once.
                let asked: Vec<(String, Value)> = context()
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .map(|calls| {
                        calls
                            .iter()
                            .filter_map(|c| {
                                Some((
                                    c.get("name")?.as_str()?.to_owned(),
                                    c.get("arguments").cloned().unwrap_or(json!({})),
                                ))
                            })
                            .collect()
                    })
                    .unwrap_or_else(|| list.tools.iter().map(|t| (t.name.clone(), arguments(t))).collect());
                for (name, args) in asked {
                    if !list.tools.iter().any(|t| t.name == name) {
                        eprintln!("tools/call {name}: not called, the client left it out");
                        continue;
                    }
                    match client.call_tool(&name, args, &opts).await {
                        Ok(r) => eprintln!("tools/call {name}: {}", if r.is_error { "isError" } else { "ok" }),
                        Err(e) => answered_or_failed(&mut failures, &format!("tools/call {name}"), e),
                    }
                }
            }
        }
        if (caps.resources.is_some() || unknown)
            && let Ok(resources) = client.list_resources(&opts).await
            && let Some(first) = resources.first()
            && let Err(e) = client.read_resource(&first.uri, &opts).await
        {
            answered_or_failed(&mut failures, "resources/read", e);
        }
        if (caps.prompts.is_some() || unknown)
            && let Ok(prompts) = client.list_prompts(&opts).await
            && let Some(first) = prompts.first()
        {
            let args: Map<String, Value> =
                first.arguments.iter().map(|a| (a.name.clone(), Value::String("test".into()))).collect();
            if let Err(e) = client.get_prompt(first, &args, &opts).await {
                answered_or_failed(&mut failures, "prompts/get", e);
            }
        }
        if client.offers_skills() {
            let list = client.list_skills(&opts).await.map_err(|e| format!("skills/list: {e}"))?;
            for (uri, why) in &list.excluded {
                eprintln!("skill left out: {uri}: {why}");
            }
            // A host reads a skill only when it is loaded (the model or the user asks for it):
            // the verify scenarios' premise is that one was; the others only list.
            if scenario.starts_with("sep-2640-client-verify") {
                for skill in &list.skills {
                    match client.load_skill(skill, &opts).await {
                        Ok(_) => {
                            eprintln!("skill {}: loaded, verified", skill.name);
                            for file in skill.files.iter().flatten().filter(|f| f.uri != skill.uri) {
                                match client.read_skill_file(skill, &file.uri, &opts).await {
                                    Ok(_) => eprintln!("skill file {}: read, verified", file.uri),
                                    Err(SkillError::Mcp(e)) => answered_or_failed(&mut failures, "resources/read", e),
                                    Err(refused) => eprintln!("skill file {}: {refused}", file.uri),
                                }
                            }
                        }
                        Err(SkillError::Mcp(e)) => answered_or_failed(&mut failures, "resources/read", e),
                        Err(refused) => eprintln!("skill {}: {refused}", skill.name),
                    }
                }
            }
        }
        if failures.is_empty() { Ok(()) } else { Err(failures.join("; ")) }
    }

    pub fn main() {
        let url = std::env::args().nth(1).expect("usage: conformance <server-url>");
        let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
        let revision = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION").ok().and_then(|v| Revision::parse(&v)) {
            Some(r) => RevisionChoice::Pin(r),
            None => RevisionChoice::Auto,
        };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        match runtime.block_on(drive(&url, &scenario, revision)) {
            Ok(()) => eprintln!("done"),
            Err(e) => {
                eprintln!("failed: {e}");
                std::process::exit(1);
            }
        }
    }
}
