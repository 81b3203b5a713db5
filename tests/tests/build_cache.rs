//! A rebuild with the same cache folder fetches no file and no blob, reuses the finished
//! tarballs and ISO, and gives the same ISO; a build that differs in any recorded byte (here the
//! build time) packs a new one.

use cks_builder::pipeline::Request;
use cks_e2e::{demo_inputs, run_build, start_upstream};
use cks_fixtures::demo::DemoConfig;

#[tokio::test(flavor = "multi_thread")]
async fn a_warm_rebuild_fetches_nothing_and_gives_the_same_iso() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let cache = tempfile::tempdir().expect("cache dir");
    let first = tempfile::tempdir().expect("out dir");
    let mut inputs = demo_inputs(&upstream, first.path(), "x86_64");
    inputs.cache_dir = Some(cache.path().to_path_buf());
    let cold = run_build(&inputs, Request::default())
        .await
        .expect("cold build");
    assert!(cold.file_bytes_fetched > 0);

    upstream.file_server().reset_counts();
    let second = tempfile::tempdir().expect("out dir");
    inputs.output_path = Some(second.path().to_path_buf());
    let warm = run_build(&inputs, Request::default())
        .await
        .expect("warm build");
    assert_eq!(
        warm.sha256, cold.sha256,
        "the same inputs give the same ISO"
    );
    assert_eq!(warm.file_bytes_fetched, 0);
    assert_eq!(
        upstream.file_server().total_requests(),
        0,
        "no file was requested"
    );
    assert!(
        warm.image_bytes_fetched < cold.image_bytes_fetched / 2,
        "only manifests are fetched again: {} of {}",
        warm.image_bytes_fetched,
        cold.image_bytes_fetched
    );
    let sidecar = std::fs::read_to_string(&warm.sidecar).expect("sidecar");
    assert!(sidecar.starts_with(&warm.sha256));
    assert_eq!(
        cks_builder::digest::sha256_file(&warm.iso)
            .expect("hash the ISO")
            .hex()
            .to_string(),
        warm.sha256
    );

    // Another build time is another ISO, packed anew.
    let third = tempfile::tempdir().expect("out dir");
    inputs.output_path = Some(third.path().to_path_buf());
    inputs.source_date_epoch = Some(1_700_000_001);
    let other = run_build(&inputs, Request::default())
        .await
        .expect("third build");
    assert_ne!(other.sha256, cold.sha256);
    assert_eq!(
        cks_builder::digest::sha256_file(&other.iso)
            .expect("hash the ISO")
            .hex()
            .to_string(),
        other.sha256
    );
}
