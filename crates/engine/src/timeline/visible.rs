//! Which rows the timeline shows when the user folds phases away, and the words for a row's
//! duration.

use super::{BadgeKind, Lane, Row, RowKind};
use crate::num::fixed;

/// A phase band, as the user folds it: (phase, round) of the turn that starts at `turn`
/// (the row of its first phase-1 band). A later turn's band of the same phase and round is
/// another band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BandKey {
    pub phase: u8,
    pub iteration: u32,
    pub turn: usize,
}

/// The key of the band row at `index`, if that row is a band.
pub fn band_key(rows: &[Row], index: usize) -> Option<BandKey> {
    let RowKind::Band { phase, iteration } = rows.get(index)?.kind else { return None };
    let turn = rows
        .iter()
        .take(index + 1)
        .rposition(|r| matches!(r.kind, RowKind::Band { phase: 1, iteration: 1 }))
        .unwrap_or(0);
    Some(BandKey { phase, iteration, turn })
}

/// The rows that show: every band header, every row outside a phase, and the rows of the bands
/// that are not folded.
pub fn visible(rows: &[Row], folded: &[BandKey]) -> Vec<usize> {
    let mut out = Vec::with_capacity(rows.len());
    let mut hidden = false;
    let mut turn = 0;
    for r in rows {
        match r.kind {
            RowKind::Band { phase, iteration } => {
                if phase == 1 && iteration == 1 {
                    turn = r.index;
                }
                hidden = folded.contains(&BandKey { phase, iteration, turn });
                out.push(r.index);
            }
            _ if r.phase.is_none() => {
                hidden = false;
                out.push(r.index);
            }
            _ if !hidden => out.push(r.index),
            _ => {}
        }
    }
    out
}

/// A duration as the timeline writes it: "0.25 ms", "12 ms", "1.50 s".
/// Where `lane` runs across the timeline, in percent of its width (the middle of its column);
/// a lane not drawn (yet) is at the first column.
pub fn lane_position(lanes: &[Lane], lane: &Lane) -> f64 {
    let n = lanes.len().max(1) as f64;
    let i = lanes.iter().position(|l| l == lane).unwrap_or(0) as f64;
    (i + 0.5) / n * 100.0
}

pub fn duration_words(ms: f64) -> String {
    if ms < 1.0 {
        format!("{} ms", fixed(ms, 2))
    } else if ms < 1000.0 {
        format!("{} ms", fixed(ms, 0))
    } else {
        format!("{} s", fixed(ms / 1000.0, 2))
    }
}

impl BadgeKind {
    /// The badge's style name.
    pub fn class(self) -> &'static str {
        match self {
            BadgeKind::Http => "badge http",
            BadgeKind::JsonRpc => "badge jsonrpc",
            BadgeKind::ToolError => "badge tool",
            BadgeKind::Network => "badge network",
            BadgeKind::Failure => "badge failure",
            BadgeKind::Info => "badge info",
            BadgeKind::Injected => "badge injected",
            BadgeKind::Edited => "badge edited",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::Lane;

    fn row(index: usize, kind: RowKind, phase: Option<(u8, u32)>) -> Row {
        Row {
            index,
            kind,
            at_ms: 0.0,
            label: String::new(),
            detail: String::new(),
            phase,
            badges: vec![],
            duration_ms: None,
            events: vec![],
            tool_use_id: None,
            failed: false,
        }
    }

    fn band(index: usize, phase: u8, iteration: u32) -> Row {
        row(index, RowKind::Band { phase, iteration }, Some((phase, iteration)))
    }

    fn arrow(index: usize, phase: Option<(u8, u32)>) -> Row {
        row(index, RowKind::Arrow { from: Lane::Client, to: Lane::Claude }, phase)
    }

    /// Two turns, each with phases 1 and 2 of round 1, and a row between them outside any phase.
    fn two_turns() -> Vec<Row> {
        vec![
            band(0, 1, 1),
            arrow(1, Some((1, 1))),
            band(2, 2, 1),
            arrow(3, Some((2, 1))),
            arrow(4, None),
            band(5, 1, 1),
            arrow(6, Some((1, 1))),
            band(7, 2, 1),
            arrow(8, Some((2, 1))),
        ]
    }

    #[test]
    fn folding_a_band_hides_its_rows_in_its_own_turn_only() {
        let rows = two_turns();
        assert_eq!(visible(&rows, &[]), (0..9).collect::<Vec<_>>());
        let second_phase_2 = band_key(&rows, 7).expect("a band");
        assert_eq!(second_phase_2, BandKey { phase: 2, iteration: 1, turn: 5 });
        assert_eq!(visible(&rows, &[second_phase_2]), [0, 1, 2, 3, 4, 5, 6, 7]);
        let first_phase_1 = band_key(&rows, 0).expect("a band");
        assert_eq!(visible(&rows, &[first_phase_1]), [0, 2, 3, 4, 5, 6, 7, 8], "the header stays, to unfold it");
        assert_eq!(band_key(&rows, 1), None, "an arrow is not a band");
        assert_eq!(band_key(&rows, 99), None);
    }

    #[test]
    fn a_row_outside_any_phase_shows_even_after_a_folded_band() {
        let rows = two_turns();
        let first_phase_2 = band_key(&rows, 2).expect("a band");
        assert_eq!(visible(&rows, &[first_phase_2]), [0, 1, 2, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn durations_read_at_their_scale() {
        assert_eq!(duration_words(0.25), "0.25 ms");
        assert_eq!(duration_words(12.4), "12 ms");
        assert_eq!(duration_words(1500.0), "1.50 s");
    }
}
