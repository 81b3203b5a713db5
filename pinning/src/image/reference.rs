//! One image reference, parsed and normalised the way containerd and Docker do.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::grammar::{split_registry, valid_component, valid_registry, valid_tag};
use crate::digest::Digest;

pub use super::grammar::DEFAULT_REGISTRY;
/// The tag an image gets when its reference names neither a tag nor a digest.
pub const DEFAULT_TAG: &str = "latest";
const LEGACY_DEFAULT_REGISTRY: &str = "index.docker.io";
const OFFICIAL_NAMESPACE: &str = "library";
/// Docker's limit on the length of a name (registry and repository).
const NAME_MAX: usize = 255;

/// A normalised image reference: `registry/repository[:tag][@digest]`.
///
/// `busybox` becomes `docker.io/library/busybox:latest`, `kubernetesui/dashboard:v2.7.0` becomes
/// `docker.io/kubernetesui/dashboard:v2.7.0`; a digest is kept, with or without a tag beside it
/// (use [`ImageRef::canonical`] for containerd's digest-only form).
///
/// ```
/// use cks_pinning::image::ImageRef;
/// let image = ImageRef::parse("kubernetesui/dashboard:v2.7.0").expect("valid reference");
/// assert_eq!(image.to_string(), "docker.io/kubernetesui/dashboard:v2.7.0");
/// assert_eq!(image.registry(), "docker.io");
/// assert_eq!(image.repository(), "kubernetesui/dashboard");
/// assert_eq!(image.tag(), Some("v2.7.0"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ImageRef {
    registry: String,
    repository: String,
    tag: Option<String>,
    digest: Option<Digest>,
}

/// Why a text is not an image reference.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ImageRefError {
    /// The text is empty.
    #[error("empty image reference; expected something like `registry.k8s.io/pause:3.10`")]
    Empty,
    /// The text holds whitespace or a control character.
    #[error(
        "image reference {input:?} holds whitespace or a control character; remove it (expected `[registry/]repository[:tag][@sha256:<64 hex>]`)"
    )]
    Whitespace {
        /// The text given.
        input: String,
    },
    /// The part after `@` is not `sha256:<64 lowercase hex>` or `sha512:<128 lowercase hex>`.
    #[error(
        "image reference {input:?} has a malformed digest {digest:?}; expected `sha256:` followed by 64 lowercase hex digits"
    )]
    Digest {
        /// The text given.
        input: String,
        /// The digest part.
        digest: String,
    },
    /// The tag is empty, too long or holds a character a tag may not hold.
    #[error(
        "image reference {input:?} has a malformed tag {tag:?}; a tag is 1 to 128 of `A-Z a-z 0-9 _ . -`, not starting with `.` or `-`"
    )]
    Tag {
        /// The text given.
        input: String,
        /// The tag part.
        tag: String,
    },
    /// The registry part is not a host name with an optional port.
    #[error(
        "image reference {input:?} has a malformed registry {registry:?}; expected a host name with an optional `:port`, such as `registry.k8s.io` or `localhost:5000`"
    )]
    Registry {
        /// The text given.
        input: String,
        /// The registry part.
        registry: String,
    },
    /// A path component of the repository is empty or not lowercase alphanumerics joined by
    /// separators.
    #[error(
        "image reference {input:?} has a malformed repository component {component:?}; components are lowercase `a-z 0-9` joined by `.`, `_`, `__` or `-`"
    )]
    Component {
        /// The text given.
        input: String,
        /// The offending component.
        component: String,
    },
    /// The name is longer than Docker allows.
    #[error("image reference {input:?} has a name of {len} characters; at most 255 are allowed")]
    TooLong {
        /// The text given.
        input: String,
        /// The length of registry and repository together.
        len: usize,
    },
    /// The text is 64 hex digits, which Docker reserves for image IDs.
    #[error(
        "image reference {input:?} is 64 hex digits, which is an image ID, not a name; give `repository@sha256:<hex>` instead"
    )]
    ImageId {
        /// The text given.
        input: String,
    },
}

