//! A registry's `Docker-Content-Digest` answer is parsed where it arrives: one that names
//! sha256 but is not a digest is a clear error naming the answer and the image, and no tarball
//! is written.

use cks_builder::progress::NoProgress;
use cks_builder::registry::{Arch, ImageRequest, PullOptions, RegistryError, pull_images};
use cks_fixtures::demo::{DemoConfig, DemoUpstream};
use cks_fixtures::inprocess::registry::faults::Fault;
use cks_pinning::image::ImageRef;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_digest_header_is_refused_naming_the_answer() {
    let upstream = DemoUpstream::start(&DemoConfig::default()).expect("demo upstream");
    let image = ImageRef::parse(&upstream.images()[0]).expect("a reference");
    let path = format!(
        "/v2/{}/manifests/{}",
        image.repository(),
        image.tag().expect("a tag")
    );
    let bad = "sha256:../../../etc/passwd";
    upstream
        .registry()
        .inject(&path, 100, Fault::DigestHeader(bad.to_string()));
    let mut options = PullOptions::new(Arch::Amd64);
    options.mirrors = upstream.registry_mirrors();
    options.insecure = upstream.insecure_registries();
    let out = tempfile::tempdir().expect("out dir");
    let requests = ImageRequest::for_images(std::slice::from_ref(&image));
    let err = pull_images(&requests, out.path(), &options, &NoProgress)
        .await
        .expect_err("a malformed digest header");
    assert!(
        matches!(&err, RegistryError::BadDigestHeader { value, .. } if value == bad),
        "{err:?}"
    );
    let text = err.to_string();
    assert!(
        text.contains(bad) && text.contains(&image.to_string()),
        "{text}"
    );
    let left: Vec<_> = std::fs::read_dir(out.path())
        .expect("the out dir")
        .map(|e| e.expect("an entry").file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
