//! Why authorization failed, one variant per cause a user can act on, each with the endpoint
//! involved and what to do about it.

use super::Step;
use crate::layer::{Failure, Layer};
use crate::limits::LimitExceeded;
use crate::mcp::Reach;
use crate::url_policy::UrlRefusal;
use protocol::oauth::OAuthErrorBody;

fn describe(e: &OAuthErrorBody) -> String {
    format!(", {}{}", e.error, e.error_description.as_ref().map(|d| format!(": {d}")).unwrap_or_default())
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AuthError {
    /// No HTTP answer from an authorization endpoint: in a browser, most often CORS.
    #[error("{step} ({url}): no HTTP answer")]
    Network { step: Step, url: String, reach: Reach },

    /// An endpoint answered with an error status (and maybe an OAuth error body).
    #[error("{step} ({url}): HTTP {status}{}", oauth_error.as_ref().map(describe).unwrap_or_default())]
    Http { step: Step, url: String, status: u16, oauth_error: Option<OAuthErrorBody> },

    /// An answer that is not the JSON document it should be.
    #[error("{step} ({url}): {reason}")]
    Malformed { step: Step, url: String, reason: String },

    /// No Protected Resource Metadata and no authorization server metadata at any place looked.
    #[error("no authorization server metadata found (looked at {})", looked.join(", "))]
    NoMetadata { looked: Vec<String> },

    /// RFC 9728 §3.3: the metadata is for another resource than this server.
    #[error("the Protected Resource Metadata is for {resource}, not for this server ({server})")]
    ResourceMismatch { resource: String, server: String },

    /// RFC 8414 §3.3: the metadata names another issuer than the one it was fetched for.
    #[error("the authorization server metadata at {url} names the issuer {found}, not {expected}")]
    IssuerMismatch { url: String, expected: String, found: String },

    #[error("the authorization server does not support PKCE with S256 (it lists: {})", if supported.is_empty() { "none".to_owned() } else { supported.join(", ") })]
    PkceUnsupported { supported: Vec<String> },

    /// No pre-registered client, no Client ID Metadata Document support, no registration endpoint.
    #[error(
        "no way to identify this client to {issuer}: it offers neither client ID metadata documents nor dynamic registration"
    )]
    NoClientIdentity { issuer: String },

    /// Pre-registered credentials belong to another authorization server.
    #[error("the pre-registered client is for {registered_with}; the server now names {issuer}")]
    WrongIssuerForClient { registered_with: String, issuer: String },

    /// The redirect back did not carry the `state` this client sent: possibly forged.
    #[error("the sign-in came back with a state that this client did not send: refused")]
    StateMismatch,

    /// RFC 9207: the redirect's `iss` is missing where promised, or names another issuer.
    #[error("{}", match found { Some(f) => format!("the sign-in came back from issuer {f}, expected {expected}: refused (RFC 9207)"), None => format!("the sign-in came back without the iss that {expected} promises: refused (RFC 9207)") })]
    IssuerResponse { expected: String, found: Option<String> },

    /// The authorization server said no (`access_denied`, or another error in the redirect).
    #[error("the authorization server answered {error}{}", description.as_ref().map(|d| format!(": {d}")).unwrap_or_default())]
    Denied { error: String, description: Option<String> },

    /// The user closed the sign-in window, or it could not be opened.
    #[error("{0}")]
    UserAgent(String),

    /// The server answers 401 to the token its own authorization server just issued.
    #[error("the server still answers HTTP {status} with a fresh token from {issuer}")]
    TokenRejected { status: u16, issuer: String },

    /// A `private_key_jwt` client whose assertion could not be made: no key, a key that is not
    /// PKCS #8, or no signer (a page not in a secure context).
    #[error("the client's private key cannot sign its assertion: {reason}")]
    ClientKey { reason: String },

    /// The authorization server binds tokens to a key (DPoP), and the page could not make or
    /// use one.
    #[error("no DPoP key: {reason}")]
    DpopKey { reason: String },

    /// The server keeps refusing scopes this client already holds.
    #[error("the server still refuses with scope \"{scopes}\", which the token was granted")]
    ScopeRefused { scopes: String },

    /// A URL a document (or a header) gave failed the URL policy: nothing was opened or fetched.
    #[error("{step}: its {field} \"{url}\" was refused: {why}")]
    UrlRefused { step: Step, field: &'static str, url: String, why: UrlRefusal },

    /// One step took longer than `Limits::auth_step_ms`.
    #[error("{step} ({url}): no answer within {} s", after_ms / 1000)]
    StepTimeout { step: Step, url: String, after_ms: u64 },

    /// An answer passed a limit (`engine::limits`).
    #[error("{step} ({url}): {limit}")]
    Limit { step: Step, url: String, limit: LimitExceeded },

    /// The page could not load the code that signs in (it loads it only when a server first asks
    /// for authorization): offline on a first visit, or the site was updated since it opened.
    #[error("the page's sign-in code did not arrive")]
    CodeMissing,
}

