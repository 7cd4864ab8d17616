//! Who this client is to an authorization server, in the specified priority: the user's own
//! pre-registered client, this page's Client ID Metadata Document, or Dynamic Client
//! Registration (RFC 7591, deprecated in 2026-07-28 but what most servers offer). A registration
//! is kept per issuer and never used with another (SEP-2352).

use super::assertion::PRIVATE_KEY_JWT;
use super::discovery::Found;
use super::http::read_document;
use super::{Auth, AuthError, ClientKind, RegisteredClient, Step};
use crate::platform::{Headers, Platform};
use protocol::oauth::{AuthServerMetadata, ClientInformation, ClientMetadata, grant};

const BASIC: &str = "client_secret_basic";
const POST: &str = "client_secret_post";
const NONE: &str = "none";

/// How to authenticate at the token endpoint: with a private key, `private_key_jwt` where the
/// server offers it; none without a secret; with one, Basic unless the server supports only
/// `client_secret_post` (RFC 6749 §2.3.1; Basic is the default).
fn auth_method(metadata: &AuthServerMetadata, has_secret: bool, has_key: bool) -> String {
    let supported = metadata.token_endpoint_auth_methods_supported.as_deref().unwrap_or_default();
    let method = if has_key && supported.iter().any(|m| m == PRIVATE_KEY_JWT) {
        PRIVATE_KEY_JWT
    } else if !has_secret {
        NONE
    } else if supported.iter().any(|m| m == POST) && !supported.iter().any(|m| m == BASIC) {
        POST
    } else {
        BASIC
    };
    method.to_owned()
}

impl<P: Platform> Auth<P> {
    pub(super) async fn client_for(&self, found: &Found) -> Result<RegisteredClient, AuthError> {
        let issuer = &found.issuer;
        if let Some(pre) = &self.settings.preregistered {
            // Bound to the issuer the user named, else to the first one it was used with.
            let bound = pre.issuer.clone().or_else(|| {
                let memory = &self.state.borrow().memory;
                memory.clients.iter().find(|c| c.how == ClientKind::Preregistered).map(|c| c.issuer.clone())
            });
            if let Some(registered_with) = bound.filter(|b| b != issuer) {
                return Err(AuthError::WrongIssuerForClient { registered_with, issuer: issuer.clone() });
            }
            if let Some(secret) = &pre.client_secret {
                self.secret(secret);
            }
            let client = RegisteredClient {
                issuer: issuer.clone(),
                client_id: pre.client_id.clone(),
                client_secret: pre.client_secret.clone(),
                auth_method: auth_method(&found.metadata, pre.client_secret.is_some(), pre.private_key_pem.is_some()),
                how: ClientKind::Preregistered,
            };
            self.state.borrow_mut().memory.keep(client.clone());
            return Ok(client);
        }
        if let Some(known) = self.state.borrow().memory.client(issuer) {
            return Ok(known.clone());
        }
        if found.metadata.client_id_metadata_document_supported
            && let Some(url) = &self.settings.metadata_document
        {
            self.note(format!("{issuer} accepts client ID metadata documents: the client id is {url}"));
            return Ok(RegisteredClient {
                issuer: issuer.clone(),
                client_id: url.clone(),
                client_secret: None,
                auth_method: NONE.into(),
                how: ClientKind::MetadataDocument,
            });
        }
        let Some(endpoint) = found.metadata.registration_endpoint.clone() else {
            return Err(AuthError::NoClientIdentity { issuer: issuer.clone() });
        };
        let client = self.register(&endpoint, issuer, &found.metadata).await?;
        self.state.borrow_mut().memory.keep(client.clone());
        Ok(client)
    }

    /// RFC 7591: asks to be registered as a public client of the kind this page is (SEP-837);
    /// if the server rejects the redirect URI or the metadata, tries the other kind once.
    async fn register(
        &self,
        endpoint: &str,
        issuer: &str,
        metadata: &AuthServerMetadata,
    ) -> Result<RegisteredClient, AuthError> {
        let first = self.settings.application_type();
        let mut result = self.register_as(endpoint, first).await;
        if let Err(AuthError::Http { status: 400, oauth_error: Some(e), .. }) = &result
            && matches!(e.error.as_str(), "invalid_redirect_uri" | "invalid_client_metadata")
        {
            let other = if first == "native" { "web" } else { "native" };
            self.note(format!("Registration as a \"{first}\" application refused ({}): trying \"{other}\"", e.error));
            result = self.register_as(endpoint, other).await;
        }
        let info = result?;
        if let Some(secret) = &info.client_secret {
            self.secret(secret);
        }
        let auth_method = info
            .token_endpoint_auth_method
            .clone()
            .unwrap_or_else(|| auth_method(metadata, info.client_secret.is_some(), false));
        Ok(RegisteredClient {
            issuer: issuer.to_owned(),
            client_id: info.client_id,
            client_secret: info.client_secret,
            auth_method,
            how: ClientKind::Registered,
        })
    }

    async fn register_as(&self, endpoint: &str, application_type: &str) -> Result<ClientInformation, AuthError> {
        let body = ClientMetadata {
            client_name: self.settings.client_name.clone(),
            redirect_uris: vec![self.settings.redirect_uri.clone()],
            // SEP-2207: a client that wants refresh tokens says so.
            grant_types: vec![grant::AUTHORIZATION_CODE.into(), grant::REFRESH_TOKEN.into()],
            response_types: vec!["code".into()],
            token_endpoint_auth_method: NONE.into(),
            application_type: application_type.into(),
        };
        let headers = Headers::new().with("content-type", "application/json");
        let json = self.post_json(Step::Registration, endpoint, headers, body.to_json()).await?;
        read_document(Step::Registration, endpoint, json.as_ref(), ClientInformation::read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(methods: Option<&[&str]>) -> AuthServerMetadata {
        let mut m =
            AuthServerMetadata::read(&serde_json::json!({"issuer":"https://as","token_endpoint":"https://as/token"}))
                .unwrap();
        m.token_endpoint_auth_methods_supported = methods.map(|l| l.iter().map(|s| s.to_string()).collect());
        m
    }

    #[test]
    fn token_endpoint_authentication_follows_what_the_server_supports() {
        assert_eq!(auth_method(&metadata(None), false, false), "none");
        assert_eq!(auth_method(&metadata(None), true, false), "client_secret_basic");
        assert_eq!(auth_method(&metadata(None), false, true), "none", "a key the server does not take is not used");
        assert_eq!(auth_method(&metadata(Some(&["private_key_jwt"])), false, true), "private_key_jwt");
        assert_eq!(auth_method(&metadata(Some(&["client_secret_post"])), true, false), "client_secret_post");
        assert_eq!(
            auth_method(&metadata(Some(&["client_secret_post", "client_secret_basic"])), true, false),
            "client_secret_basic"
        );
    }
}
