//! The node contract on the ISO's listing: the files the node scripts read or glob exist, once,
//! with modes a node can read and run; `docker/` holds only `.tar` files; a root `manifest.json`
//! comes with `SHA256SUMS`. Pure: works on the entry list and `versions.txt`.

use cks_pinning::versions_txt::VersionsTxt;

use super::finding::{Finding, Problem};
use crate::iso::EntryKind;
use crate::iso::IsoEntry;

/// The Kubernetes binaries, copied to `/opt/bin` with `cp -a`.
pub const K8S_BINARIES: [&str; 3] = ["k8s/kubeadm", "k8s/kubelet", "k8s/kubectl"];

/// Files read by fixed name from the ISO root (`dashboard.yaml` is checked apart: newer
/// templates accept `headlamp.yaml` instead).
pub const ROOT_FILES: [&str; 5] = [
    "kubelet.service",
    "10-kubeadm.conf",
    "network.yaml",
    "autoscaler.yaml",
    "provider.yaml",
];

/// The etcd tarball, a fixed name in etcd-node.yml whatever the arch.
pub const ETCD_TARBALL: &str = "etcd/etcd-linux-amd64.tar.gz";

/// A path without its leading `/`.
pub fn rel(path: &str) -> &str {
    path.trim_start_matches('/')
}

fn find<'a>(entries: &'a [IsoEntry], path: &str) -> Option<&'a IsoEntry> {
    entries.iter().find(|e| rel(&e.path) == path)
}

/// Whether `name` matches the shell glob `<prefix>*<suffix>`.
fn glob(name: &str, prefix: &str, suffix: &str) -> bool {
    name.len() >= prefix.len() + suffix.len() && name.starts_with(prefix) && name.ends_with(suffix)
}

fn require_file(entries: &[IsoEntry], path: &str, why: &str, out: &mut Vec<Finding>) {
    match find(entries, path) {
        None => out.push(Finding::new(
            path,
            Problem::MissingRequired,
            format!("missing; {why}"),
        )),
        Some(entry) if entry.kind != EntryKind::File => out.push(Finding::new(
            path,
            Problem::MissingRequired,
            format!("is a {:?}, not a regular file; {why}", entry.kind).to_lowercase(),
        )),
        Some(_) => {}
    }
}

fn require_one(
    entries: &[IsoEntry],
    dir: &str,
    prefix: &str,
    suffix: &str,
    out: &mut Vec<Finding>,
) {
    let pattern = format!("{dir}/{prefix}*{suffix}");
    let matches: Vec<&str> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::File)
        .map(|e| rel(&e.path))
        .filter(|p| {
            p.strip_prefix(dir)
                .and_then(|rest| rest.strip_prefix('/'))
                .is_some_and(|name| !name.contains('/') && glob(name, prefix, suffix))
        })
        .collect();
    match matches.len() {
        0 => out.push(Finding::new(
            pattern.clone(),
            Problem::MissingRequired,
            format!("no file matches {pattern}, which nodes extract with `tar -f`"),
        )),
        1 => {}
        _ => out.push(Finding::new(
            pattern.clone(),
            Problem::Ambiguous,
            format!(
                "{} files match {pattern} ({}); `tar -f` takes exactly one",
                matches.len(),
                matches.join(", ")
            ),
        )),
    }
}

/// Checks the listing against the node contract.
pub fn check(entries: &[IsoEntry], versions: Option<&VersionsTxt>) -> Vec<Finding> {
    let mut out = Vec::new();
    for path in K8S_BINARIES {
        require_file(entries, path, "nodes copy it to /opt/bin", &mut out);
    }
    require_one(entries, "cni", "cni-plugins-", "64.tgz", &mut out);
    require_one(entries, "cri-tools", "crictl-linux-", "64.tar.gz", &mut out);
    for path in ROOT_FILES {
        require_file(entries, path, "node scripts read it by this name", &mut out);
    }
    if find(entries, "headlamp.yaml").is_none() {
        require_file(
            entries,
            "dashboard.yaml",
            "the control node applies it (or headlamp.yaml) after kubeadm init",
            &mut out,
        );
    }
    check_csi_pair(entries, &mut out);
    check_checksum_list(entries, &mut out);
    check_etcd(entries, versions, &mut out);
    check_docker_dir(entries, &mut out);
    check_modes(entries, &mut out);
    out
}

fn check_csi_pair(entries: &[IsoEntry], out: &mut Vec<Finding>) {
    let manifest = find(entries, "manifest.yaml").is_some();
    let crds = find(entries, "snapshot-crds.yaml").is_some();
    if manifest != crds {
        let (missing, present) = if manifest {
            ("snapshot-crds.yaml", "manifest.yaml")
        } else {
            ("manifest.yaml", "snapshot-crds.yaml")
        };
        out.push(Finding::new(
            missing,
            Problem::MissingRequired,
            format!(
                "missing while {present} is present; deploy-csi-driver applies both or neither"
            ),
        ));
    }
}

/// Nodes of the ablestack lineage run `sha256sum -c SHA256SUMS` when a root `manifest.json`
/// exists, and stop if it fails.
fn check_checksum_list(entries: &[IsoEntry], out: &mut Vec<Finding>) {
    if find(entries, "manifest.json").is_some() && find(entries, "SHA256SUMS").is_none() {
        out.push(Finding::new(
            "manifest.json",
            Problem::Unexpected,
            "present without SHA256SUMS; nodes that see a root manifest.json run `sha256sum -c SHA256SUMS` and stop when it fails",
        ));
    }
}

