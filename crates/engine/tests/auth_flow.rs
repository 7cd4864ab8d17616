//! MCP authorization against a real authorization server on 127.0.0.1 (oidc-provider, in front
//! of the TypeScript SDK v2 server: testkit's OAuth stack), natively: a person signs in on the
//! authorization server's own pages (played by an HTTP client that fills its forms), and the
//! client's checks of the way back hold (`state`, `iss`). The conformance suite (layer 3) covers
//! each rule against its scenario servers; this is the same engine against a real one.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::auth::{Auth, AuthError, AuthStatus, ClientSettings, InPlace, SignInPage, UserAgent};
use engine::encoding::form_encode;
use engine::mcp::{Handlers, McpClient, McpError, RequestOptions, ServerConfig};
use engine::trace::{AuthStep, TraceEvent, TraceKind};
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use std::cell::RefCell;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::real::{self, OAuthOptions};

const REDIRECT: &str = "http://127.0.0.1:1/auth-callback.html";

/// A person at the sign-in page: follows its redirects, fills the development login (any name)
/// and approves the consent page, and hands back where it was sent (never fetching it).
/// `tamper` changes the way back, as an attacker in the middle would.
struct Person {
    tamper: fn(String) -> String,
}

/// `scheme://host:port` of an absolute URL.
fn origin(url: &str) -> &str {
    let path = url.find("://").and_then(|i| url.get(i + 3..)?.find('/').map(|j| i + 3 + j));
    url.get(..path.unwrap_or(url.len())).unwrap_or(url)
}

fn attribute<'a>(html: &'a str, before: &str) -> Option<&'a str> {
    let start = html.find(before)? + before.len();
    html.get(start..)?.split('"').next()
}

impl UserAgent for Person {
    fn sign_in(&self, page: &SignInPage) -> LocalBoxFuture<'static, Result<String, String>> {
        let (mut url, tamper) = (page.url.href(), self.tamper);
        async move {
            let http =
                reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).build().unwrap();
            let mut cookies: Vec<String> = Vec::new();
            let mut form: Option<Vec<(&str, &str)>> = None;
            // Bounded: the development flow is a handful of pages.
            for _ in 0..12 {
                let request = match form.take() {
                    Some(fields) => http
                        .post(&url)
                        .header("content-type", "application/x-www-form-urlencoded")
                        .body(form_encode(fields.iter().copied())),
                    None => http.get(&url),
                };
                let response =
                    request.header("cookie", cookies.join("; ")).send().await.map_err(|e| format!("{url}: {e:?}"))?;
                for c in response.headers().get_all("set-cookie") {
                    let pair = c.to_str().unwrap_or_default().split(';').next().unwrap_or_default().to_owned();
                    let name = pair.split('=').next().unwrap_or_default().to_owned();
                    cookies.retain(|c| !c.starts_with(&format!("{name}=")));
                    cookies.push(pair);
                }
                if let Some(location) = response.headers().get("location").and_then(|l| l.to_str().ok()) {
                    let next = if location.starts_with('/') {
                        format!("{}{location}", origin(&url))
                    } else {
                        location.to_owned()
                    };
                    if next.starts_with(REDIRECT) {
                        return Ok(tamper(next));
                    }
                    url = next;
                    continue;
                }
                let html = response.text().await.map_err(|e| e.to_string())?;
                let action = attribute(&html, "action=\"").ok_or("a page without a form")?.replace("&amp;", "&");
                url = if action.starts_with("http") { action } else { format!("{}{action}", origin(&url)) };
                form = Some(if html.contains("name=\"login\"") {
                    vec![("prompt", "login"), ("login", "ada"), ("password", "any")]
                } else {
                    vec![("prompt", "consent")]
                });
            }
            Err("the sign-in did not end".into())
        }
        .boxed_local()
    }
}

fn settings() -> ClientSettings {
    ClientSettings {
        client_name: "Loopscope native test".into(),
        redirect_uri: REDIRECT.into(),
        metadata_document: None,
        preregistered: None,
        limits: Default::default(),
    }
}

type Setup = (McpClient<Native>, Rc<Auth<Native>>, Rc<RefCell<Vec<TraceEvent>>>);

fn setup(url: &str, tamper: fn(String) -> String) -> Setup {
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let auth = Rc::new(Auth::new(
        platform.clone(),
        tracer.clone(),
        "s",
        url,
        settings(),
        Rc::new(Person { tamper }),
        Rc::new(InPlace),
    ));
    let client =
        McpClient::new(platform, ServerConfig::new("s", url), tracer, Handlers::default()).with_auth(auth.clone());
    (client, auth, trace)
}

