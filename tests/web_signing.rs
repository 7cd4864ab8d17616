//! The page's signer for `private_key_jwt` and DPoP proofs (WebCrypto's ECDSA P-256 with
//! SHA-256), in headless Chromium: a signature it makes verifies with the key's public half, a
//! DPoP key pair it makes signs and verifies, and a key that is not one is refused with a sentence. (Natively the tests sign with the `p256` crate instead, and
//! the conformance suite verifies those assertions.)
#![cfg(target_arch = "wasm32")]

use engine::platform::Platform;
use js_sys::{Function, Promise, Uint8Array};
use loopscope::platform::Browser;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A fresh P-256 key pair from WebCrypto: [its PKCS #8 private key, a verify(message, signature)].
async fn key_pair() -> (Vec<u8>, Function) {
    let make = Function::new_no_args(
        "return (async () => {
            const s = crypto.subtle;
            const k = await s.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
            const pkcs8 = new Uint8Array(await s.exportKey('pkcs8', k.privateKey));
            const verify = (m, sig) => s.verify({ name: 'ECDSA', hash: 'SHA-256' }, k.publicKey, sig, m);
            return [pkcs8, verify];
        })()",
    );
    let pair =
        JsFuture::from(make.call0(&wasm_bindgen::JsValue::NULL).unwrap().unchecked_into::<Promise>()).await.unwrap();
    let pair: js_sys::Array = pair.unchecked_into();
    (pair.get(0).unchecked_into::<Uint8Array>().to_vec(), pair.get(1).unchecked_into())
}

#[wasm_bindgen_test]
async fn a_signature_verifies_with_the_public_key() {
    let (pkcs8, verify) = key_pair().await;
    let message = b"eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJjbGllbnQifQ";
    let signature = Browser.sign_es256(&pkcs8, message).await.expect("signed");
    assert_eq!(signature.len(), 64, "JWS ES256 is r and s, 32 bytes each");
    let ok = verify
        .call2(&wasm_bindgen::JsValue::NULL, &Uint8Array::from(&message[..]), &Uint8Array::from(&signature[..]))
        .unwrap();
    assert_eq!(JsFuture::from(ok.unchecked_into::<Promise>()).await.unwrap().as_bool(), Some(true));
    let mut tampered = message.to_vec();
    tampered[0] ^= 1;
    let bad = verify
        .call2(&wasm_bindgen::JsValue::NULL, &Uint8Array::from(&tampered[..]), &Uint8Array::from(&signature[..]))
        .unwrap();
    assert_eq!(JsFuture::from(bad.unchecked_into::<Promise>()).await.unwrap().as_bool(), Some(false));
}

#[wasm_bindgen_test]
async fn a_key_that_is_not_one_is_refused_with_a_sentence() {
    let error = Browser.sign_es256(&[1, 2, 3], b"x").await.unwrap_err();
    assert!(error.starts_with("not an EC P-256 PKCS #8 key"), "{error}");
}

/// DPoP's key pair (RFC 9449): made by WebCrypto, its private half signs, and a proof's
/// signature verifies with the public `x`/`y` a proof's header carries.
#[wasm_bindgen_test]
async fn a_dpop_key_made_here_signs_and_its_public_half_verifies() {
    let (pkcs8, x, y) = Browser.generate_es256().await.expect("a key pair");
    assert_eq!((x.len(), y.len()), (43, 43), "32-byte coordinates, base64url without padding");
    let message = b"eyJ0eXAiOiJkcG9wK2p3dCJ9.eyJodG0iOiJQT1NUIn0";
    let signature = Browser.sign_es256(&pkcs8, message).await.expect("signed with it");
    let verify = Function::new_with_args(
        "x, y, m, sig",
        "return (async () => {
            const s = crypto.subtle;
            const k = await s.importKey('jwk', { kty: 'EC', crv: 'P-256', x, y }, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
            return s.verify({ name: 'ECDSA', hash: 'SHA-256' }, k, sig, m);
        })()",
    );
    let args = js_sys::Array::of4(
        &x.into(),
        &y.into(),
        &Uint8Array::from(&message[..]).into(),
        &Uint8Array::from(&signature[..]).into(),
    );
    let ok = verify.apply(&wasm_bindgen::JsValue::NULL, &args).unwrap();
    assert_eq!(JsFuture::from(ok.unchecked_into::<Promise>()).await.unwrap().as_bool(), Some(true));
}
