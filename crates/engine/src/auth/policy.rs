//! Authorization's URLs under the page's URL policy (`engine::url_policy`). Every address the
//! flow fetches or opens comes from a stranger (a `WWW-Authenticate` header, a metadata
//! document), except the MCP server's own origin, which the user chose: a URL on that origin
//! is the user's (plain http allowed there, as for the server itself); any other must be https,
//! or http on this machine. The sign-in page gets the same check and is opened only as a
//! [`SignInPage`], which says where it leads before any window opens.

use super::discovery::Found;
use super::{Auth, AuthError, Step};
use crate::platform::Platform;
use crate::url_policy::{self, WebUrl};
use protocol::oauth::AuthServerMetadata;

/// The authorization server's sign-in page, checked, with what the user should know before it
/// opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignInPage {
    /// The whole address, query included (what the window opens).
    pub url: WebUrl,
    /// Where it leads, as a person reads it: "auth.example.com".
    pub host: String,
    /// The authorization server the MCP server named, when the sign-in page is on another host:
    /// the card names both.
    pub named_host: Option<String>,
}

impl SignInPage {
    /// A sentence for the card when the sign-in page is not on the host the MCP server named.
    pub fn warning(&self) -> Option<String> {
        self.named_host.as_ref().map(|named| {
            format!(
                "The sign-in page is on {}, not on {named}, the authorization server this MCP server named. Sign in \
                 only if you trust {}.",
                self.host, self.host
            )
        })
    }
}

impl<P: Platform> Auth<P> {
    /// `url`, read from `field` of what `step` got, as the URL policy allows it.
    pub(super) fn checked(&self, step: Step, field: &'static str, url: &str) -> Result<WebUrl, AuthError> {
        url_policy::check_near(url, &self.server_url).map_err(|why| AuthError::UrlRefused {
            step,
            field,
            url: url.to_owned(),
            why,
        })
    }

    /// The endpoints an authorization server's metadata names, each under the policy before
    /// any of them is used.
    pub(super) fn check_endpoints(&self, m: &AuthServerMetadata) -> Result<(), AuthError> {
        let step = Step::ServerMetadata;
        if let Some(url) = &m.authorization_endpoint {
            self.checked(step, "authorization_endpoint", url)?;
        }
        self.checked(step, "token_endpoint", &m.token_endpoint)?;
        if let Some(url) = &m.registration_endpoint {
            self.checked(step, "registration_endpoint", url)?;
        }
        Ok(())
    }

    /// The sign-in page at `url` (the authorization endpoint with its query).
    pub(super) fn sign_in_page(&self, url: &str, found: &Found) -> Result<SignInPage, AuthError> {
        let url = self.checked(Step::ServerMetadata, "authorization_endpoint", url)?;
        let host = url.authority();
        let named_host = WebUrl::parse(&found.issuer).ok().map(|i| i.authority()).filter(|named| *named != host);
        Ok(SignInPage { url, host, named_host })
    }
}
