//! What the store's port says of an image: its name as the registry protocol splits it, a
//! manifest as served, and a finished tarball's identity and record. The registry parses and
//! fetches these ([`crate::registry`]); the store only carries them.

use cks_pinning::digest::Digest;
use serde::{Deserialize, Serialize};

use super::key::ArtifactKey;
use super::tag::tarball_key;

/// A full normalised reference (`registry.k8s.io/pause:3.10`, `docker.io/library/nginx:1.27@sha256:…`)
/// split into registry host, repository, tag and digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteName {
    /// The full reference as given; this is the name tarballs and results carry.
    pub full: String,
    /// The registry host, with port when there is one (`registry.k8s.io`, `127.0.0.1:5000`).
    pub registry: String,
    /// The repository path (`pause`, `library/nginx`).
    pub repository: String,
    /// The tag, if the reference has one.
    pub tag: Option<String>,
    /// The digest, if the reference pins one.
    pub digest: Option<Digest>,
}

impl RemoteName {
    /// The store's one key of the manifest `reference` (a tag or a digest) of this name's
    /// repository.
    pub fn manifest_key(&self, reference: &str) -> ArtifactKey {
        ArtifactKey::Manifest {
            repository: format!("{}/{}", self.registry, self.repository),
            reference: reference.to_string(),
        }
    }
}

/// A manifest as served: its exact bytes, digest and content type.
#[derive(Debug, Clone)]
pub struct FetchedManifest {
    /// The exact bytes served.
    pub bytes: Vec<u8>,
    /// `sha256:` of the bytes (checked against `Docker-Content-Digest` and the reference).
    pub digest: Digest,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
}

/// The tarball format the store holds: an OCI layout with the Docker archive files. It is part
/// of every tarball's key, so a tarball written in another format is never reused.
pub const TARBALL_FORMAT: &str = "oci-layout+docker-archive/1";

/// What identifies one finished tarball.
#[derive(Debug, Clone, Copy)]
pub struct TarballId<'a> {
    /// The image's full name.
    pub image: &'a str,
    /// The digest its reference resolved to.
    pub digest: &'a str,
    /// The digest of the platform's manifest.
    pub platform_digest: &'a str,
    /// The platform, e.g. `linux/amd64`.
    pub platform: &'a str,
}

impl TarballId<'_> {
    /// The store's one key of this tarball, the same in every tier (the local folder names the
    /// entry by it, the cache registry tags it by it): everything that determines its bytes.
    pub fn key(&self) -> ArtifactKey {
        ArtifactKey::Tarball {
            key: tarball_key(
                TARBALL_FORMAT,
                self.image,
                self.digest,
                self.platform_digest,
                self.platform,
            ),
        }
    }
}

/// What the cache records beside each tarball.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CachedTarball {
    /// The tarball's size.
    pub size: u64,
    /// Its `sha256:` digest.
    pub sha256: String,
    /// The digest of the platform's manifest.
    pub platform_digest: Digest,
    /// The platform, e.g. `linux/arm64`.
    pub platform: String,
    /// The blobs it holds.
    pub blobs: Vec<String>,
}