impl ImageRef {
    /// Parses and normalises `text`, refusing what containerd would refuse.
    pub fn parse(text: &str) -> Result<ImageRef, ImageRefError> {
        if text.is_empty() {
            return Err(ImageRefError::Empty);
        }
        if text.chars().any(|c| c.is_whitespace() || c.is_control()) {
            return Err(ImageRefError::Whitespace {
                input: text.to_string(),
            });
        }
        if crate::digest::is_sha256_hex(text) {
            return Err(ImageRefError::ImageId {
                input: text.to_string(),
            });
        }
        let (rest, digest) = match text.split_once('@') {
            Some((rest, digest)) => {
                let digest = Digest::parse(digest).map_err(|_| ImageRefError::Digest {
                    input: text.to_string(),
                    digest: digest.to_string(),
                })?;
                (rest, Some(digest))
            }
            None => (text, None),
        };
        // A tag follows the last `:` that comes after the last `/` (a `:` before it is a port).
        let last_slash = rest.rfind('/').map_or(0, |i| i + 1);
        let (name, tag) = match rest[last_slash..].rfind(':') {
            Some(i) => {
                let tag = &rest[last_slash + i + 1..];
                if !valid_tag(tag) {
                    return Err(ImageRefError::Tag {
                        input: text.to_string(),
                        tag: tag.to_string(),
                    });
                }
                (&rest[..last_slash + i], Some(tag.to_string()))
            }
            None => (rest, None),
        };
        let (registry, repository) = split_registry(name);
        if !valid_registry(registry) {
            return Err(ImageRefError::Registry {
                input: text.to_string(),
                registry: registry.to_string(),
            });
        }
        if let Some(component) = repository.split('/').find(|c| !valid_component(c)) {
            return Err(ImageRefError::Component {
                input: text.to_string(),
                component: component.to_string(),
            });
        }
        let registry = if registry == LEGACY_DEFAULT_REGISTRY {
            DEFAULT_REGISTRY
        } else {
            registry
        };
        let repository = if registry == DEFAULT_REGISTRY && !repository.contains('/') {
            format!("{OFFICIAL_NAMESPACE}/{repository}")
        } else {
            repository.to_string()
        };
        let len = registry.len() + 1 + repository.len();
        if len > NAME_MAX {
            return Err(ImageRefError::TooLong {
                input: text.to_string(),
                len,
            });
        }
        let tag = match (tag, &digest) {
            (None, None) => Some(DEFAULT_TAG.to_string()),
            (tag, _) => tag,
        };
        Ok(ImageRef {
            registry: registry.to_string(),
            repository,
            tag,
            digest,
        })
    }

    /// The registry host (and port), e.g. `docker.io`, `registry.k8s.io`, `localhost:5000`.
    pub fn registry(&self) -> &str {
        &self.registry
    }

    /// The repository path without the registry, e.g. `library/busybox`.
    pub fn repository(&self) -> &str {
        &self.repository
    }

    /// The tag, if the reference has one (`latest` when the input named neither tag nor digest).
    pub fn tag(&self) -> Option<&str> {
        self.tag.as_deref()
    }

    /// The digest's text (`sha256:<hex>`), if the reference pins one.
    pub fn digest(&self) -> Option<&str> {
        self.digest.as_ref().map(Digest::as_str)
    }

    /// The digest, if the reference pins one.
    pub fn pinned_digest(&self) -> Option<&Digest> {
        self.digest.as_ref()
    }

    /// The full name without tag or digest: `registry/repository`.
    pub fn name(&self) -> String {
        format!("{}/{}", self.registry, self.repository)
    }

    /// The last component of the repository path, e.g. `kube-apiserver`.
    pub fn short_name(&self) -> &str {
        self.repository
            .rsplit('/')
            .next()
            .unwrap_or(self.repository.as_str())
    }

    /// The same image pinned to the digest text `digest`, keeping the tag.
    pub fn with_digest(&self, digest: &str) -> Result<ImageRef, ImageRefError> {
        let digest = Digest::parse(digest).map_err(|_| ImageRefError::Digest {
            input: self.to_string(),
            digest: digest.to_string(),
        })?;
        Ok(self.pinned_to(&digest))
    }

    /// The same image pinned to `digest`, keeping the tag (for `versions.txt` `image:` lines).
    pub fn pinned_to(&self, digest: &Digest) -> ImageRef {
        ImageRef {
            digest: Some(digest.clone()),
            ..self.clone()
        }
    }

    /// The same image without its digest (the name and tag a pull asks for).
    pub fn without_digest(&self) -> ImageRef {
        ImageRef {
            digest: None,
            ..self.clone()
        }
    }

    /// Whether `text` is this reference's normalised form (its `Display`), without writing it.
    fn is_written(&self, text: &str) -> bool {
        let rest = text
            .strip_prefix(self.registry.as_str())
            .and_then(|r| r.strip_prefix('/'))
            .and_then(|r| r.strip_prefix(self.repository.as_str()));
        let rest = match &self.tag {
            Some(tag) => rest
                .and_then(|r| r.strip_prefix(':'))
                .and_then(|r| r.strip_prefix(tag.as_str())),
            None => rest,
        };
        match (rest, &self.digest) {
            (Some(rest), Some(digest)) => rest.strip_prefix('@') == Some(digest.as_str()),
            (Some(rest), None) => rest.is_empty(),
            (None, _) => false,
        }
    }

    /// containerd's form (`ParseDockerRef`): a reference with a digest drops its tag.
    pub fn canonical(&self) -> ImageRef {
        match self.digest {
            Some(_) => ImageRef {
                tag: None,
                ..self.clone()
            },
            None => self.clone(),
        }
    }
}

impl fmt::Display for ImageRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

