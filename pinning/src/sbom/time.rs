//! Seconds since 1970 as the UTC timestamp SPDX wants (`2025-01-02T03:04:05Z`), with no clock.

/// Formats `seconds` (Unix time, UTC) as `YYYY-MM-DDThh:mm:ssZ`; a time beyond jiff's range
/// (years -9999 to 9999) is written as the nearest one within it.
pub fn rfc3339(seconds: i64) -> String {
    let bound = if seconds < 0 {
        jiff::Timestamp::MIN
    } else {
        jiff::Timestamp::MAX
    };
    jiff::Timestamp::from_second(seconds)
        .unwrap_or(bound)
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }
}
