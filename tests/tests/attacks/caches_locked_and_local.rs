//! A build from a lock with a cache registry asks upstream for nothing at all: the lock is the
//! record every entry is checked against. A finished ISO damaged in the local `--cache-dir` is
//! hashed again before use, never used, and made again.

use cks_builder::pipeline::{Lock, Request};
use cks_e2e::{run_build, start_upstream};
use cks_fixtures::demo::DemoConfig;

use super::sealed_local_iso::{entry, own_copy};
use crate::build_cache_registry::support::{
    CacheServer, damage, runner_inputs, without_signatures,
};

#[tokio::test(flavor = "multi_thread")]
async fn a_locked_build_with_a_cache_registry_asks_upstream_nothing() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let cache = CacheServer::start(storage.path(), false);
    let scratch = tempfile::tempdir().expect("scratch");
    let lock_path = scratch.path().join("cks.lock");
    let runner = |name: &str| {
        let out = scratch.path().join(name).join("out");
        std::fs::create_dir_all(&out).expect("out");
        runner_inputs(
            &upstream,
            &out,
            &scratch.path().join(name).join("cache"),
            &cache.url(),
        )
    };
    let a = run_build(
        &runner("a"),
        Request {
            write_lock: Some(lock_path.clone()),
            ..Request::default()
        },
    )
    .await
    .expect("runner A writes the lock");
    let lock = Lock::read(&lock_path).expect("the lock");

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    upstream.git().log().reset();
    let b = run_build(
        &runner("b"),
        Request {
            locked: Some(lock),
            ..Request::default()
        },
    )
    .await
    .expect("runner B builds from the lock");
    assert_eq!(b.sha256, a.sha256, "the lock's ISO");
    assert_eq!(
        upstream.file_server().requested_paths(),
        Vec::<(String, u64)>::new(),
        "no request to the upstream file server"
    );
    assert_eq!(
        upstream.registry().log().snapshot(),
        Default::default(),
        "no request to the upstream image registry"
    );
    assert_eq!(
        upstream.git().log().total(),
        0,
        "no request to the upstream git server"
    );
    drop(cache);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_iso_in_the_local_cache_is_hashed_again_and_not_used() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let cache_dir = tempfile::tempdir().expect("cache dir");
    let build = |out: &std::path::Path| {
        let mut inputs = without_signatures(&upstream, out);
        inputs.cache_dir = Some(cache_dir.path().to_path_buf());
        inputs
    };
    let first_out = tempfile::tempdir().expect("out");
    let first = run_build(&build(first_out.path()), Request::default())
        .await
        .expect("the first build");
    let (kept, _seal) = entry(cache_dir.path());
    // The cached ISO is a hard link of the first build's output: a copy breaks the link, so
    // only the cache's bytes change.
    own_copy(&kept, |_| {});
    damage(&kept);

    let second_out = tempfile::tempdir().expect("out");
    let second = run_build(&build(second_out.path()), Request::default())
        .await
        .expect("the second build");
    assert_eq!(second.sha256, first.sha256, "the damaged copy was not used");
    let actual = cks_builder::digest::sha256_file(&second.iso)
        .expect("hash the ISO")
        .into_hex();
    assert_eq!(
        actual, first.sha256,
        "the ISO written holds the right bytes"
    );
    let again = cks_builder::digest::sha256_file(&kept)
        .expect("the cache holds the ISO again")
        .into_hex();
    assert_eq!(again, first.sha256, "the damaged entry was replaced");
}
