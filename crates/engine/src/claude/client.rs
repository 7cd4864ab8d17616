//! `POST /v1/messages` with streaming, retries like the official SDKs, and
//! `count_tokens`, and the Models API's list. Every attempt is traced on the Claude lane.

use futures::{FutureExt, StreamExt, pin_mut, select_biased};
use std::rc::Rc;

use super::accumulate::{Accumulator, Assembled, StreamUpdate};
use super::error::ClaudeError;
use super::listed::{Listed, MAX_PAGES};
use super::retry;
use super::settings::ClaudeSettings;
use crate::cancel::CancelToken;
use crate::limits::{BodyError, ListingBudget, check_json_depth, read_text};
use crate::platform::{Headers, HttpRequest, HttpResponse, Method, Platform, Redirects};
use crate::sse::SseParser;
use crate::trace::{Peer, RequestBody, TraceKind, Tracer};
use protocol::claude::{API_VERSION, ApiErrorBody, CountTokens, CreateMessage, ModelPage, StreamEvent};

/// What the caller hears while a request runs.
pub enum StreamNews<'a> {
    /// What a stream event changed in the answer (read once, by the accumulator).
    Update(StreamUpdate),
    /// The attempt failed and will be retried after `delay_ms`; discard what it streamed.
    Retrying { error: &'a ClaudeError, delay_ms: u64, attempt: u32 },
}

pub struct ClaudeClient<P: Platform> {
    platform: Rc<P>,
    tracer: Tracer,
}

impl<P: Platform> ClaudeClient<P> {
    pub fn new(platform: Rc<P>, tracer: Tracer) -> Self {
        Self { platform, tracer }
    }

    /// The request's headers; `extra` is one more `anthropic-beta` the body needs (the MCP
    /// connector's), joined with any the settings need.
    fn headers(&self, settings: &ClaudeSettings, extra: Option<&'static str>) -> Headers {
        self.tracer.add_secret(&settings.api_key);
        let headers = Headers::new()
            .with("x-api-key", settings.api_key.clone())
            .with("anthropic-version", API_VERSION)
            .with("content-type", "application/json")
            // without it the API refuses browser calls with a 401.
            .with("anthropic-dangerous-direct-browser-access", "true");
        let betas: Vec<&str> = settings.thinking.beta(&settings.model).into_iter().chain(extra).collect();
        if betas.is_empty() { headers } else { headers.with("anthropic-beta", betas.join(",")) }
    }

