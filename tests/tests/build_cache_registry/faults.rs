//! A cache registry that stops, refuses pushes or was never there costs a warning, never the
//! build.

use std::time::Duration;

use cks_builder::pipeline::Request;
use cks_e2e::{run_build, start_upstream};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::http::Fault;
use cks_fixtures::process::{free_port, wait_until};

use super::support::{
    CacheServer, blob_files, cache_warnings, runner_inputs, upstream_bytes, without_signatures,
};

/// The kubelet on the demo upstream's file server.
const KUBELET: &str = "/dl.k8s.io/release/v1.33.13/bin/linux/amd64/kubelet";

/// The sha256 of the ISO a build of the same inputs without any cache gives.
async fn reference_sha256(upstream: &DemoUpstream) -> String {
    let out = tempfile::tempdir().expect("out");
    let inputs = without_signatures(upstream, out.path());
    run_build(&inputs, Request::default())
        .await
        .expect("a build without the cache")
        .sha256
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cache_registry_down_from_the_start_is_one_warning_and_the_same_iso() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let reference = reference_sha256(&upstream).await;
    // A port nothing listens on.
    let port = free_port().expect("a free port");
    let url = format!("http://127.0.0.1:{port}/ci/cks-cache");
    let (out, dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let inputs = runner_inputs(&upstream, out.path(), dir.path(), &url);
    let summary = run_build(&inputs, Request::default())
        .await
        .expect("the build succeeds without its cache registry");
    assert_eq!(summary.sha256, reference, "the same ISO");
    let warnings = cache_warnings(&summary);
    assert_eq!(warnings.len(), 1, "one warning for the build: {warnings:?}");
    assert!(
        warnings[0].contains(&url) && warnings[0].contains("unavailable"),
        "{}",
        warnings[0]
    );
    let stats = summary.cache_registry.expect("cache registry statistics");
    assert_eq!((stats.hits(), stats.pushed(), stats.warnings), (0, 0, 1));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cache_registry_stopped_mid_build_is_a_warning_and_the_build_succeeds() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let reference = reference_sha256(&upstream).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let mut cache = CacheServer::start(storage.path(), false);
    let (out, dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let inputs = runner_inputs(&upstream, out.path(), dir.path(), &cache.url());
    // The planning phase pushes its files (kubeadm, the manifests) before the downloads start;
    // the kubelet then stalls for 3 s mid-body, so the build is still running when the first
    // pushed blob is seen and the registry is stopped.
    upstream.file_server().schedule(
        KUBELET,
        [Fault::Stall {
            after: 1,
            pause: Duration::from_secs(3),
        }],
    );
    let done = std::sync::atomic::AtomicBool::new(false);
    let build = async {
        let result = run_build(&inputs, Request::default()).await;
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        result
    };
    let stopper = async {
        let blobs = storage.path().to_path_buf();
        tokio::task::spawn_blocking(move || {
            wait_until("the first blob pushed", Duration::from_secs(60), || {
                !blob_files(&blobs).is_empty()
            })
        })
        .await
        .expect("the wait ends")
        .expect("the build pushes a blob");
        let finished = done.load(std::sync::atomic::Ordering::SeqCst);
        cache.process.stop();
        finished
    };
    let (result, finished_before_stop) = tokio::join!(build, stopper);
    assert!(
        !finished_before_stop,
        "the registry stopped while the build ran"
    );
    let summary = result.expect("the build succeeds");
    assert!(
        upstream.file_server().requests(KUBELET) >= 1,
        "the build fetched the stalled kubelet"
    );
    assert_eq!(summary.sha256, reference);
    assert!(
        summary
            .warnings
            .iter()
            .any(|w| w.contains("cache registry") && w.contains("unavailable")),
        "{:?}",
        summary.warnings
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_only_cache_registry_serves_and_refuses_pushes_with_a_warning() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");

    // An empty read-only registry: every look-up misses, the first push is refused.
    let read_only = CacheServer::start(storage.path(), true);
    let (out, dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let inputs = runner_inputs(&upstream, out.path(), dir.path(), &read_only.url());
    let refused = run_build(&inputs, Request::default())
        .await
        .expect("build on read-only");
    let warnings = cache_warnings(&refused);
    assert_eq!(warnings.len(), 1, "one warning for the build: {warnings:?}");
    assert!(warnings[0].contains("refused a push"), "{}", warnings[0]);
    assert!(blob_files(storage.path()).is_empty(), "nothing was written");
    drop(read_only);

    // Filled by a writable run, then served read-only: a runner builds from it alone.
    let writable = CacheServer::start(storage.path(), false);
    let (a_out, a_dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let a = runner_inputs(&upstream, a_out.path(), a_dir.path(), &writable.url());
    let cold = run_build(&a, Request::default()).await.expect("runner A");
    assert_eq!(cold.sha256, refused.sha256);
    drop(writable);
    let read_only = CacheServer::start(storage.path(), true);
    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_dir) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let b = runner_inputs(&upstream, b_out.path(), b_dir.path(), &read_only.url());
    let warm = run_build(&b, Request::default()).await.expect("runner B");
    assert_eq!(warm.sha256, cold.sha256);
    assert!(
        warm.warnings.iter().all(|w| !w.contains("cache registry")),
        "{:?}",
        warm.warnings
    );
    assert_eq!(upstream_bytes(&upstream), Vec::<String>::new());
}
