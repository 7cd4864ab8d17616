//! Getting tokens: the authorization code grant with PKCE (the user signs in; the redirect
//! back is checked for `state` and, per RFC 9207, `iss` before the code goes anywhere), the
//! client credentials grant for a machine client, and refresh. Every token request names the
//! resource (RFC 8707) and authenticates the client as it was registered.

use super::assertion::{ASSERTION_TYPE, PRIVATE_KEY_JWT, client_assertion};
use super::challenge::split_scopes;
use super::discovery::Found;
use super::dpop::DpopKey;
use super::http::read_document;
use super::pkce::Pkce;
use super::url::{query_of, with_query};
use super::{Auth, AuthError, EnterpriseIdp, RegisteredClient, Step, Tokens};
use crate::encoding::{base64, form_component, form_decode, form_encode};
use crate::platform::{Headers, Platform};
use crate::trace::{AuthStep, TraceKind};
use protocol::oauth::{TokenResponse, grant, token_type};
use serde_json::Value;
use std::rc::Rc;

impl<P: Platform> Auth<P> {
    /// The user signs in; the code that comes back is exchanged for tokens.
    pub(super) async fn authorization_code(
        &self,
        found: &Found,
        client: &RegisteredClient,
        scopes: &[String],
    ) -> Result<Tokens, AuthError> {
        let m = &found.metadata;
        let methods = m.code_challenge_methods_supported.clone().unwrap_or_default();
        if !found.defaults && !methods.iter().any(|c| c == "S256") {
            return Err(AuthError::PkceUnsupported { supported: methods });
        }
        let endpoint = m.authorization_endpoint.clone().ok_or_else(|| AuthError::Malformed {
            step: Step::ServerMetadata,
            url: m.issuer.clone(),
            reason: "it has no authorization_endpoint".into(),
        })?;
        let pkce = Pkce::new(&*self.platform);
        self.secret(&pkce.verifier);
        let scope = scopes.join(" ");
        let mut query = vec![
            ("response_type", "code"),
            ("client_id", client.client_id.as_str()),
            ("redirect_uri", self.settings.redirect_uri.as_str()),
            ("code_challenge", pkce.challenge.as_str()),
            ("code_challenge_method", "S256"),
            ("state", pkce.state.as_str()),
            ("resource", found.resource.as_str()),
        ];
        if !scope.is_empty() {
            query.push(("scope", scope.as_str()));
        }
        if scopes.iter().any(|s| s == "offline_access") {
            // OpenID Connect grants offline_access only with an explicit consent prompt (Core §11).
            query.push(("prompt", "consent"));
        }
        let page = self.sign_in_page(&with_query(&endpoint, &form_encode(query)), found)?;
        let scope = (!scope.is_empty()).then_some(scope);
        self.tracer.emit(self.peer(), TraceKind::Auth { step: AuthStep::SignIn { url: page.url.href(), scope } });
        if let Some(warning) = page.warning() {
            self.note(warning);
        }
        self.set_status(super::AuthStatus::WaitingForUser { page: page.clone() });
        let back = self.agent.sign_in(&page).await.map_err(AuthError::UserAgent)?;
        let code = self.accept_redirect(&back, found, &pkce.state)?;
        self.set_status(super::AuthStatus::Working);
        let params = vec![
            ("grant_type", grant::AUTHORIZATION_CODE.to_owned()),
            ("code", code),
            ("redirect_uri", self.settings.redirect_uri.clone()),
            ("code_verifier", pkce.verifier.clone()),
        ];
        self.token_request(
            Step::Token,
            found.metadata.token_endpoint.clone(),
            &found.resource,
            &found.issuer,
            client,
            params,
            scopes,
        )
        .await
    }

    /// Checks the redirect back: `state` (CSRF), then `iss` (mix-up, RFC 9207 §2.4, compared
    /// as strings, before anything in it is acted on), then an error, then the code. An absent
    /// `iss` is refused when the metadata promised it; the 2026-07-28 revision (SEP-2468, the
    /// suite's `auth/iss-not-advertised`) requires a client to go on when it was not promised,
    /// so there the defence is the `state`, which only the flow sent to this authorization
    /// server holds (docs/security.md, "Mix-up").
    fn accept_redirect(&self, back: &str, found: &Found, state: &str) -> Result<String, AuthError> {
        let params = form_decode(query_of(back));
        let get = |name: &str| params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        if let Some(code) = get("code") {
            self.secret(code);
        }
        let refused = |error: AuthError| {
            let detail = error.to_string();
            self.tracer.emit(self.peer(), TraceKind::Auth { step: AuthStep::Returned { accepted: false, detail } });
            error
        };
        if get("state") != Some(state) {
            return Err(refused(AuthError::StateMismatch));
        }
        let required = found.metadata.authorization_response_iss_parameter_supported;
        match get("iss") {
            Some(iss) if iss != found.issuer => {
                return Err(refused(AuthError::IssuerResponse {
                    expected: found.issuer.clone(),
                    found: Some(iss.to_owned()),
                }));
            }
            None if required => {
                return Err(refused(AuthError::IssuerResponse { expected: found.issuer.clone(), found: None }));
            }
            _ => {}
        }
        if let Some(error) = get("error") {
            let description = get("error_description").map(str::to_owned);
            return Err(refused(AuthError::Denied { error: error.to_owned(), description }));
        }
        let Some(code) = get("code").filter(|c| !c.is_empty()) else {
            return Err(refused(AuthError::Denied { error: "no code in the redirect".into(), description: None }));
        };
        let iss = if get("iss").is_some() { "; iss matches" } else { "" };
        let detail = format!("authorization code received; state matches{iss}");
        self.tracer.emit(self.peer(), TraceKind::Auth { step: AuthStep::Returned { accepted: true, detail } });
        Ok(code.to_owned())
    }

