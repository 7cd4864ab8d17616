//! Every HTTP request of the authorization flow, traced on the server's authorization lane with
//! the step it belongs to; secrets in answers are registered before the body is traced.

use futures::future::LocalBoxFuture;
use futures::{FutureExt, pin_mut, select_biased};
use serde_json::Value;

use super::{Auth, AuthError};
use crate::encoding::form_component;
use crate::limits::{BodyError, check_json_depth, read_text};
use crate::mcp::Reach;
use crate::platform::{Headers, HttpRequest, Method, Platform, Redirects};
use crate::trace::{RequestBody, TraceKind};
use protocol::oauth::{OAuthErrorBody, SECRET_FIELDS};

/// Which step of the flow a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    ResourceMetadata,
    ServerMetadata,
    Registration,
    Token,
    Refresh,
    ClientCredentials,
    JwtBearer,
    /// Enterprise-managed authorization: the ID token exchanged for an ID-JAG.
    TokenExchange,
}

impl Step {
    pub fn label(self) -> &'static str {
        match self {
            Step::ResourceMetadata => "resource metadata",
            Step::ServerMetadata => "authorization server metadata",
            Step::Registration => "client registration",
            Step::Token => "token request",
            Step::Refresh => "token refresh",
            Step::ClientCredentials => "client credentials token",
            Step::JwtBearer => "token for a JWT (JWT bearer)",
            Step::TokenExchange => "ID-JAG from the identity provider (token exchange)",
        }
    }
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// An HTTP answer, read whole; its JSON, if it is JSON (parsed once, here).
pub(super) struct Answer {
    pub status: u16,
    pub json: Option<Value>,
}

/// Reads one kind of document from its JSON.
pub(super) type Reader<T> = fn(&Value) -> Result<T, protocol::ReadError>;

impl<P: Platform> Auth<P> {
    /// Registers a secret, as written and as a form body carries it.
    pub(super) fn secret(&self, value: &str) {
        self.tracer.add_secret(value);
        let encoded = form_component(value);
        if encoded != value {
            self.tracer.add_secret(&encoded);
        }
    }

