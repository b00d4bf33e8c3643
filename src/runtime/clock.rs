//! Time as the runtime stores and shows it: integer microseconds since the
//! Unix epoch in storage (exact comparison, no float or text ordering), and
//! RFC3339 UTC with exactly six fractional digits on the wire, e.g.
//! `2026-11-30T09:15:00.123456Z`. Input times may carry any offset.

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

pub fn now() -> i64 {
    micros(OffsetDateTime::now_utc())
}

/// A change time: `now`, the mutation's one time, unless `previous` is not
/// earlier (a clock that stood still or went back); then strictly after it,
/// since `updated_at` must move on every change.
pub fn after(previous: i64, now: i64) -> i64 {
    now.max(previous.saturating_add(1))
}

fn micros(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX)
}

pub fn format(micros: i64) -> String {
    let at = OffsetDateTime::from_unix_timestamp_nanos(i128::from(micros) * 1_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.microsecond()
    )
}

/// Parses an RFC3339 time with any offset (`Z`, `+02:00`, …) to
/// microseconds since the epoch in UTC, truncating finer digits, so a
/// caller echoing `updated_at` back compares equal to the stored instant.
pub fn parse(text: &str) -> Option<i64> {
    OffsetDateTime::parse(text, &Rfc3339).ok().map(micros)
}

/// Whether an RFC3339 time carries at least microsecond precision (six or
/// more fractional digits), as every time the runtime shows does. A shorter
/// one was cut from a shown time or written by hand, and can name the
/// stored instant only by chance.
pub fn is_exact(text: &str) -> bool {
    let fraction = text.split_once('.').map_or("", |(_, rest)| rest);
    fraction.bytes().take_while(u8::is_ascii_digit).count() >= 6
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_and_parses_microseconds() {
        let t = parse("2026-11-30T09:15:00.123456Z").unwrap();
        assert_eq!(format(t), "2026-11-30T09:15:00.123456Z");
        assert_eq!(parse("2026-11-30T09:15:00.1234569Z"), Some(t));
        assert_eq!(
            format(parse("2026-11-30T09:15:00Z").unwrap()),
            "2026-11-30T09:15:00.000000Z"
        );
        assert_eq!(parse("2026-13-30T09:15:00Z"), None);
        // Any offset names the same instant in UTC.
        assert_eq!(parse("2026-11-30T11:15:00.123456+02:00"), Some(t));
        assert_eq!(parse("2026-11-30T04:45:00.123456-04:30"), Some(t));
        // RFC 3339 §5.6: `t` and `z` in lower case are the same time.
        assert_eq!(parse("2026-11-30t09:15:00.123456z"), Some(t));
        assert!(is_exact("2026-11-30T09:15:00.123456Z"));
        assert!(is_exact("2026-11-30T11:15:00.1234567+02:00"));
        assert!(!is_exact("2026-11-30T09:15:00Z"));
        assert!(!is_exact("2026-11-30T09:15:00.123+02:00"));
        assert!(after(i64::MAX - 1, 5) == i64::MAX);
        let now = now();
        assert!(after(now + 10, now) == now + 11);
        assert!(after(now - 10, now) == now);
    }
}
