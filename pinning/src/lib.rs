//! The pure decisions behind a CKS binaries ISO: versions, autoscaler tags, the CCM pin, image
//! references, manifest edits and `versions.txt`.
//!
//! Nothing here touches the network or the disk: callers pass text in and get values (and
//! warnings) back, so every rule is easy to test and to reuse from the builder, the verifier and
//! other tools.

pub mod autoscaler;
pub mod image;
pub mod version;
