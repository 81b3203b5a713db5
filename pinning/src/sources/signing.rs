//! Which files of the ISO their publisher signs with cosign: the Kubernetes release binaries
//! (a `.sig` and `.cert` beside each on the release server). The GitHub release assets (CNI
//! plugins, crictl, etcd) are not cosign-signed today; the manifests and unit files are not
//! release artifacts at all.

use super::Source;
use super::checksum::Checksum;

/// The release server's prefix of the Kubernetes binaries.
const KUBERNETES_RELEASES: &str = "https://dl.k8s.io/release/";
/// GitHub's prefix of release assets.
const GITHUB_RELEASES: &str = "https://github.com/";

/// How a file's publisher signs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signing {
    /// A Kubernetes release binary: `<url>.sig`, `<url>.cert` (and maybe `<url>.sigstore.json`).
    Kubernetes,
    /// A GitHub release asset with a published checksum (CNI plugins, crictl, etcd): checked
    /// by that checksum only.
    UnsignedRelease,
    /// Neither: a manifest or a unit file, with no published checksum either.
    NotApplicable,
}

/// How `source`'s publisher signs it, from its upstream URL.
pub fn signing(source: &Source) -> Signing {
    let url = source.url();
    if url.starts_with(KUBERNETES_RELEASES) {
        Signing::Kubernetes
    } else if url.starts_with(GITHUB_RELEASES)
        && url.contains("/releases/download/")
        && matches!(
            source.published.as_ref().unwrap_or(&source.checksum),
            Checksum::Sidecar { .. } | Checksum::List { .. }
        )
    {
        Signing::UnsignedRelease
    } else {
        Signing::NotApplicable
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::Arch;
    use crate::release::ReleaseVersion;
    use crate::sources::urls;
    use crate::version::KubeVersion;

    #[test]
    fn kubernetes_binaries_are_signed_and_github_assets_are_not() {
        let k8s = KubeVersion::parse("1.33.13").expect("valid");
        for source in urls::kubernetes_binaries(&k8s, Arch::Amd64) {
            assert_eq!(signing(&source), Signing::Kubernetes, "{}", source.url());
        }
        let cni = ReleaseVersion::parse("1.6.2").expect("valid");
        assert_eq!(
            signing(&urls::cni_plugins(&cni, Arch::Amd64)),
            Signing::UnsignedRelease
        );
        let manifest = Source::new("manifests/x.yaml", "/tmp/x.yaml", Default::default());
        assert_eq!(signing(&manifest), Signing::NotApplicable);
        // A manifest published as a release asset has no checksum: not named with them.
        let asset = Source::new(
            "network.yaml",
            "https://github.com/flannel-io/flannel/releases/download/v0.26.7/kube-flannel.yml",
            Default::default(),
        );
        assert_eq!(signing(&asset), Signing::NotApplicable);
        // Pinned by a lock, a file keeps the publisher's checksum kind.
        let mut pinned = urls::cni_plugins(&cni, Arch::Amd64);
        pinned.pin(&"0".repeat(64));
        assert_eq!(signing(&pinned), Signing::UnsignedRelease);
    }
}
