//! MCP authorization from a client's view (2025-06-18, 2025-11-25, 2026-07-28, and the
//! 2025-03-26 fallbacks): on a 401, find the authorization server (Protected Resource Metadata,
//! then the server's metadata), identify this client (pre-registered, a Client ID Metadata
//! Document, or Dynamic Client Registration), let the user sign in (authorization code with
//! PKCE S256, `state`, `resource`, the issuer checked), and use the token on every request to
//! that server only; refresh it, and step up on `403 insufficient_scope`. Every request is
//! traced on the server's authorization lane, with secrets masked (`Tracer::add_secret`).
//!
//! The one thing the engine cannot do is show a sign-in page: a [`UserAgent`] does (a popup in
//! the page, an HTTP client that reads the redirect in the conformance driver).

mod assertion;
mod challenge;
mod discovery;
pub mod dpop;
mod error;
mod flow;
mod http;
mod pkce;
mod policy;
mod register;
mod runner;
mod steps;
mod token;
pub mod url;

pub use challenge::{Challenge, split_scopes};
pub use error::AuthError;
pub use flow::{AfterRefusal, Auth};
pub use http::Step;
pub use policy::SignInPage;
pub use runner::{FlowRunner, InPlace};
pub use steps::expiry_words;

use futures::future::LocalBoxFuture;
use serde::{Deserialize, Serialize};

use crate::layer::Failure;

/// How this client presents itself to authorization servers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientSettings {
    pub client_name: String,
    /// Where the sign-in page sends the browser back to (the page's `auth-callback.html`).
    pub redirect_uri: String,
    /// A Client ID Metadata Document this client is served with (an https URL whose document's
    /// `client_id` is that URL), when there is one.
    pub metadata_document: Option<String>,
    /// A client the user registered with the authorization server themselves.
    pub preregistered: Option<Preregistered>,
    /// How long each step may take, and how much an answer may hold (`engine::limits`).
    pub limits: crate::limits::Limits,
}

impl ClientSettings {
    /// SEP-837: "native" for a client on this machine (a localhost redirect), else "web".
    pub fn application_type(&self) -> &'static str {
        if url::is_loopback(&self.redirect_uri) { "native" } else { "web" }
    }
}

/// Client credentials entered by the user, bound to the authorization server that issued them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preregistered {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The issuer they belong to; when unset, the first authorization server they are used with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub issuer: Option<String>,
    /// A PKCS #8 PEM private key, for `private_key_jwt` (ES256). Never written anywhere: kept in
    /// memory only, remembered or not.
    #[serde(skip)]
    pub private_key_pem: Option<String>,
    /// A JWT that proves a workload's identity (workload identity federation, SEP-1933),
    /// exchanged with the JWT-bearer grant (RFC 7523 §2.1). Like the key, memory only.
    #[serde(skip)]
    pub workload_jwt: Option<String>,
    /// Enterprise-managed authorization (SEP-990): the user's identity at the enterprise's
    /// identity provider, exchanged there for an ID-JAG. Memory only.
    #[serde(skip)]
    pub enterprise: Option<EnterpriseIdp>,
}

/// The enterprise identity provider of SEP-990, as the user (or the host) configured it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnterpriseIdp {
    /// Its token endpoint, where the ID token is exchanged for an ID-JAG (RFC 8693).
    pub token_endpoint: String,
    /// The ID token it issued to the user (a credential).
    pub id_token: String,
    /// This client's id at the identity provider, if it wants one.
    pub client_id: Option<String>,
}

/// Shows the authorization server's sign-in page to the user.
pub trait UserAgent {
    /// Shows the page (a page's agent only once the user asks for it: the card names its host
    /// first) and resolves with the URL the browser was sent back to (or its query), or with
    /// why there is none (the user closed the window). The page passed the URL policy.
    fn sign_in(&self, page: &SignInPage) -> LocalBoxFuture<'static, Result<String, String>>;
}

/// How this client is known to one authorization server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegisteredClient {
    /// The authorization server it belongs to (credentials never cross servers: SEP-2352).
    pub issuer: String,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// `none`, `client_secret_basic` or `client_secret_post`.
    pub auth_method: String,
    pub how: ClientKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientKind {
    Preregistered,
    MetadataDocument,
    Registered,
}

