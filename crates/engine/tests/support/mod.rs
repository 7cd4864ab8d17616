//! What native tests share: the engine's `Platform` over reqwest and tokio (the stand-in for
//! the browser's fetch and setTimeout), and a trace recorder.
#![allow(dead_code)] // each test binary uses a different part

use engine::platform::{HttpRequest, HttpResponse, Method, NetworkError, Platform, Redirects};
use engine::trace::{TraceEvent, Tracer};
use futures::StreamExt;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub struct Native {
    client: reqwest::Client,
    /// For requests that must not follow redirects (`Redirects::Refuse`).
    no_redirects: reqwest::Client,
    origin: Instant,
    epoch_ms: f64,
    seed: Cell<u64>,
}

impl Native {
    pub fn new() -> Rc<Self> {
        let epoch_ms = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs_f64() * 1000.0;
        // No proxy from the environment: tests only ever talk to 127.0.0.1 directly.
        let client = reqwest::Client::builder().no_proxy().build().unwrap();
        let no_redirects =
            reqwest::Client::builder().no_proxy().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        Rc::new(Self { client, no_redirects, origin: Instant::now(), epoch_ms, seed: Cell::new(0x9E37_79B9_7F4A_7C15) })
    }
}

impl Platform for Native {
    async fn send(&self, req: HttpRequest) -> Result<HttpResponse, NetworkError> {
        let method = match req.method {
            Method::Get => reqwest::Method::GET,
            Method::Post => reqwest::Method::POST,
            Method::Delete => reqwest::Method::DELETE,
        };
        let refuse = req.redirects == Redirects::Refuse;
        let client = if refuse { &self.no_redirects } else { &self.client };
        let mut builder = client.request(method, &req.url);
        for (name, value) in req.headers.iter() {
            builder = builder.header(name, value);
        }
        if let Some(body) = req.body {
            builder = builder.body(body);
        }
        let resp = builder.send().await.map_err(|e| NetworkError::new(format!("{e:#}")))?;
        if refuse && resp.status().is_redirection() {
            // As a browser's `redirect: "manual"`: the redirect is not followed.
            return Err(NetworkError::redirect_refused());
        }
        let final_url = Some(resp.url().to_string()).filter(|u| *u != req.url);
        let status = resp.status().as_u16();
        let headers =
            resp.headers().iter().map(|(n, v)| (n.to_string(), v.to_str().unwrap_or_default().to_owned())).collect();
        let body =
            resp.bytes_stream().map(|chunk| chunk.map(|b| b.to_vec()).map_err(|e| NetworkError::new(format!("{e:#}"))));
        Ok(HttpResponse { status, headers, body: Box::pin(body), final_url })
    }

    fn now_ms(&self) -> f64 {
        self.epoch_ms + self.origin.elapsed().as_secs_f64() * 1000.0
    }

    async fn sleep(&self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await
    }

    async fn sign_es256(&self, pkcs8_der: &[u8], message: &[u8]) -> Result<Vec<u8>, String> {
        use p256::ecdsa::signature::Signer;
        use p256::pkcs8::DecodePrivateKey;
        let key = p256::ecdsa::SigningKey::from_pkcs8_der(pkcs8_der).map_err(|e| format!("not a P-256 key: {e}"))?;
        let signature: p256::ecdsa::Signature = key.sign(message);
        Ok(signature.to_bytes().to_vec())
    }

    async fn generate_es256(&self) -> Result<(Vec<u8>, String, String), String> {
        use p256::pkcs8::EncodePrivateKey;
        let mut bytes = [0u8; 32];
        self.random_bytes(&mut bytes);
        let secret = p256::SecretKey::from_slice(&bytes).map_err(|e| format!("not a P-256 scalar: {e}"))?;
        let der = secret.to_pkcs8_der().map_err(|e| e.to_string())?.as_bytes().to_vec();
        let point = p256::elliptic_curve::sec1::ToEncodedPoint::to_encoded_point(&secret.public_key(), false);
        let b64 = |b: &[u8]| engine::encoding::base64url(b);
        Ok((der, b64(point.x().ok_or("no x")?), b64(point.y().ok_or("no y")?)))
    }

    fn random(&self) -> f64 {
        // xorshift64: deterministic jitter is fine for tests.
        let mut x = self.seed.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.seed.set(x);
        (x >> 11) as f64 / (1u64 << 53) as f64
    }

    fn random_bytes(&self, buf: &mut [u8]) {
        use std::io::Read;
        std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(buf)).expect("/dev/urandom");
    }
}

/// A tracer that keeps every event, for assertions on the trace.
pub fn recording_tracer(platform: &Rc<Native>) -> (Tracer, Rc<RefCell<Vec<TraceEvent>>>) {
    let events = Rc::new(RefCell::new(Vec::new()));
    let sink = events.clone();
    let clock = platform.clone();
    (Tracer::new(move || clock.now_ms(), move |e| sink.borrow_mut().push(e)), events)
}

/// Waits until `ready()` holds, checking every 5 ms for at most 10 s (then fails, naming
/// `what`): tests wait on the condition they need, never on a guessed delay.
pub async fn until(what: &str, mut ready: impl FnMut() -> bool) {
    for _ in 0..2_000 {
        if ready() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("gave up after 10 s waiting for {what}");
}

/// A workshop without key or server, natively: the agent on the demo platform (the demo model
/// answers), the demo server connected, the demo's settings, and the trace.
pub struct DemoWorkshop {
    pub agent: engine::agent::Agent<engine::demo::Demo<Rc<Native>>>,
    pub servers: [engine::agent::ServerHandle<engine::demo::Demo<Rc<Native>>>; 1],
    pub settings: engine::claude::ClaudeSettings,
    pub trace: Rc<RefCell<Vec<TraceEvent>>>,
}

pub async fn demo_workshop() -> DemoWorkshop {
    use engine::mcp::{Handlers, McpClient, ServerConfig};
    let platform = Rc::new(engine::demo::Demo::new(Native::new()));
    let (tracer, trace) = recording_tracer(&Native::new());
    let agent = engine::agent::Agent::new(platform.clone(), tracer.clone());
    let config = ServerConfig::new("demo", engine::demo::DEMO_SERVER_URL);
    let client = McpClient::new(platform, config, tracer, Handlers::default());
    client.connect().await.unwrap();
    let servers = [engine::agent::ServerHandle::new(Rc::new(client), "demo")];
    let settings = engine::settings::UserSettings { demo: true, ..Default::default() }.claude("");
    DemoWorkshop { agent, servers, settings, trace }
}
