//! Package URLs (purl) for what an ISO bundles: `pkg:oci/...` for images, `pkg:github/...` for
//! files from GitHub, `pkg:generic/...` for any other download.

use crate::image::ImageRef;

/// Percent-encodes everything but the purl's unreserved characters.
fn encode(text: &str, keep_slash: bool) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        let plain = byte.is_ascii_alphanumeric()
            || matches!(byte, b'-' | b'.' | b'_' | b'~')
            || (keep_slash && byte == b'/');
        if plain {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The purl of an image pinned by digest:
/// `pkg:oci/<name>@sha256%3A<hex>?arch=<arch>&repository_url=<registry>/<repository>&tag=<tag>`.
pub fn image(reference: &ImageRef, digest: &str, arch: &str) -> String {
    let mut out = format!(
        "pkg:oci/{}@{}?arch={}&repository_url={}",
        encode(reference.short_name(), false),
        encode(digest, false),
        encode(arch, false),
        encode(&reference.name(), true),
    );
    if let Some(tag) = reference.tag() {
        out.push_str(&format!("&tag={}", encode(tag, false)));
    }
    out
}

/// The purl of a downloaded file: `pkg:github/<owner>/<repo>@<tag>` for GitHub release assets
/// and raw files, else `pkg:generic/<file name>@<version>` with its `download_url`.
pub fn file(url: &str, name: &str, version: Option<&str>, sha256: &str) -> String {
    if let Some(purl) = github(url) {
        return purl;
    }
    let mut out = format!("pkg:generic/{}", encode(name, false));
    if let Some(version) = version {
        out.push_str(&format!("@{}", encode(version, false)));
    }
    out.push_str(&format!(
        "?checksum=sha256%3A{sha256}&download_url={}",
        encode(url, false)
    ));
    out
}

/// `https://github.com/<o>/<r>/releases/download/<tag>/<file>` and
/// `https://raw.githubusercontent.com/<o>/<r>/<ref>/<path>`.
fn github(url: &str) -> Option<String> {
    let (host, path) = url.strip_prefix("https://")?.split_once('/')?;
    let parts: Vec<&str> = path.split('/').collect();
    let (owner, repo, version, subpath) = match (host, parts.as_slice()) {
        ("github.com", [owner, repo, "releases", "download", tag, rest @ ..])
            if !rest.is_empty() =>
        {
            (*owner, *repo, *tag, rest.join("/"))
        }
        ("raw.githubusercontent.com", [owner, repo, reference, rest @ ..]) if !rest.is_empty() => {
            (*owner, *repo, *reference, rest.join("/"))
        }
        _ => return None,
    };
    Some(format!(
        "pkg:github/{}/{}@{}?download_url={}#{}",
        encode(&owner.to_ascii_lowercase(), false),
        encode(&repo.to_ascii_lowercase(), false),
        encode(version, false),
        encode(url, false),
        encode(&subpath, true),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_release_asset() {
        let url = "https://github.com/containernetworking/plugins/releases/download/v1.7.1/cni-plugins-linux-amd64-v1.7.1.tgz";
        let purl = file(url, "x", None, "00");
        assert!(purl.starts_with(
            "pkg:github/containernetworking/plugins@v1.7.1?download_url=https%3A%2F%2Fgithub.com%2F"
        ));
        assert!(purl.ends_with("#cni-plugins-linux-amd64-v1.7.1.tgz"));
    }

    #[test]
    fn generic_download() {
        let purl = file(
            "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm",
            "kubeadm",
            Some("1.33.13"),
            "ab",
        );
        assert_eq!(
            purl,
            "pkg:generic/kubeadm@1.33.13?checksum=sha256%3Aab&download_url=https%3A%2F%2Fdl.k8s.io%2Frelease%2Fv1.33.13%2Fbin%2Flinux%2Famd64%2Fkubeadm"
        );
    }

    #[test]
    fn oci_image() {
        let image = ImageRef::parse("registry.k8s.io/kube-apiserver:v1.33.13").expect("valid");
        let digest = format!("sha256:{}", "a".repeat(64));
        assert_eq!(
            super::image(&image, &digest, "amd64"),
            format!(
                "pkg:oci/kube-apiserver@sha256%3A{}?arch=amd64&repository_url=registry.k8s.io/kube-apiserver&tag=v1.33.13",
                "a".repeat(64)
            )
        );
    }
}