impl ClientKind {
    pub fn describe(self) -> &'static str {
        match self {
            ClientKind::Preregistered => "a client you registered",
            ClientKind::MetadataDocument => "this page's client metadata document",
            ClientKind::Registered => "dynamic client registration",
        }
    }
}

/// The tokens for one server, from one issuer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tokens {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When it came, in milliseconds since the Unix epoch.
    #[serde(default)]
    pub issued_at_ms: f64,
    /// When it expires; `None` when the server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at_ms: Option<f64>,
    pub scopes: Vec<String>,
    pub issuer: String,
    pub token_endpoint: String,
    pub resource: String,
    /// Bound to this session's DPoP key (RFC 9449): sent as `DPoP`, each request with a proof.
    /// The key is never kept, so such a token does not outlive the page.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop: bool,
}

impl Tokens {
    /// Whether to refresh before using it: within a minute of expiry, or within the last
    /// quarter of its life for a short-lived token.
    pub fn due(&self, now_ms: f64) -> bool {
        let Some(at) = self.expires_at_ms.filter(|_| self.refresh_token.is_some()) else { return false };
        let lead = ((at - self.issued_at_ms) / 4.0).clamp(0.0, 60_000.0);
        at - now_ms < lead
    }
}

/// Where a server's authorization stands, for its card.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum AuthStatus {
    /// Nothing asked for authorization yet, or the user signed out.
    #[default]
    None,
    /// Discovering, registering or exchanging tokens.
    Working,
    /// The sign-in page is ready: the user's turn. The card names its host (and warns when it
    /// is not the authorization server the MCP server named) before the window opens.
    WaitingForUser {
        page: SignInPage,
    },
    SignedIn {
        issuer: String,
        scopes: Vec<String>,
        expires_at_ms: Option<f64>,
        refreshable: bool,
        client: ClientKind,
    },
    Failed(Failure),
}

/// What may outlive the page (only when the user opts in): tokens and client registrations.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AuthMemory {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<Tokens>,
    /// One per authorization server (a list, not a map: the page is smaller without one).
    #[serde(default)]
    pub clients: Vec<RegisteredClient>,
}

impl AuthMemory {
    pub fn client(&self, issuer: &str) -> Option<&RegisteredClient> {
        self.clients.iter().find(|c| c.issuer == issuer)
    }

    pub fn keep(&mut self, client: RegisteredClient) {
        self.clients.retain(|c| c.issuer != client.issuer);
        self.clients.push(client);
    }
}

#[cfg(test)]
mod tests {
    use super::Tokens;

    #[test]
    fn a_token_is_refreshed_in_the_last_minute_or_the_last_quarter_of_a_short_life() {
        let token = |lifetime_s: f64, refreshable: bool| Tokens {
            access_token: "a".into(),
            refresh_token: refreshable.then(|| "r".into()),
            issued_at_ms: 0.0,
            expires_at_ms: Some(lifetime_s * 1000.0),
            scopes: vec![],
            issuer: "i".into(),
            token_endpoint: "t".into(),
            resource: "r".into(),
            dpop: false,
        };
        let hour = token(3600.0, true);
        assert!(!hour.due(3_000_000.0) && hour.due(3_541_000.0));
        let short = token(15.0, true);
        assert!(!short.due(10_000.0) && short.due(11_500.0));
        assert!(!token(15.0, false).due(14_000.0), "nothing to refresh with");
    }

    #[test]
    fn a_key_a_workload_token_and_an_id_token_are_never_written_down() {
        let client = super::Preregistered {
            client_id: "c".into(),
            client_secret: None,
            issuer: None,
            private_key_pem: Some("-----BEGIN PRIVATE KEY-----".into()),
            workload_jwt: Some("eyJ.workload.jwt".into()),
            enterprise: Some(super::EnterpriseIdp {
                token_endpoint: "https://idp.example/token".into(),
                id_token: "eyJ.id.token".into(),
                client_id: None,
            }),
        };
        let saved = serde_json::to_string(&client).unwrap();
        assert_eq!(saved, r#"{"client_id":"c"}"#);
    }
}
