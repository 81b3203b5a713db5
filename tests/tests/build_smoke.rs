//! A whole build against the in-process demo upstream writes the ISO and its sidecar.

use cks_builder::build::run::Request;
use cks_e2e::{demo_inputs, run_build};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};

#[tokio::test(flavor = "multi_thread")]
async fn a_build_of_the_demo_upstream_writes_the_iso_and_its_sidecar() {
    let upstream = tokio::task::spawn_blocking(|| DemoUpstream::start(&DemoConfig::default()))
        .await
        .expect("join")
        .expect("demo upstream");
    let out = tempfile::tempdir().expect("out dir");
    let inputs = demo_inputs(&upstream, out.path(), "x86_64");
    let summary = run_build(&inputs, Request::default())
        .await
        .expect("the build");
    assert!(summary.iso.ends_with("cks-e2e-x86_64.iso"));
    assert!(summary.iso.is_file());
    assert!(summary.sidecar.is_file());
    eprintln!("{summary:#?}");
}
