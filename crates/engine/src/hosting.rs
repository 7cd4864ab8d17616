//! Where the page is served from, as far as it matters to what it may keep. A browser keeps
//! storage, service workers, caches and BroadcastChannels per origin (scheme, host, port), not per
//! folder: every project page of `user.github.io` shares one origin, so any of them can read what
//! Loopscope saves there (a remembered key included). README, "Hosting it": Loopscope needs an
//! origin of its own.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

use super::url_policy::{Host, WebUrl};

/// Hosts whose sites share one origin between many projects.
const SHARED: [&str; 3] = ["github.io", "gitlab.io", "codeberg.page"];

/// When the page at `page` shares its origin with other sites: a sentence that says so.
pub fn shared_origin(page: &str) -> Option<String> {
    let url = WebUrl::parse(page).ok()?;
    let Host::Domain(host) = &url.host else { return None };
    let suffix = SHARED.iter().find(|s| host.strip_suffix(*s).is_some_and(|rest| rest.ends_with('.')))?;
    Some(format!(
        "This page is served from {host}, which every project of that account on {suffix} shares: any of their pages can \
         read what this page stores, your key included. Remember the key only on a copy of Loopscope with a domain of \
         its own (README, Hosting it)."
    ))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    #[test]
    fn project_pages_share_their_owners_origin() {
        assert!(shared_origin("https://ann.github.io/loopscope/").unwrap().contains("ann.github.io"));
        assert!(shared_origin("https://ann.gitlab.io/loopscope/?lesson=x").is_some());
        assert_eq!(shared_origin("https://loopscope.example.org/"), None);
        assert_eq!(shared_origin("http://127.0.0.1:8080/"), None);
        assert_eq!(shared_origin("https://github.io.example.com/"), None);
        assert_eq!(shared_origin("https://notgithub.io/"), None);
    }
}
