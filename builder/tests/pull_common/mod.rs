//! Shared setup of the pull tests: the test image set pushed to a real registry.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use cks_builder::progress::NoProgress;
use cks_builder::registry::{Arch, ImageRequest, PullOptions, RegistryError, pull_images};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::oci::TestImages;
use cks_fixtures::registry::{Auth, Registry};

/// The original registry name the tests pull through a mirror.
pub const ORIGIN: &str = "registry.example.com";

/// A registry holding the test set under `test/<tag>:1.0` (`test/multi:1.0`, …).
pub struct Pushed {
    pub registry: Registry,
    pub images: TestImages,
    pub work: tempfile::TempDir,
}

pub const TAGS: [&str; 6] = [
    "multi",
    "amd64-only",
    "arm-only",
    "shared-a",
    "shared-b",
    "no-arm64",
];

pub fn pushed(auth: Auth, tags: &[&str]) -> Pushed {
    let work = tempfile::tempdir().expect("tempdir");
    let images = TestImages::build(&work.path().join("layout")).expect("test images");
    let registry = Registry::start(auth).expect("docker-registry starts");
    for tag in tags {
        registry
            .push(images.layout.path(), tag, &format!("test/{tag}"), "1.0")
            .expect("skopeo push");
    }
    Pushed {
        registry,
        images,
        work,
    }
}

impl Pushed {
    /// `registry.example.com/test/<tag>:1.0`.
    pub fn reference(&self, tag: &str) -> String {
        format!("{ORIGIN}/test/{tag}:1.0")
    }

    /// Options pulling `registry.example.com` from this registry over plain HTTP.
    pub fn options(&self, arch: Arch) -> PullOptions {
        let mut options = PullOptions::new(arch);
        options.mirrors = vec![format!("{ORIGIN}=http://{}", self.registry.host())];
        options.insecure = vec![self.registry.host()];
        options.retry = RetryPolicy::immediate(1);
        options
    }

    pub fn out(&self, name: &str) -> PathBuf {
        self.work.path().join(name)
    }

    pub async fn pull(
        &self,
        tags: &[&str],
        out: &Path,
        options: &PullOptions,
    ) -> Result<cks_builder::registry::PullReport, RegistryError> {
        let requests: Vec<ImageRequest> = tags
            .iter()
            .map(|tag| ImageRequest {
                reference: cks_pinning::image::ImageRef::parse(&self.reference(tag))
                    .expect("reference"),
                tarball_name: format!("{tag}.tar"),
            })
            .collect();
        pull_images(&requests, out, options, &NoProgress).await
    }
}

/// The entry names of a tarball.
pub fn tar_entries(path: &Path) -> Vec<String> {
    let file = std::fs::File::open(path).expect("open tarball");
    let mut archive = tar::Archive::new(file);
    archive
        .entries()
        .expect("entries")
        .map(|e| {
            e.expect("entry")
                .path()
                .expect("path")
                .display()
                .to_string()
        })
        .collect()
}

/// The blob digests in a tarball.
pub fn tar_blobs(path: &Path) -> Vec<String> {
    let mut blobs: Vec<String> = tar_entries(path)
        .into_iter()
        .filter_map(|name| {
            name.strip_prefix("blobs/sha256/")
                .filter(|h| !h.is_empty())
                .map(|h| format!("sha256:{h}"))
        })
        .collect();
    blobs.sort();
    blobs
}

/// Files left in `dir` (to check that nothing half-written stays).
pub fn files_in(dir: &Path) -> Vec<String> {
    match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    }
}
