//! The image list of a build: what `kubeadm config images list` prints for the Kubernetes
//! version, plus every image the bundled manifests name, deduplicated, with exactly one pause
//! image (nodes pick the sandbox image with `ctr images ls -q | grep pause | sort | tail -1`).

use std::path::Path;
use std::process::Command;

use cks_pinning::image::{ImageRef, tarball_names};

use super::plan::PlannedImage;

/// Why the image list cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ImageListError {
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
    /// A line of kubeadm's output, or an image of a manifest, is not an image reference.
    #[error("{source_name} names `{image}`, which is not an image reference: {message}")]
    BadReference {
        /// Where it came from.
        source_name: String,
        /// The text.
        image: String,
        /// Why it is refused.
        message: String,
    },
    /// Not exactly one pause image.
    #[error(
        "expected exactly one pause image (CKS nodes take the last of `ctr images ls -q | grep pause | sort`), found {}: {}",
        found.len(),
        if found.is_empty() { "none".to_string() } else { found.join(", ") }
    )]
    Pause {
        /// The pause images found.
        found: Vec<String>,
    },
}

/// Runs `kubeadm config images list --kubernetes-version=v<version>` with the kubeadm at
/// `kubeadm` (one for the build host's arch) and returns its lines.
pub fn kubeadm_images(kubeadm: &Path, version: &str) -> Result<Vec<String>, ImageListError> {
    let error = |message: String| ImageListError::Kubeadm {
        kubeadm: kubeadm.display().to_string(),
        version: format!("v{version}"),
        message,
    };
    make_executable(kubeadm).map_err(|e| error(e.to_string()))?;
    let output = Command::new(kubeadm)
        .args(["config", "images", "list"])
        .arg(format!("--kubernetes-version=v{version}"))
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

/// Merges named lists of image texts into the build's images: parsed, normalised, deduplicated
/// in first-seen order (remembering every source of each), named for `docker/`, and checked
/// for exactly one pause image.
pub fn plan_images(lists: &[(&str, Vec<String>)]) -> Result<Vec<PlannedImage>, ImageListError> {
    let mut refs: Vec<ImageRef> = Vec::new();
    let mut from: Vec<Vec<String>> = Vec::new();
    for (source_name, texts) in lists {
        for text in texts {
            let image = ImageRef::parse(text).map_err(|e| ImageListError::BadReference {
                source_name: source_name.to_string(),
                image: text.clone(),
                message: e.to_string(),
            })?;
            match refs.iter().position(|r| *r == image) {
                Some(i) => {
                    if !from[i].iter().any(|f| f == source_name) {
                        from[i].push(source_name.to_string());
                    }
                }
                None => {
                    refs.push(image);
                    from.push(vec![source_name.to_string()]);
                }
            }
        }
    }
    let pause: Vec<String> = refs
        .iter()
        .map(ToString::to_string)
        .filter(|r| r.contains("pause"))
        .collect();
    if pause.len() != 1 {
        return Err(ImageListError::Pause { found: pause });
    }
    let names = tarball_names(&refs);
    Ok(refs
        .into_iter()
        .zip(names)
        .zip(from)
        .map(|((reference, tarball), from)| PlannedImage {
            reference: reference.to_string(),
            tarball,
            from,
            digest: None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn merges_and_normalises_keeping_first_seen_order_and_sources() {
        let planned = plan_images(&[
            (
                "kubeadm",
                list(&[
                    "registry.k8s.io/pause:3.10",
                    "registry.k8s.io/kube-proxy:v1.33.13",
                ]),
            ),
            (
                "dashboard.yaml",
                list(&[
                    "kubernetesui/dashboard:v2.7.0",
                    "registry.k8s.io/kube-proxy:v1.33.13",
                ]),
            ),
        ])
        .expect("valid");
        assert_eq!(planned.len(), 3);
        assert_eq!(
            planned[2].reference,
            "docker.io/kubernetesui/dashboard:v2.7.0"
        );
        assert_eq!(planned[2].tarball, "dashboard:v2.7.0.tar");
        assert_eq!(planned[1].from, vec!["kubeadm", "dashboard.yaml"]);
    }

    #[test]
    fn refuses_two_pause_images_naming_them() {
        let err = plan_images(&[
            ("kubeadm", list(&["registry.k8s.io/pause:3.10"])),
            ("network.yaml", list(&["registry.k8s.io/pause:3.9"])),
        ])
        .expect_err("two pause images");
        let text = err.to_string();
        assert!(
            text.contains("registry.k8s.io/pause:3.10") && text.contains("pause:3.9"),
            "{text}"
        );
    }

    #[test]
    fn refuses_no_pause_image() {
        let err = plan_images(&[("kubeadm", list(&["registry.k8s.io/kube-proxy:v1.33.13"]))])
            .expect_err("no pause image");
        assert!(err.to_string().contains("none"));
    }

    #[test]
    fn names_the_manifest_of_a_bad_reference() {
        let err = plan_images(&[("network.yaml", list(&["Not An Image"]))]).expect_err("bad");
        assert!(err.to_string().contains("network.yaml"));
    }
}
