//! A requested Kubernetes version: an exact `1.33.13`, a minor `1.33` (its newest patch, from the
//! release server's `release/stable-1.33.txt`) or `stable` (`release/stable.txt`), and the rules
//! that turn the release server's answer into a [`KubeVersion`].

use std::fmt;

use thiserror::Error;

use crate::version::{KubeVersion, parse_triple};

/// What `KUBERNETES_VERSION` asks for.
///
/// ```
/// use cks_pinning::kube_request::KubeRequest;
/// let minor = KubeRequest::parse("1.33").expect("a minor");
/// assert_eq!(minor.marker_path().as_deref(), Some("release/stable-1.33.txt"));
/// assert_eq!(minor.accept("v1.33.13\n").expect("a patch").to_string(), "1.33.13");
/// assert!(minor.accept("<html>").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KubeRequest {
    /// One release, nothing to resolve.
    Exact(KubeVersion),
    /// The newest patch of `major.minor`.
    Minor {
        /// The major number.
        major: u64,
        /// The minor number.
        minor: u64,
    },
    /// The newest stable release.
    Stable,
}

/// Why a text is not a requested Kubernetes version.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "{input:?} is not a Kubernetes version; expected `<major>.<minor>.<patch>` (`1.33.13`), a minor (`1.33`, its newest patch) or `stable`"
)]
pub struct RequestError {
    /// The text given.
    pub input: String,
}

/// Why the release server's answer is not the version asked for.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AnswerError {
    /// The answer is not one line `v<major>.<minor>.<patch>`.
    #[error("the answer is not a Kubernetes version (`v1.33.13`): it begins {start:?}")]
    NotAVersion {
        /// The answer's first characters.
        start: String,
    },
    /// The answer names a release of another minor.
    #[error("the answer names {got}, not a release of {asked}")]
    OtherMinor {
        /// The minor asked for.
        asked: String,
        /// The version named.
        got: KubeVersion,
    },
}

/// How many characters of a bad answer an error shows.
const SHOWN: usize = 40;

impl KubeRequest {
    /// Parses `1.33.13`/`v1.33.13`, `1.33`/`v1.33` or `stable`.
    pub fn parse(text: &str) -> Result<KubeRequest, RequestError> {
        if text == "stable" {
            return Ok(KubeRequest::Stable);
        }
        if let Ok(version) = KubeVersion::parse(text) {
            return Ok(KubeRequest::Exact(version));
        }
        let bare = text.strip_prefix('v').unwrap_or(text);
        // `1.33` is `1.33.0` without its patch: parsed by the same number rules.
        match bare.matches('.').count() {
            1 => parse_triple(&format!("{bare}.0"))
                .map(|(major, minor, _)| KubeRequest::Minor { major, minor }),
            _ => None,
        }
        .ok_or_else(|| RequestError {
            input: text.to_string(),
        })
    }

    /// The path below the release server's base (`https://dl.k8s.io/`) whose answer resolves
    /// this request; `None` for an exact version.
    pub fn marker_path(&self) -> Option<String> {
        match self {
            KubeRequest::Exact(_) => None,
            KubeRequest::Minor { major, minor } => {
                Some(format!("release/stable-{major}.{minor}.txt"))
            }
            KubeRequest::Stable => Some("release/stable.txt".to_string()),
        }
    }

    /// Whether `version` answers this request (a lock's version, reused by `--locked`).
    pub fn admits(&self, version: &KubeVersion) -> bool {
        match self {
            KubeRequest::Exact(exact) => exact == version,
            KubeRequest::Minor { major, minor } => {
                version.major == *major && version.minor == *minor
            }
            KubeRequest::Stable => true,
        }
    }

    /// The version the release server's `answer` names: exactly one line `v1.33.13` (the `v`
    /// optional, surrounding white space ignored), of the minor asked for.
    pub fn accept(&self, answer: &str) -> Result<KubeVersion, AnswerError> {
        let version = KubeVersion::parse(answer.trim()).map_err(|_| AnswerError::NotAVersion {
            start: answer.chars().take(SHOWN).collect(),
        })?;
        if !self.admits(&version) {
            return Err(AnswerError::OtherMinor {
                asked: self.to_string(),
                got: version,
            });
        }
        Ok(version)
    }
}

