//! Where an app runs: in the sandbox proxy (`sandbox.html`), on an origin other than the page's,
//! so the app can never read the page's storage (the key, tokens, saved servers) nor run in its
//! process. The page finds that origin, in order: the one the site was built with
//! (`LOOPSCOPE_SANDBOX`, docs/apps.md); on this machine, the other loopback name for the same
//! server (`127.0.0.1` ↔ `localhost`, which the browser treats as two sites); else the page's
//! own `sandbox.html` in a frame without `allow-same-origin`, whose origin is opaque: the app
//! still cannot reach the page's storage, but shares its process, which is weaker.

#![deny(clippy::string_slice, clippy::indexing_slicing)]

use crate::url_policy::{Host, Scheme, WebUrl};

/// How far the app is kept from the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isolation {
    /// Another site: its own origin, its own process.
    OtherSite,
    /// The page's own file in an opaque origin: no storage shared, the same process.
    Opaque,
}

/// Where the sandbox proxy is loaded from, and how the page knows its messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sandbox {
    /// The proxy's address, with the page's origin for it to answer to (`?host=`).
    pub url: String,
    /// The `origin` its messages arrive with (`"null"` when opaque).
    pub origin: String,
    pub isolation: Isolation,
    /// The page's origin, the only one the proxy answers to.
    pub host_origin: String,
}

impl Sandbox {
    /// The sandbox for a page at `page` (its address, `location.href`), given the address of
    /// `sandbox.html` the site was built with, if any.
    pub fn choose(page: &str, built_with: Option<&str>) -> Result<Sandbox, String> {
        let page = WebUrl::parse(page).map_err(|e| format!("the page's own address is odd ({e})"))?;
        let host_origin = page.origin();
        let query = format!("?host={}", crate::encoding::form_component(&host_origin));
        if let Some(configured) = built_with.map(str::trim).filter(|s| !s.is_empty()) {
            let url = crate::url_policy::stranger(configured).map_err(|e| {
                format!("the sandbox address this site was built with ({configured}) cannot be used: {e}")
            })?;
            if url.same_origin(&page) {
                return Err(format!(
                    "the sandbox address this site was built with ({configured}) is on the page's own origin: apps would share its storage"
                ));
            }
            let path = url.rest.split(['?', '#']).next().unwrap_or("/").to_owned();
            let origin = url.origin();
            return Ok(Sandbox {
                url: format!("{origin}{path}{query}"),
                origin,
                isolation: Isolation::OtherSite,
                host_origin,
            });
        }
        let folder = page.rest.split(['?', '#']).next().unwrap_or("/");
        let folder = folder.rsplit_once('/').map_or("", |(dir, _)| dir);
        let other = match &page.host {
            Host::Ipv4([127, 0, 0, 1]) => Some(Host::Domain("localhost".into())),
            Host::Domain(d) if d == "localhost" => Some(Host::Ipv4([127, 0, 0, 1])),
            _ => None,
        };
        match other {
            Some(host) if page.scheme == Scheme::Http => {
                let twin = WebUrl { host, rest: "/".into(), ..page.clone() };
                let origin = twin.origin();
                Ok(Sandbox {
                    url: format!("{origin}{folder}/sandbox.html{query}"),
                    origin,
                    isolation: Isolation::OtherSite,
                    host_origin,
                })
            }
            _ => Ok(Sandbox {
                url: format!("{host_origin}{folder}/sandbox.html{query}"),
                origin: "null".into(),
                isolation: Isolation::Opaque,
                host_origin,
            }),
        }
    }

    /// The outer frame's `sandbox` attribute: its own origin where it has one of its own,
    /// none (opaque) where it would otherwise share the page's. Never popups, top navigation
    /// or downloads.
    pub fn frame_flags(&self) -> &'static str {
        match self.isolation {
            Isolation::OtherSite => "allow-scripts allow-same-origin",
            Isolation::Opaque => "allow-scripts",
        }
    }

    /// Where a message to the proxy may go (`postMessage`'s target origin).
    pub fn target_origin(&self) -> &str {
        match self.isolation {
            Isolation::OtherSite => &self.origin,
            // An opaque origin cannot be named; the frame is the page's own, loaded from its own
            // file, and only its window is posted to.
            Isolation::Opaque => "*",
        }
    }

    /// What the user is told of the isolation, beside the app.
    pub fn describe(&self) -> String {
        match self.isolation {
            Isolation::OtherSite => format!("sandboxed on {}, another site than this page", self.origin),
            Isolation::Opaque => "sandboxed in an opaque origin: it cannot read this page's storage, but runs in the \
                                  same browser process (no second origin is set up: docs/apps.md)"
                .into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_this_machine_the_other_loopback_name_is_the_second_site() {
        let s = Sandbox::choose("http://127.0.0.1:4173/loopscope/index.html?x=1", None).unwrap();
        assert_eq!(s.url, "http://localhost:4173/loopscope/sandbox.html?host=http%3A%2F%2F127.0.0.1%3A4173");
        assert_eq!(s.origin, "http://localhost:4173");
        assert_eq!(s.isolation, Isolation::OtherSite);
        assert_eq!(s.frame_flags(), "allow-scripts allow-same-origin");
        let back = Sandbox::choose("http://localhost:8080/", None).unwrap();
        assert_eq!(back.origin, "http://127.0.0.1:8080");
        assert_eq!(back.url, "http://127.0.0.1:8080/sandbox.html?host=http%3A%2F%2Flocalhost%3A8080");
    }

    #[test]
    fn a_site_built_with_a_sandbox_uses_it() {
        let s = Sandbox::choose("https://me.github.io/loopscope/", Some("https://sandbox.example.org/sandbox.html"))
            .unwrap();
        assert_eq!(s.origin, "https://sandbox.example.org");
        assert_eq!(s.url, "https://sandbox.example.org/sandbox.html?host=https%3A%2F%2Fme.github.io");
        assert_eq!(s.target_origin(), "https://sandbox.example.org");
    }

    #[test]
    fn a_sandbox_on_the_page_origin_or_over_plain_http_is_refused() {
        let same = Sandbox::choose("https://me.github.io/loopscope/", Some("https://me.github.io/sandbox.html"));
        assert!(same.unwrap_err().contains("share its storage"));
        let plain = Sandbox::choose("https://me.github.io/", Some("http://sandbox.example.org/sandbox.html"));
        assert!(plain.unwrap_err().contains("needs https"));
        assert!(Sandbox::choose("https://me.github.io/", Some("javascript:alert(1)")).is_err());
    }

    #[test]
    fn elsewhere_without_one_the_app_gets_an_opaque_origin_and_the_user_is_told() {
        let s = Sandbox::choose("https://me.github.io/loopscope/", None).unwrap();
        assert_eq!(s.isolation, Isolation::Opaque);
        assert_eq!(s.origin, "null");
        assert_eq!(s.frame_flags(), "allow-scripts");
        assert_eq!(s.url, "https://me.github.io/loopscope/sandbox.html?host=https%3A%2F%2Fme.github.io");
        assert!(s.describe().contains("same browser process"));
    }
}
