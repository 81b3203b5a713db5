//! The URL rules: where upstream publishes each file of the ISO for a version and an arch, and
//! the ISO path each goes to.

use super::Source;
use super::checksum::Checksum;
use super::edit::Edit;
use crate::arch::Arch;
use crate::release::ReleaseVersion;
use crate::version::KubeVersion;

/// The git repository whose tags name the cluster-autoscaler releases.
pub const AUTOSCALER_REPO: &str = "https://github.com/kubernetes/autoscaler.git";

/// `k8s/kubeadm`, `k8s/kubelet` and `k8s/kubectl` from dl.k8s.io, each with its `.sha256`.
/// They are executable in the ISO (the node scripts `chmod +x` them anyway).
pub fn kubernetes_binaries(kubernetes: &KubeVersion, arch: Arch) -> Vec<Source> {
    ["kubeadm", "kubelet", "kubectl"]
        .into_iter()
        .map(|bin| kubernetes_binary(bin, kubernetes, arch))
        .collect()
}

/// One Kubernetes binary for `arch`.
pub fn kubernetes_binary(bin: &str, kubernetes: &KubeVersion, arch: Arch) -> Source {
    let url = format!(
        "https://dl.k8s.io/release/{}/bin/linux/{}/{bin}",
        kubernetes.with_v(),
        arch.go_name()
    );
    let mut source = Source::new(format!("k8s/{bin}"), url, Checksum::sha256_sidecar());
    source.mode = 0o755;
    source
}

/// `cni/cni-plugins-<arch>.tgz`, with the pre-v0.8 asset name as a fallback on 404.
pub fn cni_plugins(cni: &ReleaseVersion, arch: Arch) -> Source {
    let v = cni.bare();
    let a = arch.go_name();
    let base = format!("https://github.com/containernetworking/plugins/releases/download/v{v}");
    let url = format!("{base}/cni-plugins-linux-{a}-v{v}.tgz");
    let mut source = Source::new(
        format!("cni/cni-plugins-{a}.tgz"),
        url,
        Checksum::sha256_sidecar(),
    );
    source.urls.push(format!("{base}/cni-plugins-{a}-v{v}.tgz"));
    source
}

/// `cri-tools/crictl-linux-<arch>.tar.gz`.
pub fn crictl(crictl: &ReleaseVersion, arch: Arch) -> Source {
    let v = crictl.bare();
    let a = arch.go_name();
    let url = format!(
        "https://github.com/kubernetes-sigs/cri-tools/releases/download/v{v}/crictl-v{v}-linux-{a}.tar.gz"
    );
    Source::new(
        format!("cri-tools/crictl-linux-{a}.tar.gz"),
        url,
        Checksum::sha256_sidecar(),
    )
}

/// The etcd release tarball for the target arch. The ISO path is the one CKS's etcd node
/// setup reads, `etcd/etcd-linux-amd64.tar.gz`, whatever the arch (versions.txt records the
/// URL, which names the real arch).
pub fn etcd(etcd: &ReleaseVersion, arch: Arch) -> Source {
    let v = etcd.bare();
    let name = format!("etcd-v{v}-linux-{}.tar.gz", arch.go_name());
    // The checksum list has a line for every asset; the downloader picks this file's.
    let base = format!("https://github.com/etcd-io/etcd/releases/download/v{v}");
    Source::new(
        "etcd/etcd-linux-amd64.tar.gz",
        format!("{base}/{name}"),
        Checksum::List {
            url: format!("{base}/SHA256SUMS"),
        },
    )
}

/// `kubelet.service` and `10-kubeadm.conf`, with `/usr/bin` rewritten to `/opt/bin`.
/// Kubernetes before 1.18 used the units of its own release; later ones CloudStack's nonoss.
pub fn kubelet_units(kubernetes: &KubeVersion) -> Vec<Source> {
    let old = (kubernetes.major, kubernetes.minor) < (1, 18);
    ["kubelet.service", "10-kubeadm.conf"]
        .into_iter()
        .map(|name| {
            let url = if old {
                format!(
                    "https://raw.githubusercontent.com/kubernetes/kubernetes/{}/build/debs/{name}",
                    kubernetes.with_v()
                )
            } else {
                format!(
                    "https://raw.githubusercontent.com/shapeblue/cloudstack-nonoss/main/cks/{name}"
                )
            };
            let mut source = Source::new(name, url, Checksum::None);
            source.edit = Some(Edit::usr_bin_to_opt_bin());
            source
        })
        .collect()
}

/// The cluster-autoscaler's CloudStack example at its release tag, as `autoscaler.yaml`.
pub fn autoscaler(tag: &str) -> Source {
    Source::new(
        "autoscaler.yaml",
        format!(
            "https://raw.githubusercontent.com/kubernetes/autoscaler/{tag}/cluster-autoscaler/cloudprovider/cloudstack/examples/cluster-autoscaler-standard.yaml"
        ),
        Checksum::None,
    )
}

/// The CloudStack cloud controller manager's deployment at its release tag, as `provider.yaml`.
pub fn provider(ccm_tag: &str) -> Source {
    Source::new(
        "provider.yaml",
        format!(
            "https://raw.githubusercontent.com/apache/cloudstack-kubernetes-provider/{ccm_tag}/deployment.yaml"
        ),
        Checksum::None,
    )
}

