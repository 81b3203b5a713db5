//! Base-URL rewrites (`https://dl.k8s.io=http://127.0.0.1:8080/k8s`), so air-gapped builds and
//! tests fetch from a mirror while the plan keeps the upstream URL.
//!
//! A mirror URL may carry a login (`https://user:pass@mirror/k8s`). It is taken out of the URL
//! when the value is parsed: every URL the build requests, records or prints is the mirror's
//! without it, the login goes only with requests to that mirror ([`Mirrors::login_for`]), and a
//! mirror is shown, serialised (the lock, `--json`) and debugged as `https://user@mirror/k8s`,
//! never with its password. A lock read back names the user without a password: give the
//! `--mirror` (or the config's `mirrors`) again to supply it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// One rewrite: URLs starting with `from` are fetched from `to` instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Mirror {
    /// The upstream base URL, without a trailing `/`.
    pub from: String,
    /// The mirror's base URL, without a trailing `/` and without user info.
    pub to: String,
    /// The login the mirror URL carried, sent to that mirror only.
    pub login: Option<Login>,
}

/// A mirror's user and password (basic auth). `Debug` never shows the password.
#[derive(Clone, PartialEq, Eq)]
pub struct Login {
    /// The user name.
    pub user: String,
    /// The password; `None` when the mirror was read back from a lock (which never holds it).
    pub password: Option<String>,
}

impl fmt::Debug for Login {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Login")
            .field("user", &self.user)
            .field("password", &self.password.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// `scheme://user:pass@rest` → (`scheme://rest`, the login); unchanged without user info.
fn split_login(url: &str) -> (String, Option<Login>) {
    let Some((scheme, rest)) = url.split_once("://") else {
        return (url.to_string(), None);
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return (url.to_string(), None);
    };
    let userinfo = &rest[..at];
    let login = match userinfo.split_once(':') {
        Some((user, password)) => Login {
            user: user.to_string(),
            password: Some(password.to_string()),
        },
        None => Login {
            user: userinfo.to_string(),
            password: None,
        },
    };
    (format!("{scheme}://{}", &rest[at + 1..]), Some(login))
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
            input: crate::redact::passwords(input).into_owned(),
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
        let (to, login) = split_login(to);
        if !is_http_url(&to) || login.as_ref().is_some_and(|l| l.user.is_empty()) {
            return Err(error("the mirror's user info is not user:password@host"));
        }
        Ok(Mirror {
            from: from.to_string(),
            to,
            login,
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
    /// `from=to`, with the login's user but never its password (`https://user@mirror/k8s`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.login, self.to.split_once("://")) {
            (Some(login), Some((scheme, rest))) => {
                write!(f, "{}={scheme}://{}@{rest}", self.from, login.user)
            }
            _ => write!(f, "{}={}", self.from, self.to),
        }
    }
}

impl Mirror {
    /// The rewritten URL when `url` is `from` or lies below it (at a `/`, `?` or `#`).
    pub fn rewrite(&self, url: &str) -> Option<String> {
        below(url, &self.from).map(|rest| format!("{}{rest}", self.to))
    }
}

/// What follows `base` in `url` when `url` is `base` or lies below it (at a `/`, `?` or `#`).
fn below<'a>(url: &'a str, base: &str) -> Option<&'a str> {
    let rest = url.strip_prefix(base)?;
    (rest.is_empty() || rest.starts_with(['/', '?', '#'])).then_some(rest)
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

impl Mirrors {
    /// The login to send with a request for `url`: that of the mirror `url` lies below (the
    /// longest), and only when it has a password. Nothing for any other host.
    pub fn login_for(&self, url: &str) -> Option<(&str, &str)> {
        self.0
            .iter()
            .filter(|m| below(url, &m.to).is_some())
            .max_by_key(|m| m.to.len())
            .and_then(|m| m.login.as_ref())
            .and_then(|l| Some((l.user.as_str(), l.password.as_deref()?)))
    }
}

/// Serialises `--mirror` values as given (a config's or the lock's inputs) without any password.
pub fn serialize_specs<S: serde::Serializer>(specs: &[String], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(specs.iter().map(|spec| match spec.parse::<Mirror>() {
        Ok(mirror) => mirror.to_string(),
        Err(_) => crate::redact::passwords(spec).into_owned(),
    }))
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
    fn a_login_in_the_mirror_url_goes_only_to_that_mirror_and_is_never_shown() {
        let m: Mirror = "https://dl.k8s.io=https://alice:s3cret@mirror.example/k8s"
            .parse()
            .expect("valid mirror");
        assert_eq!(m.to, "https://mirror.example/k8s");
        assert_eq!(
            m.to_string(),
            "https://dl.k8s.io=https://alice@mirror.example/k8s"
        );
        assert!(!format!("{m:?}").contains("s3cret"));
        let mirrors = Mirrors(vec![m]);
        let url = mirrors.rewrite("https://dl.k8s.io/release/kubeadm");
        assert_eq!(url, "https://mirror.example/k8s/release/kubeadm");
        assert_eq!(mirrors.login_for(&url), Some(("alice", "s3cret")));
        assert_eq!(mirrors.login_for("https://mirror.example/other"), None);
        assert_eq!(mirrors.login_for("https://evil.example/k8s/x"), None);
        let json = serde_json::to_string(&mirrors).expect("serialises");
        assert!(!json.contains("s3cret"), "{json}");
        let back: Mirrors = serde_json::from_str(&json).expect("reads back");
        assert_eq!(
            back.0[0].login.as_ref().map(|l| l.user.as_str()),
            Some("alice")
        );
        assert_eq!(
            back.login_for(&url),
            None,
            "a lock never holds the password"
        );
        let err = "https://dl.k8s.io=ftp://alice:s3cret@m"
            .parse::<Mirror>()
            .expect_err("ftp");
        assert!(!err.to_string().contains("s3cret"), "{err}");
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
