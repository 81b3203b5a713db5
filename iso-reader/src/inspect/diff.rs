//! What changed between two ISOs: versions, URLs and images from their `versions.txt`, files
//! added, removed or changed by the sha256 of their bytes (never only what `versions.txt`
//! records, so a tampered copy shows), and where each `versions.txt` disagrees with its own
//! ISO's files.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::Path;

use cks_pinning::versions_txt::VersionsTxt;
use serde::Serialize;

use super::contract::rel;
use super::error::InspectError;
use super::finding::Finding;
use super::images::unpinned;
use super::read::{Contents, read_contents};

/// A value that differs: what A and B record (`None` when absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The version key, image reference or file path.
    pub key: String,
    /// The value in A.
    pub a: Option<String>,
    /// The value in B.
    pub b: Option<String>,
}

/// The differences between two ISOs; empty lists when they hold the same.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// Version keys (`kubernetes`, `etcd`, `arch`, …) whose values differ.
    pub versions: Vec<Change>,
    /// URLs only B downloaded.
    pub urls_added: Vec<String>,
    /// URLs only A downloaded.
    pub urls_removed: Vec<String>,
    /// Images only B bundles (pinned references).
    pub images_added: Vec<String>,
    /// Images only A bundles (pinned references).
    pub images_removed: Vec<String>,
    /// Images both bundle under one reference with different digests.
    pub images_changed: Vec<Change>,
    /// `skipped-image:` lines only B has.
    pub skipped_added: Vec<String>,
    /// `skipped-image:` lines only A has.
    pub skipped_removed: Vec<String>,
    /// Files only B holds.
    pub files_added: Vec<String>,
    /// Files only A holds.
    pub files_removed: Vec<String>,
    /// Files both hold with different sha256.
    pub files_changed: Vec<Change>,
    /// Where A's `versions.txt` disagrees with A's files (a file changed after the build, one
    /// missing or not listed), as `verify` reports it.
    pub record_a: Vec<Finding>,
    /// The same for B.
    pub record_b: Vec<Finding>,
}

impl Diff {
    /// Whether the two ISOs record the same content.
    pub fn is_empty(&self) -> bool {
        *self == Diff::default()
    }
}

fn version_map(v: Option<&VersionsTxt>) -> Vec<(&'static str, Option<&str>)> {
    match v {
        Some(v) => v.versions().to_vec(),
        None => cks_pinning::versions_txt::VERSION_KEYS
            .into_iter()
            .map(|key| (key, None))
            .collect(),
    }
}

fn added_removed(a: &BTreeSet<String>, b: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    (
        b.difference(a).cloned().collect(),
        a.difference(b).cloned().collect(),
    )
}

fn changes(
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
) -> (Vec<String>, Vec<String>, Vec<Change>) {
    let added = b.keys().filter(|k| !a.contains_key(*k)).cloned().collect();
    let removed = a.keys().filter(|k| !b.contains_key(*k)).cloned().collect();
    let changed = a
        .iter()
        .filter_map(|(k, va)| {
            let vb = b.get(k)?;
            (va != vb).then(|| Change {
                key: k.clone(),
                a: Some(va.clone()),
                b: Some(vb.clone()),
            })
        })
        .collect();
    (added, removed, changed)
}

/// Compares two parsed `versions.txt`. Pure.
pub fn diff_versions(a: &VersionsTxt, b: &VersionsTxt) -> Diff {
    diff_parts(Some(a), Some(b), &files_of(a), &files_of(b))
}

/// Compares what was read of two ISOs: files by their hashed content, and each `versions.txt`
/// against its own ISO's files (an ISO without `versions.txt` has no versions, URLs or images).
/// Pure.
pub fn diff_contents(a: &Contents, b: &Contents) -> Diff {
    let record = |c: &Contents| {
        c.versions
            .as_ref()
            .map(|v| super::files::check(&v.files, &c.files))
            .unwrap_or_default()
    };
    Diff {
        record_a: record(a),
        record_b: record(b),
        ..diff_parts(a.versions.as_ref(), b.versions.as_ref(), &a.files, &b.files)
    }
}

fn files_of(v: &VersionsTxt) -> BTreeMap<String, String> {
    v.files
        .iter()
        .map(|f| (rel(&f.path).to_string(), f.sha256.clone()))
        .collect()
}

