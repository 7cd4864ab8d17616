//! OAuth wire types, as the RFCs MCP authorization builds on spell them: Protected Resource
//! Metadata (RFC 9728), Authorization Server Metadata (RFC 8414, and the OpenID Connect
//! Discovery fields it shares), Dynamic Client Registration (RFC 7591), token responses and
//! error bodies (RFC 6749 §5). Only the fields a client acts on are read; the raw documents stay
//! in the trace.
//!
//! Read from a `serde_json::Value` with the small readers below rather than with derived
//! `Deserialize`: every derived document type costs the page several KB (docs/size.md), and
//! these are read once per sign-in.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use serde_json::{Value, json};

use crate::ReadError;

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)?.as_str().map(str::to_owned)
}

fn list(v: &Value, key: &str) -> Option<Vec<String>> {
    Some(v.get(key)?.as_array()?.iter().filter_map(|x| x.as_str().map(str::to_owned)).collect())
}

fn flag(v: &Value, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn required(v: &Value, key: &'static str) -> Result<String, ReadError> {
    text(v, key).ok_or(ReadError::Missing(key))
}

/// RFC 9728 §2: what an MCP server says about itself as a protected resource.
#[derive(Clone, Debug, PartialEq)]
pub struct ProtectedResourceMetadata {
    pub resource: String,
    pub authorization_servers: Vec<String>,
    pub scopes_supported: Option<Vec<String>>,
    /// RFC 9728 §2: the resource accepts only DPoP-bound tokens.
    pub dpop_bound_access_tokens_required: bool,
}

impl ProtectedResourceMetadata {
    pub fn read(v: &Value) -> Result<Self, ReadError> {
        Ok(Self {
            resource: required(v, "resource")?,
            authorization_servers: list(v, "authorization_servers").unwrap_or_default(),
            scopes_supported: list(v, "scopes_supported"),
            dpop_bound_access_tokens_required: flag(v, "dpop_bound_access_tokens_required"),
        })
    }
}

/// RFC 8414 §2 (and OpenID Connect Discovery): the authorization server's endpoints and abilities.
#[derive(Clone, Debug, PartialEq)]
pub struct AuthServerMetadata {
    pub issuer: String,
    pub authorization_endpoint: Option<String>,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Option<Vec<String>>,
    pub grant_types_supported: Option<Vec<String>>,
    pub code_challenge_methods_supported: Option<Vec<String>>,
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// RFC 9207 §2.3: the authorization response carries `iss`.
    pub authorization_response_iss_parameter_supported: bool,
    /// draft-ietf-oauth-client-id-metadata-document: a URL may serve as the client id.
    pub client_id_metadata_document_supported: bool,
    /// RFC 9449 §5.1: the algorithms it accepts DPoP proofs in (its tokens can be key-bound).
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl AuthServerMetadata {
    pub fn read(v: &Value) -> Result<Self, ReadError> {
        Ok(Self {
            issuer: required(v, "issuer")?,
            authorization_endpoint: text(v, "authorization_endpoint"),
            token_endpoint: required(v, "token_endpoint")?,
            registration_endpoint: text(v, "registration_endpoint"),
            scopes_supported: list(v, "scopes_supported"),
            grant_types_supported: list(v, "grant_types_supported"),
            code_challenge_methods_supported: list(v, "code_challenge_methods_supported"),
            token_endpoint_auth_methods_supported: list(v, "token_endpoint_auth_methods_supported"),
            authorization_response_iss_parameter_supported: flag(v, "authorization_response_iss_parameter_supported"),
            client_id_metadata_document_supported: flag(v, "client_id_metadata_document_supported"),
            dpop_signing_alg_values_supported: list(v, "dpop_signing_alg_values_supported"),
        })
    }
}

/// RFC 7591 §2: the client metadata a registration sends.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientMetadata {
    pub client_name: String,
    pub redirect_uris: Vec<String>,
    pub grant_types: Vec<String>,
    pub response_types: Vec<String>,
    pub token_endpoint_auth_method: String,
    /// OpenID Connect Registration: "native" (localhost) or "web" (SEP-837).
    pub application_type: String,
}

impl ClientMetadata {
    pub fn to_json(&self) -> String {
        json!({
            "client_name": self.client_name,
            "redirect_uris": self.redirect_uris,
            "grant_types": self.grant_types,
            "response_types": self.response_types,
            "token_endpoint_auth_method": self.token_endpoint_auth_method,
            "application_type": self.application_type,
        })
        .to_string()
    }
}

/// RFC 7591 §3.2.1: what a registration returns.
#[derive(Clone, Debug, PartialEq)]
pub struct ClientInformation {
    pub client_id: String,
    pub client_secret: Option<String>,
    pub token_endpoint_auth_method: Option<String>,
}

impl ClientInformation {
    pub fn read(v: &Value) -> Result<Self, ReadError> {
        Ok(Self {
            client_id: required(v, "client_id")?,
            client_secret: text(v, "client_secret"),
            token_endpoint_auth_method: text(v, "token_endpoint_auth_method"),
        })
    }
}

/// RFC 6749 §5.1: a successful token response.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: String,
    /// Seconds (some servers send a string).
    pub expires_in_s: Option<f64>,
    pub refresh_token: Option<String>,
    pub scope: Option<String>,
}

