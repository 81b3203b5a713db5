//! A hostile registry (the fixture file server laid out as `/v2/...`): an image of 25,000
//! layers, a config announced at 512 MiB, an endless manifest or token answer and a 503 with a
//! 512 MiB body are refused naming the image or URL, the limit and the flag, and nothing large
//! is read or written.

use std::path::Path;

use cks_builder::progress::NoProgress;
use cks_builder::registry::{Arch, ImageRequest, PullOptions, RegistryError, pull_images};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::http::{Fault, FileServer};
use cks_pinning::limits::{LimitKind, Limits};

const ORIGIN: &str = "registry.example.com";
const OCI_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";

fn digest(n: usize) -> String {
    format!("sha256:{n:064x}")
}

/// A single-platform image manifest with `layers` layers and a config of `config_size` bytes.
fn manifest(layers: usize, config_size: u64) -> String {
    let layers: Vec<String> = (0..layers)
        .map(|n| {
            format!(
                r#"{{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"{}","size":1}}"#,
                digest(n + 1)
            )
        })
        .collect();
    format!(
        r#"{{"schemaVersion":2,"mediaType":"{OCI_MANIFEST}","config":{{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"{}","size":{config_size}}},"layers":[{}]}}"#,
        digest(0),
        layers.join(",")
    )
}

/// A file server playing the registry, with `test/<name>:1.0` answering `body`.
fn registry(dir: &Path, name: &str, body: &str) -> FileServer {
    let path = dir.join(format!("v2/test/{name}/manifests"));
    std::fs::create_dir_all(&path).expect("registry tree");
    std::fs::write(path.join("1.0"), body).expect("manifest");
    FileServer::start(dir).expect("file server")
}

fn options(server: &FileServer) -> PullOptions {
    let host = server.addr().to_string();
    let mut options = PullOptions::new(Arch::Amd64);
    options.mirrors = vec![format!("{ORIGIN}=http://{host}")];
    options.insecure = vec![host];
    options.retry = RetryPolicy::immediate(1);
    options
}

async fn pull(name: &str, out: &Path, options: &PullOptions) -> RegistryError {
    let request = ImageRequest {
        reference: cks_pinning::image::ImageRef::parse(&format!("{ORIGIN}/test/{name}:1.0"))
            .expect("reference"),
        tarball_name: format!("{name}.tar"),
    };
    pull_images(&[request], out, options, &NoProgress)
        .await
        .expect_err("the pull is refused")
}

fn files_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_of_25000_layers_is_refused_before_a_blob_is_fetched() {
    let dir = tempfile::tempdir().expect("dir");
    let server = registry(dir.path(), "layers", &manifest(25_000, 100));
    let out = dir.path().join("out");
    let err = pull("layers", &out, &options(&server)).await;
    let text = err.to_string();
    assert!(
        matches!(
            &err,
            RegistryError::OverLimit {
                kind: LimitKind::Layers,
                ..
            }
        ),
        "{err:?}"
    );
    for part in [
        "registry.example.com/test/layers:1.0",
        "25000 layers",
        "layers limit of 1000 layers",
        "--limit layers=SIZE",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    assert_eq!(server.requests("/v2/test/layers/manifests/1.0"), 1);
    assert_eq!(server.total_requests(), 1, "no blob was asked for");
    assert!(files_in(&out).is_empty(), "{:?}", files_in(&out));

    // Raised, the same image gets as far as its (missing) blobs.
    let mut raised = options(&server);
    raised.limits = Limits::default();
    raised.limits.set(LimitKind::Layers, 30_000);
    let err = pull("layers", &out, &raised).await;
    assert!(
        !matches!(err, RegistryError::OverLimit { .. }),
        "raised: {err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_512_mib_image_config_is_refused_before_it_is_fetched() {
    let dir = tempfile::tempdir().expect("dir");
    let server = registry(dir.path(), "config", &manifest(2, 512 << 20));
    let out = dir.path().join("out");
    let err = pull("config", &out, &options(&server)).await;
    let text = err.to_string();
    for part in [
        "registry.example.com/test/config:1.0",
        &digest(0),
        "oci limit of 4 MiB",
        "--limit oci=SIZE",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    assert_eq!(server.total_requests(), 1, "the config was not asked for");
    assert!(files_in(&out).is_empty(), "{:?}", files_in(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_manifest_is_cut_off_at_the_oci_limit() {
    let dir = tempfile::tempdir().expect("dir");
    let server = registry(dir.path(), "endless", "{}");
    server.always(
        "/v2/test/endless/manifests/1.0",
        Fault::Flood {
            status: 200,
            length: None,
            fill: b"{\"a\":[",
        },
    );
    let out = dir.path().join("out");
    let err = pull("endless", &out, &options(&server)).await;
    let text = err.to_string();
    let url = server.url("/v2/test/endless/manifests/1.0");
    for part in [url.as_str(), "oci limit of 4 MiB", "--limit oci=SIZE"] {
        assert!(text.contains(part), "{part}: {text}");
    }
    assert_eq!(
        server.requests("/v2/test/endless/manifests/1.0"),
        1,
        "a body over the limit is not retried"
    );
    assert!(
        server.body_bytes_sent() < 64 << 20,
        "{} bytes sent",
        server.body_bytes_sent()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_503_with_a_512_mib_body_is_reported_without_reading_it() {
    let dir = tempfile::tempdir().expect("dir");
    let server = registry(dir.path(), "busy", "{}");
    server.always(
        "/v2/test/busy/manifests/1.0",
        Fault::Flood {
            status: 503,
            length: Some(512 << 20),
            fill: b"{\"errors\":[{\"code\":\"UNAVAILABLE\",\"message\":\"busy\"}]}",
        },
    );
    let out = dir.path().join("out");
    let err = pull("busy", &out, &options(&server)).await;
    let text = err.to_string();
    assert!(
        text.contains("503") && text.contains("/v2/test/busy/manifests/1.0"),
        "{text}"
    );
    let attempts = server.requests("/v2/test/busy/manifests/1.0");
    assert!(attempts >= 1);
    assert!(
        server.body_bytes_sent() < attempts * (32 << 20),
        "{} bytes sent in {attempts} answers",
        server.body_bytes_sent()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_token_answer_is_cut_off_at_the_answer_limit() {
    let dir = tempfile::tempdir().expect("dir");
    let server = registry(dir.path(), "private", "{}");
    let realm = server.url("/token");
    server.always(
        "/v2/test/private/manifests/1.0",
        Fault::Challenge {
            realm: realm.clone(),
        },
    );
    server.always(
        "/token",
        Fault::Flood {
            status: 200,
            length: None,
            fill: b"{\"token\":\"",
        },
    );
    let out = dir.path().join("out");
    let err = pull("private", &out, &options(&server)).await;
    let text = err.to_string();
    for part in [
        realm.as_str(),
        "answer limit of 1 MiB",
        "--limit answer=SIZE",
    ] {
        assert!(text.contains(part), "{part}: {text}");
    }
    assert!(
        server.body_bytes_sent() < 64 << 20,
        "{} bytes sent",
        server.body_bytes_sent()
    );
}
