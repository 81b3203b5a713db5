//! The content cache: a rebuild with the cache requests nothing it already holds and verified,
//! and a half-written or damaged entry is never used.

use std::path::{Path, PathBuf};

use cks_builder::fetch::{Checksum, FetchOptions, FetchedFile, Fetcher, FileSpec};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::http::FileServer;
use sha2::{Digest, Sha256};

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

struct Upstream {
    _root: tempfile::TempDir,
    server: FileServer,
    bodies: Vec<(String, Vec<u8>)>,
}

fn upstream() -> Upstream {
    let root = tempfile::tempdir().expect("temp dir");
    let bodies: Vec<(String, Vec<u8>)> = ["kubeadm", "kubelet", "kubectl"]
        .iter()
        .enumerate()
        .map(|(i, n)| (n.to_string(), vec![b'a' + i as u8; 50_000]))
        .collect();
    for (name, body) in &bodies {
        std::fs::write(root.path().join(name), body).expect("write");
        std::fs::write(root.path().join(format!("{name}.sha256")), sha(body)).expect("write");
    }
    std::fs::write(root.path().join("plain"), b"no checksum").expect("write");
    let server = FileServer::start(root.path()).expect("server");
    Upstream {
        _root: root,
        server,
        bodies,
    }
}

fn plan(up: &Upstream, out: &Path) -> Vec<FileSpec> {
    let mut plan: Vec<FileSpec> = up
        .bodies
        .iter()
        .map(|(n, _)| {
            FileSpec::new(n, up.server.url(&format!("/{n}")), out.join(n))
                .checksum(Checksum::sha256_sidecar())
        })
        .collect();
    plan.push(FileSpec::new(
        "plain",
        up.server.url("/plain"),
        out.join("plain"),
    ));
    plan
}

fn fetcher(cache: &Path) -> Fetcher {
    Fetcher::new(FetchOptions {
        retry: RetryPolicy::immediate(3),
        cache_dir: Some(cache.to_path_buf()),
        ..FetchOptions::default()
    })
    .expect("fetcher")
}

async fn run(up: &Upstream, cache: &Path) -> (tempfile::TempDir, Vec<FetchedFile>) {
    let out = tempfile::tempdir().expect("temp dir");
    let results = fetcher(cache).fetch_all(&plan(up, out.path())).await;
    let files = results.into_iter().map(|r| r.expect("fetched")).collect();
    (out, files)
}

fn content_path(cache: &Path, sha256: &str) -> PathBuf {
    cache.join("sha256").join(sha256)
}

#[tokio::test]
async fn a_rebuild_with_the_cache_makes_no_request() {
    let up = upstream();
    let cache = tempfile::tempdir().expect("cache dir");
    let (_first_out, first) = run(&up, cache.path()).await;
    assert!(first.iter().all(|f| !f.from_cache));
    assert_eq!(up.server.total_requests(), 7, "3 files + 3 sidecars + 1");

    up.server.reset_counts();
    let (second_out, second) = run(&up, cache.path()).await;
    assert_eq!(
        up.server.total_requests(),
        0,
        "nothing fetched on the rebuild"
    );
    for (a, b) in first.iter().zip(&second) {
        assert!(b.from_cache, "{}", b.name);
        assert_eq!(b.attempts, 0);
        assert_eq!(
            (&a.sha256, &a.url, &a.url_used, &a.checksum),
            (&b.sha256, &b.url, &b.url_used, &b.checksum)
        );
        let written = std::fs::read(second_out.path().join(&b.name)).expect("dest");
        assert_eq!(sha(&written), b.sha256);
    }
}

#[tokio::test]
async fn a_half_written_or_damaged_entry_is_never_used() {
    let up = upstream();
    let cache = tempfile::tempdir().expect("cache dir");
    let (_out, first) = run(&up, cache.path()).await;
    let kubeadm = &first[0];
    // Cut the stored kubeadm in half, as a crash while writing would, and leave a stray
    // temporary in the cache's tmp/.
    let stored = content_path(cache.path(), &kubeadm.sha256);
    std::fs::write(&stored, &up.bodies[0].1[..25_000]).expect("damage");
    std::fs::write(cache.path().join("tmp").join(".tmpXYZ"), b"partial").expect("stray");

    up.server.reset_counts();
    let (out, second) = run(&up, cache.path()).await;
    assert!(!second[0].from_cache, "damaged entry refetched");
    assert_eq!(up.server.requests("/kubeadm"), 1);
    assert_eq!(second[0].sha256, kubeadm.sha256);
    assert_eq!(
        std::fs::read(out.path().join("kubeadm")).expect("dest"),
        up.bodies[0].1
    );
    assert!(second[1..].iter().all(|f| f.from_cache));
    assert_eq!(
        up.server.total_requests(),
        2,
        "kubeadm and its sidecar only"
    );
    assert_eq!(std::fs::read(&stored).expect("re-stored"), up.bodies[0].1);

    // An index entry whose content file is gone is a miss, not an error.
    std::fs::remove_file(content_path(cache.path(), &first[1].sha256)).expect("remove");
    up.server.reset_counts();
    let (_out, third) = run(&up, cache.path()).await;
    assert!(!third[1].from_cache);
    assert_eq!(up.server.requests("/kubelet"), 1);
}

#[tokio::test]
async fn a_pinned_digest_must_match_the_cached_bytes() {
    let up = upstream();
    let cache = tempfile::tempdir().expect("cache dir");
    let (_out, _first) = run(&up, cache.path()).await;
    up.server.reset_counts();
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new(
        "kubeadm",
        up.server.url("/kubeadm"),
        out.path().join("kubeadm"),
    )
    .checksum(Checksum::Pinned {
        sha256: sha(b"some other build"),
    });
    let err = fetcher(cache.path())
        .fetch(&spec)
        .await
        .expect_err("pin differs");
    assert_eq!(
        up.server.requests("/kubeadm"),
        1,
        "the cache did not answer for another digest"
    );
    assert!(err.to_string().contains("checksum mismatch"), "{err}");
}

#[tokio::test]
async fn a_pinned_digest_finds_content_stored_for_another_url() {
    let up = upstream();
    let cache = tempfile::tempdir().expect("cache dir");
    let (_out, first) = run(&up, cache.path()).await;
    up.server.reset_counts();
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new(
        "kubeadm",
        up.server.url("/elsewhere/kubeadm"),
        out.path().join("kubeadm"),
    )
    .checksum(Checksum::Pinned {
        sha256: first[0].sha256.clone(),
    });
    let file = fetcher(cache.path())
        .fetch(&spec)
        .await
        .expect("from the cache");
    assert_eq!(up.server.total_requests(), 0);
    assert!(file.from_cache);
    assert_eq!(file.url, up.server.url("/elsewhere/kubeadm"));
    assert_eq!(file.url_used, format!("cache:sha256/{}", first[0].sha256));
    assert_eq!(
        std::fs::read(out.path().join("kubeadm")).expect("dest"),
        up.bodies[0].1
    );
}
