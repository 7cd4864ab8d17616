//! Rows for what the page itself does around the wire: each authorization step, and the
//! faults a workshop injected.

use super::*;

impl Timeline {
    /// An injected fault: a badge on the request it answers for, or (Claude's side) a note.
    pub(super) fn on_injected(
        &mut self,
        e: &TraceEvent,
        lane: Lane,
        exchange: Option<u64>,
        fault: &Fault,
        detail: Option<&str>,
    ) -> usize {
        match exchange.and_then(|x| self.exchanges.get(&x)).and_then(|x| x.request) {
            Some(row) => {
                self.attach(row, e.seq);
                self.badge(row, BadgeKind::Injected, "injected", false);
                row
            }
            None => {
                let row = self.add(
                    e,
                    RowKind::Note { lane },
                    format!("injected: {}", fault.describe()),
                    detail.unwrap_or(""),
                );
                self.badge(row, BadgeKind::Injected, "injected", false);
                row
            }
        }
    }

    pub(super) fn on_auth(&mut self, e: &TraceEvent, lane: Lane, step: &AuthStep) -> usize {
        match step {
            AuthStep::Challenged { status, scope, error } => {
                let label = if *status == 403 { "403: more scope needed" } else { "401: sign-in needed" };
                let detail = scope.as_ref().map(|s| format!("scope {s}")).or_else(|| error.clone()).unwrap_or_default();
                self.add(e, RowKind::Note { lane }, label, detail)
            }
            AuthStep::SignIn { url, scope } => {
                let detail = scope.as_ref().map_or_else(|| short(url, 60), |s| format!("scope {s}"));
                let row = self.add(e, arrow(Lane::Client, lane), "sign-in page: your turn", detail);
                self.badge(row, BadgeKind::Info, "browser", false);
                row
            }
            AuthStep::Returned { accepted, detail } => {
                let row = self.add(e, arrow(lane, Lane::Client), "redirect back", short(detail, 80));
                if !accepted {
                    self.badge(row, BadgeKind::Failure, "refused", true);
                }
                row
            }
            AuthStep::Granted { scopes, expires_in_s, refreshable } => {
                let scopes = if scopes.is_empty() { "no scope".to_owned() } else { scopes.join(" ") };
                let expiry = expires_in_s.map(|s| format!(" · expires in {} s", shortest(s))).unwrap_or_default();
                let refresh = if *refreshable { " · refreshable" } else { "" };
                self.add(e, RowKind::Note { lane }, "signed in", format!("{scopes}{expiry}{refresh}"))
            }
            AuthStep::Failed { failure } => {
                let row = self.add(e, RowKind::Note { lane }, "authorization failed", short(&failure.message, 100));
                self.badge(row, BadgeKind::Failure, failure.layer.label(), true);
                row
            }
            AuthStep::SignedOut => self.add(e, RowKind::Note { lane }, "signed out", "tokens forgotten"),
        }
    }
}
