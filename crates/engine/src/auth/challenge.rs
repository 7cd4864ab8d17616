//! `WWW-Authenticate` (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9728 §5.1): what a 401 or 403 says
//! about the authorization it wants — where the resource metadata is, which scopes, which error.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

/// The `Bearer` challenge of a `WWW-Authenticate` header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Challenge {
    pub resource_metadata: Option<String>,
    pub scope: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
    /// The server challenged with the `DPoP` scheme (RFC 9449 §7.1): it takes key-bound tokens.
    pub dpop: bool,
}

impl Challenge {
    /// Reads the `Bearer` challenge (the first, if several); an empty challenge when there is
    /// none or the header is missing, since a bare 401 still asks for authorization.
    pub fn parse(header: Option<&str>) -> Challenge {
        let Some(header) = header else { return Challenge::default() };
        let (params, dpop) = bearer_params(header);
        let get = |name: &str| {
            params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.clone()).filter(|v| !v.is_empty())
        };
        Challenge {
            resource_metadata: get("resource_metadata"),
            scope: get("scope"),
            error: get("error"),
            error_description: get("error_description"),
            dpop,
        }
    }

    /// The scopes it names, in order, without repeats.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref().unwrap_or(""))
    }

    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// RFC 9449 §9: the proof lacked the server's nonce (given in `DPoP-Nonce`).
    pub fn use_dpop_nonce(&self) -> bool {
        self.error.as_deref() == Some("use_dpop_nonce")
    }
}

/// A space-separated scope string as a list, in order, without repeats.
pub fn split_scopes(scope: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in scope.split_ascii_whitespace() {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    }
    out
}

/// The auth-params of the `Bearer` challenge: `name=token` or `name="quoted \" string"`,
/// separated by commas, up to the next challenge's scheme; and whether any challenge's scheme
/// is `DPoP` (a word in a parameter's value is not a scheme).
fn bearer_params(header: &str) -> (Vec<(String, String)>, bool) {
    let mut chars = header.chars().peekable();
    let mut params = Vec::new();
    let (mut in_bearer, mut done, mut dpop) = (false, false, false);
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace() || *c == ',') {
            chars.next();
        }
        let mut token = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == '=' || c == ',' {
                break;
            }
            token.push(c);
            chars.next();
        }
        if token.is_empty() {
            break;
        }
        while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
            chars.next();
        }
        if chars.peek() == Some(&'=') {
            chars.next();
            while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
                chars.next();
            }
            let mut value = String::new();
            if chars.peek() == Some(&'"') {
                chars.next();
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => value.extend(chars.next()),
                        '"' => break,
                        c => value.push(c),
                    }
                }
            } else {
                while let Some(&c) = chars.peek() {
                    if c == ',' || c.is_whitespace() {
                        break;
                    }
                    value.push(c);
                    chars.next();
                }
            }
            if in_bearer && !done {
                params.push((token, value));
            }
        } else {
            // A scheme name starts a challenge (a token68 after it has no '=' pair: skipped).
            // The first challenge with parameters is the one read; the rest only for their scheme.
            done |= in_bearer && !params.is_empty();
            dpop |= token.eq_ignore_ascii_case("dpop");
            // A DPoP challenge (RFC 9449 §7.1) says the same things in the same parameters.
            in_bearer = token.eq_ignore_ascii_case("bearer") || token.eq_ignore_ascii_case("dpop");
        }
    }
    (params, dpop)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    #[test]
    fn reads_quoted_and_bare_params_of_the_bearer_challenge() {
        let c = Challenge::parse(Some(
            r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", error_description="needs \"write\"""#,
        ));
        assert_eq!(c.scopes(), vec!["files:read", "files:write"]);
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert!(c.insufficient_scope());
        assert_eq!(c.error_description.as_deref(), Some("needs \"write\""));
        let bare = Challenge::parse(Some("bearer realm=mcp,scope=a"));
        assert_eq!(bare.scope.as_deref(), Some("a"));
    }

    #[test]
    fn only_a_dpop_challenge_asks_for_key_bound_tokens() {
        assert!(Challenge::parse(Some(r#"DPoP resource_metadata="https://m.example/prm""#)).dpop);
        assert!(Challenge::parse(Some(r#"Bearer scope="a", DPoP algs="ES256""#)).dpop);
        assert!(!Challenge::parse(Some(r#"Bearer resource_metadata="https://m.example/dpop""#)).dpop);
        assert!(!Challenge::parse(None).dpop);
        // A word in a quoted value, or an unquoted value, is not a scheme.
        assert!(!Challenge::parse(Some(r#"Bearer error_description="send a dpop proof""#)).dpop);
        assert!(!Challenge::parse(Some("Bearer realm=dpop")).dpop);
    }

    #[test]
    fn other_schemes_are_skipped_and_a_missing_header_is_an_empty_challenge() {
        let c = Challenge::parse(Some(r#"Basic realm="x", Bearer scope="mcp:basic", DPoP algs="ES256""#));
        assert_eq!(c.scope.as_deref(), Some("mcp:basic"));
        assert_eq!(Challenge::parse(Some("Basic realm=\"x\"")), Challenge::default());
        assert_eq!(Challenge::parse(None), Challenge::default());
        assert_eq!(Challenge::parse(Some("Bearer")), Challenge::default());
    }
}
