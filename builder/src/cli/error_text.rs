//! A failure as the one line `cks-iso: error: …` shows: the chain of causes from the user's
//! action down, each cause once.

/// `error` and its causes joined by `: `, as `{:#}` does, with a cause left out when the text
/// before it already holds it (errors that show their source and also return it from
/// `source()` would otherwise appear twice or more).
pub fn error_text(error: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if parts.last().is_some_and(|last| last.contains(&text)) {
            continue;
        }
        parts.push(text);
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("writing /o/x: {0}")]
    struct Writing(#[source] std::io::Error);

    #[test]
    fn a_cause_its_caller_already_shows_appears_once() {
        let io = std::io::Error::from_raw_os_error(27);
        let error = anyhow::Error::new(Writing(io)).context("the build failed");
        assert_eq!(
            error_text(&error),
            "the build failed: writing /o/x: File too large (os error 27)"
        );
    }
}