impl AuthError {
    pub fn layer(&self) -> Layer {
        match self {
            AuthError::StepTimeout { .. } => Layer::Timeout,
            AuthError::CodeMissing => Layer::Network,
            AuthError::Limit { limit, .. } => limit.limit.layer(),
            _ => Layer::Auth,
        }
    }

    /// What to check or do next.
    pub fn hint(&self) -> Option<String> {
        Some(match self {
            AuthError::Network { reach: Reach::Nothing, url, .. } => {
                format!("Nothing answers at {url}: the authorization server is down or the address is wrong.")
            }
            AuthError::Network { url, step: Step::Registration, .. } => format!(
                "This authorization server does not let a page register itself ({url} allows no CORS): register a \
                 client with it yourself and enter it under \"Your own OAuth client\" on this card. Or the server must \
                 send Access-Control-Allow-Origin on registration and answer its OPTIONS preflight for Content-Type."
            ),
            AuthError::Network { url, .. } => format!(
                "A page can read {url} only if the authorization server allows it with CORS: it must send \
                 Access-Control-Allow-Origin (this page's origin or *) and answer the OPTIONS preflight for \
                 Content-Type and Authorization. The sign-in page itself needs no CORS; metadata, registration \
                 and token endpoints do."
            ),
            AuthError::Http { step: Step::Registration, oauth_error: Some(e), .. }
                if e.error == "invalid_redirect_uri" =>
            {
                "The authorization server refused this page's callback URL (…/auth-callback.html). Register a client \
                 with that redirect URI yourself and enter its client id on the server's card."
                    .into()
            }
            AuthError::Http { step: Step::Registration, .. } => {
                "Dynamic registration failed: register a client with the \
                authorization server yourself and enter its client id on the server's card."
                    .into()
            }
            AuthError::Http { oauth_error: Some(e), .. } if e.error == "invalid_client" => {
                "The authorization server does not accept this client: check the client id and secret on the card, \
                 or clear them to register again."
                    .into()
            }
            AuthError::Http { oauth_error: Some(e), .. } if e.error == "invalid_target" => {
                "The authorization server does not issue tokens for this resource (RFC 8707): the wrong audience."
                    .into()
            }
            AuthError::DpopKey { .. } => {
                "This authorization server binds its tokens to a key (DPoP), which the page makes \
                with WebCrypto: only in a secure context (https, or localhost). Open the page there."
                    .into()
            }
            AuthError::ClientKey { .. } => {
                "Enter the client's private key under \"Your own OAuth client\" as a PKCS #8 \
                PEM (-----BEGIN PRIVATE KEY-----, an EC P-256 key for ES256). A page signs only in a secure context: \
                https, or localhost."
                    .into()
            }
            AuthError::NoMetadata { .. } => {
                "The server asked for authorization but publishes no metadata saying where \
                to get it. It must serve Protected Resource Metadata (RFC 9728) naming its authorization server."
                    .into()
            }
            AuthError::ResourceMismatch { .. } => "A token for another resource must not be sent here, so the sign-in \
                stopped. The server's metadata must name its own URL as the resource."
                .into(),
            AuthError::IssuerMismatch { .. } => "The metadata may have been tampered with, so it was not used.".into(),
            AuthError::PkceUnsupported { .. } => "A browser client cannot keep a secret, so PKCE (S256) is required. \
                The authorization server must list S256 in code_challenge_methods_supported."
                .into(),
            AuthError::NoClientIdentity { .. } => "Register a client with the authorization server yourself and enter \
                its client id (and secret, if it gave one) on the server's card."
                .into(),
            AuthError::WrongIssuerForClient { .. } => {
                "Enter a client registered with the new authorization server, or \
                clear the client id to register automatically."
                    .into()
            }
            AuthError::Denied { error, .. } if error == "access_denied" => {
                "You (or the authorization server) declined: sign in again to grant access.".into()
            }
            AuthError::UserAgent(_) => "Press Sign in on the server's card to try again.".into(),
            AuthError::CodeMissing => {
                "This device is offline, or the site was updated since this page opened: connect (or reload the \
                 page), then try again."
                    .into()
            }
            AuthError::TokenRejected { .. } => {
                "The token was issued for another audience (the resource parameter), or \
                the server does not trust this authorization server: the server's configuration."
                    .into()
            }
            AuthError::UrlRefused { .. } => {
                "Loopscope opens and fetches only https addresses (plain http only on this \
                machine), never javascript:, data: or other schemes, and never addresses with a user name in them: a \
                server or authorization server that names such an address is misconfigured, or attacking the page. \
                Nothing was opened."
                    .into()
            }
            AuthError::StepTimeout { .. } => "The authorization server did not answer in time: check that it is up, \
                then press Sign in on the card. The time each step may take is under Settings → Limits."
                .into(),
            AuthError::Limit { limit, .. } => limit.hint(),
            AuthError::ScopeRefused { .. } => "Signing in again would not help: the server's rules and the scopes it \
                asks for disagree. This is the server's to fix."
                .into(),
            _ => return None,
        })
    }

    pub fn to_failure(&self) -> Failure {
        Failure { layer: self.layer(), message: self.to_string(), hint: self.hint() }
    }
}
