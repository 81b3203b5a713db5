//! What `kubeadm config images list` prints for the Kubernetes version: the first list of the
//! image plan ([`cks_pinning::image::plan_images`] merges it with the manifests' images).
//! kubeadm runs confined ([`super::confined`]), verified or not.

use std::path::Path;

use cks_pinning::version::KubeVersion;

use super::confined::{ConfinedError, run_confined};

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
    /// kubeadm could not be run confined, or was stopped.
    #[error("running `{kubeadm} config images list --kubernetes-version={version}`: {source}")]
    Confined {
        /// The kubeadm that was run.
        kubeadm: String,
        /// The version asked for.
        version: String,
        /// What went wrong.
        source: ConfinedError,
    },
}

/// kubeadm's image list, and how kubeadm was confined while it printed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The images, one a line as kubeadm printed them.
    pub images: Vec<String>,
    /// How it ran, in words for a warning.
    pub how: String,
}

/// Runs `kubeadm config images list --kubernetes-version=v<version>` with the kubeadm at
/// `kubeadm` (one for the build host's arch), confined in a scratch directory under `scratch`,
/// and returns its lines.
pub fn kubeadm_images(
    kubeadm: &Path,
    version: &KubeVersion,
    scratch: &Path,
) -> Result<Listed, KubeadmError> {
    let error = |message: String| KubeadmError::Kubeadm {
        kubeadm: kubeadm.display().to_string(),
        version: version.with_v(),
        message,
    };
    make_executable(kubeadm).map_err(|e| error(e.to_string()))?;
    let args = [
        "config".to_string(),
        "images".to_string(),
        "list".to_string(),
        format!("--kubernetes-version={}", version.with_v()),
    ];
    let output =
        run_confined(kubeadm, &args, scratch).map_err(|source| KubeadmError::Confined {
            kubeadm: kubeadm.display().to_string(),
            version: version.with_v(),
            source,
        })?;
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
    Ok(Listed {
        images,
        how: output.how,
    })
}

fn make_executable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = std::fs::metadata(path)?.permissions();
    permissions.set_mode(permissions.mode() | 0o755);
    std::fs::set_permissions(path, permissions)
}
