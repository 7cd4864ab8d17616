//! The engine's `Platform` in the page: `fetch` with a streamed body, `setTimeout`, and the
//! performance clock. Dropping a request or its body aborts the fetch (AbortController), so a
//! cancelled tool call really stops the HTTP request.

use futures::StreamExt;
use js_sys::{Promise, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AbortController, ReadableStreamDefaultReader, RequestCredentials, RequestInit, RequestMode, RequestRedirect,
    ResponseType,
};

use engine::platform::{Headers, HttpRequest, HttpResponse, NetworkError, Platform, Redirects};

#[derive(Clone, Copy, Debug, Default)]
pub struct Browser;

/// Aborts the fetch when dropped: held by the pending request, then by its body stream.
struct AbortOnDrop(AbortController);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn describe(e: JsValue) -> NetworkError {
    let text = e
        .dyn_ref::<js_sys::Error>()
        .map(|e| format!("{}: {}", e.name(), e.message()))
        .or_else(|| e.as_string())
        .unwrap_or_else(|| format!("{e:?}"));
    NetworkError::new(format!("fetch failed ({text})"))
}

/// The browser's own URL parser, which the engine's URL policy reads every URL with
/// (`engine::whatwg`): what it judges is what `fetch` and `window.open` will use.
pub fn url_href(text: &str) -> Option<String> {
    web_sys::Url::new(text).ok().map(|u| u.href())
}

/// `window.crossOriginIsolated` (not in web-sys's stable API).
pub fn cross_origin_isolated() -> bool {
    js_sys::Reflect::get(&window(), &"crossOriginIsolated".into()).ok().and_then(|v| v.as_bool()).unwrap_or(false)
}

fn window() -> web_sys::Window {
    web_sys::window().expect("a browser window")
}

impl Platform for Browser {
    async fn send(&self, req: HttpRequest) -> Result<HttpResponse, NetworkError> {
        let controller = AbortController::new().map_err(describe)?;
        let guard = AbortOnDrop(controller.clone());
        let headers = web_sys::Headers::new().map_err(describe)?;
        for (name, value) in req.headers.iter() {
            headers.append(name, value).map_err(describe)?;
        }
        let init = RequestInit::new();
        init.set_method(req.method.as_str());
        init.set_headers(&headers);
        init.set_mode(RequestMode::Cors);
        // No cookies to strangers: credentials are what the user typed, and go only where asked.
        init.set_credentials(RequestCredentials::Omit);
        // A request carrying a secret never follows a redirect: with "manual" the browser hands
        // back an opaque answer instead (without saying where it pointed).
        init.set_redirect(match req.redirects {
            Redirects::Follow => RequestRedirect::Follow,
            Redirects::Refuse => RequestRedirect::Manual,
        });
        init.set_signal(Some(&controller.signal()));
        if let Some(body) = &req.body {
            init.set_body(&JsValue::from_str(body));
        }
        let response: web_sys::Response =
            JsFuture::from(window().fetch_with_str_and_init(&req.url, &init)).await.map_err(describe)?.unchecked_into();
        if response.type_() == ResponseType::Opaqueredirect {
            return Err(NetworkError::redirect_refused());
        }
        let final_url = response.redirected().then(|| response.url());

        let mut out = Headers::new();
        if let Ok(Some(entries)) = js_sys::try_iter(&response.headers()) {
            for entry in entries.flatten() {
                let pair: js_sys::Array = entry.unchecked_into();
                if let (Some(n), Some(v)) = (pair.get(0).as_string(), pair.get(1).as_string()) {
                    out.set(&n, v);
                }
            }
        }
        let status = response.status();
        let body = match response.body() {
            None => futures::stream::empty().boxed_local(),
            Some(stream) => {
                let reader: ReadableStreamDefaultReader = stream.get_reader().unchecked_into();
                futures::stream::unfold(Some((reader, guard)), |state| async move {
                    let (reader, guard) = state?;
                    match JsFuture::from(reader.read()).await {
                        Err(e) => Some((Err(describe(e)), None)),
                        Ok(chunk) => {
                            let done = js_sys::Reflect::get(&chunk, &"done".into()).ok()?.as_bool().unwrap_or(true);
                            if done {
                                return None;
                            }
                            let value = js_sys::Reflect::get(&chunk, &"value".into()).ok()?;
                            let bytes = value.dyn_into::<Uint8Array>().map(|a| a.to_vec()).unwrap_or_default();
                            Some((Ok(bytes), Some((reader, guard))))
                        }
                    }
                })
                .boxed_local()
            }
        };
        Ok(HttpResponse { status, headers: out, body, final_url })
    }

