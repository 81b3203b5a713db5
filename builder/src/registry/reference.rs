//! The parts of a full normalised image reference that the registry protocol needs.

use super::error::RegistryError;
use crate::artifact::RemoteName;

impl RemoteName {
    /// Splits a full normalised reference. The first path component is always the registry, as in
    /// the `Display` of `cks_pinning::image::ImageRef`.
    pub fn parse(full: &str) -> Result<Self, RegistryError> {
        let bad = |reason: &str| RegistryError::BadReference {
            reference: full.to_string(),
            reason: reason.to_string(),
        };
        let (name, digest) = match full.split_once('@') {
            Some((name, digest)) => {
                let digest = cks_pinning::digest::Digest::parse(digest)
                    .ok()
                    .filter(|d| d.is_sha256())
                    .ok_or_else(|| {
                        bad("the digest must be sha256: followed by 64 lowercase hex digits")
                    })?;
                (name, Some(digest))
            }
            None => (full, None),
        };
        let (registry, rest) = name
            .split_once('/')
            .ok_or_else(|| bad("expected REGISTRY/REPOSITORY[:TAG][@DIGEST]"))?;
        let (repository, tag) = match rest.rsplit_once(':') {
            Some((repo, tag)) if !tag.contains('/') => (repo, Some(tag.to_string())),
            _ => (rest, None),
        };
        if registry.is_empty() || repository.is_empty() {
            return Err(bad("the registry and the repository must not be empty"));
        }
        if tag.is_none() && digest.is_none() {
            return Err(bad("expected a tag or a digest"));
        }
        let valid_repo = repository.split('/').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "._-".contains(c))
        });
        if !valid_repo {
            return Err(bad("the repository must be lowercase path components"));
        }
        if let Some(tag) = &tag
            && (tag.is_empty()
                || !tag
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)))
        {
            return Err(bad(
                "the tag may hold only letters, digits, `.`, `_` and `-`",
            ));
        }
        Ok(RemoteName {
            full: full.to_string(),
            registry: registry.to_string(),
            repository: repository.to_string(),
            tag,
            digest,
        })
    }

    /// The registry protocol's parts of `image`; a digest other than sha256 (which registries
    /// here neither serve nor check) is refused.
    pub fn from_image(image: &cks_pinning::image::ImageRef) -> Result<Self, RegistryError> {
        if let Some(digest) = image.pinned_digest()
            && !digest.is_sha256()
        {
            return Err(RegistryError::BadReference {
                reference: image.to_string(),
                reason: "the digest must be sha256: followed by 64 lowercase hex digits"
                    .to_string(),
            });
        }
        Ok(RemoteName {
            full: image.to_string(),
            registry: image.registry().to_string(),
            repository: image.repository().to_string(),
            tag: image.tag().map(str::to_string),
            digest: image.pinned_digest().cloned(),
        })
    }

    /// What to put after `/manifests/`: the digest when pinned, else the tag.
    pub fn manifest_reference(&self) -> &str {
        self.digest
            .as_deref()
            .or(self.tag.as_deref())
            .unwrap_or_default()
    }

    /// The reference without its digest (`registry/repo:tag`), or the repository alone when it
    /// has no tag; followed by `@<digest>` this is the line `cks-iso pull` prints.
    pub fn without_digest(&self) -> String {
        match &self.tag {
            Some(tag) => format!("{}/{}:{tag}", self.registry, self.repository),
            None => format!("{}/{}", self.registry, self.repository),
        }
    }
}

pub use crate::digest::is_sha256_digest;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_registry_repository_tag_and_digest() {
        let d = format!("sha256:{}", "a".repeat(64));
        let name =
            RemoteName::parse(&format!("127.0.0.1:5000/kube/pause:3.10@{d}")).expect("valid");
        assert_eq!(name.registry, "127.0.0.1:5000");
        assert_eq!(name.repository, "kube/pause");
        assert_eq!(name.tag.as_deref(), Some("3.10"));
        assert_eq!(name.manifest_reference(), d);
        assert_eq!(name.without_digest(), "127.0.0.1:5000/kube/pause:3.10");
        let name = RemoteName::parse("docker.io/library/nginx:1.27").expect("valid");
        assert_eq!(name.repository, "library/nginx");
        assert_eq!(name.manifest_reference(), "1.27");
    }

    #[test]
    fn refuses_references_without_tag_or_with_a_bad_digest() {
        assert!(RemoteName::parse("registry.k8s.io/pause").is_err());
        assert!(RemoteName::parse("pause:3.10").is_err());
        assert!(RemoteName::parse("registry.k8s.io/pause@sha256:../../etc").is_err());
        assert!(RemoteName::parse("registry.k8s.io/Pause:1").is_err());
    }
}
