//! The grants a user pastes into "Your own OAuth client" (enterprise-managed authorization's
//! identity provider, SEP-990) point the page at an address of the user's choosing; a lesson or
//! a session file could carry such settings too. That address passes the same URL policy as
//! every other before anything, the ID token above all, is sent to it. Against testkit's
//! `legacy_auth` fixture (resource metadata, and metadata offering the JWT-bearer grant).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::auth::{Auth, AuthError, ClientSettings, EnterpriseIdp, InPlace, Preregistered, SignInPage, UserAgent};
use engine::mcp::{Handlers, McpClient, McpError, ServerConfig};
use engine::trace::TraceKind;
use futures::FutureExt;
use futures::future::LocalBoxFuture;
use std::rc::Rc;
use support::{Native, recording_tracer};
use testkit::legacy_auth::LegacyAuth;

struct NoSignIn;

impl UserAgent for NoSignIn {
    fn sign_in(&self, _: &SignInPage) -> LocalBoxFuture<'static, Result<String, String>> {
        async { Err("no sign-in page is expected here".to_owned()) }.boxed_local()
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_identity_provider_off_this_machine_over_plain_http_is_refused_before_the_id_token_goes_anywhere() {
    let server = LegacyAuth::start(|base| base.to_owned(), true).await;
    let platform = Native::new();
    let (tracer, trace) = recording_tracer(&platform);
    let id_token = "eyJ.the-users-id-token.sig";
    let settings = ClientSettings {
        client_name: "Loopscope native test".into(),
        redirect_uri: "http://127.0.0.1:1/cb".into(),
        metadata_document: None,
        preregistered: Some(Preregistered {
            client_id: "enterprise-client".into(),
            client_secret: Some("s3cret".into()),
            issuer: None,
            private_key_pem: None,
            workload_jwt: None,
            enterprise: Some(EnterpriseIdp {
                token_endpoint: "http://idp.attacker.example/token".into(),
                id_token: id_token.into(),
                client_id: None,
            }),
        }),
        limits: Default::default(),
    };
    let url = server.url();
    let auth =
        Rc::new(Auth::new(platform.clone(), tracer.clone(), "s", &url, settings, Rc::new(NoSignIn), Rc::new(InPlace)));
    let client = McpClient::new(platform, ServerConfig::new("s", &url), tracer, Handlers::default()).with_auth(auth);
    let error = client.connect().await.expect_err("refused");
    let McpError::Auth(AuthError::UrlRefused { field, url, .. }) = &error else { panic!("{error}") };
    assert_eq!((*field, url.as_str()), ("identity provider token endpoint", "http://idp.attacker.example/token"));
    let requested: Vec<String> = trace
        .borrow()
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HttpRequest { url, .. } => Some(url.clone()),
            _ => None,
        })
        .collect();
    assert!(requested.iter().all(|u| !u.contains("attacker")), "nothing went to it: {requested:?}");
    assert!(
        !server.requests().iter().any(|r| r.contains("/token")),
        "nor to the token endpoint: {:?}",
        server.requests()
    );
}
