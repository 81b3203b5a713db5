//! A whole build against the offline upstream with its images in the real CNCF distribution
//! registry, read back with the real xorriso, and every image tarball imported by the real
//! containerd (`ctr -n k8s.io image import`, as CKS nodes do) under the names and digests that
//! versions.txt and the manifests name.

use std::collections::BTreeMap;
use std::process::Command;

use cks_builder::pipeline::Request;
use cks_e2e::{demo_inputs, run_build, start_upstream};
use cks_fixtures::containerd::Containerd;
use cks_fixtures::demo::DemoConfig;
use cks_fixtures::registry::{Auth, Registry};
use cks_pinning::image::ImageRef;
use cks_pinning::versions_txt::VersionsTxt;

#[tokio::test(flavor = "multi_thread")]
async fn the_iso_reads_back_and_every_tarball_imports_under_its_name_and_digest() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let registry = Registry::start(Auth::None).expect("the real docker-registry");
    for reference in upstream.images() {
        let image = ImageRef::parse(&reference).expect("a reference");
        let tag = image.tag().expect("demo images are tagged").to_string();
        registry
            .push(upstream.layout_dir(), &reference, image.repository(), &tag)
            .expect("skopeo pushes the image");
    }
    let out = tempfile::tempdir().expect("out dir");
    let mut inputs = demo_inputs(&upstream, out.path(), "x86_64");
    // Both dashboards, as the demo builds them: every image of the upstream goes into the ISO.
    inputs.headlamp_version = Some(upstream.headlamp_version());
    let hosts: std::collections::BTreeSet<String> = upstream
        .images()
        .iter()
        .map(|r| {
            ImageRef::parse(r)
                .expect("a reference")
                .registry()
                .to_string()
        })
        .collect();
    inputs.registry_mirrors = hosts
        .iter()
        .map(|h| format!("{h}=http://{}", registry.host()))
        .collect();
    inputs.insecure_registries = vec![registry.host()];
    let summary = run_build(&inputs, Request::default())
        .await
        .expect("the build");

    // The ISO read back with xorriso: Rock Ridge names and modes.
    let listing = Command::new("xorriso")
        .args(["-indev"])
        .arg(&summary.iso)
        .args(["-find", "/", "-exec", "lsdl"])
        .output()
        .expect("xorriso runs");
    let listing = String::from_utf8_lossy(&listing.stdout).into_owned();
    for line in [
        "'/k8s/kubeadm'",
        "'/docker/kube-apiserver:v1.33.13.tar'",
        "'/cni/cni-plugins-amd64.tgz'",
        "'/cri-tools/crictl-linux-amd64.tar.gz'",
        "'/etcd/etcd-linux-amd64.tar.gz'",
        "'/autoscaler.yaml'",
        "'/versions.txt'",
    ] {
        assert!(listing.contains(line), "{line} missing from:\n{listing}");
    }
    let kubeadm = listing
        .lines()
        .find(|l| l.ends_with("'/k8s/kubeadm'"))
        .expect("kubeadm listed");
    assert!(kubeadm.starts_with("-rwxr-xr-x"), "{kubeadm}");

    // Extract everything and import each tarball into a fresh containerd.
    let tree = tempfile::tempdir().expect("extract dir");
    let status = Command::new("xorriso")
        .args(["-osirrox", "on", "-indev"])
        .arg(&summary.iso)
        .args(["-extract", "/"])
        .arg(tree.path())
        .output()
        .expect("xorriso extracts");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let versions = VersionsTxt::parse(
        &std::fs::read_to_string(tree.path().join("versions.txt")).expect("versions.txt"),
    )
    .expect("versions.txt parses");
    assert_eq!(versions.arch, "amd64");
    assert_eq!(versions.images.len(), upstream.images().len());

    let containerd = Containerd::start().expect("the real containerd");
    let mut tarballs: Vec<_> = std::fs::read_dir(tree.path().join("docker"))
        .expect("docker/")
        .map(|e| e.expect("entry").path())
        .collect();
    tarballs.sort();
    assert_eq!(tarballs.len(), versions.images.len());
    for tarball in &tarballs {
        containerd
            .import(tarball, None)
            .unwrap_or_else(|e| panic!("ctr imports {}: {e:#}", tarball.display()));
    }
    let imported: BTreeMap<String, String> = containerd
        .images()
        .expect("ctr image ls")
        .into_iter()
        .map(|i| (i.name, i.digest))
        .collect();
    for image in &versions.images {
        let tagged = format!("{}:{}", image.name(), image.tag().expect("tagged"));
        let digest = imported
            .get(&tagged)
            .unwrap_or_else(|| panic!("{tagged} not imported; ctr shows {imported:?}"));
        assert_eq!(Some(digest.as_str()), image.digest(), "{tagged}");
        // The registry served that digest, and the upstream published it.
        assert_eq!(upstream.digests().get(&tagged), Some(digest), "{tagged}");
    }
    // Every image a bundled manifest names was imported under exactly that name.
    for manifest in [
        "network.yaml",
        "dashboard.yaml",
        "autoscaler.yaml",
        "provider.yaml",
        "manifest.yaml",
    ] {
        let text = std::fs::read_to_string(tree.path().join(manifest)).expect("manifest");
        for image in cks_pinning::manifest::image_refs(&text).expect("images") {
            assert!(
                imported.contains_key(&image.to_string()),
                "{manifest}: {image}"
            );
        }
    }
    assert!(
        std::fs::read_to_string(tree.path().join("autoscaler.yaml"))
            .expect("autoscaler.yaml")
            .contains("--nodes=<min>:<max>:<cluster-id>")
    );
}