impl fmt::Display for KubeRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KubeRequest::Exact(version) => write!(f, "{version}"),
            KubeRequest::Minor { major, minor } => write!(f, "{major}.{minor}"),
            KubeRequest::Stable => f.write_str("stable"),
        }
    }
}

/// The newest `count` minors counting down from `stable`'s (`1.33.13`, 3: 1.33, 1.32, 1.31),
/// newest first; fewer when the count reaches minor 0.
pub fn newest_minors(stable: &KubeVersion, count: u64) -> Vec<KubeRequest> {
    (0..count.min(stable.minor + 1))
        .map(|back| KubeRequest::Minor {
            major: stable.major,
            minor: stable.minor - back,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(text: &str) -> KubeVersion {
        KubeVersion::parse(text).expect("valid version")
    }

    #[test]
    fn parses_exact_minor_and_stable() {
        assert_eq!(
            KubeRequest::parse("v1.33.13"),
            Ok(KubeRequest::Exact(version("1.33.13")))
        );
        let minor = KubeRequest::Minor {
            major: 1,
            minor: 33,
        };
        assert_eq!(KubeRequest::parse("1.33"), Ok(minor));
        assert_eq!(KubeRequest::parse("v1.33"), Ok(minor));
        assert_eq!(KubeRequest::parse("stable"), Ok(KubeRequest::Stable));
    }

    #[test]
    fn refuses_other_shapes_naming_the_input() {
        for bad in [
            "1", "1.", "1.033", "latest", "Stable", "1.33.x", "", " 1.33",
        ] {
            let error = KubeRequest::parse(bad).expect_err(bad);
            assert_eq!(error.input, bad);
            assert!(error.to_string().contains("`stable`"), "{error}");
        }
    }

    #[test]
    fn marker_paths_follow_the_release_server() {
        assert_eq!(
            KubeRequest::parse("1.31").map(|r| r.marker_path()),
            Ok(Some("release/stable-1.31.txt".to_string()))
        );
        assert_eq!(
            KubeRequest::Stable.marker_path().as_deref(),
            Some("release/stable.txt")
        );
        assert_eq!(KubeRequest::Exact(version("1.33.13")).marker_path(), None);
    }

    #[test]
    fn accepts_one_version_line_of_the_minor() {
        let minor = KubeRequest::parse("1.33").expect("minor");
        assert_eq!(minor.accept("v1.33.13\n"), Ok(version("1.33.13")));
        assert_eq!(KubeRequest::Stable.accept("v1.34.2"), Ok(version("1.34.2")));
    }

    #[test]
    fn refuses_html_two_lines_and_another_minor() {
        let minor = KubeRequest::parse("1.33").expect("minor");
        let html = minor.accept("<!doctype html><html>not found</html>");
        assert!(
            matches!(&html, Err(AnswerError::NotAVersion { start }) if start.starts_with("<!doctype")),
            "{html:?}"
        );
        assert!(minor.accept("v1.33.13\nv1.33.12\n").is_err());
        assert!(minor.accept("v1.33.13-rc.1").is_err());
        assert_eq!(
            minor.accept("v1.32.9"),
            Err(AnswerError::OtherMinor {
                asked: "1.33".to_string(),
                got: version("1.32.9"),
            })
        );
    }

    #[test]
    fn shows_only_the_start_of_a_long_answer() {
        let long = "x".repeat(10_000);
        let Err(AnswerError::NotAVersion { start }) = KubeRequest::Stable.accept(&long) else {
            panic!("a long answer is not a version");
        };
        assert_eq!(start.len(), SHOWN);
    }

    #[test]
    fn a_lock_version_is_admitted_only_by_its_minor() {
        let minor = KubeRequest::parse("1.33").expect("minor");
        assert!(minor.admits(&version("1.33.2")));
        assert!(!minor.admits(&version("1.32.2")));
        assert!(KubeRequest::Stable.admits(&version("1.30.0")));
    }

    #[test]
    fn newest_minors_count_down_from_stable() {
        let minors: Vec<String> = newest_minors(&version("1.33.13"), 3)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(minors, ["1.33", "1.32", "1.31"]);
        assert_eq!(newest_minors(&version("1.1.0"), 5).len(), 2);
    }
}
