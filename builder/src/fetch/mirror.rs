//! Base-URL rewrites (`https://dl.k8s.io=http://127.0.0.1:8080/k8s`), so air-gapped builds and
//! tests fetch from a mirror while the plan keeps the upstream URL.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One rewrite: URLs starting with `from` are fetched from `to` instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Mirror {
    /// The upstream base URL, without a trailing `/`.
    pub from: String,
    /// The mirror's base URL, without a trailing `/`.
    pub to: String,
}

/// A `--mirror` value that is not `UPSTREAM=MIRROR`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "mirror `{input}`: {reason}; expected UPSTREAM=MIRROR, e.g. https://dl.k8s.io=http://127.0.0.1:8080/k8s"
)]
pub struct MirrorError {
    /// The text given.
    pub input: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

fn is_http_url(text: &str) -> bool {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"));
    rest.is_some_and(|host| !host.is_empty() && !host.starts_with('/'))
}

impl FromStr for Mirror {
    type Err = MirrorError;

    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let error = |reason| MirrorError {
            input: input.to_string(),
            reason,
        };
        let (from, to) = input.split_once('=').ok_or_else(|| error("no `=`"))?;
        let (from, to) = (
            from.trim().trim_end_matches('/'),
            to.trim().trim_end_matches('/'),
        );
        if !is_http_url(from) {
            return Err(error("the upstream is not an http(s):// URL"));
        }
        if !is_http_url(to) {
            return Err(error("the mirror is not an http(s):// URL"));
        }
        Ok(Mirror {
            from: from.to_string(),
            to: to.to_string(),
        })
    }
}

impl TryFrom<String> for Mirror {
    type Error = MirrorError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        value.parse()
    }
}

impl From<Mirror> for String {
    fn from(mirror: Mirror) -> Self {
        mirror.to_string()
    }
}

impl fmt::Display for Mirror {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.from, self.to)
    }
}

impl Mirror {
    /// The rewritten URL when `url` is `from` or lies below it (at a `/`, `?` or `#`).
    pub fn rewrite(&self, url: &str) -> Option<String> {
        let rest = url.strip_prefix(&self.from)?;
        (rest.is_empty() || rest.starts_with(['/', '?', '#'])).then(|| format!("{}{rest}", self.to))
    }
}

/// Every rewrite in force; the longest matching upstream base wins.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Mirrors(pub Vec<Mirror>);

impl Mirrors {
    /// The URL to request for the upstream `url`.
    pub fn rewrite(&self, url: &str) -> String {
        self.0
            .iter()
            .filter_map(|m| m.rewrite(url).map(|to| (m.from.len(), to)))
            .max_by_key(|(len, _)| *len)
            .map(|(_, to)| to)
            .unwrap_or_else(|| url.to_string())
    }
}

impl FromIterator<Mirror> for Mirrors {
    fn from_iter<I: IntoIterator<Item = Mirror>>(iter: I) -> Self {
        Mirrors(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rewrites_at_a_path_boundary() {
        let m: Mirror = "https://dl.k8s.io=http://127.0.0.1:8080/k8s/"
            .parse()
            .expect("valid mirror");
        assert_eq!(m.to_string(), "https://dl.k8s.io=http://127.0.0.1:8080/k8s");
        assert_eq!(
            m.rewrite("https://dl.k8s.io/release/v1.33.1/bin/linux/amd64/kubeadm")
                .as_deref(),
            Some("http://127.0.0.1:8080/k8s/release/v1.33.1/bin/linux/amd64/kubeadm")
        );
        assert_eq!(m.rewrite("https://dl.k8s.io.evil.example/x"), None);
        assert_eq!(m.rewrite("https://github.com/x"), None);
    }

    #[test]
    fn longest_base_wins_and_others_pass_through() {
        let mirrors: Mirrors = [
            "https://github.com=http://m/gh",
            "https://github.com/etcd-io=http://m/etcd",
        ]
        .iter()
        .map(|s| s.parse().expect("valid"))
        .collect();
        assert_eq!(
            mirrors.rewrite("https://github.com/etcd-io/etcd/x"),
            "http://m/etcd/etcd/x"
        );
        assert_eq!(mirrors.rewrite("https://github.com/a/b"), "http://m/gh/a/b");
        assert_eq!(
            mirrors.rewrite("https://dl.k8s.io/a"),
            "https://dl.k8s.io/a"
        );
    }

    #[test]
    fn refuses_text_that_is_not_upstream_equals_mirror() {
        for bad in [
            "https://dl.k8s.io",
            "dl.k8s.io=http://m",
            "https://a=ftp://m",
            "=",
        ] {
            let err = bad.parse::<Mirror>().expect_err(bad);
            assert!(err.to_string().contains("UPSTREAM=MIRROR"), "{err}");
        }
    }

    #[test]
    fn deserialises_from_a_config_file() {
        #[derive(Deserialize)]
        struct Config {
            mirrors: Mirrors,
        }
        let config: Config =
            toml::from_str("mirrors = [\"https://dl.k8s.io=http://127.0.0.1:8080/k8s\"]")
                .expect("valid config");
        assert_eq!(
            config.mirrors.rewrite("https://dl.k8s.io/a"),
            "http://127.0.0.1:8080/k8s/a"
        );
        assert!(toml::from_str::<Config>("mirrors = [\"nonsense\"]").is_err());
    }
}
