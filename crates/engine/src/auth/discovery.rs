//! Finding the authorization server: the Protected Resource Metadata the 401 points to (or the
//! well-known places, path first), the resource it names checked against this server, then the
//! authorization server's metadata in the specified order of places, its issuer checked. A
//! server without any metadata gets the 2025-03-26 rules: its origin is its authorization
//! server, at `/authorize`, `/token` and `/register`.

use serde_json::Value;

use super::http::read_document;
use super::url::{
    canonical_resource, origin, resource_covers, resource_metadata_urls, same_origin, server_metadata_urls,
};
use super::{Auth, AuthError, Challenge, Step};
use crate::platform::{Headers, Method, Platform};
use protocol::oauth::{AuthServerMetadata, ProtectedResourceMetadata};

/// What discovery found.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Found {
    /// The resource identifier tokens are requested for (RFC 8707), exactly as published.
    pub resource: String,
    pub resource_scopes: Option<Vec<String>>,
    /// The resource metadata requires DPoP-bound tokens (RFC 9728).
    pub resource_dpop: bool,
    /// The issuer as the resource metadata names it (what `iss` is compared with).
    pub issuer: String,
    pub metadata: AuthServerMetadata,
    /// No metadata anywhere: the 2025-03-26 default endpoints.
    pub defaults: bool,
}

/// Candidates were tried in order; this says how the search ended.
enum Search<T> {
    Found(T),
    /// Nothing at any of these places (they answered, but not with the document).
    Absent,
    /// A place could not be read at all (in a browser: CORS) or answered with a broken document.
    Failed(AuthError),
}

impl<P: Platform> Auth<P> {
    pub(super) async fn discover(&self, challenge: &Challenge) -> Result<Found, AuthError> {
        let mut looked = Vec::new();
        let prm = match self.resource_metadata(challenge, &mut looked).await {
            Search::Found(p) => Some(p),
            Search::Absent => None,
            Search::Failed(e) => return Err(e),
        };
        let (resource, issuer) = match &prm {
            Some(p) => {
                if !resource_covers(&p.resource, &self.server_url) {
                    return Err(AuthError::ResourceMismatch {
                        resource: p.resource.clone(),
                        server: self.server_url.clone(),
                    });
                }
                let issuer = p.authorization_servers.first().cloned().ok_or_else(|| AuthError::Malformed {
                    step: Step::ResourceMetadata,
                    url: looked.last().cloned().unwrap_or_default(),
                    reason: "it names no authorization server".into(),
                })?;
                self.checked(Step::ResourceMetadata, "authorization_servers", &issuer)?;
                (p.resource.clone(), issuer)
            }
            None => {
                let origin = origin(&self.server_url).unwrap_or_default().to_owned();
                self.note(format!(
                    "No Protected Resource Metadata: the 2025-03-26 rules apply, the server's origin {origin} is its authorization server"
                ));
                (canonical_resource(&self.server_url), origin)
            }
        };
        let legacy = prm.is_none();
        match self.server_metadata(&issuer, legacy, &mut looked).await {
            Search::Found(metadata) => self.check_endpoints(&metadata).map(|()| Found {
                resource,
                resource_dpop: prm.as_ref().is_some_and(|p| p.dpop_bound_access_tokens_required),
                resource_scopes: prm.and_then(|p| p.scopes_supported),
                // On the 2025-03-26 path the metadata's own issuer (on the server's origin) is
                // what the authorization response's `iss` is compared with.
                issuer: if legacy { metadata.issuer.clone() } else { issuer },
                metadata,
                defaults: false,
            }),
            Search::Failed(e) => Err(e),
            Search::Absent if prm.is_none() => {
                self.note(format!(
                    "No authorization server metadata either: the 2025-03-26 default endpoints {issuer}/authorize, /token and /register"
                ));
                Ok(Found {
                    resource,
                    resource_scopes: None,
                    resource_dpop: false,
                    metadata: default_endpoints(&issuer),
                    issuer,
                    defaults: true,
                })
            }
            Search::Absent => Err(AuthError::NoMetadata { looked }),
        }
    }

