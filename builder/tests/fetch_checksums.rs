//! Published checksums are verified in each upstream format; a mismatch is refused and leaves
//! nothing behind; a file with no published checksum is recorded with its computed digest.

use std::path::Path;

use cks_builder::fetch::{Checksum, ChecksumStatus, FetchError, FetchOptions, Fetcher, FileSpec};
use cks_builder::retry::RetryPolicy;
use cks_fixtures::http::FileServer;
use sha2::{Digest, Sha256};

fn sha(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn fetcher() -> Fetcher {
    Fetcher::new(FetchOptions {
        retry: RetryPolicy::immediate(3),
        ..FetchOptions::default()
    })
    .expect("fetcher")
}

fn write(root: &Path, relative: &str, bytes: &[u8]) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, bytes).expect("write");
}

fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

#[tokio::test]
async fn verifies_a_bare_digest_beside_the_url_as_dl_k8s_io_publishes() {
    let root = tempfile::tempdir().expect("temp dir");
    let body = b"kubeadm binary bytes".repeat(1000);
    write(
        root.path(),
        "release/v1.33.1/bin/linux/amd64/kubeadm",
        &body,
    );
    write(
        root.path(),
        "release/v1.33.1/bin/linux/amd64/kubeadm.sha256",
        sha(&body).as_bytes(),
    );
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let url = server.url("/release/v1.33.1/bin/linux/amd64/kubeadm");
    let spec = FileSpec::new("k8s/kubeadm", &url, out.path().join("kubeadm"))
        .checksum(Checksum::sha256_sidecar());
    let file = fetcher().fetch(&spec).await.expect("verified");
    assert_eq!(file.sha256, sha(&body));
    assert_eq!(
        file.checksum,
        ChecksumStatus::Verified {
            source: format!("{url}.sha256")
        }
    );
}

#[tokio::test]
async fn verifies_hex_and_name_sidecars_as_cni_and_crictl_publish() {
    let root = tempfile::tempdir().expect("temp dir");
    let body = b"cni tarball".repeat(500);
    let name = "cni-plugins-linux-amd64-v1.6.2.tgz";
    write(root.path(), name, &body);
    write(
        root.path(),
        &format!("{name}.sha256"),
        format!("{}  {name}\n", sha(&body)).as_bytes(),
    );
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new(
        "cni",
        server.url(&format!("/{name}")),
        out.path().join(name),
    )
    .checksum(Checksum::sha256_sidecar());
    let file = fetcher().fetch(&spec).await.expect("verified");
    assert!(matches!(file.checksum, ChecksumStatus::Verified { .. }));
    assert_eq!(file.sha256, sha(&body));
}

#[tokio::test]
async fn picks_the_line_for_the_file_from_etcd_sha256sums() {
    let root = tempfile::tempdir().expect("temp dir");
    let body = b"etcd tarball".repeat(500);
    let name = "etcd-v3.5.21-linux-arm64.tar.gz";
    write(root.path(), &format!("v3.5.21/{name}"), &body);
    let sums = format!(
        "{}  etcd-v3.5.21-darwin-amd64.zip\n{}  {name}\n{}  etcd-v3.5.21-linux-amd64.tar.gz\n",
        sha(b"a"),
        sha(&body),
        sha(b"b")
    );
    write(root.path(), "v3.5.21/SHA256SUMS", sums.as_bytes());
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let list = server.url("/v3.5.21/SHA256SUMS");
    let spec = FileSpec::new(
        "etcd",
        server.url(&format!("/v3.5.21/{name}")),
        out.path().join(name),
    )
    .checksum(Checksum::List { url: list.clone() });
    let file = fetcher().fetch(&spec).await.expect("verified");
    assert_eq!(file.checksum, ChecksumStatus::Verified { source: list });
}

