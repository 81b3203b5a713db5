//! The tags an entry is found by: derived from what a build knows before it has the bytes (a
//! file's canonical URL, an image reference), so every runner computes the same tag.

use crate::digest::sha256_hex;

/// The tag of the file whose canonical upstream URL is `url`: `cks-file-<sha256 of the URL>`.
///
/// ```
/// use cks_builder::artifact::file_tag;
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

/// The tag of a finished image tarball: `cks-tarball-<sha256 of its key>` (`tarball_key`:
/// everything that determines its bytes).
pub fn tarball_tag(key: &str) -> String {
    format!("cks-tarball-{}", sha256_hex(key.as_bytes()))
}

/// The key a tarball artifact records (and is checked against): format, image, top digest,
/// platform manifest digest and platform.
pub(crate) fn tarball_key(
    format: &str,
    image: &str,
    digest: &str,
    platform_digest: &str,
    platform: &str,
) -> String {
    format!("{format} {image}@{digest} {platform_digest} {platform}")
}

/// The tag of a finished ISO whose recipe key (hex) is `key`: `cks-iso-<key>`.
pub fn iso_tag(key: &str) -> String {
    format!("cks-iso-{}", sha256_hex(key.as_bytes()))
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
        let key = |format| {
            tarball_key(
                format,
                "registry.k8s.io/pause",
                "sha256:a",
                "sha256:b",
                "linux/amd64",
            )
        };
        let t = tarball_tag(&key("f/1"));
        assert_ne!(t, tarball_tag(&key("f/2")));
        let i = iso_tag(&"c".repeat(64));
        for tag in [a, b, m, t, i] {
            assert!(valid_tag(&tag), "{tag}");
        }
    }
}
