//! Calendar arithmetic the engine needs without a date crate: HTTP dates (`retry-after`) and
//! ISO 8601 timestamps (the local time tool). Proleptic Gregorian, UTC.

/// Days since 1970-01-01 of a date (Howard Hinnant's `days_from_civil`).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { yoe + era * 400 + 1 } else { yoe + era * 400 }, m, d)
}

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const WEEKDAYS: [&str; 7] = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"];

/// Parses an IMF-fixdate ("Wed, 21 Oct 2015 07:28:00 GMT") to Unix milliseconds.
pub fn parse_http_date(s: &str) -> Option<f64> {
    let parts: Vec<&str> = s.split_whitespace().collect();
    let [_, day, month, year, time, "GMT"] = parts.as_slice() else { return None };
    let month = MONTHS.iter().position(|m| m == month)? as i64 + 1;
    let (day, year): (i64, i64) = (day.parse().ok()?, year.parse().ok()?);
    let hms: Vec<i64> = time.split(':').map(|p| p.parse().ok()).collect::<Option<_>>()?;
    let [h, m, sec] = hms.as_slice() else { return None };
    Some(((days_from_civil(year, month, day) * 86_400 + h * 3_600 + m * 60 + sec) * 1_000) as f64)
}

/// `2026-12-02T12:34:56+09:00` and the weekday, for `unix_ms` shifted by `offset_minutes`.
pub fn format_iso(unix_ms: f64, offset_minutes: i64) -> (String, &'static str) {
    let secs = (unix_ms / 1000.0).floor() as i64 + offset_minutes * 60;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let off = offset_minutes.abs();
    let zone = if offset_minutes == 0 { "Z".to_owned() } else { format!("{sign}{:02}:{:02}", off / 60, off % 60) };
    let text = format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}{zone}", rem / 3600, rem % 3600 / 60, rem % 60);
    (text, WEEKDAYS[days.rem_euclid(7) as usize])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_dates() {
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0.0));
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(784_111_777_000.0));
        assert_eq!(parse_http_date("yesterday"), None);
    }

    #[test]
    fn iso_timestamps_round_trip_through_days() {
        for days in [-800_000, -1, 0, 1, 19_000, 20_789, 2_000_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(format_iso(784_111_777_000.0, 0), ("1994-11-06T08:49:37Z".to_owned(), "Sunday"));
        assert_eq!(format_iso(784_111_777_000.0, 9 * 60).0, "1994-11-06T17:49:37+09:00");
        assert_eq!(format_iso(0.0, -90), ("1969-12-31T22:30:00-01:30".to_owned(), "Wednesday"));
    }
}
