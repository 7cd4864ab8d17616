//! The servers as this device keeps them (localStorage), and how two tabs share that list.
//!
//! Header values, tokens and client secrets are kept only when the user opted in for that
//! server. Two tabs of the page write the same list: a tab's save merges with what is stored
//! (keeping the servers another tab added, dropping only those this tab removed), and a change
//! another tab made is read as servers added and removed, so neither tab silently undoes the
//! other's work (issue 20).

use serde::{Deserialize, Serialize};

use super::auth::{AuthMemory, Preregistered};
use super::mcp::RevisionChoice;
use protocol::mcp::Revision;

/// What is saved of a server. Header values only when the user opted in for that server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SavedServer {
    pub url: String,
    pub label: String,
    pub header_names: Vec<String>,
    /// Kept only when the user ticked "remember on this device" for this server.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// Earlier saves said only whether there were headers.
    #[serde(skip_serializing)]
    pub had_headers: bool,
    /// The pinned protocol revision, if the user pinned one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    /// The user's own OAuth client for this server (its secret only when remembered).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client: Option<Preregistered>,
    /// Tokens and registrations, only when the user ticked "remember the sign-in".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth: Option<AuthMemory>,
}

impl SavedServer {
    /// Which server this is, across tabs: its address and label (one address may be added twice
    /// under two labels).
    pub fn key(&self) -> (&str, &str) {
        (&self.url, &self.label)
    }
}

/// A pin as saved, and back.
pub fn pin_of(choice: RevisionChoice) -> Option<String> {
    match choice {
        RevisionChoice::Auto => None,
        RevisionChoice::Pin(r) => Some(r.as_str().to_owned()),
    }
}

pub fn choice_of(saved: Option<&str>) -> RevisionChoice {
    saved.and_then(Revision::parse).map_or(RevisionChoice::Auto, RevisionChoice::Pin)
}

/// What this tab writes: its own servers, then those another tab saved that this tab neither
/// has nor removed.
pub fn merge(ours: Vec<SavedServer>, stored: &[SavedServer], removed_here: &[(String, String)]) -> Vec<SavedServer> {
    let keep: Vec<SavedServer> = stored
        .iter()
        .filter(|s| !ours.iter().any(|o| o.key() == s.key()))
        .filter(|s| !removed_here.iter().any(|(u, l)| (u.as_str(), l.as_str()) == s.key()))
        .cloned()
        .collect();
    ours.into_iter().chain(keep).collect()
}

/// What another tab changed, from the list before to the list after.
#[derive(Debug, Default, PartialEq)]
pub struct Changes {
    pub added: Vec<SavedServer>,
    pub removed: Vec<(String, String)>,
}

pub fn changes(before: &[SavedServer], after: &[SavedServer]) -> Changes {
    let added = after.iter().filter(|a| !before.iter().any(|b| b.key() == a.key())).cloned().collect();
    let removed = before
        .iter()
        .filter(|b| !after.iter().any(|a| a.key() == b.key()))
        .map(|b| (b.url.clone(), b.label.clone()))
        .collect();
    Changes { added, removed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(url: &str, label: &str) -> SavedServer {
        SavedServer { url: url.into(), label: label.into(), ..SavedServer::default() }
    }

    #[test]
    fn a_save_keeps_what_another_tab_added_and_drops_only_what_this_tab_removed() {
        let stored = [server("https://a/mcp", "a"), server("https://b/mcp", "b"), server("https://c/mcp", "c")];
        let ours = vec![server("https://a/mcp", "a"), server("https://d/mcp", "d")];
        let removed = [("https://c/mcp".to_owned(), "c".to_owned())];
        let keys: Vec<String> = merge(ours, &stored, &removed).iter().map(|s| s.label.clone()).collect();
        assert_eq!(keys, ["a", "d", "b"]);
    }

    #[test]
    fn another_tabs_change_reads_as_servers_added_and_removed() {
        let before = [server("https://a/mcp", "a"), server("https://b/mcp", "b")];
        let after = [server("https://b/mcp", "b"), server("https://a/mcp", "a2")];
        let c = changes(&before, &after);
        assert_eq!(c.added, vec![server("https://a/mcp", "a2")]);
        assert_eq!(c.removed, vec![("https://a/mcp".to_owned(), "a".to_owned())]);
    }

    #[test]
    fn a_save_from_before_still_reads() {
        let old: Vec<SavedServer> =
            serde_json::from_str(r#"[{"url":"https://a/mcp","label":"","had_headers":true,"revision":"2025-06-18"}]"#)
                .unwrap();
        assert!(old[0].had_headers);
        assert_eq!(choice_of(old[0].revision.as_deref()), RevisionChoice::Pin(Revision::parse("2025-06-18").unwrap()));
    }
}
