//! Keeping the kubeconfig CloudStack hands out: in a temporary file only its owner may read
//! (0600), removed when dropped, and never printed.

use std::io::Write;
use std::path::Path;

use tempfile::NamedTempFile;

use crate::error::DiscoveryError;

/// The cluster's kubeconfig, as a private temporary file for the kubeconfig reader.
pub struct FetchedKubeconfig {
    file: NamedTempFile,
}

impl FetchedKubeconfig {
    /// Writes `data` to a new 0600 temporary file.
    pub fn keep(data: &str) -> Result<Self, DiscoveryError> {
        // tempfile creates the file with mode 0600 and removes it on drop.
        let mut file = tempfile::Builder::new()
            .prefix("cks-rollout-kubeconfig-")
            .tempfile()
            .map_err(DiscoveryError::TempFile)?;
        file.write_all(data.as_bytes())
            .and_then(|()| file.flush())
            .map_err(DiscoveryError::TempFile)?;
        Ok(FetchedKubeconfig { file })
    }

    /// Where it is, while this value lives.
    pub fn path(&self) -> &Path {
        self.file.path()
    }
}

impl std::fmt::Debug for FetchedKubeconfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FetchedKubeconfig(<redacted>)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn is_private_and_removed_when_dropped() {
        let kept = FetchedKubeconfig::keep("apiVersion: v1\n").expect("kept");
        let path = kept.path().to_path_buf();
        let mode = std::fs::metadata(&path)
            .expect("exists")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(
            std::fs::read_to_string(&path).expect("reads"),
            "apiVersion: v1\n"
        );
        assert!(!format!("{kept:?}").contains("apiVersion"));
        drop(kept);
        assert!(!path.exists());
    }
}
