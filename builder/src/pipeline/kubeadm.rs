//! What `kubeadm config images list` prints for the Kubernetes version: the first list of the
//! image plan ([`cks_pinning::image::plan_images`] merges it with the manifests' images).

use std::path::Path;
use std::process::Command;

use cks_pinning::version::KubeVersion;

/// Why kubeadm could not list the images.
#[derive(Debug, thiserror::Error)]
pub enum KubeadmError {
    /// kubeadm could not be run or failed.
    #[error("running `{kubeadm} config images list --kubernetes-version={version}`: {message}")]
    Kubeadm {
        /// The kubeadm that was run.
        kubeadm: String,
        /// The version asked for.
        version: String,
        /// What went wrong.
        message: String,
    },
}

/// Runs `kubeadm config images list --kubernetes-version=v<version>` with the kubeadm at
/// `kubeadm` (one for the build host's arch) and returns its lines.
pub fn kubeadm_images(kubeadm: &Path, version: &KubeVersion) -> Result<Vec<String>, KubeadmError> {
    let error = |message: String| KubeadmError::Kubeadm {
        kubeadm: kubeadm.display().to_string(),
        version: version.with_v(),
        message,
    };
    make_executable(kubeadm).map_err(|e| error(e.to_string()))?;
    let output = Command::new(kubeadm)
        .args(["config", "images", "list"])
        .arg(format!("--kubernetes-version={}", version.with_v()))
        .output()
        .map_err(|e| error(e.to_string()))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(error(format!("{}: {}", output.status, stderr.trim())));
    }
    let stdout =
        String::from_utf8(output.stdout).map_err(|_| error("output is not UTF-8".into()))?;
    let images: Vec<String> = stdout
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    if images.is_empty() {
        return Err(error("it printed no images".into()));
    }
    Ok(images)
}

fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = std::fs::metadata(path)?.permissions();
    permissions.set_mode(permissions.mode() | 0o755);
    std::fs::set_permissions(path, permissions)
}
