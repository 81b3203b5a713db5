//! The file name of an image's tarball under `docker/` in the ISO.
//!
//! The short form is the one the upstream build script used: the repository's last path
//! component with the tag (`kube-apiserver:v1.33.13.tar`), or with the digest for a digest-only
//! reference (`pause@sha256:<hex>.tar`). When two images of a set share a short form, each of them
//! gets the long form instead: the whole normalised reference with `/` written as `+`
//! (`registry.k8s.io+pause:3.10.tar`). `+` never occurs in a registry, repository, tag or
//! digest, so the long form is injective, and it always holds a `+` while the short form never
//! does, so the two forms cannot meet. A long form over [`NAME_MAX`] bytes becomes
//! `sha256-<hex of the reference>+<short name>.tar`, whose first `+`-separated part is no registry
//! name (it holds no `.` or `:`).
//!
//! Every name uses only `A-Z a-z 0-9 . _ - : @ +`, starts with an alphanumeric, never holds `/`,
//! `..` is impossible as a whole name, and it is at most [`NAME_MAX`] bytes.

use std::collections::{HashMap, HashSet};

use super::reference::ImageRef;

/// The longest file name produced (Rock Ridge and Linux allow 255 bytes).
pub const NAME_MAX: usize = 255;

/// The upstream script's file name: last path component, `:tag` or `@digest` (or both), `.tar`.
pub fn short_tarball_name(image: &ImageRef) -> String {
    let mut name = image.short_name().to_string();
    push_version(&mut name, image);
    name.push_str(".tar");
    name
}

/// The injective file name: the whole normalised reference with `/` written as `+`, `.tar`
/// (hashed when too long, see the module documentation).
pub fn long_tarball_name(image: &ImageRef) -> String {
    let name = format!("{}.tar", image.to_string().replace('/', "+"));
    if name.len() <= NAME_MAX {
        return name;
    }
    let hash = crate::digest::sha256_hex(image.to_string().as_bytes());
    let mut name = format!("sha256-{hash}+{}", image.short_name());
    name.truncate(NAME_MAX - ".tar".len());
    name.push_str(".tar");
    name
}

/// The file name under `docker/` of each image in `images`, in order: the short form when no
/// other distinct image of the set shares it, the long form otherwise. Equal references get
/// equal names; distinct references always get distinct names.
pub fn tarball_names(images: &[ImageRef]) -> Vec<String> {
    let mut owners: HashMap<String, HashSet<&ImageRef>> = HashMap::new();
    for image in images {
        owners
            .entry(short_tarball_name(image))
            .or_default()
            .insert(image);
    }
    images
        .iter()
        .map(|image| {
            let short = short_tarball_name(image);
            let unique = owners.get(&short).is_some_and(|set| set.len() == 1);
            if unique && short.len() <= NAME_MAX {
                short
            } else {
                long_tarball_name(image)
            }
        })
        .collect()
}

/// Whether `name` is safe as a file name under `docker/` in an ISO: non-empty, at most
/// [`NAME_MAX`] bytes, starting with an alphanumeric and made only of `A-Z a-z 0-9 . _ - : @ +`.
pub fn is_safe_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_MAX
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-:@+".contains(&b))
}

fn push_version(name: &mut String, image: &ImageRef) {
    if let Some(tag) = image.tag() {
        name.push(':');
        name.push_str(tag);
    }
    if let Some(digest) = image.digest() {
        name.push('@');
        name.push_str(digest);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(texts: &[&str]) -> Vec<ImageRef> {
        texts
            .iter()
            .map(|t| ImageRef::parse(t).expect("valid reference"))
            .collect()
    }

    #[test]
    fn uses_the_scripts_short_form_when_unique() {
        let hex = "a".repeat(64);
        let images = refs(&[
            "registry.k8s.io/kube-apiserver:v1.33.13",
            "registry.k8s.io/pause:3.10",
            &format!("ghcr.io/x/thing@sha256:{hex}"),
        ]);
        assert_eq!(
            tarball_names(&images),
            [
                "kube-apiserver:v1.33.13.tar".to_string(),
                "pause:3.10.tar".to_string(),
                format!("thing@sha256:{hex}.tar"),
            ]
        );
    }

    #[test]
    fn colliding_short_forms_use_the_long_form() {
        let images = refs(&[
            "registry.k8s.io/pause:3.10",
            "docker.io/rancher/pause:3.10",
            "registry.k8s.io/coredns/coredns:v1.12.0",
            "registry.k8s.io/pause:3.10",
        ]);
        assert_eq!(
            tarball_names(&images),
            [
                "registry.k8s.io+pause:3.10.tar",
                "docker.io+rancher+pause:3.10.tar",
                "coredns:v1.12.0.tar",
                "registry.k8s.io+pause:3.10.tar",
            ]
        );
    }

    #[test]
    fn very_long_references_are_hashed_within_the_limit() {
        let long_repo = format!("{}/{}", "a".repeat(120), "b".repeat(120));
        let image = ImageRef::parse(&format!("example.com/{long_repo}:{}", "t".repeat(128)))
            .expect("valid reference");
        let name = long_tarball_name(&image);
        assert!(name.len() <= NAME_MAX, "{name}");
        assert!(name.starts_with("sha256-"), "{name}");
        assert!(is_safe_file_name(&name), "{name}");
    }
}
