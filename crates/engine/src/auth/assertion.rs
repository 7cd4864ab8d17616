//! `private_key_jwt` (RFC 7523 §2.2): the client proves who it is at the token endpoint with a
//! short-lived JWT signed by its own private key, instead of a shared secret. ES256 only: the
//! platform signs (WebCrypto in the page), so no signing code ships in the wasm.

use serde_json::json;

use crate::encoding::{base64_decode, base64url};
use crate::platform::Platform;

/// The token endpoint authentication method, as authorization server metadata names it.
pub const PRIVATE_KEY_JWT: &str = "private_key_jwt";
pub const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// How long an assertion is good for: long enough for one request.
const LIFETIME_S: u64 = 300;

/// A PEM private key's DER bytes (PKCS #8: "-----BEGIN PRIVATE KEY-----").
fn pkcs8_der(pem: &str) -> Result<Vec<u8>, String> {
    let body = pem
        .trim()
        .strip_prefix("-----BEGIN PRIVATE KEY-----")
        .and_then(|rest| rest.trim_end().strip_suffix("-----END PRIVATE KEY-----"))
        .ok_or("the key is not a PKCS #8 PEM (-----BEGIN PRIVATE KEY----- … -----END PRIVATE KEY-----)")?;
    base64_decode(body).filter(|der| !der.is_empty()).ok_or_else(|| "the key's base64 is damaged".to_owned())
}

/// A signed client assertion for `client_id`, addressed to the authorization server `audience`.
pub async fn client_assertion<P: Platform>(
    platform: &P,
    pem: &str,
    client_id: &str,
    audience: &str,
) -> Result<String, String> {
    let der = pkcs8_der(pem)?;
    let now = (platform.now_ms() / 1000.0) as u64;
    let mut jti = [0u8; 16];
    platform.random_bytes(&mut jti);
    let header = json!({"alg": "ES256", "typ": "JWT"});
    let claims = json!({
        "iss": client_id, "sub": client_id, "aud": audience,
        "iat": now, "exp": now + LIFETIME_S, "jti": base64url(&jti),
    });
    let input = format!("{}.{}", base64url(header.to_string().as_bytes()), base64url(claims.to_string().as_bytes()));
    let signature = platform.sign_es256(&der, input.as_bytes()).await?;
    if signature.len() != 64 {
        return Err(format!("the signer gave {} bytes, not an ES256 signature's 64", signature.len()));
    }
    Ok(format!("{input}.{}", base64url(&signature)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_pkcs8_pem_is_a_key() {
        assert_eq!(pkcs8_der("-----BEGIN PRIVATE KEY-----\nAQID\n-----END PRIVATE KEY-----\n").unwrap(), [1, 2, 3]);
        assert!(
            pkcs8_der("-----BEGIN EC PRIVATE KEY-----\nAQID\n-----END EC PRIVATE KEY-----")
                .unwrap_err()
                .contains("PKCS #8")
        );
        assert!(
            pkcs8_der("-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----").unwrap_err().contains("damaged")
        );
    }
}
