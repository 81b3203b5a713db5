//! RFC 3339 timestamps (`2022-12-31T23:59:59.999Z`) of trusted roots, as seconds since 1970.

/// Parses a UTC timestamp; fractions of a second are dropped, offsets other than `Z` refused.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    if !(text.ends_with('Z') || text.ends_with("+00:00")) || !text.contains('T') {
        return None;
    }
    text.parse::<jiff::Timestamp>().ok().map(|t| t.as_second())
}

#[cfg(test)]
mod tests {
    use super::parse_rfc3339;

    #[test]
    fn parses_trusted_root_times() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339("2023-11-14T22:13:20Z"), Some(1_700_000_000));
        assert_eq!(
            parse_rfc3339("2022-12-31T23:59:59.999Z"),
            Some(1_672_531_199)
        );
        assert_eq!(parse_rfc3339("2022-12-31T23:59:59+02:00"), None);
        assert_eq!(parse_rfc3339("yesterday"), None);
    }
}
