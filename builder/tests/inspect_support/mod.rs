//! A complete CKS ISO tree built in a test: small binaries, real OCI-layout image tarballs
//! written by the layout writer, manifests naming the bundled images, and a `versions.txt`
//! rendered from what is on disk. Variants change one thing, then pack.
#![allow(dead_code)]

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use cks_builder::iso::{BuildTime, PackOptions, pack};
use cks_builder::registry::{LayoutContents, OCI_INDEX, OCI_MANIFEST, index_json, write_tarball};
use cks_pinning::image::ImageRef;
use cks_pinning::versions_txt::{FileEntry, SkippedImage, VersionsTxt};
use sha2::{Digest, Sha256};

/// The images the valid tree bundles (the first is multi-platform).
pub const IMAGES: [&str; 7] = [
    "registry.k8s.io/pause:3.10",
    "registry.k8s.io/kube-apiserver:v1.33.13",
    "docker.io/weaveworks/weave-kube:2.8.1",
    "docker.io/kubernetesui/dashboard:v2.7.0",
    "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0",
    "docker.io/apache/cloudstack-kubernetes-provider:v1.2.0",
    "docker.io/cloudstack/cloudstack-csi-driver:v3.0.0",
];

/// The image the CSI manifest names that is recorded as skipped.
pub const SKIPPED: &str = "registry.k8s.io/sig-storage/csi-snapshotter:v8.2.0";

/// The autoscaler argument CloudStack fills in.
pub const PLACEHOLDER: &str = "--nodes=<min>:<max>:<cluster-id>";

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Deterministic bytes, different per `seed`.
pub fn bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// An uncompressed layer: a tar holding one small file, different per `seed` (containerd
/// unpacks it on import, so it must be a real tar; its digest is also its diff id).
pub fn layer_tar(seed: u64) -> Vec<u8> {
    let data = bytes(seed, 3_000);
    let mut tar = tar::Builder::new(Vec::new());
    let mut header = tar::Header::new_ustar();
    header.set_size(data.len() as u64);
    header.set_mode(0o644);
    header.set_mtime(0);
    header.set_cksum();
    tar.append_data(&mut header, format!("data-{seed}"), &data[..])
        .expect("append");
    tar.into_inner().expect("finish layer")
}

fn deployment(name: &str, image: &str, extra: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  namespace: kube-system\nspec:\n  template:\n    spec:\n      containers:\n        - name: {name}\n          image: {image}\n          imagePullPolicy: IfNotPresent\n{extra}"
    )
}

/// The root manifests of the valid tree.
pub fn manifests() -> Vec<(&'static str, String)> {
    vec![
        (
            "network.yaml",
            format!(
                "# weave\n{}",
                deployment("weave-net", "docker.io/weaveworks/weave-kube:2.8.1", "")
            ),
        ),
        (
            "dashboard.yaml",
            deployment("kubernetes-dashboard", "kubernetesui/dashboard:v2.7.0", ""),
        ),
        (
            "autoscaler.yaml",
            deployment(
                "cluster-autoscaler",
                "registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0",
                &format!(
                    "          command:\n            - ./cluster-autoscaler\n            - --cloud-provider=cloudstack\n            - {PLACEHOLDER}\n"
                ),
            ),
        ),
        (
            "provider.yaml",
            deployment(
                "cloud-controller-manager",
                "apache/cloudstack-kubernetes-provider:v1.2.0",
                "",
            ),
        ),
        (
            "manifest.yaml",
            format!(
                "{}---\n{}",
                deployment(
                    "cloudstack-csi-controller",
                    "docker.io/cloudstack/cloudstack-csi-driver:v3.0.0",
                    ""
                ),
                deployment("csi-snapshotter", SKIPPED, "")
            ),
        ),
        (
            "snapshot-crds.yaml",
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: volumesnapshots.snapshot.storage.k8s.io\nspec:\n  group: snapshot.storage.k8s.io\n".to_string(),
        ),
    ]
}

/// A tree in a temporary directory, with the images it bundles.
pub struct Tree {
    dir: tempfile::TempDir,
    /// The `image:` lines (pinned references).
    pub images: Vec<ImageRef>,
    /// The version lines and URLs (files and images are filled in by [`Tree::render`]).
    pub versions: VersionsTxt,
}

