//! DPoP proofs (RFC 9449 §4.2) as a server checks them: a JWT typed `dpop+jwt`, signed ES256 by
//! the public key in its own header (with no private part), naming the method, the URL without
//! query or fragment, the time, a fresh `jti`, the token's SHA-256 in `ath`, and the server's
//! nonce when it gave one. The flow itself (token request, nonce retries at the authorization
//! server and the MCP server, the DPoP scheme) runs against the official conformance suite's
//! `auth/dpop` and `auth/dpop-nonce` scenarios (`scripts/conformance.mjs`).
#![cfg(not(target_arch = "wasm32"))]

mod support;

use engine::auth::dpop::DpopKey;
use engine::encoding::base64url;
use p256::ecdsa::signature::Verifier;
use serde_json::Value;
use sha2::{Digest, Sha256};
use support::Native;

fn decode(part: &str) -> Value {
    let bytes = engine::encoding::base64_decode(part).expect("base64url");
    serde_json::from_slice(&bytes).expect("JSON")
}

#[tokio::test(flavor = "current_thread")]
async fn a_proof_is_what_a_resource_server_checks() {
    let platform = Native::new();
    let key = DpopKey::generate(&*platform).await.unwrap();
    let url = "https://mcp.example.com/mcp?api_key=secret#part";
    let proof = key.proof(&*platform, "POST", url, Some("the-access-token"), Some("n-1")).await.unwrap();
    let parts: Vec<&str> = proof.split('.').collect();
    assert_eq!(parts.len(), 3);
    let (header, claims) = (decode(parts[0]), decode(parts[1]));
    assert_eq!((header["typ"].as_str(), header["alg"].as_str()), (Some("dpop+jwt"), Some("ES256")));
    let jwk = &header["jwk"];
    assert!(jwk.get("d").is_none(), "the private key never leaves: {jwk}");
    assert_eq!(claims["htm"], "POST");
    assert_eq!(claims["htu"], "https://mcp.example.com/mcp", "no query (it may hold a secret), no fragment");
    assert_eq!(claims["ath"], base64url(&Sha256::digest(b"the-access-token")));
    assert_eq!(claims["nonce"], "n-1");
    let now = (std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()) as i64;
    assert!((claims["iat"].as_i64().unwrap() - now).abs() <= 5);

    // The signature verifies with the key the header carries.
    let coordinate = |c: &str| engine::encoding::base64_decode(jwk[c].as_str().unwrap()).unwrap();
    let mut sec1 = vec![4u8];
    sec1.extend(coordinate("x"));
    sec1.extend(coordinate("y"));
    let public = p256::ecdsa::VerifyingKey::from_sec1_bytes(&sec1).unwrap();
    let signature = p256::ecdsa::Signature::from_slice(&engine::encoding::base64_decode(parts[2]).unwrap()).unwrap();
    public.verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature).expect("signed by that key");

    // Every proof is fresh.
    let again = key.proof(&*platform, "POST", url, Some("the-access-token"), None).await.unwrap();
    let again = decode(again.split('.').nth(1).unwrap());
    assert_ne!(again["jti"], claims["jti"]);
    assert!(again.get("nonce").is_none());
}
