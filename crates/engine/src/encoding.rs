//! The text encodings the wire uses, in one place: base64 (RFC 4648, standard and URL-safe),
//! percent-encoding (RFC 3986) and `application/x-www-form-urlencoded` (the HTML form encoding
//! OAuth uses for token requests and redirects).

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

const STANDARD: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

fn base64_with(bytes: &[u8], alphabet: &[u8; 64], pad: bool) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = byte(0) << 16 | byte(1) << 8 | byte(2);
        for i in 0..4 {
            if i <= chunk.len() {
                let digit = alphabet.get((n >> (18 - 6 * i) & 63) as usize).copied().unwrap_or(b'=');
                out.push(digit as char);
            } else if pad {
                out.push('=');
            }
        }
    }
    out
}

/// Standard base64 with padding ("TWFu", "TWE=").
pub fn base64(bytes: &[u8]) -> String {
    base64_with(bytes, STANDARD, true)
}

/// URL-safe base64 without padding (RFC 4648 §5), as PKCE and JWTs use it.
pub fn base64url(bytes: &[u8]) -> String {
    base64_with(bytes, URL_SAFE, false)
}

/// Decodes standard or URL-safe base64, padded or not, ignoring whitespace (PEM wraps lines).
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace() && *c != b'=') {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        };
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

fn is_unreserved(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~')
}

fn is_reserved(b: u8) -> bool {
    b":/?#[]@!$&'()*+,;=".contains(&b)
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

fn push_escaped(out: &mut String, b: u8) {
    out.push('%');
    let digit = |n: u8| HEX.get(usize::from(n)).copied().unwrap_or(b'0') as char;
    out.push(digit(b >> 4));
    out.push(digit(b & 15));
}

/// Percent-encodes everything but unreserved characters; with `keep_reserved`, reserved
/// characters and existing `%XX` triplets pass too (RFC 6570's `+` and `#` expansions).
pub fn percent_encode(text: &str, keep_reserved: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    for (i, &b) in bytes.iter().enumerate() {
        let hex = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_hexdigit);
        let triplet = b == b'%' && hex(i + 1) && hex(i + 2);
        if is_unreserved(b) || (keep_reserved && (is_reserved(b) || triplet)) {
            out.push(b as char);
        } else {
            push_escaped(&mut out, b);
        }
    }
    out
}

/// One name or value as `application/x-www-form-urlencoded` writes it: spaces as `+`.
pub fn form_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b' ' => out.push('+'),
            b if is_unreserved(b) => out.push(b as char),
            b => push_escaped(&mut out, b),
        }
    }
    out
}

/// Pairs as a form body or query string: `a=1&b=two+words`.
pub fn form_encode<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    pairs.into_iter().map(|(k, v)| format!("{}={}", form_component(k), form_component(v))).collect::<Vec<_>>().join("&")
}

/// `%XX` escapes decoded (lossy UTF-8); `+` is a space only in form encoding.
fn decode(text: &str, plus_is_space: bool) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = |at: usize| bytes.get(at).and_then(|b| (*b as char).to_digit(16));
        match (b, hex(i + 1), hex(i + 2)) {
            (b'+', ..) if plus_is_space => out.push(b' '),
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 2;
            }
            (b, ..) => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn decode_component(text: &str) -> String {
    decode(text, true)
}

/// A URL's `%XX` escapes decoded (a user name and password in it, say).
pub fn percent_decode(text: &str) -> String {
    decode(text, false)
}

/// Reads a query string or form body (with or without the leading `?`) into decoded pairs, in
/// order, keeping repeated names.
pub fn form_decode(text: &str) -> Vec<(String, String)> {
    text.trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode_component(k), decode_component(v))
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    #[test]
    fn base64_follows_rfc4648_test_vectors() {
        let vectors =
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("foobar", "Zm9vYmFy")];
        for (plain, encoded) in vectors {
            assert_eq!(base64(plain.as_bytes()), encoded);
            assert_eq!(base64_decode(encoded).unwrap(), plain.as_bytes());
        }
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64_decode("-_8").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(base64_decode("Zm9v\nYmFy"), Some(b"foobar".to_vec()));
        assert_eq!(base64_decode("Zm9v!"), None);
    }

    #[test]
    fn form_encoding_round_trips_and_reads_what_browsers_write() {
        let body = form_encode([("redirect_uri", "http://127.0.0.1:8080/cb?x=1"), ("scope", "a b"), ("é", "~")]);
        assert_eq!(body, "redirect_uri=http%3A%2F%2F127.0.0.1%3A8080%2Fcb%3Fx%3D1&scope=a+b&%C3%A9=~");
        let back = form_decode(&body);
        assert_eq!(back[0], ("redirect_uri".into(), "http://127.0.0.1:8080/cb?x=1".into()));
        assert_eq!(back[1], ("scope".into(), "a b".into()));
        assert_eq!(back[2], ("é".into(), "~".into()));
        assert_eq!(
            form_decode("?code=a%2Fb&state=&flag"),
            vec![("code".into(), "a/b".into()), ("state".into(), String::new()), ("flag".into(), String::new())]
        );
    }

    #[test]
    fn percent_encoding_keeps_reserved_characters_only_when_asked() {
        assert_eq!(percent_encode("a b/c", false), "a%20b%2Fc");
        assert_eq!(percent_encode("a b/c%20", true), "a%20b/c%20");
    }
}
