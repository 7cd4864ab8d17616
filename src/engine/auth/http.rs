//! Every HTTP request of the authorization flow, traced on the server's authorization lane with
//! the step it belongs to; secrets in answers are registered before the body is traced.

use futures::future::LocalBoxFuture;
use serde_json::Value;

use super::{Auth, AuthError};
use crate::engine::encoding::form_component;
use crate::engine::mcp::Reach;
use crate::engine::platform::{Headers, HttpRequest, Method, Platform, read_text};
use crate::engine::trace::{RequestBody, TraceKind};
use crate::protocol::oauth::{OAuthErrorBody, SECRET_FIELDS};

/// Which step of the flow a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    ResourceMetadata,
    ServerMetadata,
    Registration,
    Token,
    Refresh,
    ClientCredentials,
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
pub(super) type Reader<T> = fn(&Value) -> Result<T, String>;

impl<P: Platform> Auth<P> {
    /// Registers a secret, as written and as a form body carries it.
    pub(super) fn secret(&self, value: &str) {
        self.tracer.add_secret(value);
        let encoded = form_component(value);
        if encoded != value {
            self.tracer.add_secret(&encoded);
        }
    }

    /// One request of the flow, traced. Boxed: every step awaits it, and one copy of its code
    /// serves them all (inlined, it was copied into each; docs/size.md).
    pub(super) fn fetch<'a>(
        &'a self,
        step: Step,
        method: Method,
        url: &'a str,
        headers: Headers,
        body: Option<String>,
    ) -> LocalBoxFuture<'a, Result<Answer, AuthError>> {
        Box::pin(self.fetch_now(step, method, url, headers, body))
    }

    async fn fetch_now(
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
        let request = HttpRequest { method, url: url.to_owned(), headers, body };
        let response = match self.platform.send(request).await {
            Ok(r) => r,
            Err(e) => {
                let elapsed_ms = self.platform.now_ms() - started;
                self.tracer.emit(peer, TraceKind::HttpFailed { exchange, error: e.message, elapsed_ms });
                let reach = match self.platform.answers(url).await {
                    Some(true) => Reach::Answers,
                    Some(false) => Reach::Nothing,
                    None => Reach::Unknown,
                };
                return Err(AuthError::Network { step, url: url.to_owned(), reach });
            }
        };
        let status = response.status;
        let elapsed_ms = self.platform.now_ms() - started;
        self.tracer
            .emit(peer.clone(), TraceKind::HttpResponse { exchange, status, headers: response.headers, elapsed_ms });
        let text = read_text(response.body).await.map_err(|e| AuthError::Malformed {
            step,
            url: url.to_owned(),
            reason: format!("the answer broke off: {e}"),
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