fn diff_parts(
    a: Option<&VersionsTxt>,
    b: Option<&VersionsTxt>,
    files_a: &BTreeMap<String, String>,
    files_b: &BTreeMap<String, String>,
) -> Diff {
    let versions = version_map(a)
        .into_iter()
        .zip(version_map(b))
        .filter(|((_, va), (_, vb))| va != vb)
        .map(|((key, va), (_, vb))| Change {
            key: key.to_string(),
            a: va.map(str::to_string),
            b: vb.map(str::to_string),
        })
        .collect();
    let urls = |v: Option<&VersionsTxt>| {
        v.iter()
            .flat_map(|v| v.urls.iter().cloned())
            .collect::<BTreeSet<_>>()
    };
    let (urls_added, urls_removed) = added_removed(&urls(a), &urls(b));
    let images = |v: Option<&VersionsTxt>| {
        v.iter()
            .flat_map(|v| &v.images)
            .map(|i| (unpinned(i), i.digest().unwrap_or_default().to_string()))
            .collect::<BTreeMap<_, _>>()
    };
    let (ia, ib) = (images(a), images(b));
    let (added, removed, images_changed) = changes(&ia, &ib);
    let pin = |map: &BTreeMap<String, String>, key: String| {
        let digest = map.get(&key).cloned().unwrap_or_default();
        format!("{key}@{digest}")
    };
    let skipped = |v: Option<&VersionsTxt>| {
        v.iter()
            .flat_map(|v| &v.skipped_images)
            .map(|s| format!("{} {}", s.reference, s.platform))
            .collect::<BTreeSet<_>>()
    };
    let (skipped_added, skipped_removed) = added_removed(&skipped(a), &skipped(b));
    let (files_added, files_removed, files_changed) = changes(files_a, files_b);
    Diff {
        versions,
        urls_added,
        urls_removed,
        images_added: added.into_iter().map(|k| pin(&ib, k)).collect(),
        images_removed: removed.into_iter().map(|k| pin(&ia, k)).collect(),
        images_changed,
        skipped_added,
        skipped_removed,
        files_added,
        files_removed,
        files_changed,
        record_a: Vec::new(),
        record_b: Vec::new(),
    }
}

/// Compares the ISOs `a` and `b`: their `versions.txt`, and every file's bytes.
pub fn diff(a: &Path, b: &Path) -> Result<Diff, InspectError> {
    Ok(diff_contents(&read_contents(a)?, &read_contents(b)?))
}

fn show(value: &Option<String>) -> &str {
    value.as_deref().unwrap_or("(none)")
}

