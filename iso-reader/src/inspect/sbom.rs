//! The SBOM against `versions.txt`: `/sbom.spdx.json` is present, is SPDX 2.3 JSON, and
//! describes the same files (by sha256) and images (by digest) as `versions.txt`, nothing more
//! and nothing less. With [`super::files`] (every file of the ISO has a `file:` line) this
//! shows every file and image of the ISO is in the SBOM. Pure: works on the text read.

use cks_pinning::sbom::{FILE_NAME, check as compare};
use cks_pinning::versions_txt::VersionsTxt;

use super::finding::{Finding, Problem};
use super::read::TextError;

/// Checks the SBOM text (`None` when the ISO has none) against `versions`.
pub fn check(sbom: Option<Result<String, TextError>>, versions: &VersionsTxt) -> Vec<Finding> {
    match sbom {
        None => vec![Finding::new(
            FILE_NAME,
            Problem::Sbom,
            "missing; a build writes an SPDX 2.3 SBOM of every file and image to /sbom.spdx.json (rebuild the ISO with this cks-iso)",
        )],
        Some(Err(detail)) => vec![Finding::new(
            FILE_NAME,
            Problem::Unreadable,
            detail.to_string(),
        )],
        Some(Ok(text)) => compare(&text, versions)
            .into_iter()
            .map(|mismatch| Finding::new(FILE_NAME, Problem::Sbom, mismatch.to_string()))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cks_pinning::sbom::{Sbom, Tool};
    use cks_pinning::versions_txt::FileEntry;

    fn versions() -> VersionsTxt {
        VersionsTxt {
            kubernetes: "1.33.13".into(),
            arch: cks_pinning::arch::Arch::Amd64,
            built: Some(1_700_000_000),
            files: vec![
                FileEntry {
                    path: "k8s/kubeadm".into(),
                    sha256: "a".repeat(64),
                },
                FileEntry {
                    path: "network.yaml".into(),
                    sha256: "b".repeat(64),
                },
            ],
            ..VersionsTxt::default()
        }
    }

    fn sbom_of(versions: &VersionsTxt) -> String {
        let tool = Tool {
            name: "cks-iso".into(),
            version: "0".into(),
            commit: None,
        };
        Sbom::new(versions, "cks.iso", tool)
            .render()
            .expect("renders")
    }

    #[test]
    fn an_sbom_of_the_same_record_agrees() {
        let v = versions();
        assert_eq!(check(Some(Ok(sbom_of(&v))), &v), []);
    }

    #[test]
    fn a_missing_sbom_and_one_of_another_record_are_findings() {
        let v = versions();
        let missing = check(None, &v);
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].problem, Problem::Sbom);
        assert!(missing[0].detail.contains("missing"), "{}", missing[0]);

        let mut other = v.clone();
        other.files[0].sha256 = "c".repeat(64);
        other.files.pop();
        let found = check(Some(Ok(sbom_of(&other))), &v);
        let details: Vec<String> = found.iter().map(|f| f.detail.clone()).collect();
        assert!(
            details
                .iter()
                .any(|d| d.contains("k8s/kubeadm") && d.contains(&"a".repeat(64))),
            "{details:?}"
        );
        assert!(
            details
                .iter()
                .any(|d| d.contains("network.yaml is not in the SBOM")),
            "{details:?}"
        );
        assert!(
            found
                .iter()
                .all(|f| f.path == FILE_NAME && f.problem == Problem::Sbom)
        );
    }

    #[test]
    fn text_that_is_not_spdx_is_a_finding() {
        let found = check(Some(Ok("{}".into())), &versions());
        assert_eq!(found.len(), 1);
        assert!(found[0].detail.contains("SPDX"), "{}", found[0]);
    }
}