impl TokenResponse {
    pub fn read(v: &Value) -> Result<Self, ReadError> {
        let expires_in_s = match v.get("expires_in") {
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => s.trim().parse().ok(),
            _ => None,
        };
        Ok(Self {
            access_token: required(v, "access_token")?,
            token_type: required(v, "token_type")?,
            expires_in_s,
            refresh_token: text(v, "refresh_token"),
            scope: text(v, "scope"),
        })
    }
}

/// RFC 6749 §5.2 (and RFC 7591 §3.2.2): an error body.
#[derive(Clone, Debug, PartialEq)]
pub struct OAuthErrorBody {
    pub error: String,
    pub error_description: Option<String>,
}

impl OAuthErrorBody {
    pub fn read(v: &Value) -> Option<Self> {
        Some(Self { error: text(v, "error")?, error_description: text(v, "error_description") })
    }
}

/// Response fields that are secrets: their values never reach the trace.
pub const SECRET_FIELDS: [&str; 5] =
    ["access_token", "refresh_token", "id_token", "client_secret", "registration_access_token"];

/// Grant types, as the RFCs name them.
pub mod grant {
    pub const AUTHORIZATION_CODE: &str = "authorization_code";
    pub const REFRESH_TOKEN: &str = "refresh_token";
    pub const CLIENT_CREDENTIALS: &str = "client_credentials";
    /// RFC 7523 §2.1: a JWT the client was given (a workload's identity, SEP-1933) is the grant.
    pub const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
    /// RFC 8693: one token exchanged for another (the ID-JAG of enterprise-managed
    /// authorization, SEP-990).
    pub const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
}

/// RFC 8693 §3 token type identifiers.
pub mod token_type {
    pub const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
    /// The Identity Assertion JWT Authorization Grant (SEP-990).
    pub const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    #[test]
    fn documents_read_what_a_client_acts_on_and_say_what_is_missing() {
        let m = AuthServerMetadata::read(&json!({"issuer":"https://as.example","token_endpoint":"https://as.example/token","jwks_uri":"x","code_challenge_methods_supported":["S256"]})).unwrap();
        assert!(!m.authorization_response_iss_parameter_supported);
        assert_eq!(m.code_challenge_methods_supported, Some(vec!["S256".to_owned()]));
        assert_eq!(
            AuthServerMetadata::read(&json!({"issuer":"x"})).unwrap_err(),
            crate::ReadError::Missing("token_endpoint")
        );
        let t = TokenResponse::read(&json!({"access_token":"a","token_type":"bearer","expires_in":"3600"})).unwrap();
        assert_eq!(t.expires_in_s, Some(3600.0));
        let p = ProtectedResourceMetadata::read(&json!({"resource":"https://mcp.example/mcp"})).unwrap();
        assert!(p.authorization_servers.is_empty() && p.scopes_supported.is_none());
        assert_eq!(
            OAuthErrorBody::read(&json!({"error":"invalid_client"})).map(|e| e.error).as_deref(),
            Some("invalid_client")
        );
    }
}