    /// One request of the flow, traced, within the step's time (`Limits::auth_step_ms`): a step
    /// that hangs fails with its own name, and the card does not wait forever. Boxed: every step
    /// awaits it, and one copy of its code serves them all (inlined, it was copied into each;
    /// docs/size.md).
    pub(super) fn fetch<'a>(
        &'a self,
        step: Step,
        method: Method,
        url: &'a str,
        headers: Headers,
        body: Option<String>,
    ) -> LocalBoxFuture<'a, Result<Answer, AuthError>> {
        Box::pin(async move {
            // The last line of defence: every address is checked here too, whatever gave it.
            self.checked(step, "address", url)?;
            let after_ms = self.settings.limits.auth_step_ms;
            let work = self.exchange(step, method, url, headers, body).fuse();
            let timer = self.platform.sleep(after_ms).fuse();
            pin_mut!(work, timer);
            select_biased! {
                r = work => r,
                _ = timer => {
                    self.note(format!("{step}: no answer from {url} within {} s; stopped", after_ms / 1000));
                    Err(AuthError::StepTimeout { step, url: url.to_owned(), after_ms })
                }
            }
        })
    }

    async fn exchange(
        &self,
        step: Step,
        method: Method,
        url: &str,
        headers: Headers,
        body: Option<String>,
    ) -> Result<Answer, AuthError> {
        let exchange = self.tracer.next_exchange();
        let peer = self.peer();
        self.tracer.emit(
            peer.clone(),
            TraceKind::HttpRequest {
                exchange,
                method,
                url: url.to_owned(),
                headers: headers.clone(),
                body: body.clone().map(RequestBody::Text),
                summary: Some(step.label().to_owned()),
            },
        );
        let started = self.platform.now_ms();
        // A GET of a public document may follow a redirect (the final address is checked and
        // shown); a POST carries codes, verifiers or secrets and never does.
        let redirects = if method == Method::Get { Redirects::Follow } else { Redirects::Refuse };
        let request = HttpRequest { method, url: url.to_owned(), headers, body, redirects };
        let response = match self.platform.send(request).await {
            Ok(r) => r,
            Err(e) => {
                let elapsed_ms = self.platform.now_ms() - started;
                let refused = e.redirect_refused;
                self.tracer.emit(peer, TraceKind::HttpFailed { exchange, error: e.message, elapsed_ms });
                if refused {
                    return Err(AuthError::Malformed {
                        step,
                        url: url.to_owned(),
                        reason: "it answered with a redirect, which a request carrying codes or secrets never follows"
                            .into(),
                    });
                }
                let reach = match self.platform.answers(url).await {
                    Some(true) => Reach::Answers,
                    Some(false) => Reach::Nothing,
                    None => Reach::Unknown,
                };
                return Err(AuthError::Network { step, url: url.to_owned(), reach });
            }
        };
        let status = response.status;
        // RFC 9449 §8: the authorization server's nonce, for the next proof.
        if let Some(nonce) = response.headers.get("dpop-nonce").filter(|n| n.len() <= 512) {
            *self.as_nonce.borrow_mut() = Some(nonce.to_owned());
        }
        let elapsed_ms = self.platform.now_ms() - started;
        if let Some(to) = &response.final_url {
            self.tracer.emit(peer.clone(), TraceKind::Redirected { exchange, to: to.clone() });
            self.checked(step, "redirect", to)?;
        }
        self.tracer
            .emit(peer.clone(), TraceKind::HttpResponse { exchange, status, headers: response.headers, elapsed_ms });
        let limits = self.settings.limits;
        let text = read_text(response.body, limits.body_bytes).await.map_err(|e| match e {
            BodyError::TooBig(limit) => AuthError::Limit { step, url: url.to_owned(), limit },
            BodyError::Network(e) => {
                AuthError::Malformed { step, url: url.to_owned(), reason: format!("the answer broke off: {e}") }
            }
        })?;
        check_json_depth(&text, limits.json_depth).map_err(|limit| AuthError::Limit {
            step,
            url: url.to_owned(),
            limit,
        })?;
        let json = serde_json::from_str::<Value>(&text).ok();
        for key in SECRET_FIELDS {
            if let Some(Value::String(secret)) = json.as_ref().and_then(|j| j.get(key)) {
                self.secret(secret);
            }
        }
        if !text.is_empty() {
            let elapsed_ms = self.platform.now_ms() - started;
            self.tracer.emit(peer, TraceKind::HttpBody { exchange, body: text, elapsed_ms });
        }
        Ok(Answer { status, json })
    }

    /// A POST whose 2xx answer is a JSON document; an error status is an [`AuthError::Http`]
    /// carrying the OAuth error, if the body has one.
    pub(super) async fn post_json(
        &self,
        step: Step,
        url: &str,
        headers: Headers,
        body: String,
    ) -> Result<Option<Value>, AuthError> {
        let answer =
            self.fetch(step, Method::Post, url, headers.with("accept", "application/json"), Some(body)).await?;
        if !(200..300).contains(&answer.status) {
            let oauth_error = answer.json.as_ref().and_then(OAuthErrorBody::read);
            return Err(AuthError::Http { step, url: url.to_owned(), status: answer.status, oauth_error });
        }
        Ok(answer.json)
    }
}

/// Reads a document, or says what is wrong with it.
pub(super) fn read_document<T>(step: Step, url: &str, json: Option<&Value>, read: Reader<T>) -> Result<T, AuthError> {
    let reason = match json {
        None => "not JSON".to_owned(),
        Some(v) => match read(v) {
            Ok(doc) => return Ok(doc),
            Err(e) => format!("not the document expected: {e}"),
        },
    };
    Err(AuthError::Malformed { step, url: url.to_owned(), reason })
}
