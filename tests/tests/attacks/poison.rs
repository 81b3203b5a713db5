//! What the attacks share: a kubeadm stand-in that leaves a marker file if it ever runs, put
//! in place of the demo upstream's, and a cache registry entry re-pointed at other bytes by
//! writing the distribution registry's storage, as a pusher with storage access could.

use std::path::{Path, PathBuf};

use cks_fixtures::demo::DemoUpstream;

/// The demo upstream's kubeadm, under its file server's root.
fn kubeadm(upstream: &DemoUpstream) -> PathBuf {
    let version = &upstream.config().kubernetes;
    upstream.root().join(format!(
        "dl.k8s.io/release/v{version}/bin/linux/amd64/kubeadm"
    ))
}

/// The upstream's kubeadm replaced by one that writes `marker` when it runs (and otherwise
/// behaves as the original: it lists the images); with `forge_checksum`, its published
/// checksum is replaced too. Dropping it puts the originals back.
pub(super) struct SwappedKubeadm {
    files: Vec<(PathBuf, Vec<u8>)>,
}

impl SwappedKubeadm {
    pub(super) fn install(upstream: &DemoUpstream, marker: &Path, forge_checksum: bool) -> Self {
        let binary = kubeadm(upstream);
        let mut sidecar = binary.as_os_str().to_owned();
        sidecar.push(".sha256");
        let sidecar = PathBuf::from(sidecar);
        let original = std::fs::read(&binary).expect("the upstream's kubeadm");
        let original_sum = std::fs::read(&sidecar).expect("the upstream's kubeadm.sha256");
        let first_line = original.iter().position(|b| *b == b'\n').expect("a script") + 1;
        let mut swapped = original[..first_line].to_vec();
        swapped.extend(format!(": > '{}'\n", marker.display()).as_bytes());
        swapped.extend(&original[first_line..]);
        std::fs::write(&binary, &swapped).expect("swap kubeadm");
        if forge_checksum {
            let sum = cks_builder::digest::sha256_hex(&swapped);
            std::fs::write(&sidecar, format!("{sum}\n")).expect("forge its checksum");
        }
        SwappedKubeadm {
            files: vec![(binary, original), (sidecar, original_sum)],
        }
    }
}

impl Drop for SwappedKubeadm {
    fn drop(&mut self) {
        for (path, bytes) in &self.files {
            let _ = std::fs::write(path, bytes);
        }
    }
}

/// The cache repository's folder in the registry storage `storage`.
fn repository(storage: &Path) -> PathBuf {
    storage.join("data/docker/registry/v2/repositories/ci/cks-cache")
}

/// The tags of the cache repository that start with `prefix`.
pub(super) fn tags(storage: &Path, prefix: &str) -> Vec<String> {
    let dir = repository(storage).join("_manifests/tags");
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|t| t.starts_with(prefix))
        .collect();
    out.sort();
    out
}

/// The artifact manifest tag `tag` names.
pub(super) fn artifact(storage: &Path, tag: &str) -> serde_json::Value {
    let link = repository(storage).join(format!("_manifests/tags/{tag}/current/link"));
    let digest = std::fs::read_to_string(link).expect("a tag link");
    let blob = crate::build_cache_registry::support::blob_path(storage, digest.trim());
    serde_json::from_slice(&std::fs::read(blob).expect("the manifest")).expect("JSON")
}

/// Points `tag` at a copy of its artifact whose content is `content` (a blob the repository
/// holds) of `size` bytes: the entry keeps its key and record, and claims other bytes.
pub(super) fn repoint(storage: &Path, tag: &str, content: &str, size: u64) {
    let mut manifest = artifact(storage, tag);
    manifest["layers"][0]["digest"] = content.into();
    manifest["layers"][0]["size"] = size.into();
    let bytes = serde_json::to_vec(&manifest).expect("JSON");
    let digest = format!("sha256:{}", cks_builder::digest::sha256_hex(&bytes));
    let blob = crate::build_cache_registry::support::blob_path(storage, &digest);
    std::fs::create_dir_all(blob.parent().expect("a folder")).expect("blob folder");
    std::fs::write(&blob, &bytes).expect("write the manifest blob");
    let hex = digest.trim_start_matches("sha256:");
    let repo = repository(storage);
    for link in [
        format!("_manifests/revisions/sha256/{hex}/link"),
        format!("_manifests/tags/{tag}/index/sha256/{hex}/link"),
        format!("_manifests/tags/{tag}/current/link"),
    ] {
        let path = repo.join(link);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("link folder");
        std::fs::write(path, &digest).expect("write a link");
    }
}
