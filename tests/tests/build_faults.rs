//! Faults in the upstream of a whole build, each with its specified outcome: a 404 asset and a
//! wrong checksum fail the build naming the file, a 500 answered once is retried and the build
//! succeeds, an image no registry has fails naming it; a failed build leaves nothing in
//! OUTPUT_PATH or in the temporary directory.

use std::path::Path;

use cks_builder::pipeline::Request;
use cks_e2e::{demo_inputs, entries, run_build, start_upstream};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::http::Fault;

const CRICTL: &str = "/github.com/kubernetes-sigs/cri-tools/releases/download/v1.33.0/crictl-v1.33.0-linux-amd64.tar.gz";
const KUBELET: &str = "/dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubelet";

/// Builds into fresh output and temporary folders; returns the error text, after checking that
/// both folders are empty.
async fn failed_build(
    upstream: &DemoUpstream,
    edit: impl FnOnce(&mut cks_builder::pipeline::Inputs),
) -> String {
    let out = tempfile::tempdir().expect("out dir");
    let temp = tempfile::tempdir().expect("temp dir");
    let mut inputs = demo_inputs(upstream, out.path(), "x86_64");
    edit(&mut inputs);
    let request = Request {
        temp_dir: Some(temp.path().to_path_buf()),
        ..Request::default()
    };
    let err = run_build(&inputs, request)
        .await
        .expect_err("the build fails");
    assert_eq!(
        entries(out.path()),
        Vec::<std::path::PathBuf>::new(),
        "OUTPUT_PATH is empty"
    );
    assert_eq!(
        entries(temp.path()),
        Vec::<std::path::PathBuf>::new(),
        "the temp dir is empty"
    );
    format!("{err:#}")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_404_asset_fails_the_build_naming_the_url_and_status() {
    let upstream = start_upstream(DemoConfig::default()).await;
    upstream.file_server().always(CRICTL, Fault::Status(404));
    let text = failed_build(&upstream, |_| {}).await;
    assert!(text.contains("crictl-v1.33.0-linux-amd64.tar.gz"), "{text}");
    assert!(text.contains("404"), "{text}");
    assert_eq!(
        upstream.file_server().requests(CRICTL),
        1,
        "a 404 is not retried"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_500_then_200_asset_is_retried_and_the_build_succeeds() {
    let upstream = start_upstream(DemoConfig::default()).await;
    upstream
        .file_server()
        .schedule(KUBELET, [Fault::Status(500)]);
    let out = tempfile::tempdir().expect("out dir");
    let summary = run_build(
        &demo_inputs(&upstream, out.path(), "x86_64"),
        Request::default(),
    )
    .await
    .expect("the build succeeds after the retry");
    assert!(summary.iso.is_file());
    assert_eq!(upstream.file_server().requests(KUBELET), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_published_checksum_fails_naming_file_expected_and_actual() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let sidecar = upstream.root().join(format!("{}.sha256", &KUBELET[1..]));
    std::fs::write(&sidecar, "0".repeat(64)).expect("publish a wrong checksum");
    let text = failed_build(&upstream, |_| {}).await;
    assert!(text.contains("kubelet"), "{text}");
    assert!(
        text.contains(&"0".repeat(64)),
        "the expected digest: {text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_image_fails_naming_it() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let dir = tempfile::tempdir().expect("manifest dir");
    let network = dir.path().join("network.yaml");
    let text = std::fs::read_to_string(upstream.network_yaml_path()).expect("network.yaml");
    let text = format!(
        "{text}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: extra\nspec:\n  containers:\n    - name: extra\n      image: registry.k8s.io/no-such-image:v0.0.1\n"
    );
    std::fs::write(&network, text).expect("write network.yaml");
    let path: &Path = &network;
    let text = failed_build(&upstream, |inputs| {
        inputs.network_yaml = Some(path.display().to_string());
    })
    .await;
    assert!(
        text.contains("registry.k8s.io/no-such-image:v0.0.1"),
        "{text}"
    );
}
