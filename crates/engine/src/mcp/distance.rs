//! Where a URL points — this machine, the local network, or the internet — and what a browser
//! does about a page from a public site reaching the first two: Chrome 142 and later ask the
//! user for Local Network Access first, and a refusal looks exactly like a CORS failure.

// Text from outside the page is read here: no slicing by byte index, no indexing that can
// panic (a panic aborts the wasm and kills the page; docs/security.md).
#![deny(clippy::string_slice, clippy::indexing_slicing)]

/// How far away a URL's host is, as the browser's Local Network Access rules see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distance {
    Loopback,
    Local,
    Public,
}

/// The host of an absolute URL, lowercased, without user info, port or IPv6 brackets.
fn host(url: &str) -> Option<String> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let host = match authority.strip_prefix('[') {
        Some(v6) => v6.split(']').next()?,
        None => authority.split(':').next()?,
    };
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

pub fn distance(url: &str) -> Distance {
    let Some(host) = host(url) else { return Distance::Public };
    if host == "localhost" || host.ends_with(".localhost") || host == "::1" {
        return Distance::Loopback;
    }
    if host.ends_with(".local") {
        return Distance::Local;
    }
    let octets: Vec<u8> = host.split('.').map_while(|p| p.parse().ok()).collect();
    if octets.len() == 4 && host.split('.').count() == 4 {
        return match octets[..] {
            [127, ..] => Distance::Loopback,
            [10, ..] | [192, 168, ..] | [169, 254, ..] => Distance::Local,
            [172, b, ..] if (16..32).contains(&b) => Distance::Local,
            _ => Distance::Public,
        };
    }
    // IPv6: fc00::/7 unique local, fe80::/10 link-local (a literal starts with its first group).
    if host.contains(':') {
        let first = u16::from_str_radix(host.split(':').next().unwrap_or_default(), 16).unwrap_or(0);
        if first & 0xfe00 == 0xfc00 || first & 0xffc0 == 0xfe80 {
            return Distance::Local;
        }
    }
    Distance::Public
}

/// For a network failure: what to check when a page from a public site could not reach a
/// server on this machine or the local network. `None` when that is not the situation.
pub fn local_network_hint(page: &str, server: &str) -> Option<String> {
    let (page_distance, server_distance) = (distance(page), distance(server));
    if page_distance != Distance::Public || server_distance == Distance::Public || !page.starts_with("http") {
        return None;
    }
    let where_ = if server_distance == Distance::Loopback { "on this computer" } else { "on your local network" };
    Some(format!(
        "This page comes from a public site ({}) and the server is {where_}. Chrome (142 and later) asks \
         first whether the site may connect to devices on your local network; if that was blocked, allow \
         \"Local network access\" in the site's settings (the icon left of the address bar) and connect \
         again, or run Loopscope on this computer (./scripts/serve). Other browsers may block it outright.",
        host(page).unwrap_or_default()
    ))
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::string_slice)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_placed_by_the_local_network_access_rules() {
        assert_eq!(distance("http://127.0.0.1:3001/mcp"), Distance::Loopback);
        assert_eq!(distance("http://localhost:8080/mcp"), Distance::Loopback);
        assert_eq!(distance("http://[::1]:3001/mcp"), Distance::Loopback);
        assert_eq!(distance("http://user:pw@192.168.1.20:3001/mcp"), Distance::Local);
        assert_eq!(distance("http://10.0.0.5/mcp"), Distance::Local);
        assert_eq!(distance("http://printer.local/mcp"), Distance::Local);
        assert_eq!(distance("http://[fd00::1]/mcp"), Distance::Local);
        assert_eq!(distance("https://mcp.example.com/mcp"), Distance::Public);
        assert_eq!(distance("https://172.32.0.1/mcp"), Distance::Public);
        assert_eq!(distance("demo://notebook/mcp"), Distance::Public);
    }

    #[test]
    fn the_hint_is_for_a_public_page_distanceing_inwards_only() {
        let hint = local_network_hint("https://me.github.io/loopscope/", "http://127.0.0.1:3001/mcp").unwrap();
        assert!(
            hint.contains("me.github.io") && hint.contains("on this computer") && hint.contains("Local network access")
        );
        let lan = local_network_hint("https://me.github.io/loopscope/", "http://192.168.1.20/mcp").unwrap();
        assert!(lan.contains("on your local network"));
        assert_eq!(local_network_hint("http://127.0.0.1:8080/", "http://127.0.0.1:3001/mcp"), None);
        assert_eq!(local_network_hint("https://me.github.io/", "https://mcp.example.com/mcp"), None);
        assert_eq!(local_network_hint("file:///tmp/index.html", "http://127.0.0.1:3001/mcp"), None);
    }
}
