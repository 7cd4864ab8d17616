//! The streaming event sequence: `message_start`, then per block `content_block_start`,
//! `content_block_delta`*, `content_block_stop`, then `message_delta` and `message_stop`, with
//! `ping` anywhere and `error` possibly after HTTP 200. Events are read as JSON and matched on
//! their `type`, so unknown events, blocks and deltas pass through untouched.

use serde::{Deserialize, Serialize};

/// Token counters. In a stream they are cumulative: each report replaces the last.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_creation_input_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_read_input_tokens: Option<u64>,
}

impl Usage {
    /// Overwrites the counters `newer` reports (A-09: never add).
    pub fn update(&mut self, newer: &Usage) {
        if newer.input_tokens > 0 {
            self.input_tokens = newer.input_tokens;
        }
        self.output_tokens = newer.output_tokens;
        if newer.cache_creation_input_tokens.is_some() {
            self.cache_creation_input_tokens = newer.cache_creation_input_tokens;
        }
        if newer.cache_read_input_tokens.is_some() {
            self.cache_read_input_tokens = newer.cache_read_input_tokens;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_overwrites_never_adds_a09() {
        let mut u = Usage { input_tokens: 10, output_tokens: 1, ..Default::default() };
        u.update(&Usage { output_tokens: 7, ..Default::default() });
        u.update(&Usage { output_tokens: 9, ..Default::default() });
        assert_eq!((u.input_tokens, u.output_tokens), (10, 9));
    }
}
