//! Image pulls from the real `docker-registry` over TLS, its certificate signed by a CA made for
//! the test: trusted with `--ca-file` (`PullOptions::ca_files`), refused without it with an error
//! that names the certificate problem and the flag.

use cks_builder::progress::NoProgress;
use cks_builder::registry::{Arch, ImageRequest, PullOptions, pull_images};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::oci::TestImages;
use cks_fixtures::registry::{Auth, Registry};

const ORIGIN: &str = "registry.example.com";

fn options(registry: &Registry, ca_files: Vec<std::path::PathBuf>) -> PullOptions {
    let mut options = PullOptions::new(Arch::Amd64);
    options.mirrors = vec![format!("{ORIGIN}=https://{}", registry.host())];
    options.retry = RetryPolicy::immediate(1);
    options.ca_files = ca_files;
    options
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tls_registry_signed_by_a_private_ca_is_pulled_with_ca_file_and_refused_without() {
    let work = tempfile::tempdir().expect("tempdir");
    let images = TestImages::build(&work.path().join("layout")).expect("test images");
    let registry = Registry::start_tls(Auth::None).expect("docker-registry over TLS starts");
    assert_eq!(registry.scheme(), "https");
    registry
        .push(images.layout.path(), "multi", "test/multi", "1.0")
        .expect("skopeo push");
    let requests = [ImageRequest {
        reference: cks_pinning::image::ImageRef::parse(&format!("{ORIGIN}/test/multi:1.0"))
            .expect("reference"),
        tarball_name: "multi.tar".into(),
    }];
    let ca = registry.ca_file().expect("the registry's CA");

    let trusted = work.path().join("trusted");
    let report = pull_images(
        &requests,
        &trusted,
        &options(&registry, vec![ca]),
        &NoProgress,
    )
    .await
    .expect("the pull trusts the CA given");
    assert_eq!(report.images.len(), 1);
    assert!(trusted.join("multi.tar").is_file());

    let refused = work.path().join("refused");
    let error = pull_images(
        &requests,
        &refused,
        &options(&registry, Vec::new()),
        &NoProgress,
    )
    .await
    .expect_err("an unknown CA is refused")
    .to_string();
    assert!(
        error.contains("certificate") && error.contains("--ca-file"),
        "{error}"
    );
    assert!(!refused.join("multi.tar").exists(), "nothing was written");
}

#[tokio::test]
async fn an_unreadable_ca_file_for_pulls_is_refused_naming_it() {
    let registry = Registry::start_tls(Auth::None).expect("docker-registry over TLS starts");
    let out = tempfile::tempdir().expect("tempdir");
    let missing = out.path().join("no-such-ca.pem");
    let requests = [ImageRequest {
        reference: cks_pinning::image::ImageRef::parse(&format!("{ORIGIN}/test/multi:1.0"))
            .expect("reference"),
        tarball_name: "multi.tar".into(),
    }];
    let error = pull_images(
        &requests,
        out.path(),
        &options(&registry, vec![missing.clone()]),
        &NoProgress,
    )
    .await
    .expect_err("refused")
    .to_string();
    assert!(error.contains(&missing.display().to_string()), "{error}");
}