    /// The client credentials grant: no user, the client's own secret.
    pub(super) async fn client_credentials(
        &self,
        found: &Found,
        client: &RegisteredClient,
        scopes: &[String],
    ) -> Result<Tokens, AuthError> {
        let mut params = vec![("grant_type", grant::CLIENT_CREDENTIALS.to_owned())];
        if !scopes.is_empty() {
            params.push(("scope", scopes.join(" ")));
        }
        let endpoint = found.metadata.token_endpoint.clone();
        self.token_request(Step::ClientCredentials, endpoint, &found.resource, &found.issuer, client, params, scopes)
            .await
    }

    /// The JWT-bearer grant (RFC 7523 §2.1): a workload's identity token is exchanged for an
    /// access token. A refusal is final: no retry, no other grant (SEP-1933).
    pub(super) async fn jwt_bearer(
        &self,
        found: &Found,
        client: &RegisteredClient,
        scopes: &[String],
        assertion: String,
    ) -> Result<Tokens, AuthError> {
        let mut params = vec![("grant_type", grant::JWT_BEARER.to_owned()), ("assertion", assertion)];
        if !scopes.is_empty() {
            params.push(("scope", scopes.join(" ")));
        }
        let endpoint = found.metadata.token_endpoint.clone();
        self.token_request(Step::JwtBearer, endpoint, &found.resource, &found.issuer, client, params, scopes).await
    }

    /// Enterprise-managed authorization (SEP-990), first half: the user's ID token is exchanged
    /// at the identity provider for an ID-JAG addressed to this authorization server and
    /// resource (RFC 8693); the second half is the JWT-bearer grant.
    pub(super) async fn id_jag(
        &self,
        found: &Found,
        idp: &EnterpriseIdp,
        scopes: &[String],
    ) -> Result<String, AuthError> {
        let step = Step::TokenExchange;
        self.checked(step, "identity provider token endpoint", &idp.token_endpoint)?;
        self.secret(&idp.id_token);
        let mut params = vec![
            ("grant_type", grant::TOKEN_EXCHANGE),
            ("requested_token_type", token_type::ID_JAG),
            ("audience", found.issuer.as_str()),
            ("resource", found.resource.as_str()),
            ("subject_token", idp.id_token.as_str()),
            ("subject_token_type", token_type::ID_TOKEN),
        ];
        let scope = scopes.join(" ");
        if !scope.is_empty() {
            params.push(("scope", &scope));
        }
        if let Some(id) = &idp.client_id {
            params.push(("client_id", id));
        }
        let headers = Headers::new().with("content-type", "application/x-www-form-urlencoded");
        let json = self.post_json(step, &idp.token_endpoint, headers, form_encode(params)).await?;
        let text = |k: &str| json.as_ref().and_then(|j| j.get(k)).and_then(Value::as_str).map(str::to_owned);
        let malformed =
            |reason: &str| AuthError::Malformed { step, url: idp.token_endpoint.clone(), reason: reason.into() };
        if text("issued_token_type").as_deref() != Some(token_type::ID_JAG) {
            return Err(malformed("the identity provider did not issue an ID-JAG (issued_token_type)"));
        }
        let id_jag = text("access_token").filter(|t| !t.is_empty()).ok_or_else(|| malformed("no access_token"))?;
        self.secret(&id_jag);
        Ok(id_jag)
    }

    /// Whether the authorization server `issuer` takes DPoP proofs this page can make (ES256).
    fn takes_dpop(&self, issuer: &str) -> bool {
        let state = self.state.borrow();
        let found = state.found.as_ref().filter(|f| f.issuer == issuer && state.dpop_wanted);
        found
            .and_then(|f| f.metadata.dpop_signing_alg_values_supported.as_ref())
            .is_some_and(|algs| algs.iter().any(|a| a == super::dpop::ALG))
    }

    /// This session's DPoP key, made the first time one is needed.
    async fn dpop_key(&self) -> Result<Rc<DpopKey>, AuthError> {
        if let Some(key) = self.dpop.borrow().clone() {
            return Ok(key);
        }
        let key = Rc::new(DpopKey::generate(&*self.platform).await.map_err(|reason| AuthError::DpopKey { reason })?);
        *self.dpop.borrow_mut() = Some(key.clone());
        self.note(
            "The authorization server binds tokens to a key (DPoP): a key pair was made for this session; its private \
             half stays in this page's memory, and every request with the token carries a fresh proof signed with it",
        );
        Ok(key)
    }

