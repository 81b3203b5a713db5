//! The pure decisions behind a CKS binaries ISO: versions, autoscaler tags, the CCM pin, image
//! references, manifest edits and `versions.txt`.
//!
//! Nothing here touches the network or the disk: callers pass text in and get values (and
//! warnings) back, so every rule is easy to test and to reuse from the builder, the verifier and
//! other tools.
//!
//! Modules: [`arch`] (the target architecture), [`duration`] (durations on a command line), [`version`] (Kubernetes versions), [`release`]
//! (the bundled tools' release versions), [`sources`] (where each file of the ISO comes from and
//! goes to), [`autoscaler`] (tag listing and release choice), [`ccm`] (the cloud controller
//! manager pin), [`image`] (references, dedup, tarball names, the image plan and its one-pause
//! rule), [`limits`] (how much is read of each kind of input), [`answer_read`] (one server
//! answer read whole, at most a limit), [`terminal`] (server text made safe to print),
//! [`manifest`] (text-preserving YAML edits and what a manifest must hold), [`versions_txt`]
//! (the ISO's record), [`sbom`] (its SPDX bill of materials) and [`catalog`] (the release
//! catalog and what to register from it).
//!
//! ```
//! use cks_pinning::{autoscaler, ccm, version::KubeVersion};
//! let listing = "0123456789012345678901234567890123456789\trefs/tags/cluster-autoscaler-1.33.6\n";
//! let tags = autoscaler::RemoteTags::parse(listing).expect("valid listing");
//! let k8s = KubeVersion::parse("v1.33.13").expect("valid version");
//! let release = autoscaler::resolve(&tags, &k8s, None).expect("a release");
//! assert_eq!(release.image().expect("valid").to_string(),
//!            "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.6");
//! assert_eq!(ccm::pin(None).expect("default").tag, "v1.2.0");
//! ```

pub mod answer_read;
pub mod arch;
pub mod autoscaler;
pub mod catalog;
pub mod ccm;
pub mod digest;
pub mod duration;
pub mod headlamp;
pub mod image;
pub mod kube_request;
pub mod limits;
pub mod manifest;
pub mod node_contract;
pub mod release;
pub mod sbom;
pub mod sources;
pub mod terminal;
pub mod tool_release;
pub mod version;
pub mod versions_txt;
