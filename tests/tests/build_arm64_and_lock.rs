//! An arm64 ISO built on this amd64 host (kubeadm run for the host, everything bundled for the
//! target), and a rebuild from the lock file that is byte-identical, refusing a changed upstream.

use cks_builder::pipeline::Lock;
use cks_builder::pipeline::Request;
use cks_e2e::{demo_inputs, run_build, start_upstream, versions_txt_of};
use cks_fixtures::containerd::Containerd;
use cks_fixtures::demo::DemoConfig;
use cks_pinning::versions_txt::VersionsTxt;

#[tokio::test(flavor = "multi_thread")]
async fn an_arm64_iso_builds_on_this_amd64_host_with_arm64_content() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let out = tempfile::tempdir().expect("out dir");
    let inputs = demo_inputs(&upstream, out.path(), "aarch64");
    let summary = run_build(&inputs, Request::default())
        .await
        .expect("the arm64 build");
    assert!(summary.iso.ends_with("cks-e2e-aarch64.iso"));
    let versions = VersionsTxt::parse(&versions_txt_of(&summary.iso)).expect("versions.txt");
    assert_eq!(versions.arch, "arm64");
    // Files come from the arm64 URLs; etcd too, not amd64 as the script had it.
    assert!(
        versions
            .urls
            .iter()
            .any(|u| u.ends_with("/bin/linux/arm64/kubelet"))
    );
    assert!(
        versions
            .urls
            .iter()
            .any(|u| u.ends_with("etcd-v3.5.21-linux-arm64.tar.gz"))
    );
    assert!(
        !versions.urls.iter().any(|u| u.contains("amd64")),
        "{:?}",
        versions.urls
    );
    // The host's kubeadm listed the images; the ISO's kubeadm is the arm64 one.
    let tree = tempfile::tempdir().expect("extract dir");
    let out = std::process::Command::new("xorriso")
        .args(["-osirrox", "on", "-indev"])
        .arg(&summary.iso)
        .args(["-extract", "/"])
        .arg(tree.path())
        .output()
        .expect("xorriso extracts");
    assert!(out.status.success());
    let kubeadm = std::fs::read(tree.path().join("k8s/kubeadm")).expect("kubeadm");
    assert!(String::from_utf8_lossy(&kubeadm).contains("linux/arm64"));
    // Each tarball holds the arm64 image only, and imports as an arm64 node imports it.
    let containerd = Containerd::start().expect("the real containerd");
    for entry in std::fs::read_dir(tree.path().join("docker")).expect("docker/") {
        let tarball = entry.expect("entry").path();
        containerd
            .import(&tarball, Some("linux/arm64"))
            .unwrap_or_else(|e| panic!("arm64 import of {}: {e:#}", tarball.display()));
    }
    let images = containerd.images().expect("ctr image ls");
    assert_eq!(images.len(), versions.images.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_rebuild_from_the_lock_is_byte_identical_and_a_changed_upstream_is_refused() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let first = tempfile::tempdir().expect("out dir");
    let lock_path = first.path().join("cks.lock");
    let inputs = demo_inputs(&upstream, first.path(), "x86_64");
    let built = run_build(
        &inputs,
        Request {
            write_lock: Some(lock_path.clone()),
            ..Request::default()
        },
    )
    .await
    .expect("the first build");
    let lock = Lock::read(&lock_path).expect("the lock");
    assert_eq!(lock.plan.autoscaler.tag, "cluster-autoscaler-1.33.6");
    assert!(lock.files.contains_key("k8s/kubeadm"));
    assert_eq!(lock.images.len(), built.images);

    let second = tempfile::tempdir().expect("out dir");
    let mut again = demo_inputs(&upstream, second.path(), "x86_64");
    again.build_name = inputs.build_name.clone();
    let rebuilt = run_build(
        &again,
        Request {
            locked: Some(lock.clone()),
            ..Request::default()
        },
    )
    .await
    .expect("the rebuild from the lock");
    assert_eq!(
        rebuilt.sha256, built.sha256,
        "same lock, same SOURCE_DATE_EPOCH, same ISO"
    );

    // One changed upstream byte: the locked build refuses it and leaves nothing behind.
    let kubectl = upstream
        .root()
        .join("dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubectl");
    let mut bytes = std::fs::read(&kubectl).expect("kubectl");
    bytes.push(b'\n');
    std::fs::write(&kubectl, &bytes).expect("change kubectl");
    let sha = cks_fixtures::demo::files::sha256_hex(&bytes);
    std::fs::write(kubectl.with_extension("sha256"), sha).expect("republish its checksum");
    let third = tempfile::tempdir().expect("out dir");
    let temp = tempfile::tempdir().expect("temp dir");
    let err = run_build(
        &demo_inputs(&upstream, third.path(), "x86_64"),
        Request {
            locked: Some(lock),
            temp_dir: Some(temp.path().to_path_buf()),
            ..Request::default()
        },
    )
    .await
    .expect_err("a changed upstream byte is refused");
    let text = format!("{err:#}");
    assert!(text.contains("k8s/kubectl"), "{text}");
    assert!(cks_e2e::entries(third.path()).is_empty());
    assert!(cks_e2e::entries(temp.path()).is_empty());
}