fn steps(trace: &[TraceEvent]) -> Vec<String> {
    trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HttpRequest { summary: Some(s), .. }
                if matches!(e.peer, engine::trace::Peer::Authorization(_)) =>
            {
                Some(s.clone())
            }
            TraceKind::Auth { step: AuthStep::SignIn { .. } } => Some("sign-in".into()),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "current_thread")]
async fn a_person_signs_in_and_the_token_is_used_refreshed_and_never_traced() {
    let stack = real::oauth(OAuthOptions::default());
    let (client, auth, trace) = setup(&stack.mcp.url, |back| back);
    client.connect().await.expect("connects after signing in");
    let tools = client.list_tools(&RequestOptions::default()).await.expect("tools/list with the token");
    assert!(tools.tools.iter().any(|t| t.name == "search_notes"));
    assert_eq!(
        steps(&trace.borrow()),
        ["resource metadata", "authorization server metadata", "client registration", "sign-in", "token request"]
    );
    let AuthStatus::SignedIn { scopes, refreshable, .. } = auth.status() else { panic!("{:?}", auth.status()) };
    assert_eq!(scopes, ["notes:read"]);
    assert!(refreshable, "offline_access was offered and asked for");

    // Every secret is masked in the trace: the token, the code, the PKCE verifier.
    let token = auth.bearer().expect("a token").trim_start_matches("Bearer ").to_owned();
    let memory = auth.memory();
    let refresh = memory.tokens.as_ref().and_then(|t| t.refresh_token.clone()).expect("a refresh token");
    let text = serde_json::to_string(&*trace.borrow()).unwrap();
    assert!(!text.contains(&token) && !text.contains(&refresh), "a token reached the trace");
    assert!(text.contains("code_verifier=••••••"), "the verifier is masked in the token request");

    // A token that is about to expire is refreshed first, without the person.
    let mut expiring = memory.clone();
    if let Some(t) = expiring.tokens.as_mut() {
        t.expires_at_ms = Some(t.issued_at_ms + 1.0);
    }
    auth.restore(expiring);
    client.list_tools(&RequestOptions::default()).await.expect("tools/list after a refresh");
    assert_eq!(steps(&trace.borrow()).last().map(String::as_str), Some("token refresh"));
    assert_ne!(auth.bearer().unwrap(), format!("Bearer {token}"), "a new token");
}

#[tokio::test(flavor = "current_thread")]
async fn a_way_back_with_another_state_or_issuer_is_refused_before_the_code_is_used() {
    let stack = real::oauth(OAuthOptions::default());
    let forged_state: fn(String) -> String = |back| {
        let (base, query) = back.split_once('?').unwrap();
        let kept: Vec<&str> = query.split('&').filter(|p| !p.starts_with("state=")).collect();
        format!("{base}?{}&state=forged", kept.join("&"))
    };
    let wrong_issuer: fn(String) -> String = |back| {
        let (base, query) = back.split_once('?').unwrap();
        let kept: Vec<&str> = query.split('&').filter(|p| !p.starts_with("iss=")).collect();
        format!("{base}?{}&iss=https%3A%2F%2Fevil.example", kept.join("&"))
    };
    for (tamper, expected) in [(forged_state, "state"), (wrong_issuer, "issuer")] {
        let (client, _, trace) = setup(&stack.mcp.url, tamper);
        let error = client.connect().await.expect_err("refused");
        match (&error, expected) {
            (McpError::Auth(AuthError::StateMismatch), "state") => {}
            (McpError::Auth(AuthError::IssuerResponse { found: Some(f), .. }), "issuer") => {
                assert_eq!(f, "https://evil.example")
            }
            other => panic!("{other:?}"),
        }
        assert!(!steps(&trace.borrow()).iter().any(|s| s == "token request"), "the code went nowhere");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_tool_that_needs_more_scope_steps_up_once_and_runs() {
    // add_note needs notes:write, which the first sign-in did not ask for: the server answers
    // 403 insufficient_scope, the client signs in again for it (and what it had), then calls.
    let stack = real::oauth(OAuthOptions::default());
    let (client, auth, trace) = setup(&stack.mcp.url, |back| back);
    client.connect().await.expect("connects after signing in");
    let args = serde_json::json!({ "text": "a note" });
    let result =
        client.call_tool("add_note", args, &RequestOptions::default()).await.expect("a step-up, then the call");
    assert!(!result.is_error);
    let AuthStatus::SignedIn { scopes, .. } = auth.status() else { panic!() };
    assert!(scopes.contains(&"notes:write".to_owned()));
    let sign_ins = steps(&trace.borrow()).iter().filter(|s| *s == "sign-in").count();
    assert_eq!(sign_ins, 2, "one sign-in, one step-up");
}
