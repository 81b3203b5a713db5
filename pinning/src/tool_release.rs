//! The default release of a bundled tool, chosen from its repository's tags (`git ls-remote
//! --tags`): crictl the newest cri-tools release of the Kubernetes minor, the CNI plugins their
//! newest release. Pre-releases are never chosen. etcd, when asked for as `kubeadm`, is the one
//! the release's kubeadm names in `config images list` (`etcd:<version>-<n>`).

use crate::autoscaler::RemoteTags;
use crate::image::ImageRef;
use crate::release::ReleaseVersion;
use crate::version::KubeVersion;

/// A warning when `crictl`'s minor is not `kubernetes`' (cri-tools releases follow Kubernetes'
/// minors; another one is supported by neither project), `None` when they agree.
///
/// ```
/// use cks_pinning::release::ReleaseVersion;
/// use cks_pinning::tool_release::crictl_minor_warning;
/// use cks_pinning::version::KubeVersion;
/// let k8s = KubeVersion::parse("1.33.13").expect("version");
/// let same = ReleaseVersion::parse("1.33.0").expect("version");
/// let other = ReleaseVersion::parse("v1.31.1").expect("version");
/// assert_eq!(crictl_minor_warning(&k8s, &same), None);
/// assert!(crictl_minor_warning(&k8s, &other).expect("a warning").contains("crictl 1.31.1"));
/// ```
pub fn crictl_minor_warning(kubernetes: &KubeVersion, crictl: &ReleaseVersion) -> Option<String> {
    let mut numbers = crictl.bare().split(['.', '-', '+']);
    let major = numbers.next()?.parse::<u64>().ok()?;
    let minor = numbers.next()?.parse::<u64>().ok()?;
    if (major, minor) == (kubernetes.major, kubernetes.minor) {
        return None;
    }
    Some(format!(
        "crictl {} is of minor {major}.{minor}, not of Kubernetes {kubernetes}'s {}.{}; \
         cri-tools releases follow Kubernetes' minors (leave --crictl-version out to take the \
         newest v{}.{}.<patch>)",
        crictl.bare(),
        kubernetes.major,
        kubernetes.minor,
        kubernetes.major,
        kubernetes.minor
    ))
}

/// The newest `v<major>.<minor>.<patch>` tag of `tags`, of `minor` (`(1, 33)`) when given.
///
/// ```
/// use cks_pinning::autoscaler::RemoteTags;
/// use cks_pinning::tool_release::newest_release;
/// let tags = RemoteTags::parse(&format!(
///     "{0}\trefs/tags/v1.33.0\n{0}\trefs/tags/v1.33.1-rc.0\n{0}\trefs/tags/v1.34.0\n",
///     "a".repeat(40)
/// )).expect("listing");
/// assert_eq!(newest_release(&tags, Some((1, 33))).map(|v| v.tag()), Some("v1.33.0".into()));
/// assert_eq!(newest_release(&tags, None).map(|v| v.tag()), Some("v1.34.0".into()));
/// ```
pub fn newest_release(tags: &RemoteTags, minor: Option<(u64, u64)>) -> Option<ReleaseVersion> {
    tags.iter()
        .filter_map(|tag| tag.name.strip_prefix('v'))
        .filter_map(|name| KubeVersion::parse(name).ok())
        .filter(|v| minor.is_none_or(|(major, minor)| v.major == major && v.minor == minor))
        .max()
        .and_then(|v| ReleaseVersion::parse(&v.to_string()).ok())
}

/// The `ETCD_VERSION` that asks for the etcd the release's kubeadm uses.
pub const ETCD_FROM_KUBEADM: &str = "kubeadm";

/// The etcd release kubeadm's image list names: the tag `<version>-<n>` of its `etcd` image
/// (`registry.k8s.io/etcd:3.5.21-0` gives 3.5.21). `None` when no line is an etcd image with
/// such a tag.
///
/// ```
/// use cks_pinning::tool_release::kubeadm_etcd;
/// let list = ["registry.k8s.io/pause:3.10", "registry.k8s.io/etcd:3.5.21-0"].map(String::from);
/// assert_eq!(kubeadm_etcd(&list).map(|v| v.tag()), Some("v3.5.21".into()));
/// ```
pub fn kubeadm_etcd(images: &[String]) -> Option<ReleaseVersion> {
    images
        .iter()
        .filter_map(|line| ImageRef::parse(line.trim()).ok())
        .filter(|image| image.short_name() == "etcd")
        .find_map(|image| {
            let (version, build) = image.tag()?.rsplit_once('-')?;
            let numbered = !build.is_empty() && build.bytes().all(|b| b.is_ascii_digit());
            let plain = !version.contains(['-', '+']);
            (numbered && plain)
                .then(|| ReleaseVersion::parse(version).ok())
                .flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(names: &[&str]) -> RemoteTags {
        let text: String = names
            .iter()
            .enumerate()
            .map(|(i, name)| format!("{:040x}\trefs/tags/{name}\n", i + 1))
            .collect();
        RemoteTags::parse(&text).expect("listing")
    }

    #[test]
    fn the_newest_patch_of_the_minor_numerically() {
        let tags = listing(&[
            "v1.33.2",
            "v1.33.10",
            "v1.32.11",
            "v1.34.0",
            "v1.33.11-rc.0",
        ]);
        let chosen = newest_release(&tags, Some((1, 33))).expect("a release");
        assert_eq!(chosen.bare(), "1.33.10");
    }

    #[test]
    fn the_newest_release_of_all_skipping_other_shapes() {
        let tags = listing(&[
            "v1.6.2",
            "v1.7.0-rc.1",
            "v1.5.1",
            "latest",
            "1.9.0",
            "v01.8.0",
        ]);
        assert_eq!(
            newest_release(&tags, None).map(|v| v.tag()).as_deref(),
            Some("v1.6.2")
        );
    }

    #[test]
    fn no_release_of_the_minor_is_none() {
        let tags = listing(&["v1.32.0"]);
        assert_eq!(newest_release(&tags, Some((1, 33))), None);
    }

    #[test]
    fn kubeadm_names_etcd_with_a_build_number() {
        let list = |lines: &[&str]| lines.iter().map(ToString::to_string).collect::<Vec<_>>();
        let kubeadm = list(&[
            "registry.k8s.io/kube-apiserver:v1.32.9",
            "registry.k8s.io/coredns/coredns:v1.11.3",
            "registry.k8s.io/etcd:3.5.16-0",
        ]);
        assert_eq!(
            kubeadm_etcd(&kubeadm).map(|v| v.bare().to_string()),
            Some("3.5.16".to_string())
        );
        let mirrored = list(&["mirror.example/k8s/etcd:3.6.4-1"]);
        assert_eq!(
            kubeadm_etcd(&mirrored).map(|v| v.tag()),
            Some("v3.6.4".to_string())
        );
        for odd in [
            "registry.k8s.io/etcd:3.5.16",
            "registry.k8s.io/etcd:3.5.16-rc.0",
            "registry.k8s.io/etcd:latest",
            "registry.k8s.io/etcd-operator:3.5.16-0",
            "registry.k8s.io/etcd:3.5-0",
        ] {
            assert_eq!(kubeadm_etcd(&list(&[odd])), None, "{odd}");
        }
        assert_eq!(kubeadm_etcd(&[]), None);
    }
}
