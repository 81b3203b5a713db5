//! Damaged entries in the cache registry are ignored, warned about and replaced.

use std::path::Path;

use cks_builder::pipeline::Request;
use cks_e2e::{run_build, start_upstream};
use cks_fixtures::demo::DemoConfig;

use super::support::{
    CacheServer, artifact_blobs, artifact_contents, blob_files, blob_path, cache_warnings, damage,
    remove_tags, runner_inputs, upstream_bytes,
};

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_blob_in_the_cache_registry_is_ignored_with_a_warning() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let cache = CacheServer::start(storage.path(), false);
    let (a_out, a_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let a = runner_inputs(&upstream, a_out.path(), a_cache.path(), &cache.url());
    let cold = run_build(&a, Request::default()).await.expect("runner A");

    // Without the finished ISO and tarballs, runner B reads the image blobs; the largest of
    // them (no blob of an artifact: a finished tarball or ISO, a file, a manifest) gets one
    // byte flipped.
    let mut finished = artifact_blobs(storage.path(), "cks-iso-");
    finished.extend(artifact_blobs(storage.path(), "cks-tarball-"));
    assert!(!finished.is_empty(), "runner A pushed its ISO and tarballs");
    finished.extend(artifact_blobs(storage.path(), "cks-file-"));
    finished.extend(artifact_blobs(storage.path(), "cks-manifest-"));
    remove_tags(storage.path(), "cks-iso-");
    remove_tags(storage.path(), "cks-tarball-");
    let digest_of = |path: &Path| {
        format!(
            "sha256:{}",
            path.parent()
                .and_then(Path::file_name)
                .map(|n| n.to_string_lossy().into_owned())
                .expect("the blob folder is its digest")
        )
    };
    let (damaged, _) = blob_files(storage.path())
        .into_iter()
        .find(|(path, _)| !finished.contains(&digest_of(path)))
        .expect("an image blob");
    damage(&damaged);
    let digest = digest_of(&damaged);

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let b = runner_inputs(&upstream, b_out.path(), b_cache.path(), &cache.url());
    let warm = run_build(&b, Request::default()).await.expect("runner B");
    assert_eq!(warm.sha256, cold.sha256, "the damaged copy was not used");
    let warning = warm
        .warnings
        .iter()
        .find(|w| w.contains("damaged") && w.contains(&digest))
        .unwrap_or_else(|| panic!("a warning names {digest}: {:?}", warm.warnings));
    assert!(warning.contains("ignored and replaced"), "{warning}");
    let upstream_requests =
        upstream.file_server().total_requests() + upstream.registry().log().total();
    assert!(
        upstream_requests > 0,
        "the damaged entry came from upstream"
    );
    drop(cache);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_iso_in_the_cache_registry_is_never_used_and_is_made_again_from_the_cache() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let cache = CacheServer::start(storage.path(), false);
    let runner = || {
        let out = tempfile::tempdir().expect("out");
        let dir = tempfile::tempdir().expect("cache");
        let inputs = runner_inputs(&upstream, out.path(), dir.path(), &cache.url());
        (inputs, out, dir)
    };
    let (a, _a_out, _a_dir) = runner();
    let cold = run_build(&a, Request::default()).await.expect("runner A");
    let iso = artifact_contents(storage.path(), "cks-iso-");
    assert_eq!(iso.len(), 1, "runner A pushed one ISO");
    assert_eq!(iso[0], format!("sha256:{}", cold.sha256));
    damage(&blob_path(storage.path(), &iso[0]));

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b, _b_out, _b_dir) = runner();
    let warm = run_build(&b, Request::default()).await.expect("runner B");
    assert_eq!(warm.sha256, cold.sha256, "the damaged ISO was not used");
    let warnings = cache_warnings(&warm);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("damaged") && warnings[0].contains(&iso[0]),
        "{}",
        warnings[0]
    );
    assert_eq!(
        upstream_bytes(&upstream),
        Vec::<String>::new(),
        "the ISO was made again from the cache registry's files and images"
    );
    let stats = warm.cache_registry.expect("cache registry statistics");
    assert_eq!(
        (stats.iso.hits, stats.iso.misses, stats.iso.pushed),
        (0, 1, 1)
    );
    assert_eq!(stats.warnings, 1);
    assert!(
        stats.tarballs.hits > 0,
        "the tarballs came from the cache: {stats:?}"
    );

    // The distribution registry keeps a blob it stores whatever is pushed again with its
    // digest, so runner C meets the damaged ISO too: it never uses it, and gives the same ISO.
    let (c, _c_out, _c_dir) = runner();
    let again = run_build(&c, Request::default()).await.expect("runner C");
    assert_eq!(again.sha256, cold.sha256);
    let stats = again.cache_registry.expect("cache registry statistics");
    assert_eq!((stats.iso.hits, stats.iso.misses), (0, 1), "{stats:?}");
    assert!(
        again
            .warnings
            .iter()
            .any(|w| w.contains("damaged") && w.contains("delete that blob")),
        "{:?}",
        again.warnings
    );
    drop(cache);
}
