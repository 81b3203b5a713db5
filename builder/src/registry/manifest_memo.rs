//! The manifests one build has read already, by the registry, repository and reference they
//! were asked under.
//!
//! A build reads each image's manifests before it pulls (the free-space check counts the blobs'
//! sizes) and again when it pulls; on a link of 40 ms those are two round trips more for every
//! image, while nothing moves. Within one build the second reading is the first answer: by
//! digest it cannot differ, and for a tag the pull then takes the very manifest the sizes were
//! counted from. Every answer was checked against its digest when it was read. Nothing is kept
//! past the build.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::artifact::{FetchedManifest, RemoteName};

/// The most manifests kept (a build asks for a few per image).
const MAX_KEPT: usize = 4096;

/// A manifest's registry, repository and reference.
type Asked = (String, String, String);

/// The manifests read so far, shared by every copy of the pull's options.
#[derive(Debug, Clone, Default)]
pub struct ManifestMemo(Arc<Mutex<HashMap<Asked, FetchedManifest>>>);

impl ManifestMemo {
    fn key(name: &RemoteName, reference: &str) -> Asked {
        (
            name.registry.clone(),
            name.repository.clone(),
            reference.to_string(),
        )
    }

    /// The manifest `reference` of `name`, when this build has read it.
    pub fn get(&self, name: &RemoteName, reference: &str) -> Option<FetchedManifest> {
        let kept = self.0.lock().ok()?;
        kept.get(&Self::key(name, reference)).cloned()
    }

    /// Keeps `manifest`, read and checked as `reference` of `name`.
    pub fn put(&self, name: &RemoteName, reference: &str, manifest: &FetchedManifest) {
        if let Ok(mut kept) = self.0.lock()
            && kept.len() < MAX_KEPT
        {
            kept.insert(Self::key(name, reference), manifest.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cks_pinning::digest::Digest;

    fn manifest(bytes: &[u8]) -> FetchedManifest {
        FetchedManifest {
            bytes: bytes.to_vec(),
            digest: Digest::sha256_of(bytes),
            content_type: None,
        }
    }

    #[test]
    fn a_manifest_is_served_again_only_under_the_name_and_reference_it_was_read_as() {
        let memo = ManifestMemo::default();
        let pause = RemoteName::parse("registry.k8s.io/pause:3.10").expect("a name");
        let mirror = RemoteName::parse("mirror.example/pause:3.10").expect("a name");
        assert!(memo.get(&pause, "3.10").is_none());
        memo.put(&pause, "3.10", &manifest(b"{}"));
        let copy = memo.clone();
        assert_eq!(
            copy.get(&pause, "3.10").map(|m| m.bytes),
            Some(b"{}".to_vec()),
            "every copy of the options shares it"
        );
        assert!(memo.get(&pause, "3.9").is_none());
        assert!(memo.get(&mirror, "3.10").is_none());
    }
}
