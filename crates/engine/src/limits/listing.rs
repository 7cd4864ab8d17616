//! A budget over a whole listing. A paginated `*/list` (tools, resources, templates, prompts,
//! skills) or the Models API hands out one page at a time, each within the body limit; a server
//! that keeps handing out cursors would otherwise grow the page's memory a page at a time until
//! the tab dies. Every page counts against one budget — pages, items and bytes — spent as each
//! page arrives, before it is kept.

use serde_json::Value;

use super::{Limit, LimitExceeded, Limits};

/// At most this many pages in one listing.
pub const LISTING_PAGES: usize = 100;
/// At most this many items in one listing: far more than any tools array Claude can use.
pub const LISTING_ITEMS: usize = 10_000;

/// What one listing has spent so far.
#[derive(Debug)]
pub struct ListingBudget {
    pages: usize,
    items: usize,
    bytes: usize,
    /// A whole listing may be as large as one response body (`Limits::body_bytes`).
    max_bytes: usize,
}

impl ListingBudget {
    pub fn new(limits: &Limits) -> Self {
        ListingBudget { pages: 0, items: 0, bytes: 0, max_bytes: limits.body_bytes }
    }

    /// One page arrived with `items`: counted, or the limit it goes past.
    pub fn spend(&mut self, items: &[Value]) -> Result<(), LimitExceeded> {
        self.pages += 1;
        if self.pages > LISTING_PAGES {
            return Err(LimitExceeded::new(Limit::ListingPages, LISTING_PAGES));
        }
        self.items = self.items.saturating_add(items.len());
        if self.items > LISTING_ITEMS {
            return Err(LimitExceeded::new(Limit::ListingItems, LISTING_ITEMS));
        }
        self.spend_bytes(items.iter().map(json_len).sum())
    }

    /// Bytes of a page counted where its text is at hand (the Models API).
    pub fn spend_bytes(&mut self, bytes: usize) -> Result<(), LimitExceeded> {
        self.bytes = self.bytes.saturating_add(bytes);
        if self.bytes > self.max_bytes {
            return Err(LimitExceeded::new(Limit::ListingBytes, self.max_bytes));
        }
        Ok(())
    }
}

/// About the length of a value written as compact JSON: its strings and keys (without the bytes
/// escaping would add) and its punctuation, numbers counted as 8. Counted by walking the value,
/// not by writing it: a serializer for another writer would cost the page a copy of serde_json's
/// (docs/size.md), and the budget needs the order of magnitude, not the last byte.
fn json_len(value: &Value) -> usize {
    match value {
        Value::Null | Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() + 2,
        Value::Array(items) => items.iter().map(|v| json_len(v) + 1).fold(2, usize::saturating_add),
        Value::Object(fields) => fields.iter().map(|(k, v)| k.len() + 4 + json_len(v)).fold(2, usize::saturating_add),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pages_items_and_bytes_each_end_a_listing() {
        let limits = Limits { body_bytes: 1000, ..Limits::default() };
        let mut pages = ListingBudget::new(&limits);
        for _ in 0..LISTING_PAGES {
            assert!(pages.spend(&[]).is_ok());
        }
        assert_eq!(pages.spend(&[]), Err(LimitExceeded::new(Limit::ListingPages, LISTING_PAGES)));

        let mut items = ListingBudget::new(&Limits::default());
        let page = vec![json!(1); LISTING_ITEMS / 2];
        assert!(items.spend(&page).is_ok() && items.spend(&page).is_ok());
        assert_eq!(items.spend(&[json!(1)]), Err(LimitExceeded::new(Limit::ListingItems, LISTING_ITEMS)));

        // 3 pages of 400 bytes: the third goes past 1,000 bytes, although each page is small.
        let mut bytes = ListingBudget::new(&limits);
        let page = [json!("x".repeat(398))];
        assert_eq!(json_len(&page[0]), 400);
        assert!(bytes.spend(&page).is_ok() && bytes.spend(&page).is_ok());
        assert_eq!(bytes.spend(&page), Err(LimitExceeded::new(Limit::ListingBytes, 1000)));
    }
}
