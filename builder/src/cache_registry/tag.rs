//! The tags an entry is found by: derived from what a build knows before it has the bytes (a
//! file's canonical URL, an image reference), so every runner computes the same tag.

use crate::digest::sha256_hex;

/// The tag of the file whose canonical upstream URL is `url`: `cks-file-<sha256 of the URL>`.
///
/// ```
/// use cks_builder::cache_registry::file_tag;
/// let tag = file_tag("https://dl.k8s.io/release/v1.33.1/bin/linux/amd64/kubeadm");
/// assert!(tag.starts_with("cks-file-") && tag.len() == 9 + 64);
/// ```
pub fn file_tag(url: &str) -> String {
    format!("cks-file-{}", sha256_hex(url.as_bytes()))
}

/// The tag of the manifest that `reference` (a tag or a digest) of the image `repository` (full,
/// `registry.k8s.io/pause`) names: `cks-manifest-<sha256 of repository@reference>`.
pub fn manifest_tag(repository: &str, reference: &str) -> String {
    let key = format!("{repository}@{reference}");
    format!("cks-manifest-{}", sha256_hex(key.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distribution spec's tag grammar: `[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}`.
    fn valid_tag(tag: &str) -> bool {
        let mut chars = tag.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && tag.len() <= 128
            && chars.all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    }

    #[test]
    fn tags_are_valid_distinct_and_stable() {
        let a = file_tag("https://dl.k8s.io/a");
        let b = file_tag("https://dl.k8s.io/b");
        assert_ne!(a, b);
        assert_eq!(a, file_tag("https://dl.k8s.io/a"));
        let m = manifest_tag("registry.k8s.io/pause", "3.10");
        assert_ne!(m, manifest_tag("registry.k8s.io/pause", "3.9"));
        for tag in [a, b, m] {
            assert!(valid_tag(&tag), "{tag}");
        }
    }
}
