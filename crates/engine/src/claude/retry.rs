//! When and how long to wait before retrying a Messages request, as the official SDKs do
//! obey `x-should-retry`; otherwise retry 408, 409, 429 and 5xx (and connection
//! failures); wait `retry-after-ms`, else `retry-after` (seconds or an HTTP date), else
//! `min(0.5 · 2ⁿ, 8)` s with 0–25 % jitter off.

use crate::platform::Headers;
use crate::time::parse_http_date;

pub const DEFAULT_MAX_RETRIES: u32 = 2;

pub fn should_retry(status: u16, headers: &Headers) -> bool {
    match headers.get("x-should-retry") {
        Some("true") => return true,
        Some("false") => return false,
        _ => {}
    }
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// The HTTP status an in-stream error type stands for, to apply the same policy.
pub fn status_of_error_type(kind: &str) -> u16 {
    match kind {
        "overloaded_error" => 529,
        "api_error" => 500,
        "rate_limit_error" => 429,
        "timeout_error" => 504,
        "request_too_large" => 413,
        "permission_error" => 403,
        "authentication_error" => 401,
        _ => 400,
    }
}

/// Milliseconds to wait before retry number `retries_done + 1`.
pub fn delay_ms(retries_done: u32, headers: &Headers, now_ms: f64, random: f64) -> u64 {
    if let Some(ms) = headers.get("retry-after-ms").and_then(|v| v.trim().parse::<f64>().ok())
        && (0.0..60_000.0).contains(&ms)
    {
        return ms as u64;
    }
    if let Some(v) = headers.get("retry-after") {
        let ms = match v.trim().parse::<f64>() {
            Ok(seconds) => Some(seconds * 1000.0),
            Err(_) => parse_http_date(v).map(|at| at - now_ms),
        };
        if let Some(ms) = ms.filter(|ms| (0.0..60_000.0).contains(ms)) {
            return ms as u64;
        }
    }
    let base = (0.5 * 2f64.powi(retries_done as i32)).min(8.0);
    (base * (1.0 - 0.25 * random) * 1000.0) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_statuses_are_retried_a15() {
        let none = Headers::new();
        for s in [408, 409, 429, 500, 502, 504, 529] {
            assert!(should_retry(s, &none), "{s}");
        }
        for s in [400, 401, 402, 403, 404, 413] {
            assert!(!should_retry(s, &none), "{s}");
        }
        assert!(!should_retry(529, &Headers::new().with("x-should-retry", "false")));
        assert!(should_retry(400, &Headers::new().with("x-should-retry", "true")));
    }

    #[test]
    fn delays_follow_headers_then_backoff_a15() {
        let h = Headers::new().with("retry-after-ms", "1500").with("retry-after", "9");
        assert_eq!(delay_ms(0, &h, 0.0, 0.0), 1500);
        assert_eq!(delay_ms(0, &Headers::new().with("retry-after", "2"), 0.0, 0.0), 2000);
        let now = parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        let date = Headers::new().with("retry-after", "Wed, 21 Oct 2015 07:28:03 GMT");
        assert_eq!(delay_ms(0, &date, now, 0.0), 3000);
        // Unreasonable values fall back to backoff: 0.5 s, 1 s, 2 s … capped at 8 s, minus jitter.
        let silly = Headers::new().with("retry-after", "3600");
        assert_eq!(delay_ms(0, &silly, 0.0, 0.0), 500);
        assert_eq!(delay_ms(1, &Headers::new(), 0.0, 0.0), 1000);
        assert_eq!(delay_ms(10, &Headers::new(), 0.0, 0.0), 8000);
        assert_eq!(delay_ms(10, &Headers::new(), 0.0, 1.0), 6000);
    }
}
