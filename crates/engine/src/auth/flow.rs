//! One server's authorization: the tokens it holds, and what to do when the server says 401 or
//! 403. One flow runs at a time; requests that failed while it ran retry with its token.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use super::discovery::Found;
use futures::future::LocalBoxFuture;

use super::dpop::DpopKey;
use super::{AuthError, AuthMemory, AuthStatus, Challenge, ClientKind, ClientSettings, FlowRunner, Tokens, UserAgent};
use crate::platform::Platform;
use crate::trace::{AuthStep, Peer, TraceKind, Tracer};
use protocol::oauth::grant;

/// What to do after a 401 or 403.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterRefusal {
    /// A (new) token is in hand: send the request again.
    Retry,
    /// Not an authorization matter (a 403 without `insufficient_scope`): the error stands.
    NotAuthorization,
}

#[derive(Default)]
pub(super) struct State {
    pub memory: AuthMemory,
    pub found: Option<Found>,
    /// Every scope asked for so far: a new sign-in asks for them again (SEP-2350).
    pub requested: Vec<String>,
    /// The MCP server takes key-bound tokens (a `DPoP` challenge, or its resource metadata):
    /// only then is a DPoP token asked for, where the authorization server offers one.
    pub dpop_wanted: bool,
    pub status: Option<AuthStatus>,
}

/// Called with each new status.
pub type StatusFn = Rc<dyn Fn(&AuthStatus)>;

/// Dropped only when a flow is abandoned half-way (a finished one forgets it).
struct Unfinished<'a, P: Platform>(&'a Auth<P>);

impl<P: Platform> Drop for Unfinished<'_, P> {
    fn drop(&mut self) {
        let failure = crate::layer::Failure {
            layer: crate::layer::Layer::Cancelled,
            message: "The sign-in stopped before it finished: the request that needed it was cancelled, or the \
                      server was disconnected."
                .into(),
            hint: Some("Press Sign in on the card to start again.".into()),
        };
        self.0.tracer.emit(self.0.peer(), TraceKind::Auth { step: AuthStep::Failed { failure: failure.clone() } });
        self.0.set_status(AuthStatus::Failed(failure));
    }
}

pub struct Auth<P: Platform> {
    pub(super) platform: Rc<P>,
    pub(super) tracer: Tracer,
    server_id: String,
    pub(super) server_url: String,
    pub(super) settings: ClientSettings,
    pub(super) agent: Rc<dyn UserAgent>,
    pub(super) state: RefCell<State>,
    /// Bumped whenever the token changes: a request that failed with an older one just retries.
    generation: Cell<u64>,
    lock: futures::lock::Mutex<()>,
    on_status: Option<StatusFn>,
    /// Who runs the steps that talk to authorization servers (`runner.rs`).
    runner: Rc<dyn FlowRunner<P>>,
    /// This session's DPoP key, made when an authorization server first takes DPoP.
    pub(super) dpop: RefCell<Option<Rc<DpopKey>>>,
    /// The last DPoP nonce the authorization server, and the MCP server, gave (RFC 9449 §8, §9).
    pub(super) as_nonce: RefCell<Option<String>>,
    rs_nonce: RefCell<Option<String>>,
}

impl<P: Platform> Auth<P> {
    pub fn new(
        platform: Rc<P>,
        tracer: Tracer,
        server_id: impl Into<String>,
        server_url: impl Into<String>,
        settings: ClientSettings,
        agent: Rc<dyn UserAgent>,
        runner: Rc<dyn FlowRunner<P>>,
    ) -> Self {
        Self {
            platform,
            tracer,
            server_id: server_id.into(),
            server_url: server_url.into(),
            settings,
            agent,
            state: RefCell::default(),
            generation: Cell::new(0),
            lock: futures::lock::Mutex::new(()),
            on_status: None,
            runner,
            dpop: RefCell::default(),
            as_nonce: RefCell::default(),
            rs_nonce: RefCell::default(),
        }
    }

    /// Called whenever the status changes (the card shows it; the page saves `memory()` then,
    /// if the user opted in).
    pub fn on_status(mut self, f: impl Fn(&AuthStatus) + 'static) -> Self {
        self.on_status = Some(Rc::new(f));
        self
    }

    pub(super) fn peer(&self) -> Peer {
        Peer::Authorization(self.server_id.clone())
    }

    pub(super) fn note(&self, text: impl Into<String>) {
        self.tracer.note(self.peer(), text);
    }