impl Tree {
    /// The valid tree, `versions.txt` rendered.
    pub fn valid() -> Tree {
        let dir = tempfile::tempdir().expect("tempdir");
        fs::create_dir_all(dir.path().join("tree")).expect("mkdir tree");
        fs::create_dir_all(dir.path().join("blobs")).expect("mkdir blobs");
        let versions = VersionsTxt {
            kubernetes: "1.33.13".into(),
            cni_plugins: "1.7.1".into(),
            crictl: "1.33.0".into(),
            ccm: "1.2.0".into(),
            csi_driver: "3.0.0".into(),
            autoscaler: "1.33.0".into(),
            autoscaler_tag: "cluster-autoscaler-1.33.0".into(),
            etcd: Some("3.5.21".into()),
            headlamp: None,
            arch: cks_pinning::arch::Arch::Amd64,
            urls: vec![
                "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubeadm".into(),
                "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubelet".into(),
                "https://dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubectl".into(),
                "https://github.com/containernetworking/plugins/releases/download/v1.7.1/cni-plugins-linux-amd64-v1.7.1.tgz".into(),
            ],
            skipped_images: vec![SkippedImage {
                reference: ImageRef::parse(SKIPPED).expect("valid"),
                platform: "linux/amd64".into(),
            }],
            ..VersionsTxt::default()
        };
        let mut tree = Tree {
            dir,
            images: Vec::new(),
            versions,
        };
        for (n, rel) in ["k8s/kubeadm", "k8s/kubelet", "k8s/kubectl"]
            .iter()
            .enumerate()
        {
            tree.put(rel, &bytes(n as u64 + 1, 20_000), 0o755);
        }
        tree.put("cni/cni-plugins-amd64.tgz", &bytes(10, 5_000), 0o644);
        tree.put(
            "cri-tools/crictl-linux-amd64.tar.gz",
            &bytes(11, 5_000),
            0o644,
        );
        tree.put("etcd/etcd-linux-amd64.tar.gz", &bytes(12, 5_000), 0o644);
        tree.put(
            "kubelet.service",
            b"[Service]\nExecStart=/opt/bin/kubelet\nRestart=always\n",
            0o644,
        );
        tree.put(
            "10-kubeadm.conf",
            b"[Service]\nEnvironment=\"KUBELET_KUBECONFIG_ARGS=--kubeconfig=/etc/kubernetes/kubelet.conf\"\nExecStart=\nExecStart=/opt/bin/kubelet $KUBELET_KUBECONFIG_ARGS\n",
            0o644,
        );
        for (name, text) in manifests() {
            tree.put(name, text.as_bytes(), 0o644);
        }
        for (n, reference) in IMAGES.iter().enumerate() {
            tree.add_image(reference, n as u64, n == 0);
        }
        tree.render();
        tree
    }

    /// The directory packed into the ISO.
    pub fn root(&self) -> PathBuf {
        self.dir.path().join("tree")
    }