    async fn answers(&self, url: &str) -> Option<bool> {
        // A cross-origin isolated page (COEP) gets a network error for every opaque response
        // without a Cross-Origin-Resource-Policy header: there the probe cannot tell.
        if cross_origin_isolated() {
            return None;
        }
        // An opaque response hides everything but that it came: no CORS needed to find out.
        let init = RequestInit::new();
        init.set_method("GET");
        init.set_mode(RequestMode::NoCors);
        init.set_credentials(RequestCredentials::Omit);
        Some(JsFuture::from(window().fetch_with_str_and_init(url, &init)).await.is_ok())
    }

    fn now_ms(&self) -> f64 {
        match window().performance() {
            Some(p) => p.time_origin() + p.now(),
            None => js_sys::Date::now(),
        }
    }

    async fn sleep(&self, ms: u64) {
        let promise = Promise::new(&mut |resolve, _| {
            let _ = window()
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms.min(i32::MAX as u64) as i32);
        });
        let _ = JsFuture::from(promise).await;
    }

    fn random(&self) -> f64 {
        js_sys::Math::random()
    }

    fn random_bytes(&self, buf: &mut [u8]) {
        // getRandomValues works in every context, secure or not (a workshop's LAN address).
        window().crypto().and_then(|c| c.get_random_values_with_u8_array(buf)).expect("crypto.getRandomValues");
    }

    async fn sign_es256(&self, pkcs8_der: &[u8], message: &[u8]) -> Result<Vec<u8>, String> {
        if !window().is_secure_context() {
            return Err("the browser signs only on a secure page (https, or localhost): this one is not".into());
        }
        let subtle = window().crypto().map_err(|_| "no WebCrypto in this browser")?.subtle();
        let algorithm = js_sys::Object::new();
        let set = |o: &js_sys::Object, k: &str, v: &str| js_sys::Reflect::set(o, &k.into(), &v.into());
        let _ = set(&algorithm, "name", "ECDSA");
        let _ = set(&algorithm, "namedCurve", "P-256");
        let usages = js_sys::Array::of1(&"sign".into());
        let der = Uint8Array::from(pkcs8_der);
        let failed = |e: JsValue| {
            format!(
                "WebCrypto: {}",
                e.as_string().or_else(|| js_sys::Error::from(e).message().as_string()).unwrap_or_default()
            )
        };
        let import =
            subtle.import_key_with_object("pkcs8", der.unchecked_ref(), &algorithm, false, &usages).map_err(failed)?;
        let key: web_sys::CryptoKey = JsFuture::from(import)
            .await
            .map_err(|e| format!("not an EC P-256 PKCS #8 key ({})", failed(e)))?
            .unchecked_into();
        let params = js_sys::Object::new();
        let _ = set(&params, "name", "ECDSA");
        let _ = set(&params, "hash", "SHA-256");
        let signing = subtle.sign_with_object_and_u8_array(&params, &key, message).map_err(failed)?;
        let signature = JsFuture::from(signing).await.map_err(failed)?;
        Ok(Uint8Array::new(&signature).to_vec())
    }

    async fn generate_es256(&self) -> Result<(Vec<u8>, String, String), String> {
        if !window().is_secure_context() {
            return Err("the browser makes keys only on a secure page (https, or localhost): this one is not".into());
        }
        let subtle = window().crypto().map_err(|_| "no WebCrypto in this browser")?.subtle();
        let failed = |e: JsValue| {
            format!(
                "WebCrypto: {}",
                e.as_string().or_else(|| js_sys::Error::from(e).message().as_string()).unwrap_or_default()
            )
        };
        let algorithm = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&algorithm, &"name".into(), &"ECDSA".into());
        let _ = js_sys::Reflect::set(&algorithm, &"namedCurve".into(), &"P-256".into());
        let usages = js_sys::Array::of2(&"sign".into(), &"verify".into());
        let pair = JsFuture::from(subtle.generate_key_with_object(&algorithm, true, &usages).map_err(failed)?)
            .await
            .map_err(failed)?;
        let part = |name: &str| -> Result<web_sys::CryptoKey, String> {
            js_sys::Reflect::get(&pair, &name.into()).map(JsCast::unchecked_into).map_err(failed)
        };
        let private =
            JsFuture::from(subtle.export_key("pkcs8", &part("privateKey")?).map_err(failed)?).await.map_err(failed)?;
        let public =
            JsFuture::from(subtle.export_key("jwk", &part("publicKey")?).map_err(failed)?).await.map_err(failed)?;
        let coordinate = |name: &str| {
            js_sys::Reflect::get(&public, &name.into())
                .ok()
                .and_then(|v| v.as_string())
                .ok_or("the public key has no x or y")
        };
        Ok((Uint8Array::new(&private).to_vec(), coordinate("x")?, coordinate("y")?))
    }
}
