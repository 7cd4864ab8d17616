//! How the browser reads a URL: the seam between the URL policy and a WHATWG URL parser.
//!
//! The policy (`url_policy`) must judge what will be fetched, so it asks the parser that will
//! fetch it. In the page that is the browser's own `URL`, installed once at start
//! (`src/platform.rs`, through web-sys: no bytes of a parser ship); natively the `url` crate,
//! which implements the same WHATWG URL Standard, stands in, so native tests see the reading the
//! browser gives (`http://127.0.0.1:9153\@evil.example/` is host `127.0.0.1`, path
//! `/@evil.example/`, for both).

use std::cell::Cell;

/// A WHATWG parser: the URL as it serialises it (`URL.href`), or `None` when it is not a URL.
pub type Reader = fn(&str) -> Option<String>;

thread_local! {
    // A thread's own (the page has one): no lock, whose code the first chunk would carry.
    static READER: Cell<Option<Reader>> = const { Cell::new(None) };
}

/// Makes `reader` the one every URL is read with (on this thread).
pub fn install(reader: Reader) {
    READER.with(|r| r.set(Some(reader)));
}

/// What the browser makes of a text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reading {
    /// It is a URL; its serialisation, what `fetch` and `window.open` use.
    Url(String),
    /// The browser would refuse it (`new URL()` throws).
    NotAUrl,
    /// No parser installed (a wasm build that never called `install`): the policy's own strict
    /// parse is then all there is.
    Unavailable,
}

/// Reads `text` as the browser would.
pub fn read(text: &str) -> Reading {
    let reader = READER.with(Cell::get).or(NATIVE);
    match reader {
        Some(reader) => reader(text).map_or(Reading::NotAUrl, Reading::Url),
        None => Reading::Unavailable,
    }
}

#[cfg(not(target_arch = "wasm32"))]
const NATIVE: Option<Reader> = Some(|text| url::Url::parse(text).ok().map(String::from));
#[cfg(target_arch = "wasm32")]
const NATIVE: Option<Reader> = None;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natively_the_url_crate_reads_as_the_browser_does() {
        assert_eq!(
            read("http://127.0.0.1:9153\\@evil.example/mcp"),
            Reading::Url("http://127.0.0.1:9153/@evil.example/mcp".into())
        );
        assert_eq!(read("HTTPS://Example.COM:443/a\tb"), Reading::Url("https://example.com/ab".into()));
        assert_eq!(read("https://exa mple.com/"), Reading::NotAUrl);
    }
}