/// The CloudStack CSI driver's release manifests: `manifest.yaml` and `snapshot-crds.yaml`.
pub fn csi(csi: &ReleaseVersion) -> Vec<Source> {
    let tag = csi.tag();
    ["manifest.yaml", "snapshot-crds.yaml"]
        .into_iter()
        .map(|name| {
            Source::new(
                name,
                format!(
                    "https://github.com/cloudstack/cloudstack-csi-driver/releases/download/{tag}/{name}"
                ),
                Checksum::None,
            )
        })
        .collect()
}

/// The network (CNI) manifest, as `network.yaml`, from a URL or a local file.
pub fn network(url_or_path: &str) -> Source {
    Source::new("network.yaml", url_or_path, Checksum::None)
}

/// The dashboard manifest, as `dashboard.yaml`, from a URL or a local file.
pub fn dashboard(url_or_path: &str) -> Source {
    Source::new("dashboard.yaml", url_or_path, Checksum::None)
}

/// The Headlamp manifest at its release tag, as `headlamp.yaml` (the 4.23 script's file).
pub fn headlamp(version: &crate::headlamp::HeadlampVersion) -> Source {
    Source::new(
        crate::headlamp::ISO_PATH,
        version.manifest_url(),
        Checksum::None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k8s(text: &str) -> KubeVersion {
        KubeVersion::parse(text).expect("valid version")
    }

    fn release(text: &str) -> ReleaseVersion {
        ReleaseVersion::parse(text).expect("valid version")
    }

    #[test]
    fn kubernetes_binaries_come_from_dl_k8s_io_with_their_sha256() {
        let bins = kubernetes_binaries(&k8s("1.33.13"), Arch::Arm64);
        assert_eq!(bins[0].iso_path, "k8s/kubeadm");
        assert_eq!(
            bins[0].url(),
            "https://dl.k8s.io/release/v1.33.13/bin/linux/arm64/kubeadm"
        );
        assert_eq!(bins[0].checksum, Checksum::sha256_sidecar());
        assert_eq!(bins[2].mode, 0o755);
    }

    #[test]
    fn cni_falls_back_to_the_old_asset_name() {
        let cni = cni_plugins(&release("v1.6.2"), Arch::Amd64);
        assert_eq!(cni.iso_path, "cni/cni-plugins-amd64.tgz");
        assert!(
            cni.url()
                .ends_with("/v1.6.2/cni-plugins-linux-amd64-v1.6.2.tgz")
        );
        assert!(cni.urls[1].ends_with("/v1.6.2/cni-plugins-amd64-v1.6.2.tgz"));
    }

    #[test]
    fn etcd_is_fetched_for_the_target_arch_under_the_name_nodes_read() {
        let e = etcd(&release("3.5.21"), Arch::Arm64);
        assert_eq!(e.iso_path, "etcd/etcd-linux-amd64.tar.gz");
        assert!(
            e.url()
                .ends_with("/v3.5.21/etcd-v3.5.21-linux-arm64.tar.gz")
        );
        assert_eq!(
            e.checksum,
            Checksum::List {
                url: "https://github.com/etcd-io/etcd/releases/download/v3.5.21/SHA256SUMS".into(),
            }
        );
    }

    #[test]
    fn kubelet_units_come_from_nonoss_after_1_18() {
        let units = kubelet_units(&k8s("1.33.13"));
        assert!(
            units[0]
                .url()
                .contains("shapeblue/cloudstack-nonoss/main/cks/kubelet.service")
        );
        assert_eq!(units[1].edit, Some(Edit::usr_bin_to_opt_bin()));
        let old = kubelet_units(&k8s("1.17.3"));
        assert!(
            old[0]
                .url()
                .contains("kubernetes/kubernetes/v1.17.3/build/debs")
        );
        assert!(!kubelet_units(&k8s("1.9.0"))[0].url().contains("nonoss"));
    }

    #[test]
    fn a_pinned_file_still_names_the_checksum_file_of_the_url_that_served_it() {
        let mut cni = cni_plugins(&release("1.6.2"), Arch::Amd64);
        let fallback = cni.urls[1].clone();
        assert_eq!(
            cni.checksum_url(&fallback),
            Some(format!("{fallback}.sha256"))
        );
        cni.pin(&"a".repeat(64));
        assert!(matches!(cni.checksum, Checksum::Pinned { .. }));
        assert_eq!(
            cni.checksum_url(&fallback),
            Some(format!("{fallback}.sha256"))
        );
        let e = etcd(&release("3.5.21"), Arch::Arm64);
        assert!(
            e.checksum_url(e.url())
                .is_some_and(|u| u.ends_with("/v3.5.21/SHA256SUMS"))
        );
        assert_eq!(network("net.yaml").checksum_url("net.yaml"), None);
    }

    #[test]
    fn manifests_are_pinned_to_release_tags() {
        assert!(
            autoscaler("cluster-autoscaler-1.33.6")
                .url()
                .contains("/cluster-autoscaler-1.33.6/")
        );
        assert!(provider("v1.2.0").url().contains("/v1.2.0/deployment.yaml"));
        assert!(
            csi(&release("3.0.0"))[0]
                .url()
                .ends_with("/download/v3.0.0/manifest.yaml")
        );
    }
}
