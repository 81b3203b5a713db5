//! Every file against `versions.txt`: each `file:` line's sha256 matches, and every file of the
//! ISO (but `versions.txt` itself and the SBOM made from it) has a line. Pure: works on the computed digests.

use std::collections::BTreeMap;

use cks_pinning::versions_txt::{FILE_NAME, FileEntry};

use super::contract::rel;
use super::finding::{Finding, Problem};

/// Compares the `file:` lines with `actual` (path without leading `/` → hex sha256 of every
/// file of the ISO).
pub fn check(listed: &[FileEntry], actual: &BTreeMap<String, String>) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut seen = BTreeMap::new();
    for line in listed {
        let path = rel(&line.path);
        if let Some(previous) = seen.insert(path.to_string(), &line.sha256) {
            if *previous != line.sha256 {
                out.push(Finding::new(
                    path,
                    Problem::VersionsTxt,
                    "listed twice in versions.txt with different digests",
                ));
            }
            continue;
        }
        match actual.get(path) {
            None => out.push(Finding::new(
                path,
                Problem::ListedButMissing,
                "versions.txt lists it, but the ISO has no such file",
            )),
            Some(sha) if *sha != line.sha256 => out.push(Finding::new(
                path,
                Problem::Checksum,
                format!(
                    "sha256 is {sha}, but versions.txt records {}; the file changed after the build",
                    line.sha256
                ),
            )),
            Some(_) => {}
        }
    }
    for path in actual.keys() {
        if path != FILE_NAME && path != cks_pinning::sbom::FILE_NAME && !seen.contains_key(path) {
            out.push(Finding::new(
                path.clone(),
                Problem::Unlisted,
                "not listed in versions.txt; every file of the ISO must have a `file:` line",
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, c: char) -> FileEntry {
        FileEntry {
            path: path.into(),
            sha256: c.to_string().repeat(64),
        }
    }

    #[test]
    fn changed_missing_and_unlisted_files_are_each_named() {
        let listed = [
            entry("k8s/kubeadm", 'a'),
            entry("network.yaml", 'b'),
            entry("gone.yaml", 'c'),
        ];
        let actual: BTreeMap<String, String> = [
            ("k8s/kubeadm", 'a'),
            ("network.yaml", 'f'),
            ("extra.txt", 'd'),
            (FILE_NAME, 'e'),
        ]
        .into_iter()
        .map(|(p, c)| (p.to_string(), c.to_string().repeat(64)))
        .collect();
        let found: Vec<(String, Problem)> = check(&listed, &actual)
            .into_iter()
            .map(|f| (f.path, f.problem))
            .collect();
        assert_eq!(
            found,
            [
                ("network.yaml".to_string(), Problem::Checksum),
                ("gone.yaml".to_string(), Problem::ListedButMissing),
                ("extra.txt".to_string(), Problem::Unlisted),
            ]
        );
    }
}
