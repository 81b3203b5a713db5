//! The plan of a build: every version, tag, commit, file and image it will bundle, resolved
//! before anything large is downloaded. Printed by `--dry-run`, serialised by `--json`, kept in
//! the lock file, and carried out by [`super::execute`] without deciding anything new.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use cks_pinning::arch::Arch;
use cks_pinning::headlamp::HeadlampVersion;
use cks_pinning::image::{ImageRef, PlannedImage};
use cks_pinning::node_contract::Target;
use cks_pinning::sources::Source;
use cks_pinning::version::KubeVersion;

/// The autoscaler release the build bundles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AutoscalerPin {
    /// The git tag, `cluster-autoscaler-1.33.6`.
    pub tag: String,
    /// The release, `1.33.6`.
    pub version: String,
    /// The commit the tag points to (peeled for an annotated tag).
    pub commit: String,
    /// The image the manifest is pinned to.
    pub image: ImageRef,
}

/// The cloud controller manager the build bundles.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CcmPin {
    /// The release tag, `v1.2.0`.
    pub tag: String,
    /// The image the manifest is pinned to.
    pub image: ImageRef,
}

/// The Headlamp release the build bundles as `headlamp.yaml`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeadlampPin {
    /// The release, `0.40.1`.
    pub version: HeadlampVersion,
    /// The manifest at the release tag.
    pub url: String,
    /// The image the manifest is pinned to, `ghcr.io/headlamp-k8s/headlamp:v0.40.1`.
    pub image: ImageRef,
}

/// Everything a build resolved before the large downloads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    /// Kubernetes version (serialised without `v`).
    pub kubernetes: KubeVersion,
    /// CNI plugins version, with `v`.
    pub cni_plugins: String,
    /// crictl version, with `v`.
    pub crictl: String,
    /// CSI driver release, with `v`.
    pub csi_driver: String,
    /// etcd version, with `v`, when bundled.
    pub etcd: Option<String>,
    /// Target architecture.
    pub arch: Arch,
    /// The autoscaler release.
    pub autoscaler: AutoscalerPin,
    /// The CCM release.
    pub ccm: CcmPin,
    /// The Headlamp release, when bundled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headlamp: Option<HeadlampPin>,
    /// The CloudStack lines the ISO must fit.
    #[serde(default)]
    pub cloudstack: Target,
    /// Every file of the ISO but `docker/` and `versions.txt`, in ISO path order.
    pub files: Vec<Source>,
    /// Every image, deduplicated, in first-seen order.
    pub images: Vec<PlannedImage>,
    /// Where the ISO goes.
    pub iso: PathBuf,
    /// Its volume identifier.
    pub volume_id: String,
    /// Things the user should know (an override of another minor, ...).
    pub warnings: Vec<String>,
}

impl Plan {
    /// How the plan's images are pulled with `pull`: with a cache registry, a lock's digests
    /// are pulled as they are (from the cache, by digest): the lock is the record of what each
    /// tag named, and upstream is not asked.
    pub fn pull_options(
        &self,
        pull: &crate::registry::PullOptions,
    ) -> crate::registry::PullOptions {
        let mut pull = pull.clone();
        if pull.shared.is_some() {
            pull.pinned = self
                .images
                .iter()
                .filter_map(|i| Some((i.reference.clone(), i.digest.clone()?)))
                .collect();
        }
        pull
    }

    /// The plan as the lines `--dry-run` prints.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "plan for {}", self.iso.display());
        let _ = writeln!(out, "  kubernetes:  {}", self.kubernetes);
        let _ = writeln!(out, "  cni-plugins: {}", self.cni_plugins);
        let _ = writeln!(out, "  crictl:      {}", self.crictl);
        let _ = writeln!(out, "  csi-driver:  {}", self.csi_driver);
        if let Some(etcd) = &self.etcd {
            let _ = writeln!(out, "  etcd:        {etcd}");
        }
        let _ = writeln!(out, "  arch:        {}", self.arch);
        let _ = writeln!(
            out,
            "  autoscaler:  {} ({}) -> {}",
            self.autoscaler.tag, self.autoscaler.commit, self.autoscaler.image
        );
        let _ = writeln!(out, "  ccm:         {} -> {}", self.ccm.tag, self.ccm.image);
        if let Some(headlamp) = &self.headlamp {
            let _ = writeln!(
                out,
                "  headlamp:    {} -> {}",
                headlamp.version.tag(),
                headlamp.image
            );
        }
        let _ = writeln!(out, "  cloudstack:  {}", self.cloudstack);
        let _ = writeln!(out, "  volume id:   {}", self.volume_id);
        let _ = writeln!(out, "files ({}):", self.files.len());
        for file in &self.files {
            let _ = writeln!(out, "  {:<40} {}", file.iso_path, file.url());
        }
        let _ = writeln!(out, "images ({}):", self.images.len());
        for image in &self.images {
            let _ = writeln!(out, "  docker/{:<50} {}", image.tarball, image.reference);
        }
        for warning in &self.warnings {
            let _ = writeln!(out, "warning: {warning}");
        }
        out
    }

    /// What the puller is asked for: each planned image and its tarball's name.
    pub fn image_requests(&self) -> Vec<crate::registry::ImageRequest> {
        self.images
            .iter()
            .map(|i| crate::registry::ImageRequest {
                reference: i.reference.clone(),
                tarball_name: i.tarball.clone(),
            })
            .collect()
    }
}