impl fmt::Display for Diff {
    /// One line per difference: `version kubernetes: 1.33.12 -> 1.33.13`, `+ url …`,
    /// `- image …`, `~ file k8s/kubelet: <a> -> <b>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.versions {
            writeln!(f, "~ version {}: {} -> {}", c.key, show(&c.a), show(&c.b))?;
        }
        let lists: [(&str, &str, &Vec<String>); 8] = [
            ("-", "url", &self.urls_removed),
            ("+", "url", &self.urls_added),
            ("-", "image", &self.images_removed),
            ("+", "image", &self.images_added),
            ("-", "skipped-image", &self.skipped_removed),
            ("+", "skipped-image", &self.skipped_added),
            ("-", "file", &self.files_removed),
            ("+", "file", &self.files_added),
        ];
        for (sign, what, items) in lists.iter().take(4) {
            for item in *items {
                writeln!(f, "{sign} {what} {item}")?;
            }
        }
        for c in &self.images_changed {
            writeln!(f, "~ image {}: {} -> {}", c.key, show(&c.a), show(&c.b))?;
        }
        for (sign, what, items) in lists.iter().skip(4) {
            for item in *items {
                writeln!(f, "{sign} {what} {item}")?;
            }
        }
        for c in &self.files_changed {
            writeln!(f, "~ file {}: {} -> {}", c.key, show(&c.a), show(&c.b))?;
        }
        for (side, findings) in [("A", &self.record_a), ("B", &self.record_b)] {
            for finding in findings {
                writeln!(
                    f,
                    "! versions.txt of {side} disagrees with its content: {finding}"
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cks_pinning::image::ImageRef;
    use cks_pinning::versions_txt::FileEntry;

    fn base() -> VersionsTxt {
        VersionsTxt {
            kubernetes: "1.33.12".into(),
            cni_plugins: "1.7.1".into(),
            crictl: "1.33.0".into(),
            ccm: "1.2.0".into(),
            csi_driver: "3.0.0".into(),
            autoscaler: "1.33.0".into(),
            autoscaler_tag: "cluster-autoscaler-1.33.0".into(),
            etcd: None,
            headlamp: None,
            arch: cks_pinning::arch::Arch::Amd64,
            urls: vec!["https://dl.k8s.io/v1.33.12/kubeadm".into()],
            files: vec![FileEntry {
                path: "k8s/kubeadm".into(),
                sha256: "a".repeat(64),
            }],
            images: vec![
                ImageRef::parse(&format!(
                    "registry.k8s.io/pause:3.10@sha256:{}",
                    "b".repeat(64)
                ))
                .expect("valid"),
            ],
            skipped_images: Vec::new(),
            ..VersionsTxt::default()
        }
    }

    #[test]
    fn the_same_versions_txt_gives_no_differences() {
        assert!(diff_versions(&base(), &base()).is_empty());
    }

    #[test]
    fn a_changed_version_url_image_and_file_are_exactly_the_differences() {
        let a = base();
        let mut b = base();
        b.kubernetes = "1.33.13".into();
        b.etcd = Some("v3.5.21".into());
        b.urls = vec!["https://dl.k8s.io/v1.33.13/kubeadm".into()];
        b.files[0].sha256 = "c".repeat(64);
        b.images[0] = b.images[0]
            .with_digest(&format!("sha256:{}", "d".repeat(64)))
            .expect("digest");
        let d = diff_versions(&a, &b);
        let change = |key: &str, a: Option<&str>, b: Option<&str>| Change {
            key: key.into(),
            a: a.map(Into::into),
            b: b.map(Into::into),
        };
        assert_eq!(
            d.versions,
            [
                change("kubernetes", Some("1.33.12"), Some("1.33.13")),
                change("etcd", None, Some("v3.5.21"))
            ]
        );
        assert_eq!(d.urls_added, ["https://dl.k8s.io/v1.33.13/kubeadm"]);
        assert_eq!(d.urls_removed, ["https://dl.k8s.io/v1.33.12/kubeadm"]);
        let (old, new) = (
            format!("sha256:{}", "b".repeat(64)),
            format!("sha256:{}", "d".repeat(64)),
        );
        assert_eq!(
            d.images_changed,
            [change("registry.k8s.io/pause:3.10", Some(&old), Some(&new))]
        );
        assert!(d.images_added.is_empty() && d.images_removed.is_empty());
        let (fa, fb) = ("a".repeat(64), "c".repeat(64));
        assert_eq!(
            d.files_changed,
            [change("k8s/kubeadm", Some(&fa), Some(&fb))]
        );
        assert!(d.files_added.is_empty() && d.files_removed.is_empty());
        let text = d.to_string();
        assert!(
            text.contains("~ version kubernetes: 1.33.12 -> 1.33.13\n"),
            "{text}"
        );
        assert!(
            text.contains("~ version etcd: (none) -> v3.5.21\n"),
            "{text}"
        );
        assert!(
            text.contains(&format!("~ file k8s/kubeadm: {fa} -> {fb}\n")),
            "{text}"
        );
    }

    #[test]
    fn a_file_changed_behind_versions_txt_is_a_change_and_a_record_disagreement() {
        let record = base();
        let a = Contents {
            versions: Some(record.clone()),
            files: [("k8s/kubeadm".to_string(), "a".repeat(64))].into(),
        };
        let b = Contents {
            versions: Some(record),
            files: [("k8s/kubeadm".to_string(), "e".repeat(64))].into(),
        };
        let d = diff_contents(&a, &b);
        assert_eq!(d.files_changed.len(), 1, "{d:?}");
        assert!(d.record_a.is_empty(), "{d:?}");
        assert_eq!(d.record_b.len(), 1, "{d:?}");
        assert_eq!(d.record_b[0].path, "k8s/kubeadm");
        let text = d.to_string();
        assert!(
            text.contains(
                "! versions.txt of B disagrees with its content: k8s/kubeadm: [checksum]"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_iso_without_versions_txt_is_compared_by_its_hashed_files() {
        let a = Contents {
            versions: None,
            files: [("x".to_string(), "1".repeat(64))].into(),
        };
        let b = Contents {
            versions: None,
            files: [("y".to_string(), "2".repeat(64))].into(),
        };
        let d = diff_contents(&a, &b);
        assert_eq!(d.files_added, ["y"]);
        assert_eq!(d.files_removed, ["x"]);
        assert!(d.versions.is_empty() && d.images_changed.is_empty());
    }
}
