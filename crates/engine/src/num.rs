//! Numbers as text without core's float formatting. `format!("{x}")` or `{x:.2}` on an `f64`
//! links Rust's float printing (Grisu, Dragon4, the exact path: about 18 KB of wasm); the page
//! already carries serde_json's shortest float writer, and fixed decimals are integer arithmetic.

/// The shortest text that reads back as `x`, integers without ".0" (serde_json's writer).
pub fn shortest(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return (x as i64).to_string();
    }
    match serde_json::Number::from_f64(x) {
        Some(n) => n.to_string(),
        None if x.is_nan() => "NaN".into(),
        None => if x > 0.0 { "Infinity" } else { "-Infinity" }.into(),
    }
}

/// A whole number with thousands separated by commas: `1,000,000`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// `x` rounded to `decimals` places (at most 6), like `format!("{x:.decimals$}")`.
pub fn fixed(x: f64, decimals: u32) -> String {
    let decimals = decimals.min(6);
    let scale = 10i64.pow(decimals);
    let scaled = (x * scale as f64).round();
    if !scaled.is_finite() || scaled.abs() >= 9e15 {
        return shortest(x);
    }
    let n = scaled as i64;
    let sign = if n < 0 { "-" } else { "" };
    let (whole, frac) = (n.unsigned_abs() / scale as u64, n.unsigned_abs() % scale as u64);
    if decimals == 0 {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{frac:0width$}", width = decimals as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grouped_separates_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(128_000), "128,000");
        assert_eq!(grouped(1_000_000), "1,000,000");
    }

    #[test]
    fn shortest_reads_back_and_drops_a_trailing_zero() {
        for x in [0.0, 391.0, -7.0, 0.5, 0.1 + 0.2, 1.0 / 3.0, 58.333333333333336, 1e21, 2.5e-8, -1234.5678] {
            let text = shortest(x);
            assert_eq!(text.parse::<f64>().unwrap(), x, "{text}");
        }
        assert_eq!(shortest(391.0), "391");
        assert_eq!(shortest(0.5), "0.5");
        assert_eq!(shortest(0.1 + 0.2), "0.30000000000000004");
        assert_eq!(shortest(f64::NAN), "NaN");
    }

    #[test]
    fn fixed_matches_rusts_formatting() {
        for x in [0.0, 0.004, 0.006, 0.125, 1.5, 26.66, 999.4, 999.5, 1234.5678, -0.3, -12.345] {
            for d in 0..=3 {
                let expected = format!("{x:.*}", d as usize);
                if expected.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
                    assert!(!fixed(x, d).starts_with('-'), "no negative zero");
                    continue;
                }
                // Rust rounds half to even on the exact binary value; both agree away from ties.
                if (x * 10f64.powi(d as i32)).fract().abs() != 0.5 {
                    assert_eq!(fixed(x, d), expected, "{x} to {d}");
                }
            }
        }
        assert_eq!(fixed(0.125, 2), "0.13");
        assert_eq!(fixed(-0.004, 2), "0.00");
    }
}
