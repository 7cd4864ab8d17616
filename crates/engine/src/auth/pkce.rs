//! PKCE (RFC 7636) with S256, and the `state` value: the secrets one authorization request
//! carries, made from the platform's secure random generator.

use sha2::{Digest, Sha256};

use crate::encoding::base64url;
use crate::platform::Platform;

/// What one authorization request is bound to: the verifier stays here, its hash goes out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pkce {
    pub verifier: String,
    pub challenge: String,
    pub state: String,
}

impl Pkce {
    pub fn new(platform: &impl Platform) -> Pkce {
        // 32 random bytes → a 43-character verifier, the length RFC 7636 §4.1 recommends.
        let verifier = random_token(platform, 32);
        Pkce { challenge: challenge(&verifier), verifier, state: random_token(platform, 16) }
    }
}

/// `BASE64URL(SHA256(verifier))` (RFC 7636 §4.2).
pub fn challenge(verifier: &str) -> String {
    base64url(&Sha256::digest(verifier.as_bytes()))
}

fn random_token(platform: &impl Platform, bytes: usize) -> String {
    let mut buf = vec![0u8; bytes];
    platform.random_bytes(&mut buf);
    base64url(&buf)
}

#[cfg(test)]
mod tests {
    use super::challenge;

    #[test]
    fn s256_matches_rfc7636_appendix_b() {
        assert_eq!(
            challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