    /// RFC 9728: the URL from the challenge first, then the well-known places.
    async fn resource_metadata(
        &self,
        challenge: &Challenge,
        looked: &mut Vec<String>,
    ) -> Search<ProtectedResourceMetadata> {
        let mut candidates: Vec<String> = Vec::new();
        if let Some(url) = &challenge.resource_metadata {
            // A stranger's header: checked before anything is fetched from it.
            match self.checked(Step::ResourceMetadata, "resource_metadata (WWW-Authenticate)", url) {
                Ok(_) => candidates.push(url.clone()),
                Err(e) => return Search::Failed(e),
            }
        }
        for url in resource_metadata_urls(&self.server_url) {
            if !candidates.contains(&url) {
                candidates.push(url);
            }
        }
        match self.first_document(Step::ResourceMetadata, candidates, looked).await {
            Search::Found((url, json)) => {
                read_document(Step::ResourceMetadata, &url, Some(&json), ProtectedResourceMetadata::read)
                    .map_or_else(Search::Failed, Search::Found)
            }
            Search::Absent => Search::Absent,
            Search::Failed(e) => Search::Failed(e),
        }
    }

    /// RFC 8414 and OpenID Connect Discovery, in MCP's order; the issuer must be the one the
    /// places were built from, character for character (RFC 8414 §3.3). On the 2025-03-26 path
    /// (`legacy`: no Protected Resource Metadata) the places are built from the server's origin,
    /// which that revision makes the authorization base URL without asking the metadata to name
    /// it: there, an issuer on that same origin (`http://host/oauth` for `http://host`) is
    /// accepted and said; one on any other origin is refused as on the modern path.
    async fn server_metadata(
        &self,
        issuer: &str,
        legacy: bool,
        looked: &mut Vec<String>,
    ) -> Search<AuthServerMetadata> {
        let mut candidates = server_metadata_urls(issuer).into_iter();
        loop {
            let Some(url) = candidates.next() else { return Search::Absent };
            let json = match self.first_document(Step::ServerMetadata, vec![url.clone()], looked).await {
                Search::Found((_, json)) => json,
                Search::Absent => continue,
                Search::Failed(e) => return Search::Failed(e),
            };
            return match read_document(Step::ServerMetadata, &url, Some(&json), AuthServerMetadata::read) {
                Ok(m) if m.issuer == issuer => Search::Found(m),
                Ok(m) if legacy && same_origin(&m.issuer, issuer) => {
                    self.note(format!(
                        "The 2025-03-26 rules: the metadata at {url} names the issuer {}, on the server's origin {issuer}; \
                         accepted (that revision derives the authorization server from the server's address; an issuer \
                         on another origin would be refused)",
                        m.issuer
                    ));
                    Search::Found(m)
                }
                Ok(m) => {
                    Search::Failed(AuthError::IssuerMismatch { url, expected: issuer.to_owned(), found: m.issuer })
                }
                Err(e) => Search::Failed(e),
            };
        }
    }

    /// GETs each place in turn until one answers 2xx with the document. A 4xx or 5xx means "not
    /// here"; no answer at all stops the search, since nothing after it can be trusted to be
    /// the right one (and the user must hear about CORS).
    async fn first_document(
        &self,
        step: Step,
        candidates: Vec<String>,
        looked: &mut Vec<String>,
    ) -> Search<(String, Value)> {
        for url in candidates {
            looked.push(url.clone());
            let headers = Headers::new().with("accept", "application/json");
            let answer = match self.fetch(step, Method::Get, &url, headers, None).await {
                Ok(a) => a,
                Err(e) => return Search::Failed(e),
            };
            if !(200..300).contains(&answer.status) {
                continue;
            }
            return match answer.json {
                Some(json) => Search::Found((url, json)),
                None => Search::Failed(AuthError::Malformed { step, url, reason: "not JSON".into() }),
            };
        }
        Search::Absent
    }
}

/// The 2025-03-26 endpoints of an authorization server without metadata.
fn default_endpoints(issuer: &str) -> AuthServerMetadata {
    AuthServerMetadata {
        issuer: issuer.to_owned(),
        authorization_endpoint: Some(format!("{issuer}/authorize")),
        token_endpoint: format!("{issuer}/token"),
        registration_endpoint: Some(format!("{issuer}/register")),
        scopes_supported: None,
        grant_types_supported: None,
        code_challenge_methods_supported: None,
        token_endpoint_auth_methods_supported: None,
        authorization_response_iss_parameter_supported: false,
        client_id_metadata_document_supported: false,
        dpop_signing_alg_values_supported: None,
    }
}