    /// The scratch directory (outside the tree) for ISOs and blobs.
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file of the tree.
    pub fn put(&self, rel: &str, data: &[u8], mode: u32) {
        let path = self.root().join(rel);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(&path, data).expect("write");
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).expect("chmod");
    }

    /// Reads a text file of the tree.
    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.root().join(rel)).expect("read")
    }

    /// Removes a file of the tree.
    pub fn remove(&self, rel: &str) {
        fs::remove_file(self.root().join(rel)).expect("remove");
    }

    /// Sets a file's mode.
    pub fn chmod(&self, rel: &str, mode: u32) {
        fs::set_permissions(self.root().join(rel), fs::Permissions::from_mode(mode))
            .expect("chmod");
    }

    fn blob(&self, data: &[u8]) -> (String, PathBuf, u64) {
        let hex = sha256_hex(data);
        let path = self.dir.path().join("blobs").join(&hex);
        fs::write(&path, data).expect("write blob");
        (format!("sha256:{hex}"), path, data.len() as u64)
    }

    fn platform_manifest(
        &self,
        seed: u64,
        arch: &str,
        blobs: &mut Vec<(String, PathBuf)>,
    ) -> (String, u64) {
        let (layer, layer_path, layer_size) = self.blob(&layer_tar(1000 + seed));
        let config = format!(
            r#"{{"architecture":"{arch}","os":"linux","rootfs":{{"type":"layers","diff_ids":["{layer}"]}}}}"#
        );
        let (config_digest, config_path, config_size) = self.blob(config.as_bytes());
        let manifest = format!(
            r#"{{"schemaVersion":2,"mediaType":"{OCI_MANIFEST}","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{config_digest}","size":{config_size}}},"layers":[{{"mediaType":"application/vnd.oci.image.layer.v1.tar","digest":"{layer}","size":{layer_size}}}]}}"#
        );
        let (digest, path, size) = self.blob(manifest.as_bytes());
        if arch == "amd64" {
            blobs.push((layer, layer_path));
            blobs.push((config_digest, config_path));
            blobs.push((digest.clone(), path));
        }
        (digest, size)
    }

    /// The layout of `reference` for amd64 (`multi`: an index for amd64 and arm64, only the
    /// amd64 content included), its content varied by `seed`.
    pub fn layout(&self, reference: &str, seed: u64, multi: bool) -> LayoutContents {
        let mut blobs = Vec::new();
        let (manifest, manifest_size) = self.platform_manifest(seed, "amd64", &mut blobs);
        let (media_type, digest, size) = if multi {
            let (arm, arm_size) = self.platform_manifest(seed + 500, "arm64", &mut blobs);
            let index = format!(
                r#"{{"schemaVersion":2,"mediaType":"{OCI_INDEX}","manifests":[{{"mediaType":"{OCI_MANIFEST}","digest":"{manifest}","size":{manifest_size},"platform":{{"architecture":"amd64","os":"linux"}}}},{{"mediaType":"{OCI_MANIFEST}","digest":"{arm}","size":{arm_size},"platform":{{"architecture":"arm64","os":"linux","variant":"v8"}}}}]}}"#
            );
            let (digest, path, size) = self.blob(index.as_bytes());
            blobs.push((digest.clone(), path));
            (OCI_INDEX, digest, size)
        } else {
            (OCI_MANIFEST, manifest, manifest_size)
        };
        LayoutContents {
            name: reference.to_string(),
            media_type: media_type.to_string(),
            digest,
            size,
            blobs,
            docker: None,
        }
    }

    /// The tarball name of `reference` under `docker/`.
    pub fn tarball(reference: &str) -> String {
        let image = ImageRef::parse(reference).expect("valid");
        format!(
            "docker/{}:{}.tar",
            image.short_name(),
            image.tag().expect("tagged")
        )
    }

    /// Writes the tarball of `reference` with the layout writer and records its `image:` line.
    pub fn add_image(&mut self, reference: &str, seed: u64, multi: bool) -> ImageRef {
        let contents = self.layout(reference, seed, multi);
        let dest = self.root().join(Tree::tarball(reference));
        fs::create_dir_all(dest.parent().expect("parent")).expect("mkdir docker");
        write_tarball(&dest, &contents).expect("write tarball");
        let pinned = ImageRef::parse(reference)
            .expect("valid")
            .with_digest(&contents.digest)
            .expect("digest");
        self.images
            .retain(|i| i.to_string().split('@').next() != Some(reference));
        self.images.push(pinned.clone());
        pinned
    }

    /// Rewrites the tarball of `reference` as the layout writer would, but with an `index.json`
    /// that lacks the `io.containerd.image.name` annotation and names only the tag in
    /// `org.opencontainers.image.ref.name`, as a bare OCI layout (skopeo's `oci-archive:`) does.
    pub fn strip_containerd_name(&self, reference: &str, seed: u64, multi: bool) {
        let contents = self.layout(reference, seed, multi);
        let mut index: serde_json::Value =
            serde_json::from_slice(&index_json(&contents)).expect("index json");
        let tag = ImageRef::parse(reference)
            .expect("valid")
            .tag()
            .expect("tagged")
            .to_string();
        let annotations = index["manifests"][0]["annotations"]
            .as_object_mut()
            .expect("annotations");
        annotations.remove(cks_builder::registry::CONTAINERD_NAME);
        annotations.insert(
            cks_builder::registry::OCI_REF_NAME.to_string(),
            serde_json::Value::String(tag),
        );
        let index = serde_json::to_vec(&index).expect("json");
        let blobs: Vec<(String, Vec<u8>)> = contents
            .blobs
            .iter()
            .map(|(digest, path)| (digest.clone(), fs::read(path).expect("blob")))
            .collect();
        self.write_layout_tar(&Tree::tarball(reference), &index, &blobs);
    }

    /// Writes `rel` as a tar of `oci-layout`, `index` as `index.json`, and `blobs` (digest,
    /// bytes) under `blobs/sha256/`, for tarballs the layout writer would never make.
    pub fn write_layout_tar(&self, rel: &str, index: &[u8], blobs: &[(String, Vec<u8>)]) {
        let file = fs::File::create(self.root().join(rel)).expect("create");
        let mut tar = tar::Builder::new(file);
        let mut append = |path: &str, data: &[u8]| {
            let mut header = tar::Header::new_ustar();
            header.set_size(data.len() as u64);
            header.set_mode(0o644);
            header.set_cksum();
            tar.append_data(&mut header, path, data).expect("append");
        };
        append("oci-layout", br#"{"imageLayoutVersion":"1.0.0"}"#);
        append("index.json", index);
        for (digest, data) in blobs {
            append(
                &format!("blobs/sha256/{}", digest.trim_start_matches("sha256:")),
                data,
            );
        }
        tar.into_inner().expect("finish tar");
    }

    /// Every file of the tree but `versions.txt` and the SBOM, sorted, with its sha256.
    pub fn file_entries(&self) -> Vec<FileEntry> {
        let mut out = Vec::new();
        let mut stack = vec![self.root()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).expect("read dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let rel = path
                    .strip_prefix(self.root())
                    .expect("inside")
                    .to_string_lossy()
                    .into_owned();
                if rel != "versions.txt" && rel != cks_pinning::sbom::FILE_NAME {
                    out.push(FileEntry {
                        sha256: sha256_hex(&fs::read(&path).expect("read")),
                        path: rel,
                    });
                }
            }
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        out
    }

    /// Writes `versions.txt` for what is on disk now, and the SBOM made from it.
    pub fn render(&self) {
        let versions = VersionsTxt {
            files: self.file_entries(),
            images: self.images.clone(),
            built: self.versions.built.or(Some(1_700_000_000)),
            ..self.versions.clone()
        };
        let text = versions.render().expect("renders");
        self.put("versions.txt", text.as_bytes(), 0o644);
        let tool = cks_pinning::sbom::Tool {
            name: "cks-iso".into(),
            version: "test".into(),
            commit: None,
        };
        let sbom = cks_pinning::sbom::Sbom::new(&versions, "cks.iso", tool)
            .render()
            .expect("the SBOM renders");
        self.put(cks_pinning::sbom::FILE_NAME, sbom.as_bytes(), 0o644);
    }

    /// Packs the tree into `<scratch>/<name>.iso` with volume id `volume_id`.
    pub fn pack_as(&self, name: &str, volume_id: &str) -> PathBuf {
        let out = self.dir.path().join(format!("{name}.iso"));
        let options =
            PackOptions::new(volume_id, BuildTime::fixed(1_700_000_000)).expect("options");
        pack(&self.root(), &out, &options).expect("pack");
        out
    }

    /// Packs the tree with volume id `CDROM`.
    pub fn pack(&self, name: &str) -> PathBuf {
        self.pack_as(name, "CDROM")
    }
}

/// Runs the built `cks-iso` with `args` (`cks-iso` on PATH where the including crate builds
/// none: the tree alone also serves other crates' tests).
pub fn cks_iso(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(option_env!("CARGO_BIN_EXE_cks-iso").unwrap_or("cks-iso"))
        .args(args)
        .output()
        .expect("run cks-iso")
}

/// stdout as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}
