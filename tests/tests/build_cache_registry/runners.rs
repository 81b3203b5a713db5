//! Runner A fills the cache registry, runner B (another process, another empty `--cache-dir`)
//! builds from it: upstream answers the small things only (checksums, tag digests).

use std::process::{Command, Stdio};

use cks_e2e::start_upstream;
use cks_fixtures::demo::DemoConfig;

use super::support::{
    CacheServer, blob_files, build_process, cks_iso, runner_inputs, upstream_bytes,
};

/// `(hits, pushed)` of `kind` (`files`, `manifests`, `blobs`, `tarballs`, `iso`, or `total`)
/// in the cache registry lines of a build's summary.
fn cache_stats(output: &str, kind: &str) -> (u64, u64) {
    let line = output
        .lines()
        .find(|l| match kind {
            "total" => l.starts_with("cache registry: "),
            _ => l.trim_start().starts_with(&format!("{kind}: ")) && l.starts_with("  "),
        })
        .unwrap_or_else(|| panic!("no cache registry line for {kind} in:\n{output}"));
    let number_before = |word: &str| {
        let at = line
            .find(word)
            .unwrap_or_else(|| panic!("{word} in {line}"));
        line[..at]
            .split(|c: char| !c.is_ascii_digit())
            .rfind(|s| !s.is_empty())
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("a number before {word} in {line}"))
    };
    (number_before(" hits"), number_before(" pushed"))
}

#[tokio::test(flavor = "multi_thread")]
async fn runner_b_builds_from_the_cache_registry_alone_and_gives_the_same_iso() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let storage = tempfile::tempdir().expect("registry storage");
    let cache = CacheServer::start(storage.path(), false);
    let docker_config = tempfile::tempdir().expect("an empty docker config");
    let binary = cks_iso();

    let (a_out, a_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let a = runner_inputs(&upstream, a_out.path(), a_cache.path(), &cache.url());
    let (a_sha, a_err) = build_process(&binary, &a, docker_config.path());
    assert!(!a_err.contains("warning: cache registry"), "{a_err}");
    assert!(upstream.file_server().total_requests() > 0);
    assert!(upstream.registry().log().total() > 0);
    assert!(!blob_files(storage.path()).is_empty(), "runner A pushed");

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let b = runner_inputs(&upstream, b_out.path(), b_cache.path(), &cache.url());
    let (b_sha, b_err) = build_process(&binary, &b, docker_config.path());
    assert_eq!(b_sha, a_sha, "runner B gives the same ISO");
    let sbom_beside = |out: &std::path::Path| {
        let found: Vec<_> = std::fs::read_dir(out)
            .expect("the output folder")
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".iso.spdx.json"))
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one SBOM beside the ISO in {}",
            out.display()
        );
        std::fs::read_to_string(found[0].path()).expect("the SBOM")
    };
    assert_eq!(
        sbom_beside(b_out.path()),
        sbom_beside(a_out.path()),
        "runner B writes the same SBOM beside the ISO it took"
    );
    // The summaries say so: A pushed every kind of entry, B took the ISO and fetched nothing.
    for kind in ["files", "manifests", "blobs", "tarballs", "iso"] {
        let (hits, pushed) = cache_stats(&a_err, kind);
        assert!(
            hits == 0 && pushed > 0,
            "runner A {kind}: {hits} hits, {pushed} pushed"
        );
    }
    assert_eq!(cache_stats(&b_err, "iso"), (1, 0), "{b_err}");
    let (hits, pushed) = cache_stats(&b_err, "total");
    assert!(
        hits >= 1 && pushed == 0,
        "runner B: {hits} hits, {pushed} pushed"
    );
    assert!(b_err.contains(", images 0 B"), "{b_err}");
    assert!(!b_err.contains("warning: cache registry"), "{b_err}");
    // Upstream answered the small things only (published checksums, tag digests, the
    // manifests no checksum is published for): no byte of a binary, an archive or a blob.
    assert_eq!(
        upstream_bytes(&upstream),
        Vec::<String>::new(),
        "runner B took no file or blob from upstream:\n{b_err}"
    );
    drop(cache);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_token_auth_cache_registry_takes_pushes_with_docker_credentials() {
    use cks_fixtures::registry::{Auth, PASSWORD, Registry, USER};
    let upstream = start_upstream(DemoConfig::default()).await;
    let registry = Registry::start(Auth::Token).expect("a token-auth registry");
    let url = format!("http://{}/ci/cks-cache", registry.host());
    let docker_config = tempfile::tempdir().expect("docker config");
    let auth = {
        use std::io::Write;
        let mut encoded = Vec::new();
        let mut child = Command::new("base64")
            .arg("-w0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("base64 runs");
        if let Some(stdin) = child.stdin.as_mut() {
            stdin
                .write_all(format!("{USER}:{PASSWORD}").as_bytes())
                .expect("write to base64");
        }
        encoded.extend(child.wait_with_output().expect("base64").stdout);
        String::from_utf8(encoded).expect("base64 text")
    };
    std::fs::write(
        docker_config.path().join("config.json"),
        format!(
            r#"{{"auths": {{"{}": {{"auth": "{auth}"}}}}}}"#,
            registry.host()
        ),
    )
    .expect("write the docker config");
    let binary = cks_iso();

    let (a_out, a_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let a = runner_inputs(&upstream, a_out.path(), a_cache.path(), &url);
    let (a_sha, a_err) = build_process(&binary, &a, docker_config.path());
    assert!(!a_err.contains("warning: cache registry"), "{a_err}");

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_cache) = (
        tempfile::tempdir().expect("out"),
        tempfile::tempdir().expect("cache"),
    );
    let b = runner_inputs(&upstream, b_out.path(), b_cache.path(), &url);
    let (b_sha, b_err) = build_process(&binary, &b, docker_config.path());
    assert_eq!(b_sha, a_sha);
    assert!(!b_err.contains("warning: cache registry"), "{b_err}");
    assert_eq!(
        upstream_bytes(&upstream),
        Vec::<String>::new(),
        "runner B took every file and blob from the token-auth cache registry"
    );
}