#[tokio::test]
async fn refuses_a_checksum_mismatch_naming_file_expected_and_actual() {
    let root = tempfile::tempdir().expect("temp dir");
    let body = b"tampered".repeat(100);
    let wrong = sha(b"what was published");
    write(root.path(), "kubelet", &body);
    write(root.path(), "kubelet.sha256", wrong.as_bytes());
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new(
        "k8s/kubelet",
        server.url("/kubelet"),
        out.path().join("kubelet"),
    )
    .checksum(Checksum::sha256_sidecar());
    let err = fetcher().fetch(&spec).await.expect_err("mismatch");
    let text = err.to_string();
    assert!(
        text.contains("k8s/kubelet") && text.contains(&wrong) && text.contains(&sha(&body)),
        "{text}"
    );
    assert!(matches!(err.error, FetchError::ChecksumMismatch { .. }));
    assert_eq!(err.attempts, 1, "a mismatch is not retried");
    assert_eq!(server.requests("/kubelet"), 1);
    assert!(entries(out.path()).is_empty(), "{:?}", entries(out.path()));
}

#[tokio::test]
async fn refuses_a_pinned_digest_mismatch_and_accepts_a_match() {
    let root = tempfile::tempdir().expect("temp dir");
    write(root.path(), "f", b"content");
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let pinned = |sha256: String| Checksum::Pinned { sha256 };
    let bad =
        FileSpec::new("f", server.url("/f"), out.path().join("f")).checksum(pinned(sha(b"x")));
    let err = fetcher().fetch(&bad).await.expect_err("pinned mismatch");
    assert!(
        matches!(err.error, FetchError::ChecksumMismatch { .. }),
        "{err}"
    );
    assert!(entries(out.path()).is_empty());
    let good = bad.checksum(pinned(sha(b"content").to_uppercase()));
    let file = fetcher().fetch(&good).await.expect("pinned match");
    assert_eq!(
        file.checksum,
        ChecksumStatus::Verified {
            source: "pinned".into()
        }
    );
    let nonsense = good.checksum(pinned("abc".into()));
    let err = fetcher().fetch(&nonsense).await.expect_err("not hex");
    assert!(matches!(err.error, FetchError::BadDigest { .. }), "{err}");
}

#[tokio::test]
async fn a_missing_published_checksum_is_an_error_not_a_skip() {
    let root = tempfile::tempdir().expect("temp dir");
    write(root.path(), "crictl.tar.gz", b"tarball");
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new("crictl", server.url("/crictl.tar.gz"), out.path().join("c"))
        .checksum(Checksum::sha256_sidecar());
    let err = fetcher().fetch(&spec).await.expect_err("no sidecar");
    assert!(
        matches!(err.error, FetchError::ChecksumFile { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("crictl.tar.gz.sha256"), "{err}");
    assert!(entries(out.path()).is_empty());
}

#[tokio::test]
async fn records_the_computed_digest_when_nothing_is_published() {
    let root = tempfile::tempdir().expect("temp dir");
    write(root.path(), "calico.yaml", b"kind: List\n");
    let server = FileServer::start(root.path()).expect("server");
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new(
        "network",
        server.url("/calico.yaml"),
        out.path().join("n.yaml"),
    );
    let file = fetcher().fetch(&spec).await.expect("fetched");
    assert_eq!(file.checksum, ChecksumStatus::Computed);
    assert_eq!(file.sha256, sha(b"kind: List\n"));
    assert_eq!(file.upstream_sha256, file.sha256);
}

#[tokio::test]
async fn a_flaky_checksum_file_retries_the_whole_download() {
    let root = tempfile::tempdir().expect("temp dir");
    let body = b"kubelet".repeat(100);
    write(root.path(), "kubelet", &body);
    write(root.path(), "kubelet.sha256", sha(&body).as_bytes());
    let server = FileServer::start(root.path()).expect("server");
    server.schedule("/kubelet.sha256", [cks_fixtures::http::Fault::Status(502)]);
    let out = tempfile::tempdir().expect("temp dir");
    let spec = FileSpec::new(
        "kubelet",
        server.url("/kubelet"),
        out.path().join("kubelet"),
    )
    .checksum(Checksum::sha256_sidecar());
    let file = fetcher()
        .fetch(&spec)
        .await
        .expect("verified on the second attempt");
    assert_eq!(file.attempts, 2);
    assert_eq!(server.requests("/kubelet"), 2);
    assert_eq!(server.requests("/kubelet.sha256"), 2);
    assert!(matches!(file.checksum, ChecksumStatus::Verified { .. }));
}
