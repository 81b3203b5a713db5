//! Kubernetes versions: `1.33.13` or `v1.33.13`, printed in either form.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A Kubernetes release version, `major.minor.patch`.
///
/// ```
/// use cks_pinning::version::KubeVersion;
/// let version: KubeVersion = "v1.33.13".parse().expect("valid version");
/// assert_eq!(version.to_string(), "1.33.13");
/// assert_eq!(version.with_v(), "v1.33.13");
/// assert_eq!(version.minor_line(), "1.33");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KubeVersion {
    /// The major number (1 for every Kubernetes release so far).
    pub major: u64,
    /// The minor number.
    pub minor: u64,
    /// The patch number.
    pub patch: u64,
}

/// Why a text is not a Kubernetes version.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VersionError {
    /// The text is not `[v]<major>.<minor>.<patch>` with decimal numbers.
    #[error(
        "{input:?} is not a Kubernetes version; expected `<major>.<minor>.<patch>` such as `1.33.13` or `v1.33.13`"
    )]
    Malformed {
        /// The text given.
        input: String,
    },
}

impl KubeVersion {
    /// Parses `1.33.13` or `v1.33.13`; anything else (prereleases, two parts, leading zeros,
    /// spaces) is refused with an error naming the input.
    pub fn parse(text: &str) -> Result<KubeVersion, VersionError> {
        parse_triple(text.strip_prefix('v').unwrap_or(text))
            .map(|(major, minor, patch)| KubeVersion {
                major,
                minor,
                patch,
            })
            .ok_or_else(|| VersionError::Malformed {
                input: text.to_string(),
            })
    }

    /// The version with a leading `v`, as release tags and download URLs spell it.
    pub fn with_v(&self) -> String {
        format!("v{self}")
    }

    /// `major.minor`, the release line that picks the autoscaler.
    pub fn minor_line(&self) -> String {
        format!("{}.{}", self.major, self.minor)
    }

    /// Whether `other` belongs to the same `major.minor` line.
    pub fn same_minor(&self, other: &KubeVersion) -> bool {
        self.major == other.major && self.minor == other.minor
    }
}

/// Parses `<n>.<n>.<n>` with plain decimal numbers (no sign, no leading zero except `0`).
pub(crate) fn parse_triple(text: &str) -> Option<(u64, u64, u64)> {
    let mut parts = text.split('.');
    let mut number = || -> Option<u64> {
        let part = parts.next()?;
        let plain = !part.is_empty()
            && part.bytes().all(|b| b.is_ascii_digit())
            && (part == "0" || !part.starts_with('0'));
        if plain { part.parse().ok() } else { None }
    };
    let triple = (number()?, number()?, number()?);
    parts.next().is_none().then_some(triple)
}

impl fmt::Display for KubeVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

impl FromStr for KubeVersion {
    type Err = VersionError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        KubeVersion::parse(text)
    }
}

impl serde::Serialize for KubeVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for KubeVersion {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        KubeVersion::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_both_spellings_and_prints_both_forms() {
        for text in ["1.33.13", "v1.33.13"] {
            let version = KubeVersion::parse(text).expect("valid version");
            assert_eq!(
                version,
                KubeVersion {
                    major: 1,
                    minor: 33,
                    patch: 13
                }
            );
            assert_eq!(version.to_string(), "1.33.13");
            assert_eq!(version.with_v(), "v1.33.13");
        }
    }

    #[test]
    fn refuses_anything_else_naming_the_input() {
        for text in [
            "",
            "1.33",
            "1.33.13.1",
            "V1.33.13",
            "vv1.33.13",
            "1.33.x",
            " 1.33.13",
            "1.33.13 ",
            "1.033.1",
            "1.33.-1",
            "1.33.13-rc.1",
            "v",
            "1..3",
            "+1.2.3",
        ] {
            let error = KubeVersion::parse(text).expect_err(text);
            assert!(
                error.to_string().contains(&format!("{text:?}")),
                "{error} names {text:?}"
            );
        }
    }

    #[test]
    fn same_minor_compares_the_release_line_only() {
        let v = |text| KubeVersion::parse(text).expect("valid");
        assert!(v("1.33.2").same_minor(&v("1.33.13")));
        assert!(!v("1.33.2").same_minor(&v("1.32.2")));
        assert!(!v("1.33.2").same_minor(&v("2.33.2")));
    }

    #[test]
    fn orders_numerically() {
        let a = KubeVersion::parse("1.9.0").expect("valid");
        let b = KubeVersion::parse("1.10.0").expect("valid");
        assert!(a < b);
    }
}
