//! A cache registry over HTTPS (the real `docker-registry` with a certificate from a CA the test
//! makes): trusted with `--ca-file`; without it, one warning that names the certificate problem
//! and the flag, and the build goes on from upstream.

use std::path::Path;

use cks_builder::pipeline::{Inputs, Request};
use cks_e2e::{run_build, start_upstream};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::registry::{Auth, Registry};

use super::support::{cache_warnings, upstream_bytes, without_signatures};

fn tls_runner(
    upstream: &DemoUpstream,
    out: &Path,
    dir: &Path,
    url: &str,
    ca: Option<&Path>,
) -> Inputs {
    let mut inputs = without_signatures(upstream, out);
    inputs.cache_dir = Some(dir.to_path_buf());
    inputs.cache_registry = Some(url.to_string());
    inputs.ca_file = ca.map(Path::to_path_buf);
    inputs
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cache_registry_over_https_is_used_with_ca_file_and_warned_about_without() {
    let upstream = start_upstream(DemoConfig::default()).await;
    let registry = Registry::start_tls(Auth::None).expect("docker-registry over TLS starts");
    let url = format!("https://{}/ci/cks-cache", registry.host());
    let ca = registry.ca_file().expect("the registry's CA");
    let dirs = || {
        (
            tempfile::tempdir().expect("out"),
            tempfile::tempdir().expect("cache"),
        )
    };

    let (a_out, a_dir) = dirs();
    let a = tls_runner(&upstream, a_out.path(), a_dir.path(), &url, Some(&ca));
    let cold = run_build(&a, Request::default()).await.expect("runner A");
    assert!(
        cold.warnings.iter().all(|w| !w.contains("cache registry")),
        "{:?}",
        cold.warnings
    );
    let pushed = cold.cache_registry.expect("statistics").pushed();
    assert!(pushed > 0, "runner A pushed over HTTPS");

    upstream.file_server().reset_counts();
    upstream.registry().log().reset();
    let (b_out, b_dir) = dirs();
    let b = tls_runner(&upstream, b_out.path(), b_dir.path(), &url, Some(&ca));
    let warm = run_build(&b, Request::default()).await.expect("runner B");
    assert_eq!(warm.sha256, cold.sha256);
    assert_eq!(warm.cache_registry.expect("statistics").iso.hits, 1);
    assert_eq!(
        upstream_bytes(&upstream),
        Vec::<String>::new(),
        "runner B took every file and blob from the HTTPS cache registry"
    );

    let (c_out, c_dir) = dirs();
    let c = tls_runner(&upstream, c_out.path(), c_dir.path(), &url, None);
    let untrusted = run_build(&c, Request::default())
        .await
        .expect("a build whose cache registry's CA is unknown succeeds");
    assert_eq!(untrusted.sha256, cold.sha256);
    let warnings = cache_warnings(&untrusted);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].contains("certificate") && warnings[0].contains("--ca-file"),
        "{}",
        warnings[0]
    );
    assert!(!upstream_bytes(&upstream).is_empty(), "it went to upstream");
}
