//! `cks-iso release`: which releases to build (the newest patch of each of the newest N minors,
//! or of the minors named) and the step where the finished directory is handed on.

use std::str::FromStr;

use anyhow::{Context, Result};
use cks_pinning::kube_request::{KubeRequest, newest_minors};
use cks_pinning::version::KubeVersion;

use super::kube_pin::{RELEASE_SERVER, read_release};
use crate::fetch::Fetcher;

/// The minors a release builds: `--minors 3` or `--minors 1.31,1.32,1.33`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Minors {
    /// The newest N minors, counting down from the minor of `release/stable.txt`.
    Newest(u64),
    /// These minors (`1.33`), in the order given, each once.
    List(Vec<KubeRequest>),
}

impl FromStr for Minors {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if let Ok(count) = text.parse::<u64>() {
            return if count == 0 {
                Err("expected at least one minor: a count such as 3, or 1.32,1.33".to_string())
            } else {
                Ok(Minors::Newest(count))
            };
        }
        text.split(',')
            .map(|part| match KubeRequest::parse(part.trim()) {
                Ok(minor @ KubeRequest::Minor { .. }) => Ok(minor),
                _ => Err(format!(
                    "{part:?} is not a minor; expected a count such as 3 or minors such as 1.32,1.33"
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|list| {
                // A minor named twice (`1.31,1.31`) is built once, where it was first named.
                let mut seen = Vec::new();
                for minor in list {
                    if !seen.contains(&minor) {
                        seen.push(minor);
                    }
                }
                Minors::List(seen)
            })
    }
}

/// The release each minor builds, newest minor first for a count, in order for a list: each
/// minor's `release/stable-X.Y.txt` read through the mirrors (and `release/stable.txt` first
/// for a count).
pub async fn release_versions(
    minors: &Minors,
    fetcher: &Fetcher,
) -> Result<Vec<(KubeRequest, KubeVersion)>> {
    let mut versions = Vec::new();
    for request in release_minors(minors, fetcher).await? {
        versions.push((request, release_version(&request, fetcher).await?));
    }
    Ok(versions)
}

/// The minors of `minors`: a list as given, a count from `release/stable.txt`.
pub async fn release_minors(minors: &Minors, fetcher: &Fetcher) -> Result<Vec<KubeRequest>> {
    Ok(match minors {
        Minors::List(list) => list.clone(),
        Minors::Newest(count) => {
            let url = format!("{RELEASE_SERVER}/release/stable.txt");
            let stable = read_release(fetcher, &KubeRequest::Stable, &url).await?;
            newest_minors(&stable, *count)
        }
    })
}

/// The newest patch of one minor, from its `release/stable-X.Y.txt`.
pub async fn release_version(request: &KubeRequest, fetcher: &Fetcher) -> Result<KubeVersion> {
    let path = request
        .marker_path()
        .context("a release builds minors, not exact versions")?;
    let url = format!("{RELEASE_SERVER}/{path}");
    read_release(fetcher, request, &url).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minors_are_a_count_or_a_list_of_minors() {
        assert_eq!("3".parse(), Ok(Minors::Newest(3)));
        let list: Minors = "1.31,1.32".parse().expect("a list");
        assert_eq!(
            list,
            Minors::List(vec![
                KubeRequest::Minor {
                    major: 1,
                    minor: 31
                },
                KubeRequest::Minor {
                    major: 1,
                    minor: 32
                },
            ])
        );
        for bad in ["0", "1.33.1", "stable", "1.31,x", ""] {
            assert!(bad.parse::<Minors>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_minor_named_twice_is_one_minor() {
        let twice: Minors = "1.31,1.32,1.31".parse().expect("a list");
        let once: Minors = "1.31,1.32".parse().expect("a list");
        assert_eq!(twice, once);
    }
}
