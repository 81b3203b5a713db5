//! The ISO files a build will write, known from its inputs alone, so that a combination of
//! dashboards no CloudStack line asked for can take is refused before anything is fetched.

use cks_pinning::arch::Arch;
use cks_pinning::headlamp;
use cks_pinning::release::ReleaseVersion;
use cks_pinning::sources::urls;
use cks_pinning::version::KubeVersion;

/// The paths every build writes (as the URL rules name them; versions and arch do not change
/// which node reads they satisfy), plus `dashboard.yaml` and `headlamp.yaml` when given.
pub fn planned_root_files(dashboard: bool, headlamp: bool) -> Vec<String> {
    let any_version = ReleaseVersion::parse("1.0.0").ok();
    let kube = KubeVersion::parse("1.33.0").ok();
    let mut paths: Vec<String> = Vec::new();
    if let (Some(v), Some(k)) = (any_version, kube) {
        paths.extend(
            urls::kubernetes_binaries(&k, Arch::Amd64)
                .into_iter()
                .map(|s| s.iso_path),
        );
        paths.push(urls::cni_plugins(&v, Arch::Amd64).iso_path);
        paths.push(urls::crictl(&v, Arch::Amd64).iso_path);
        paths.extend(urls::kubelet_units(&k).into_iter().map(|s| s.iso_path));
        paths.extend(urls::csi(&v).into_iter().map(|s| s.iso_path));
    }
    paths.push(urls::network("").iso_path);
    paths.push(urls::autoscaler("").iso_path);
    paths.push(urls::provider("").iso_path);
    // kubeadm's images are always bundled.
    paths.push("docker/pause.tar".to_string());
    if dashboard {
        paths.push(urls::dashboard("").iso_path);
    }
    if headlamp {
        paths.push(headlamp::ISO_PATH.to_string());
    }
    paths
}