fn check_etcd(entries: &[IsoEntry], versions: Option<&VersionsTxt>, out: &mut Vec<Finding>) {
    let Some(versions) = versions else { return };
    let present = find(entries, ETCD_TARBALL).is_some();
    match (&versions.etcd, present) {
        (Some(version), false) => out.push(Finding::new(
            ETCD_TARBALL,
            Problem::MissingRequired,
            format!("missing, but versions.txt records etcd {version}; etcd nodes extract it"),
        )),
        (None, true) => out.push(Finding::new(
            ETCD_TARBALL,
            Problem::Unexpected,
            "present, but versions.txt records no etcd version",
        )),
        _ => {}
    }
}

fn check_docker_dir(entries: &[IsoEntry], out: &mut Vec<Finding>) {
    for entry in entries {
        let path = rel(&entry.path);
        let Some(name) = path.strip_prefix("docker/") else {
            continue;
        };
        let is_tar = entry.kind == EntryKind::File && !name.contains('/') && name.ends_with(".tar");
        if !is_tar {
            out.push(Finding::new(
                path,
                Problem::Unexpected,
                "docker/ must hold only .tar files: nodes pass every entry to `ctr image import`",
            ));
        }
    }
}

fn check_modes(entries: &[IsoEntry], out: &mut Vec<Finding>) {
    for entry in entries {
        let path = rel(&entry.path);
        let needed = match entry.kind {
            EntryKind::File if K8S_BINARIES.contains(&path) => 0o555,
            EntryKind::File => 0o444,
            EntryKind::Dir => 0o555,
            EntryKind::Symlink => continue,
        };
        if entry.mode & needed != needed {
            let what = if needed == 0o555 && entry.kind == EntryKind::File {
                "readable and executable by everyone"
            } else if entry.kind == EntryKind::Dir {
                "readable and searchable by everyone"
            } else {
                "readable by everyone (nodes may fetch it over HTTP from the router)"
            };
            out.push(Finding::new(
                path,
                Problem::Mode,
                format!("mode {:04o}; expected {what} ({needed:04o})", entry.mode),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(path: &str, mode: u32) -> IsoEntry {
        IsoEntry {
            path: format!("/{path}"),
            kind: EntryKind::File,
            mode,
            size: 1,
            target: None,
        }
    }

    fn complete() -> Vec<IsoEntry> {
        let mut out: Vec<IsoEntry> = K8S_BINARIES.iter().map(|p| file(p, 0o755)).collect();
        for path in ROOT_FILES.iter().chain(&["dashboard.yaml"]) {
            out.push(file(path, 0o644));
        }
        out.push(file("cni/cni-plugins-amd64.tgz", 0o644));
        out.push(file("cri-tools/crictl-linux-amd64.tar.gz", 0o644));
        out.push(file("docker/pause:3.10.tar", 0o644));
        out
    }

    fn problems(entries: &[IsoEntry]) -> Vec<(String, Problem)> {
        check(entries, None)
            .into_iter()
            .map(|f| (f.path, f.problem))
            .collect()
    }

    #[test]
    fn a_complete_listing_has_no_findings() {
        assert_eq!(problems(&complete()), []);
    }

    #[test]
    fn a_missing_binary_and_a_non_executable_one_are_named() {
        let mut entries = complete();
        entries.retain(|e| e.path != "/k8s/kubectl");
        entries[0].mode = 0o644;
        assert_eq!(
            problems(&entries),
            [
                ("k8s/kubectl".to_string(), Problem::MissingRequired),
                ("k8s/kubeadm".to_string(), Problem::Mode)
            ]
        );
    }

    #[test]
    fn two_cni_tarballs_are_ambiguous_and_a_non_tar_in_docker_is_unexpected() {
        let mut entries = complete();
        entries.push(file("cni/cni-plugins-arm64.tgz", 0o644));
        entries.push(file("docker/images.txt", 0o644));
        assert_eq!(
            problems(&entries),
            [
                ("cni/cni-plugins-*64.tgz".to_string(), Problem::Ambiguous),
                ("docker/images.txt".to_string(), Problem::Unexpected)
            ]
        );
    }

    #[test]
    fn headlamp_stands_in_for_dashboard_and_csi_files_come_in_pairs() {
        let mut entries = complete();
        entries.retain(|e| e.path != "/dashboard.yaml");
        entries.push(file("headlamp.yaml", 0o644));
        entries.push(file("manifest.yaml", 0o644));
        assert_eq!(
            problems(&entries),
            [("snapshot-crds.yaml".to_string(), Problem::MissingRequired)]
        );
    }

    #[test]
    fn etcd_must_match_versions_txt() {
        let mut versions = VersionsTxt {
            etcd: Some("v3.5.21".into()),
            headlamp: None,
            ..VersionsTxt::default()
        };
        let missing = check(&complete(), Some(&versions));
        assert_eq!(missing.len(), 1);
        assert_eq!(missing[0].path, ETCD_TARBALL);
        versions.etcd = None;
        let mut entries = complete();
        entries.push(file(ETCD_TARBALL, 0o644));
        let extra = check(&entries, Some(&versions));
        assert_eq!(extra.len(), 1);
        assert_eq!(extra[0].problem, Problem::Unexpected);
    }

    #[test]
    fn a_root_manifest_json_needs_sha256sums() {
        let mut entries = complete();
        entries.push(file("manifest.json", 0o644));
        assert_eq!(
            problems(&entries),
            [("manifest.json".to_string(), Problem::Unexpected)]
        );
        entries.push(file("SHA256SUMS", 0o644));
        assert_eq!(problems(&entries), []);
    }

    #[test]
    fn a_private_file_is_a_mode_finding() {
        let mut entries = complete();
        entries.push(file("provider-notes.txt", 0o600));
        assert_eq!(
            problems(&entries),
            [("provider-notes.txt".to_string(), Problem::Mode)]
        );
    }
}
