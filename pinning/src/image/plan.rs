//! The image plan of a build: every image kubeadm and the bundled manifests name, parsed,
//! deduplicated in first-seen order, named for `docker/`, with exactly one pause image (nodes
//! pick the sandbox image with `ctr images ls -q | grep pause | sort | tail -1`).

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::reference::ImageRef;
use super::tarball::tarball_names;

/// One image of the build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlannedImage {
    /// The full normalised reference, as the manifests and kubeadm name it.
    pub reference: ImageRef,
    /// Its tarball's name under `docker/`.
    pub tarball: String,
    /// Where the reference came from: `kubeadm`, `network.yaml`, ...
    pub from: Vec<String>,
    /// The digest the registry must serve (from a lock file), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<crate::digest::Digest>,
}

/// Why the image plan cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ImagePlanError {
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

/// Merges named lists of image texts into the build's images: parsed, normalised, deduplicated
/// in first-seen order (remembering every source of each), named for `docker/`, and checked
/// for exactly one pause image.
///
/// ```
/// use cks_pinning::image::plan_images;
/// let lists = [("kubeadm", vec!["registry.k8s.io/pause:3.10".to_string()]),
///              ("dashboard.yaml", vec!["kubernetesui/dashboard:v2.7.0".to_string()])];
/// let planned = plan_images(&lists).expect("one pause image");
/// assert_eq!(planned[1].reference.to_string(), "docker.io/kubernetesui/dashboard:v2.7.0");
/// assert_eq!(planned[1].tarball, "dashboard:v2.7.0.tar");
/// ```
pub fn plan_images(lists: &[(&str, Vec<String>)]) -> Result<Vec<PlannedImage>, ImagePlanError> {
    let mut refs: Vec<ImageRef> = Vec::new();
    let mut from: Vec<Vec<String>> = Vec::new();
    for (source_name, texts) in lists {
        for text in texts {
            let image = ImageRef::parse(text).map_err(|e| ImagePlanError::BadReference {
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
    check_one_pause(&refs)?;
    let names = tarball_names(&refs);
    Ok(refs
        .into_iter()
        .zip(names)
        .zip(from)
        .map(|((reference, tarball), from)| PlannedImage {
            reference,
            tarball,
            from,
            digest: None,
        })
        .collect())
}

/// The one-pause rule: exactly one of `refs` is a pause image.
pub fn check_one_pause(refs: &[ImageRef]) -> Result<(), ImagePlanError> {
    let pause: Vec<String> = refs
        .iter()
        .map(ToString::to_string)
        .filter(|r| r.contains("pause"))
        .collect();
    if pause.len() == 1 {
        Ok(())
    } else {
        Err(ImagePlanError::Pause { found: pause })
    }
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
            planned[2].reference.to_string(),
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