    /// A new access token from the refresh token (which is kept if no new one comes).
    pub(super) async fn refresh_with(&self, tokens: &Tokens, client: &RegisteredClient) -> Result<Tokens, AuthError> {
        let refresh_token = tokens.refresh_token.clone().unwrap_or_default();
        let params = vec![("grant_type", grant::REFRESH_TOKEN.to_owned()), ("refresh_token", refresh_token.clone())];
        let mut fresh = self
            .token_request(
                Step::Refresh,
                tokens.token_endpoint.clone(),
                &tokens.resource,
                &tokens.issuer,
                client,
                params,
                &tokens.scopes,
            )
            .await?;
        fresh.refresh_token = fresh.refresh_token.or(Some(refresh_token));
        Ok(fresh)
    }

    #[allow(clippy::too_many_arguments)]
    async fn token_request(
        &self,
        step: Step,
        endpoint: String,
        resource: &str,
        issuer: &str,
        client: &RegisteredClient,
        mut params: Vec<(&str, String)>,
        requested: &[String],
    ) -> Result<Tokens, AuthError> {
        for (name, value) in &params {
            if matches!(*name, "code" | "code_verifier" | "refresh_token") {
                self.secret(value);
            }
        }
        params.push(("resource", resource.to_owned()));
        let mut headers = Headers::new().with("content-type", "application/x-www-form-urlencoded");
        let secret = client.client_secret.clone().unwrap_or_default();
        match client.auth_method.as_str() {
            "client_secret_basic" => {
                // RFC 6749 §2.3.1: each part form-encoded before base64.
                let pair = format!("{}:{}", form_component(&client.client_id), form_component(&secret));
                headers.set("authorization", format!("Basic {}", base64(pair.as_bytes())));
            }
            "client_secret_post" => {
                params.push(("client_id", client.client_id.clone()));
                params.push(("client_secret", secret));
            }
            PRIVATE_KEY_JWT => {
                let pem = self.settings.preregistered.as_ref().and_then(|p| p.private_key_pem.clone());
                let signed = match pem {
                    Some(pem) => client_assertion(&*self.platform, &pem, &client.client_id, issuer).await,
                    None => Err("no private key was entered for this client".into()),
                };
                let assertion = signed.map_err(|reason| AuthError::ClientKey { reason })?;
                self.secret(&assertion);
                params.push(("client_id", client.client_id.clone()));
                params.push(("client_assertion_type", ASSERTION_TYPE.to_owned()));
                params.push(("client_assertion", assertion));
            }
            _ => params.push(("client_id", client.client_id.clone())),
        }
        let body = form_encode(params.iter().map(|(k, v)| (*k, v.as_str())));
        let key = if self.takes_dpop(issuer) { Some(self.dpop_key().await?) } else { None };
        let mut json = None;
        for attempt in 0..2 {
            let mut headers = headers.clone();
            if let Some(key) = &key {
                let nonce = self.as_nonce.borrow().clone();
                let proof = key.proof(&*self.platform, "POST", &endpoint, None, nonce.as_deref()).await;
                headers.set("dpop", proof.map_err(|reason| AuthError::DpopKey { reason })?);
            }
            match self.post_json(step, &endpoint, headers, body.clone()).await {
                // RFC 9449 §8: it wants its nonce in the proof, and gave one: once more with it.
                Err(AuthError::Http { oauth_error: Some(e), .. })
                    if attempt == 0
                        && key.is_some()
                        && e.error == "use_dpop_nonce"
                        && self.as_nonce.borrow().is_some() =>
                {
                    self.note("The authorization server asked for its DPoP nonce in the proof: asking again with it");
                }
                other => {
                    json = other?;
                    break;
                }
            }
        }
        let response = read_document(step, &endpoint, json.as_ref(), TokenResponse::read)?;
        let dpop = key.is_some() && response.token_type.eq_ignore_ascii_case("dpop");
        if !response.token_type.eq_ignore_ascii_case("bearer") && !dpop {
            return Err(AuthError::Malformed {
                step,
                url: endpoint,
                reason: format!(
                    "the token type is \"{}\"; this client uses Bearer and DPoP tokens",
                    response.token_type
                ),
            });
        }
        let scopes = response.scope.as_deref().map(split_scopes).unwrap_or_else(|| requested.to_vec());
        let now = self.platform.now_ms();
        Ok(Tokens {
            access_token: response.access_token,
            refresh_token: response.refresh_token,
            issued_at_ms: now,
            expires_at_ms: response.expires_in_s.map(|s| now + s * 1000.0),
            scopes,
            issuer: issuer.to_owned(),
            token_endpoint: endpoint,
            resource: resource.to_owned(),
            dpop,
        })
    }
}
