//! URLs the build records may carry no password: a login belongs on a mirror, where it is sent
//! and never written.

use super::error::OptionsError;

/// Where a manifest URL's login belongs instead of the URL itself.
pub(super) const MIRROR_LOGIN: &str = "give the URL without it and the login on a mirror of it, \
     --mirror https://HOST=https://USER:PASSWORD@HOST";

/// Refuses a URL that carries a password: the URL is recorded (versions.txt, the lock,
/// `--json`), and a password belongs only where it is sent, never where it is written.
pub(super) fn no_password(
    url: &Option<String>,
    input: &str,
    instead: &str,
) -> Result<(), OptionsError> {
    let Some(url) = url else {
        return Ok(());
    };
    let redacted = crate::redact::passwords(url);
    if redacted == url.as_str() {
        return Ok(());
    }
    Err(OptionsError::Invalid {
        input: input.into(),
        value: redacted.into_owned(),
        expected: format!(
            "a URL with a password would be written where the build records it; {instead}"
        ),
    })
}
