//! The authorization steps in words, for the timeline's detail pane: what happened, and what a
//! client must check there.

use crate::auth::url::query_of;
use crate::encoding::form_decode;
use crate::num::shortest;
use crate::trace::AuthStep;

impl AuthStep {
    /// A title and a body for the detail pane.
    pub fn explain(&self) -> (String, String) {
        match self {
            AuthStep::Challenged { status, scope, error } => {
                let said = [
                    scope.as_ref().map(|s| format!("scope=\"{s}\"")),
                    error.as_ref().map(|e| format!("error=\"{e}\"")),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(", ");
                let said = if said.is_empty() { "nothing more".to_owned() } else { said };
                let next = if *status == 403 {
                    "The token lacks a scope this request needs: the client signs in again asking for the scopes it \
                     had plus the ones named (step-up), a bounded number of times."
                } else {
                    "The client finds the server's authorization server (its Protected Resource Metadata, RFC 9728, \
                     then the authorization server's own metadata), identifies itself, and asks you to sign in."
                };
                (
                    format!("HTTP {status}: the server wants authorization"),
                    format!("WWW-Authenticate says {said}.\n\n{next}"),
                )
            }
            AuthStep::SignIn { url, .. } => {
                let params = form_decode(query_of(url))
                    .into_iter()
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect::<Vec<_>>()
                    .join("\n");
                let endpoint = url.split('?').next().unwrap_or(url);
                (
                    "The sign-in page opened (the authorization request)".into(),
                    format!(
                        "{endpoint}\n\n{params}\n\nThe browser shows the authorization server's own page; this page waits. \
                         code_challenge is the SHA-256 of a secret only this page holds (the code_verifier, PKCE), \
                         state comes back unchanged or the answer is refused, and resource names the MCP server the \
                         token will be for (RFC 8707)."
                    ),
                )
            }
            AuthStep::Returned { accepted, detail } => (
                if *accepted { "Back from the sign-in page: accepted" } else { "Back from the sign-in page: refused" }
                    .into(),
                format!(
                    "{detail}\n\nBefore the code goes anywhere, the client checks that state is the one it sent \
                     (a forged answer would not know it) and that iss names the authorization server it expects \
                     (RFC 9207: an answer from another server is refused)."
                ),
            ),
            AuthStep::Granted { scopes, expires_in_s, refreshable } => (
                "Token received".into(),
                format!(
                    "scopes: {}\nexpires: {}\nrefresh token: {}\n\nThe token goes in Authorization: Bearer … on every \
                     request to this MCP server, and to no other; the trace shows it masked.",
                    if scopes.is_empty() { "none named".to_owned() } else { scopes.join(" ") },
                    expires_in_s.map_or("not said".to_owned(), |s| format!("in {} s", shortest(s))),
                    if *refreshable { "yes: a new token comes without signing in again" } else { "no" }
                ),
            ),
            AuthStep::Failed { failure } => (
                format!("Authorization failed ({} layer)", failure.layer),
                format!("{}{}", failure.message, failure.hint.as_ref().map(|h| format!("\n\n{h}")).unwrap_or_default()),
            ),
            AuthStep::SignedOut => ("Signed out".into(), "The tokens are forgotten, here and on this device.".into()),
        }
    }
}

/// When a token expires, in words: "in 59 min", "in 40 s", "expired", "not said".
pub fn expiry_words(expires_at_ms: Option<f64>, now_ms: f64) -> String {
    let Some(at) = expires_at_ms else { return "not said".into() };
    let s = ((at - now_ms) / 1000.0).round();
    if s <= 0.0 {
        "expired".into()
    } else if s < 120.0 {
        format!("in {} s", shortest(s))
    } else if s < 7200.0 {
        format!("in {} min", shortest((s / 60.0).round()))
    } else {
        format!("in {} h", shortest((s / 3600.0).round()))
    }
}

#[cfg(test)]
mod tests {
    use super::expiry_words;

    #[test]
    fn expiry_reads_in_the_unit_that_fits() {
        assert_eq!(expiry_words(None, 0.0), "not said");
        assert_eq!(expiry_words(Some(40_000.0), 0.0), "in 40 s");
        assert_eq!(expiry_words(Some(3_540_000.0), 0.0), "in 59 min");
        assert_eq!(expiry_words(Some(36_000_000.0), 0.0), "in 10 h");
        assert_eq!(expiry_words(Some(1.0), 5.0), "expired");
    }
}
