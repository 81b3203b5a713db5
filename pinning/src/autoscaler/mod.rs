//! The cluster-autoscaler release: parsing a remote's tag listing and choosing the release for a
//! Kubernetes version (or the one an override names).
//!
//! ```
//! use cks_pinning::autoscaler::{RemoteTags, resolve};
//! use cks_pinning::version::KubeVersion;
//! let listing = "\
//! 1111111111111111111111111111111111111111\trefs/tags/cluster-autoscaler-1.33.1
//! 2222222222222222222222222222222222222222\trefs/tags/cluster-autoscaler-1.33.0
//! ";
//! let tags = RemoteTags::parse(listing).expect("valid listing");
//! let k8s = KubeVersion::parse("1.33.13").expect("valid version");
//! let release = resolve(&tags, &k8s, None).expect("a 1.33 release exists");
//! assert_eq!(release.tag, "cluster-autoscaler-1.33.1");
//! assert_eq!(release.commit, "1111111111111111111111111111111111111111");
//! ```

mod ls_remote;
mod object_id;
mod release;
mod tag_table;

pub use ls_remote::{LsRemoteError, RemoteTag, RemoteTags};
pub use object_id::ObjectId;
pub use release::{
    AutoscalerError, AutoscalerRelease, AutoscalerWarning, IMAGE_REPOSITORY, releases, resolve,
    resolve_listing, tag_version,
};