    /// Sends `body` with `stream: true` and returns the assembled answer, retrying what the
    /// policy retries. A stream `error` event voids the attempt: nothing partial is returned.
    pub async fn stream(
        &self,
        settings: &ClaudeSettings,
        body: &CreateMessage,
        cancel: &CancelToken,
        on_news: &mut dyn FnMut(StreamNews<'_>),
    ) -> Result<Assembled, ClaudeError> {
        let mut body = body.clone();
        body.stream = true;
        let json = serde_json::to_string(&body)
            .map_err(|e| ClaudeError::Decode { reason: e.to_string(), raw: String::new() })?;
        let summary = Some(format!("{} messages · {} tools", body.messages.len(), body.tools.len()));
        let beta = (!body.mcp_servers.is_empty()).then_some(super::connector::BETA);
        let mut attempt = 0;
        loop {
            let result = {
                let work = self.attempt(settings, (&json, beta), &summary, attempt, on_news).fuse();
                let stop = cancel.cancelled().fuse();
                pin_mut!(work, stop);
                select_biased! {
                    _ = stop => Err((ClaudeError::Cancelled, None)),
                    r = work => r,
                }
            };
            let (error, retry_headers) = match result {
                Ok(assembled) => return Ok(assembled),
                Err(e) => e,
            };
            // Never retry after a user abort; otherwise the SDK policy decides.
            let retryable = match (&error, &retry_headers) {
                (ClaudeError::Cancelled, _) => false,
                (ClaudeError::Network { .. }, _) => true,
                (ClaudeError::Api { status, .. }, Some(h)) => retry::should_retry(*status, h),
                (ClaudeError::Stream { kind, .. }, _) => {
                    retry::should_retry(retry::status_of_error_type(kind), &Headers::new())
                }
                _ => false,
            };
            if !retryable || attempt >= settings.max_retries {
                return Err(error);
            }
            let headers = retry_headers.unwrap_or_default();
            let delay_ms = retry::delay_ms(attempt, &headers, self.platform.now_ms(), self.platform.random());
            attempt += 1;
            on_news(StreamNews::Retrying { error: &error, delay_ms, attempt });
            self.tracer.note(
                Peer::Claude,
                format!("Retrying in {delay_ms} ms (retry {attempt} of {}): {error}", settings.max_retries),
            );
            let wait = self.platform.sleep(delay_ms).fuse();
            let stop = cancel.cancelled().fuse();
            pin_mut!(wait, stop);
            select_biased! {
                _ = stop => return Err(ClaudeError::Cancelled),
                _ = wait => {}
            }
        }
    }

    /// One attempt. On failure also returns the response headers (for the retry decision).
    async fn attempt(
        &self,
        settings: &ClaudeSettings,
        (body, beta): (&str, Option<&'static str>),
        summary: &Option<String>,
        attempt: u32,
        on_news: &mut dyn FnMut(StreamNews<'_>),
    ) -> Result<Assembled, (ClaudeError, Option<Headers>)> {
        let (exchange, resp, started) = self
            .send(settings, &settings.messages_url(), (Some(body), beta), summary.clone())
            .await
            .map_err(|e| (e, None))?;
        let request_id = resp.headers.get("request-id").map(str::to_owned);
        if resp.status != 200 {
            let headers = resp.headers.clone();
            let error = self.api_error(settings, exchange, resp, started).await;
            self.outcome(exchange, started, Some(&error), attempt, request_id, None);
            return Err((error, Some(headers)));
        }
        let limits = settings.limits;
        let mut parser = SseParser::new(limits.sse_event_bytes);
        let mut acc = Accumulator::new();
        let mut body = resp.body;
        while let Some(chunk) = body.next().await {
            let chunk = match chunk {
                Ok(c) => c,
                Err(e) => {
                    let elapsed_ms = self.platform.now_ms() - started;
                    let error = e.message.clone();
                    self.tracer.emit(Peer::Claude, TraceKind::HttpFailed { exchange, error, elapsed_ms });
                    let error = ClaudeError::Network { message: format!("the stream broke off: {}", e.message) };
                    self.outcome(exchange, started, Some(&error), attempt, request_id, None);
                    return Err((error, None));
                }
            };
            let events = match parser.feed(&chunk) {
                Ok(events) => events,
                Err(limit) => {
                    self.tracer.emit(Peer::Claude, TraceKind::LimitReached { exchange, limit });
                    let error = ClaudeError::Limit(limit);
                    self.outcome(exchange, started, Some(&error), attempt, request_id, None);
                    return Err((error, None));
                }
            };
            for event in events {
                self.tracer.emit(
                    Peer::Claude,
                    TraceKind::SseEvent {
                        exchange,
                        id: event.id.clone(),
                        event: event.event.clone(),
                        data: event.data.clone(),
                    },
                );
                let parsed = match check_json_depth(&event.data, limits.json_depth) {
                    Err(limit) => Err(limit.to_string()),
                    Ok(()) => StreamEvent::parse(&event.data).map_err(|e| e.to_string()),
                };
                let parsed = match parsed {
                    Ok(p) => p,
                    Err(e) => {
                        let error = ClaudeError::Decode { reason: format!("stream event: {e}"), raw: event.data };
                        self.outcome(exchange, started, Some(&error), attempt, request_id, None);
                        return Err((error, None));
                    }
                };
                if let StreamEvent::Error { error } = parsed {
                    let error = ClaudeError::Stream {
                        kind: error.kind,
                        message: error.message,
                        request_id: request_id.clone(),
                    };
                    self.outcome(exchange, started, Some(&error), attempt, request_id, None);
                    return Err((error, None));
                }
                if let Some(update) = acc.apply(parsed) {
                    on_news(StreamNews::Update(update));
                }
            }
        }
        let elapsed_ms = self.platform.now_ms() - started;
        self.tracer.emit(Peer::Claude, TraceKind::HttpStreamEnd { exchange, elapsed_ms, clean: true });
        let assembled = acc.finish();
        if !assembled.complete && assembled.stop_reason.is_none() {
            let error = ClaudeError::Network { message: "the stream ended before message_stop".into() };
            self.outcome(exchange, started, Some(&error), attempt, request_id, None);
            return Err((error, None));
        }
        self.outcome(exchange, started, None, attempt, request_id, assembled.stop_reason.clone());
        Ok(assembled)
    }

    /// A POST of `body`, or a GET without one.
    async fn send(
        &self,
        settings: &ClaudeSettings,
        url: &str,
        (body, beta): (Option<&str>, Option<&'static str>),
        summary: Option<String>,
    ) -> Result<(u64, HttpResponse, f64), ClaudeError> {
        let headers = self.headers(settings, beta);
        let method = if body.is_some() { Method::Post } else { Method::Get };
        let exchange = self.tracer.next_exchange();
        self.tracer.emit(
            Peer::Claude,
            TraceKind::HttpRequest {
                exchange,
                method,
                url: url.to_owned(),
                headers: headers.clone(),
                body: body.map(|b| RequestBody::Text(b.to_owned())),
                summary,
            },
        );
        let started = self.platform.now_ms();
        // The key rides on every request: never to wherever a redirect points.
        let request = HttpRequest {
            method,
            url: url.to_owned(),
            headers,
            body: body.map(str::to_owned),
            redirects: Redirects::Refuse,
        };
        match self.platform.send(request).await {
            Ok(resp) => {
                let elapsed_ms = self.platform.now_ms() - started;
                let (status, headers) = (resp.status, resp.headers.clone());
                self.tracer.emit(Peer::Claude, TraceKind::HttpResponse { exchange, status, headers, elapsed_ms });
                Ok((exchange, resp, started))
            }
            Err(e) => {
                let elapsed_ms = self.platform.now_ms() - started;
                let error = e.message.clone();
                self.tracer.emit(Peer::Claude, TraceKind::HttpFailed { exchange, error, elapsed_ms });
                let error = ClaudeError::Network { message: e.message };
                self.outcome(exchange, started, Some(&error), 0, None, None);
                Err(error)
            }
        }
    }

    /// Reads a body whole, within the body limit.
    async fn read(&self, settings: &ClaudeSettings, resp: HttpResponse) -> Result<String, ClaudeError> {
        read_text(resp.body, settings.limits.body_bytes).await.map_err(|e| match e {
            BodyError::Network(e) => ClaudeError::Network { message: format!("the body broke off: {}", e.message) },
            BodyError::TooBig(limit) => ClaudeError::Limit(limit),
        })
    }

    async fn api_error(
        &self,
        settings: &ClaudeSettings,
        exchange: u64,
        resp: HttpResponse,
        started: f64,
    ) -> ClaudeError {
        let status = resp.status;
        let header_id = resp.headers.get("request-id").map(str::to_owned);
        let text = match self.read(settings, resp).await {
            Ok(t) => t,
            Err(e) => return e,
        };
        let elapsed_ms = self.platform.now_ms() - started;
        self.tracer.emit(Peer::Claude, TraceKind::HttpBody { exchange, body: text.clone(), elapsed_ms });
        // Through a `Value`, whose deserializer the page has for every type anyway (docs/size.md).
        let json = check_json_depth(&text, settings.limits.json_depth)
            .ok()
            .and_then(|()| serde_json::from_str::<serde_json::Value>(&text).ok());
        match json.and_then(|v| serde_json::from_value::<ApiErrorBody>(v).ok()).ok_or(()) {
            Ok(b) => ClaudeError::Api {
                status,
                kind: b.error.kind,
                message: b.error.message,
                request_id: b.request_id.or(header_id),
                body: text,
            },
            Err(_) => ClaudeError::Api {
                status,
                kind: "http_error".into(),
                message: text.chars().take(300).collect(),
                request_id: header_id,
                body: text,
            },
        }
    }

    fn outcome(
        &self,
        exchange: u64,
        started: f64,
        error: Option<&ClaudeError>,
        attempt: u32,
        request_id: Option<String>,
        stop_reason: Option<String>,
    ) {
        self.tracer.emit(
            Peer::Claude,
            TraceKind::ApiOutcome {
                exchange,
                attempt,
                request_id: request_id.or_else(|| error.and_then(|e| e.request_id().map(str::to_owned))),
                elapsed_ms: self.platform.now_ms() - started,
                failure: error.map(ClaudeError::to_failure),
                badge: error.map(ClaudeError::badge),
                stop_reason,
            },
        );
    }

    /// `POST /v1/messages/count_tokens`: what a request would cost in input tokens.
    pub async fn count_tokens(&self, settings: &ClaudeSettings, body: &CountTokens<'_>) -> Result<u64, ClaudeError> {
        let json = serde_json::to_string(body)
            .map_err(|e| ClaudeError::Decode { reason: e.to_string(), raw: String::new() })?;
        let url = format!("{}/count_tokens", settings.messages_url());
        let summary = format!("count tokens: {} messages · {} tools", body.messages.len(), body.tools.len());
        let text = self.fetch_text(settings, &url, Some(&json), summary).await?;
        serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("input_tokens").and_then(|n| n.as_u64()))
            .ok_or(ClaudeError::Decode { reason: "no input_tokens in the answer".into(), raw: text })
    }

    /// One request read whole: the body of a 200, or the API's error; traced either way.
    async fn fetch_text(
        &self,
        settings: &ClaudeSettings,
        url: &str,
        body: Option<&str>,
        summary: String,
    ) -> Result<String, ClaudeError> {
        let (exchange, resp, started) = self.send(settings, url, (body, None), Some(summary)).await?;
        if resp.status != 200 {
            let error = self.api_error(settings, exchange, resp, started).await;
            self.outcome(exchange, started, Some(&error), 0, None, None);
            return Err(error);
        }
        let text = self.read(settings, resp).await?;
        let elapsed_ms = self.platform.now_ms() - started;
        self.tracer.emit(Peer::Claude, TraceKind::HttpBody { exchange, body: text.clone(), elapsed_ms });
        self.outcome(exchange, started, None, 0, None, None);
        Ok(text)
    }

    /// The models the key may use (`GET /v1/models`), every page up to `listed::MAX_PAGES`.
    pub async fn list_models(&self, settings: &ClaudeSettings) -> Result<Vec<Listed>, ClaudeError> {
        let mut models = Vec::new();
        let mut after: Option<String> = None;
        let mut budget = ListingBudget::new(&settings.limits);
        for page in 1..=MAX_PAGES {
            let base = format!("{}/v1/models?limit=1000", settings.base_url.trim_end_matches('/'));
            let url = match &after {
                Some(id) => format!("{base}&after_id={}", crate::encoding::percent_encode(id, false)),
                None => base,
            };
            let text = self.fetch_text(settings, &url, None, format!("models, page {page}")).await?;
            if let Err(limit) = budget.spend_bytes(text.len()) {
                self.tracer.note(Peer::Claude, format!("The list of models stopped at page {page}: {limit}."));
                return Ok(models);
            }
            let page: ModelPage = check_json_depth(&text, settings.limits.json_depth)
                .ok()
                .and_then(|()| serde_json::from_str::<serde_json::Value>(&text).ok())
                .and_then(|v| ModelPage::from_value(&v))
                .ok_or(ClaudeError::Decode { reason: "not a page of models".into(), raw: text })?;
            models.extend(page.data.iter().map(Listed::from_info));
            match page.last_id.filter(|_| page.has_more) {
                Some(last) => after = Some(last),
                None => return Ok(models),
            }
        }
        self.tracer.note(Peer::Claude, format!("Stopped after {MAX_PAGES} pages of models: the list may go on."));
        Ok(models)
    }
}
