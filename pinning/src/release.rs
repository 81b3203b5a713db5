//! Release versions of the bundled tools (CNI plugins, crictl, etcd, the CSI driver): `1.6.2`
//! or `v1.6.2`, a pre-release suffix allowed, kept without the `v` and printed either way.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A tool's release version, `major.minor.patch` with an optional `-pre`/`+build` suffix.
///
/// ```
/// use cks_pinning::release::{ReleaseVersion, bare};
/// let cni: ReleaseVersion = "v1.6.2".parse().expect("valid version");
/// assert_eq!((cni.bare(), cni.tag()), ("1.6.2", "v1.6.2".to_string()));
/// assert!(ReleaseVersion::parse("latest").is_err());
/// assert_eq!(bare("v1.33.13"), "1.33.13");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReleaseVersion {
    bare: String,
}

/// Why a text is not a release version.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{input:?} is not a release version; expected one such as 1.6.2 or v1.6.2")]
pub struct ReleaseVersionError {
    /// The text given.
    pub input: String,
}

/// `1.33.13` and `v1.33.13` both give `1.33.13`.
pub fn bare(version: &str) -> &str {
    version.strip_prefix('v').unwrap_or(version)
}

impl ReleaseVersion {
    /// Parses `1.6.2` or `v1.6.2` (three decimal numbers, then an optional suffix of letters,
    /// digits, `-`, `+` and `.`); anything else is refused with an error naming the input.
    pub fn parse(text: &str) -> Result<ReleaseVersion, ReleaseVersionError> {
        let version = bare(text);
        let core = version.split(['-', '+']).next().unwrap_or("");
        let parts: Vec<&str> = core.split('.').collect();
        let numeric = parts.len() == 3
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
        let safe = version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-+.".contains(&b));
        if numeric && safe {
            Ok(ReleaseVersion {
                bare: version.to_string(),
            })
        } else {
            Err(ReleaseVersionError {
                input: text.to_string(),
            })
        }
    }

    /// The version without `v`, as asset names and `versions.txt` spell it.
    pub fn bare(&self) -> &str {
        &self.bare
    }

    /// The version with `v`, as release tags spell it.
    pub fn tag(&self) -> String {
        format!("v{}", self.bare)
    }
}

impl fmt::Display for ReleaseVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.bare)
    }
}

impl FromStr for ReleaseVersion {
    type Err = ReleaseVersionError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ReleaseVersion::parse(text)
    }
}

impl serde::Serialize for ReleaseVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for ReleaseVersion {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ReleaseVersion::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_both_spellings_and_a_suffix() {
        for text in ["1.6.2", "v1.6.2"] {
            let version = ReleaseVersion::parse(text).expect("valid version");
            assert_eq!(version.bare(), "1.6.2");
            assert_eq!(version.tag(), "v1.6.2");
        }
        assert_eq!(
            ReleaseVersion::parse("v3.6.0-rc.1")
                .expect("pre-release")
                .bare(),
            "3.6.0-rc.1"
        );
    }

    #[test]
    fn refuses_anything_else_naming_the_input() {
        for text in [
            "latest", "1.6", "1.33.0/x", "3.5", "", "v", "1.6.x", "1.6.2 ",
        ] {
            let error = ReleaseVersion::parse(text).expect_err(text);
            assert!(error.to_string().contains(&format!("{text:?}")), "{error}");
        }
    }
}
