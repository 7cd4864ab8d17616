//! DPoP (RFC 9449, SEP-1932): a token bound to a key this page holds, so a token that leaks is
//! useless without the key. The key pair is made for the session (WebCrypto in the page; its
//! private half stays in the page's memory and is never written anywhere); every request that
//! carries the token carries a fresh proof, a JWT signed with it, naming the method, the URL
//! (without query or fragment), the time, and the token's hash. A server's nonce is used once it
//! is given, and a request refused for want of one is sent again once with it.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::encoding::base64url;
use crate::platform::Platform;

/// The algorithm this page signs proofs with (the only one WebCrypto and the engine share).
pub const ALG: &str = "ES256";

/// The session's key pair.
pub struct DpopKey {
    pkcs8: Vec<u8>,
    jwk: Value,
}

impl DpopKey {
    pub async fn generate<P: Platform>(platform: &P) -> Result<Self, String> {
        let (pkcs8, x, y) = platform.generate_es256().await?;
        Ok(Self { pkcs8, jwk: json!({ "kty": "EC", "crv": "P-256", "x": x, "y": y }) })
    }

    /// A proof for one request: `method` and `url` as sent; `token` when the request carries
    /// an access token (its SHA-256 goes in `ath`); `nonce` when the server gave one.
    pub async fn proof<P: Platform>(
        &self,
        platform: &P,
        method: &str,
        url: &str,
        token: Option<&str>,
        nonce: Option<&str>,
    ) -> Result<String, String> {
        let mut jti = [0u8; 16];
        platform.random_bytes(&mut jti);
        let iat = (platform.now_ms() / 1000.0) as u64;
        let input = self.signing_input(&jti, iat, method, url, token, nonce);
        let signature = platform.sign_es256(&self.pkcs8, input.as_bytes()).await?;
        finish(input, &signature)
    }

    /// The proof's header and claims, base64url-encoded and joined: what is signed. Apart from
    /// `proof`, so that it is compiled once rather than once per platform.
    fn signing_input(
        &self,
        jti: &[u8],
        iat: u64,
        method: &str,
        url: &str,
        token: Option<&str>,
        nonce: Option<&str>,
    ) -> String {
        let mut claims = json!({ "jti": base64url(jti), "htm": method, "htu": htu(url), "iat": iat });
        if let Some(token) = token {
            claims["ath"] = json!(base64url(&Sha256::digest(token.as_bytes())));
        }
        if let Some(nonce) = nonce {
            claims["nonce"] = json!(nonce);
        }
        let header = json!({ "typ": "dpop+jwt", "alg": ALG, "jwk": self.jwk });
        format!("{}.{}", base64url(header.to_string().as_bytes()), base64url(claims.to_string().as_bytes()))
    }
}

/// The signed proof, or why the signer's answer cannot be one.
fn finish(input: String, signature: &[u8]) -> Result<String, String> {
    if signature.len() != 64 {
        return Err(format!("the signer gave {} bytes, not an ES256 signature's 64", signature.len()));
    }
    Ok(format!("{input}.{}", base64url(signature)))
}

/// The URL a proof names: without its query and fragment (RFC 9449 §4.2).
fn htu(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    url.get(..end).unwrap_or(url)
}

#[cfg(test)]
mod tests {
    use super::htu;

    #[test]
    fn a_proof_names_the_url_without_query_or_fragment() {
        assert_eq!(htu("https://mcp.example.com/mcp?api_key=x#f"), "https://mcp.example.com/mcp");
        assert_eq!(htu("https://mcp.example.com/mcp"), "https://mcp.example.com/mcp");
    }
}
