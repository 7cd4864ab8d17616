//! The 2025-03-26 way to find an authorization server, and the mix-up defence kept around it.
//! With no Protected Resource Metadata, that revision makes the server's origin the
//! authorization base URL: its RFC 8414 metadata may name an issuer under a path on that origin
//! (`…/oauth`), which is accepted and said. An issuer on any other origin is still refused before
//! anything is sent to it, and on the modern path (with resource metadata) the issuer must be
//! exactly the one the metadata names. Against testkit's `legacy_auth` fixture on 127.0.0.1.
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::auth::{Auth, AuthError, ClientSettings, InPlace, SignInPage, UserAgent};
use engine::mcp::{Handlers, McpClient, McpError, ServerConfig};
use engine::trace::TraceKind;
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::legacy_auth::LegacyAuth;

/// A person who closes the sign-in window: the flow ends there, after discovery and registration.
struct Closes;

impl UserAgent for Closes {
    fn sign_in(&self, _: &SignInPage) -> LocalBoxFuture<'static, Result<String, String>> {
        async { Err("the window was closed".to_owned()) }.boxed_local()
    }
}

/// Connects to `server` and returns the error and the notes the authorization flow wrote.
async fn connect(server: &LegacyAuth) -> (McpError, Vec<String>) {
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let settings = ClientSettings {
        client_name: "Loopscope native test".into(),
        redirect_uri: "http://127.0.0.1:1/cb".into(),
        metadata_document: None,
        preregistered: None,
        limits: Default::default(),
    };
    let url = server.url();
    let auth =
        Rc::new(Auth::new(platform.clone(), tracer.clone(), "s", &url, settings, Rc::new(Closes), Rc::new(InPlace)));
    let client = McpClient::new(platform, ServerConfig::new("s", &url), tracer, Handlers::default()).with_auth(auth);
    let error = client.connect().await.expect_err("no sign-in, no connection");
    let notes = trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::Note { text } => Some(text.clone()),
            _ => None,
        })
        .collect();
    (error, notes)
}

#[tokio::test(flavor = "current_thread")]
async fn an_issuer_under_a_path_on_the_servers_origin_is_accepted_on_the_2025_03_26_path_and_said() {
    let server = LegacyAuth::start(|base| format!("{base}/oauth"), false).await;
    let (error, notes) = connect(&server).await;
    assert!(!matches!(error, McpError::Auth(AuthError::IssuerMismatch { .. })), "{error}");
    assert!(
        notes.iter().any(|n| n.contains("names the issuer") && n.contains("/oauth, on the server's origin")),
        "{notes:?}"
    );
    assert!(server.requests().contains(&"POST /register".to_owned()), "discovery went on: {:?}", server.requests());
}

#[tokio::test(flavor = "current_thread")]
async fn an_issuer_on_another_origin_is_refused_on_the_2025_03_26_path_before_anything_is_sent_to_it() {
    // The attacker's metadata names another origin as the issuer (a mix-up in the making).
    let server = LegacyAuth::start(|_| "http://127.0.0.1:9/oauth".to_owned(), false).await;
    let (error, _) = connect(&server).await;
    let McpError::Auth(AuthError::IssuerMismatch { found, .. }) = &error else { panic!("{error}") };
    assert_eq!(found, "http://127.0.0.1:9/oauth");
    assert!(!server.requests().iter().any(|r| r.contains("/register")), "{:?}", server.requests());
}

#[tokio::test(flavor = "current_thread")]
async fn with_resource_metadata_the_issuer_must_be_exactly_the_one_it_names() {
    // The modern path: the same-origin leniency of 2025-03-26 does not apply.
    let server = LegacyAuth::start(|base| format!("{base}/oauth"), true).await;
    let (error, _) = connect(&server).await;
    assert!(matches!(error, McpError::Auth(AuthError::IssuerMismatch { .. })), "{error}");
    assert!(!server.requests().iter().any(|r| r.contains("/register")), "{:?}", server.requests());
}
