//! Image pulls: a registry client, platform choice and the OCI-layout tarballs CKS nodes import
//! with `ctr -n k8s.io image import`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), cks_builder::registry::RegistryError> {
//! use cks_builder::registry::{Arch, ImageRequest, PullOptions, pull_images};
//! let mut options = PullOptions::new(Arch::Arm64);
//! options.mirrors.push("registry.k8s.io=http://127.0.0.1:5000".into());
//! options.insecure.push("127.0.0.1:5000".into());
//! let pause = cks_pinning::image::ImageRef::parse("registry.k8s.io/pause:3.10").expect("valid");
//! let requests = [ImageRequest {
//!     reference: pause,
//!     tarball_name: "pause-3.10.tar".into(),
//! }];
//! let report = pull_images(&requests, "docker".as_ref(), &options, &cks_builder::progress::NoProgress).await?;
//! for image in &report.images {
//!     println!("{}", image.pinned());
//! }
//! # Ok(()) }
//! ```

mod auth;
mod blob_transfer;
mod client;
mod client_auth;
mod cred_helper;
mod credential_error;
mod credentials;
mod digests;
mod endpoint;
mod error;
mod finished_tarball;
mod layout;
mod manifest_memo;
mod progress_name;
mod pull;
mod pull_image;
mod pull_types;
mod reference;
mod referrers;
pub mod sha1_memo;
mod shared;
mod sizes;
mod store;
mod tarball_check;

pub use crate::artifact::{CachedTarball, FetchedManifest, RemoteName, TARBALL_FORMAT, TarballId};
pub use auth::{Challenge, CredentialStore, Credentials, default_docker_config, parse_challenge};
pub use cks_iso_reader::oci::{
    Arch, CONTAINERD_NAME, DOCKER_LIST, DOCKER_MANIFEST, Descriptor, MANIFEST_ACCEPT, Manifest,
    OCI_INDEX, OCI_MANIFEST, OCI_REF_NAME, Platform, config_platform, parse_manifest, runs_on,
    select as select_platform,
};
pub use client::RegistryClient;
pub use digests::resolve_digests;
pub use endpoint::{Endpoint, Endpoints};
pub use error::RegistryError;
pub use finished_tarball::TarballStore;
pub use layout::{
    DockerImage, LayoutContents, WrittenTarball, docker_manifest_json, docker_repositories_json,
    entry_header, index_json, write_tarball, write_tarball_temp,
};
pub use manifest_memo::ManifestMemo;
pub use pull::pull_images;
pub use pull_types::{
    ImageRequest, PullOptions, PullReport, PullWarning, PulledImage, SkippedImage,
};
pub use reference::is_sha256_digest;
pub use shared::manifest;
pub use sizes::{ImageSize, image_sizes};
pub use store::{BlobStore, StoreStats};
pub use tarball_check::{Sha1s, TarballCheck, TarballError, TarballFacts, check_tarball_file};
