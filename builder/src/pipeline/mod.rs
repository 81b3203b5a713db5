//! `cks-iso build`: the whole ISO, planned first, then downloaded, pulled, pinned and packed.
//!
//! [`resolve::resolve`] computes the [`plan::Plan`] (every version, tag, commit, URL and image),
//! fetching only the manifests and a kubeadm to list images; [`execute::execute`] carries it out
//! in a [`staging::Staging`] directory that disappears however the build ends. [`run`] does both.

pub mod execute;
pub mod images;
pub mod iso_cache;
pub mod lock;
pub mod options;
pub mod plan;
pub mod releases;
pub mod resolve;
pub mod run;
pub mod sources;
pub mod staging;