impl FromStr for ImageRef {
    type Err = ImageRefError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        ImageRef::parse(text)
    }
}

/// A reference equals the text of its normalised form.
impl PartialEq<String> for ImageRef {
    fn eq(&self, other: &String) -> bool {
        self.is_written(other)
    }
}

/// A text equals a reference when it is the reference's normalised form.
impl PartialEq<ImageRef> for String {
    fn eq(&self, other: &ImageRef) -> bool {
        other.is_written(self)
    }
}

impl serde::Serialize for ImageRef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for ImageRef {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ImageRef::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "4f53e0a8a3c5e4f2c1d9b7a6e5f4d3c2b1a0f9e8d7c6b5a4f3e2d1c0b9a8f7e6";

    fn norm(text: &str) -> String {
        ImageRef::parse(text).expect("valid reference").to_string()
    }

    #[test]
    fn normalises_like_containerd() {
        assert_eq!(norm("busybox"), "docker.io/library/busybox:latest");
        assert_eq!(norm("busybox:1.36"), "docker.io/library/busybox:1.36");
        assert_eq!(
            norm("kubernetesui/dashboard:v2.7.0"),
            "docker.io/kubernetesui/dashboard:v2.7.0"
        );
        assert_eq!(
            norm("index.docker.io/library/busybox"),
            "docker.io/library/busybox:latest"
        );
        assert_eq!(
            norm("docker.io/busybox"),
            "docker.io/library/busybox:latest"
        );
        assert_eq!(
            norm("registry.k8s.io/kube-apiserver:v1.33.13"),
            "registry.k8s.io/kube-apiserver:v1.33.13"
        );
        assert_eq!(norm("localhost:5000/app"), "localhost:5000/app:latest");
        assert_eq!(norm("localhost/app:1"), "localhost/app:1");
    }

    #[test]
    fn a_reference_equals_exactly_the_text_it_is_written_as() {
        let digest = format!("sha256:{HEX}");
        for text in [
            "docker.io/library/busybox:1.36".to_string(),
            format!("docker.io/library/busybox@{digest}"),
            format!("127.0.0.1:5000/kube/pause:3.10@{digest}"),
        ] {
            let image = ImageRef::parse(&text).expect("valid");
            assert_eq!(image, text);
            assert_eq!(text, image);
        }
        let image = ImageRef::parse("docker.io/library/busybox:1.36").expect("valid");
        for other in [
            "busybox:1.36",
            "docker.io/library/busybox:1.3",
            "docker.io/library/busybox:1.36 ",
            "docker.io/library/busybox",
            "docker.io/library/busybox:1.36@sha256:",
        ] {
            assert_ne!(image, other.to_string(), "{other}");
        }
        let pinned = image.pinned_to(&digest.parse().expect("digest"));
        assert_ne!(pinned, "docker.io/library/busybox:1.36".to_string());
        assert_eq!(pinned.without_digest(), image);
    }

    #[test]
    fn keeps_digests_with_and_without_tag() {
        let by_digest = ImageRef::parse(&format!("busybox@sha256:{HEX}")).expect("valid");
        assert_eq!(by_digest.tag(), None);
        assert_eq!(by_digest.digest(), Some(format!("sha256:{HEX}").as_str()));
        assert_eq!(
            by_digest.to_string(),
            format!("docker.io/library/busybox@sha256:{HEX}")
        );
        let both = ImageRef::parse(&format!("ghcr.io/a/b:1.0@sha256:{HEX}")).expect("valid");
        assert_eq!(both.tag(), Some("1.0"));
        assert_eq!(both.to_string(), format!("ghcr.io/a/b:1.0@sha256:{HEX}"));
        assert_eq!(
            both.canonical().to_string(),
            format!("ghcr.io/a/b@sha256:{HEX}")
        );
    }

    #[test]
    fn port_is_not_a_tag() {
        let image = ImageRef::parse("127.0.0.1:5000/x/y").expect("valid");
        assert_eq!(image.registry(), "127.0.0.1:5000");
        assert_eq!(image.repository(), "x/y");
        assert_eq!(image.tag(), Some("latest"));
    }

    #[test]
    fn refuses_malformed_references() {
        let bad = [
            "",
            "Busybox",
            "busybox:",
            "busybox:-x",
            "busybox@sha256:abc",
            "busybox@md5:00",
            "a//b",
            "a/b/",
            "/a",
            "busy box",
            "a/b..c",
            "a:b:c",
            "host:port/x",
            HEX,
            "x/-a",
        ];
        for text in bad {
            let error = ImageRef::parse(text).expect_err(text);
            if !text.is_empty() {
                assert!(error.to_string().contains(text), "{error} names {text}");
            }
        }
    }

    #[test]
    fn components_allow_upstream_separators() {
        for text in ["a/b_c", "a/b__c", "a/b---c", "a/b.c", "a0/1b"] {
            ImageRef::parse(text).expect(text);
        }
    }
}