    pub(super) fn set_status(&self, status: AuthStatus) {
        self.state.borrow_mut().status = Some(status.clone());
        if let Some(f) = &self.on_status {
            f(&status);
        }
    }

    pub fn status(&self) -> AuthStatus {
        self.state.borrow().status.clone().unwrap_or(AuthStatus::None)
    }

    /// Changes whenever the token does.
    pub fn generation(&self) -> u64 {
        self.generation.get()
    }

    /// The `Authorization` header value for this server's requests, once signed in: `Bearer`,
    /// or `DPoP` for a key-bound token (whose requests also carry [`Auth::dpop_proof`]).
    pub fn bearer(&self) -> Option<String> {
        let state = self.state.borrow();
        let tokens = state.memory.tokens.as_ref()?;
        let key = self.dpop.borrow();
        Some(match (tokens.dpop, key.as_ref()) {
            (true, Some(_)) => format!("DPoP {}", tokens.access_token),
            _ => format!("Bearer {}", tokens.access_token),
        })
    }

    /// The `DPoP` header of one request to the MCP server, when its token is key-bound: a
    /// fresh proof for `method` and `url`, with the server's latest nonce. Boxed: every request
    /// of the MCP client awaits it, and one copy serves them all.
    pub fn dpop_proof<'a>(&'a self, method: &'a str, url: &'a str) -> LocalBoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let tokens = self.state.borrow().memory.tokens.clone();
            let token = tokens.filter(|t| t.dpop)?.access_token;
            let key = self.dpop.borrow().clone()?;
            let nonce = self.rs_nonce.borrow().clone();
            match key.proof(&*self.platform, method, url, Some(&token), nonce.as_deref()).await {
                Ok(proof) => Some(proof),
                Err(e) => {
                    self.note(format!("Could not sign a DPoP proof ({e}): the request goes without one"));
                    None
                }
            }
        })
    }

    /// The MCP server gave a DPoP nonce (`DPoP-Nonce`): the next proofs carry it.
    pub fn saw_dpop_nonce(&self, nonce: &str) {
        if nonce.len() <= 512 && self.rs_nonce.borrow().as_deref() != Some(nonce) {
            *self.rs_nonce.borrow_mut() = Some(nonce.to_owned());
        }
    }

    /// The issuer of the token in use.
    pub fn issuer(&self) -> Option<String> {
        self.state.borrow().memory.tokens.as_ref().map(|t| t.issuer.clone())
    }

    /// Tokens and registrations, to keep across reloads when the user opts in.
    /// A key-bound (DPoP) token is left out: its key is never written anywhere, so after a
    /// reload it would be useless.
    pub fn memory(&self) -> AuthMemory {
        let mut memory = self.state.borrow().memory.clone();
        memory.tokens = memory.tokens.filter(|t| !t.dpop);
        memory
    }

    /// Takes back what `memory()` gave (after a reload).
    pub fn restore(&self, memory: AuthMemory) {
        for client in &memory.clients {
            if let Some(s) = &client.client_secret {
                self.secret(s);
            }
        }
        if let Some(t) = &memory.tokens {
            self.secret(&t.access_token);
            if let Some(r) = &t.refresh_token {
                self.secret(r);
            }
        }
        let signed_in = memory.tokens.is_some();
        self.state.borrow_mut().memory = memory;
        self.generation.set(self.generation.get() + 1);
        if signed_in {
            self.set_status(self.signed_in_status());
        }
    }

    /// Forgets the tokens (registrations stay: they are not the user's).
    pub fn sign_out(&self) {
        self.state.borrow_mut().memory.tokens = None;
        self.generation.set(self.generation.get() + 1);
        self.tracer.emit(self.peer(), TraceKind::Auth { step: AuthStep::SignedOut });
        self.set_status(AuthStatus::None);
    }

    fn signed_in_status(&self) -> AuthStatus {
        let s = self.state.borrow();
        let Some(t) = &s.memory.tokens else { return AuthStatus::None };
        let client = s.memory.client(&t.issuer).map_or(ClientKind::Registered, |c| c.how);
        AuthStatus::SignedIn {
            issuer: t.issuer.clone(),
            scopes: t.scopes.clone(),
            expires_at_ms: t.expires_at_ms,
            refreshable: t.refresh_token.is_some(),
            client,
        }
    }

    fn adopt(&self, tokens: Tokens) {
        let scopes = tokens.scopes.clone();
        let expires_in_s = tokens.expires_at_ms.map(|at| ((at - self.platform.now_ms()) / 1000.0).round());
        let refreshable = tokens.refresh_token.is_some();
        self.state.borrow_mut().memory.tokens = Some(tokens);
        self.generation.set(self.generation.get() + 1);
        self.tracer
            .emit(self.peer(), TraceKind::Auth { step: AuthStep::Granted { scopes, expires_in_s, refreshable } });
        self.set_status(self.signed_in_status());
    }

    fn failed(&self, error: AuthError) -> AuthError {
        let failure = error.to_failure();
        self.tracer.emit(self.peer(), TraceKind::Auth { step: AuthStep::Failed { failure: failure.clone() } });
        self.set_status(AuthStatus::Failed(failure));
        error
    }

    /// Refreshes a token about to expire, before a request uses it. A failed refresh is only
    /// noted: the request goes out, and a 401 starts a new sign-in.
    pub async fn refresh_if_due(self: &Rc<Self>) {
        let now = self.platform.now_ms();
        let due = self.state.borrow().memory.tokens.as_ref().is_some_and(|t| t.due(now));
        if due {
            self.runner.refresh(self.clone()).await;
        }
    }

    /// The refresh itself (a [`FlowRunner`] calls it; everyone else, [`Auth::refresh_if_due`]).
    pub async fn refresh_now(&self) {
        let _guard = self.lock.lock().await;
        if let Err(e) = self.refresh().await {
            self.note(format!("The token is about to expire and could not be refreshed: {e}"));
        }
    }

    async fn refresh(&self) -> Result<(), AuthError> {
        let tokens = self.state.borrow().memory.tokens.clone().ok_or(AuthError::UserAgent("not signed in".into()))?;
        let client = self.state.borrow().memory.client(&tokens.issuer).cloned();
        let Some(client) = client else {
            return Err(AuthError::NoClientIdentity { issuer: tokens.issuer });
        };
        self.set_status(AuthStatus::Working);
        match self.refresh_with(&tokens, &client).await {
            Ok(fresh) => {
                self.adopt(fresh);
                Ok(())
            }
            Err(e) => {
                self.set_status(self.signed_in_status());
                Err(e)
            }
        }
    }

    /// What to do about a 401 or 403 to a request sent with the token of `seen_generation`:
    /// another request may already have fixed it; else refresh, sign in, or step up (the union
    /// of the scopes asked for so far and those the server names).
    pub async fn answer(
        self: &Rc<Self>,
        status: u16,
        www_authenticate: Option<&str>,
        seen_generation: u64,
    ) -> Result<AfterRefusal, AuthError> {
        let www_authenticate = www_authenticate.map(str::to_owned);
        self.runner.answer(self.clone(), status, www_authenticate, seen_generation).await
    }

    /// What [`Auth::answer`] does (a [`FlowRunner`] calls it; everyone else, `answer`).
    pub async fn answer_now(
        &self,
        status: u16,
        www_authenticate: Option<&str>,
        seen_generation: u64,
    ) -> Result<AfterRefusal, AuthError> {
        let challenge = Challenge::parse(www_authenticate);
        if status != 401 && !(status == 403 && challenge.insufficient_scope()) {
            return Ok(AfterRefusal::NotAuthorization);
        }
        let _guard = self.lock.lock().await;
        if self.generation() != seen_generation {
            return Ok(AfterRefusal::Retry);
        }
        let step = AuthStep::Challenged { status, scope: challenge.scope.clone(), error: challenge.error.clone() };
        self.tracer.emit(self.peer(), TraceKind::Auth { step });
        // RFC 9449 §9: the server wants its nonce in the proof; it gave one, so send again.
        let bound = self.state.borrow().memory.tokens.as_ref().is_some_and(|t| t.dpop);
        if status == 401 && challenge.use_dpop_nonce() && bound && self.rs_nonce.borrow().is_some() {
            self.note("The MCP server asked for its DPoP nonce in the proof: sending the request again with it");
            return Ok(AfterRefusal::Retry);
        }
        let held = self.state.borrow().memory.tokens.clone();
        if let Some(tokens) = &held {
            let wanted = challenge.scopes();
            if status == 403 && !wanted.is_empty() && wanted.iter().all(|s| tokens.scopes.contains(s)) {
                return Err(self.failed(AuthError::ScopeRefused { scopes: wanted.join(" ") }));
            }
            if status == 401 && tokens.refresh_token.is_some() {
                match self.refresh().await {
                    Ok(()) => return Ok(AfterRefusal::Retry),
                    Err(e) => self.note(format!("Refreshing the token failed ({e}): signing in again")),
                }
            }
        }
        self.authorize(&challenge).await.map(|()| AfterRefusal::Retry)
    }

    /// Signs in without being asked (the card's Sign in button): as after a bare 401.
    pub async fn sign_in(self: &Rc<Self>) -> Result<(), AuthError> {
        self.runner.sign_in(self.clone()).await
    }

    /// What [`Auth::sign_in`] does (a [`FlowRunner`] calls it; everyone else, `sign_in`).
    pub async fn sign_in_now(&self) -> Result<(), AuthError> {
        let _guard = self.lock.lock().await;
        self.authorize(&Challenge::default()).await
    }

    /// The whole flow: discover, identify the client, get a token. If whatever awaits it gives
    /// up first (the connection is closed, the call cancelled), the card does not stay on
    /// "working": the flow says it stopped, and why.
    async fn authorize(&self, challenge: &Challenge) -> Result<(), AuthError> {
        self.set_status(AuthStatus::Working);
        let unfinished = Unfinished(self);
        let result = self.run(challenge).await;
        std::mem::forget(unfinished);
        match result {
            Ok(tokens) => {
                self.adopt(tokens);
                Ok(())
            }
            Err(e) => Err(self.failed(e)),
        }
    }

    async fn run(&self, challenge: &Challenge) -> Result<Tokens, AuthError> {
        let found = self.discover(challenge).await?;
        let previous = self.state.borrow().found.as_ref().map(|f| f.issuer.clone());
        if let Some(previous) = previous.filter(|p| *p != found.issuer) {
            // SEP-2352: credentials stay with the server that issued them.
            self.note(format!("The authorization server changed from {previous} to {}: new credentials", found.issuer));
            let mut s = self.state.borrow_mut();
            s.memory.tokens = None;
            s.requested.clear();
        }
        self.state.borrow_mut().found = Some(found.clone());
        self.state.borrow_mut().dpop_wanted = challenge.dpop || found.resource_dpop;
        let scopes = self.scopes_for(challenge, &found);
        self.state.borrow_mut().requested = scopes.clone();
        let client = self.client_for(&found).await?;
        let grants = found.metadata.grant_types_supported.clone().unwrap_or_default();
        // A client that can authenticate itself (a secret, or a private key) needs no user.
        let machine = client.how == ClientKind::Preregistered
            && (client.client_secret.is_some() || client.auth_method == super::assertion::PRIVATE_KEY_JWT)
            && grants.iter().any(|g| g == grant::CLIENT_CREDENTIALS)
            && !grants.iter().any(|g| g == grant::AUTHORIZATION_CODE);
        // A workload's own JWT (SEP-1933), or an ID-JAG from the enterprise's identity provider
        // (SEP-990), is the grant when the server takes JWTs: no user either.
        let jwt_grant = grants.iter().any(|g| g == grant::JWT_BEARER);
        let pre = self.settings.preregistered.as_ref();
        let workload = pre.and_then(|p| p.workload_jwt.clone());
        if let Some(idp) = pre.and_then(|p| p.enterprise.clone()).filter(|_| jwt_grant) {
            let id_jag = self.id_jag(&found, &idp, &scopes).await?;
            self.jwt_bearer(&found, &client, &scopes, id_jag).await
        } else if let Some(assertion) = workload.filter(|_| jwt_grant) {
            self.secret(&assertion);
            self.jwt_bearer(&found, &client, &scopes, assertion).await
        } else if machine {
            self.client_credentials(&found, &client, &scopes).await
        } else {
            self.authorization_code(&found, &client, &scopes).await
        }
    }

    /// The scope to ask for: the challenge's, else the resource's `scopes_supported`, else
    /// none; with everything asked for before (SEP-2350), and `offline_access` when the
    /// authorization server offers it (SEP-2207: this client wants refresh tokens).
    fn scopes_for(&self, challenge: &Challenge, found: &Found) -> Vec<String> {
        let mut scopes = self.state.borrow().requested.clone();
        let named = challenge.scopes();
        let wanted = if named.is_empty() { found.resource_scopes.clone().unwrap_or_default() } else { named };
        for s in wanted {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
        let offered = found.metadata.scopes_supported.as_deref().unwrap_or_default();
        if offered.iter().any(|s| s == "offline_access") && !scopes.iter().any(|s| s == "offline_access") {
            scopes.push("offline_access".into());
        }
        scopes
    }
}
