//! Which of the ISO's tarballs a node lacks, decided from its `ctr -n k8s.io images ls` answer
//! alone (no I/O): an image is present when the node lists its name with the same digest (by
//! name alone when the archive gives no digest).

use super::archive::{ImageRef, Tarball};

/// An image a node's containerd holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeImage {
    /// `REF`.
    pub name: String,
    /// `DIGEST`.
    pub digest: String,
}

/// Reads `ctr images ls` (columns `REF TYPE DIGEST SIZE PLATFORMS LABELS`, header first), or
/// the same lines cut down to `REF DIGEST`: each line's name and its first `sha256:` column.
pub fn parse_ctr_ls(stdout: &str) -> Vec<NodeImage> {
    stdout
        .lines()
        .filter_map(|line| {
            let mut cols = line.split_whitespace();
            let name = cols.next()?.to_string();
            let digest = cols.find(|c| c.starts_with("sha256:"))?.to_string();
            Some(NodeImage { name, digest })
        })
        .collect()
}

/// Whether `image` is among `present`.
pub fn holds(present: &[NodeImage], image: &ImageRef) -> bool {
    present
        .iter()
        .any(|p| p.name == image.name && image.digest.as_ref().is_none_or(|d| *d == p.digest))
}

/// The tarballs holding an image the node lacks, in the ISO's order.
pub fn lacking<'a>(tarballs: &'a [Tarball], present: &[NodeImage]) -> Vec<&'a Tarball> {
    tarballs
        .iter()
        .filter(|t| t.images.iter().any(|i| !holds(present, i)))
        .collect()
}

/// The images of `tarballs` the node still lacks (after an import, each must be there).
pub fn still_missing(tarballs: &[&Tarball], present: &[NodeImage]) -> Vec<ImageRef> {
    tarballs
        .iter()
        .flat_map(|t| t.images.iter())
        .filter(|i| !holds(present, i))
        .cloned()
        .collect()
}

/// The containerd platform of a node from its `uname -m`.
pub fn platform_of(machine: &str) -> Option<&'static str> {
    match machine.trim() {
        "x86_64" | "amd64" => Some("linux/amd64"),
        "aarch64" | "arm64" => Some("linux/arm64"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tarball(file: &str, images: &[(&str, &str)]) -> Tarball {
        Tarball {
            file: file.into(),
            size: 10,
            sha256: "00".into(),
            images: images
                .iter()
                .map(|(n, d)| ImageRef {
                    name: n.to_string(),
                    digest: Some(d.to_string()),
                })
                .collect(),
        }
    }

    const LS: &str = "REF                        TYPE                                    DIGEST       SIZE    PLATFORMS   LABELS\n\
registry.k8s.io/pause:3.10 application/vnd.oci.image.index.v1+json sha256:aa 300.0 KiB linux/amd64 io.cri-containerd.image=managed\n\
registry.k8s.io/etcd:3.5   application/vnd.oci.image.index.v1+json sha256:old 20.0 MiB linux/amd64 -\n";

    #[test]
    fn a_node_lacks_what_it_does_not_list_with_the_same_digest() {
        let present = parse_ctr_ls(LS);
        assert_eq!(present.len(), 2);
        assert_eq!(
            parse_ctr_ls("REF DIGEST\nregistry.k8s.io/pause:3.10 sha256:aa\n"),
            present[..1]
        );
        let tarballs = [
            tarball("pause.tar", &[("registry.k8s.io/pause:3.10", "sha256:aa")]),
            tarball("etcd.tar", &[("registry.k8s.io/etcd:3.5", "sha256:new")]),
            tarball(
                "coredns.tar",
                &[("registry.k8s.io/coredns:1.12", "sha256:cc")],
            ),
        ];
        let files: Vec<&str> = lacking(&tarballs, &present)
            .iter()
            .map(|t| t.file.as_str())
            .collect();
        assert_eq!(files, ["etcd.tar", "coredns.tar"]);
        let missing = still_missing(&lacking(&tarballs, &present), &present);
        assert_eq!(missing.len(), 2);
    }

    #[test]
    fn platforms_follow_the_kernel_machine_name() {
        assert_eq!(platform_of("x86_64\n"), Some("linux/amd64"));
        assert_eq!(platform_of("aarch64"), Some("linux/arm64"));
        assert_eq!(platform_of("riscv64"), None);
    }
}
